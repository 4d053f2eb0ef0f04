#!/usr/bin/env python3
"""Whole-process start-up ratios, measured side by side.

Runs each command in rounds (hyperfine -N, a few runs per command per
round, so load on a shared machine falls on all of them alike), and prints
each command's median and its ratio to the first one (the reference).

usage: ratios.py ROUNDS RUNS 'name=command' ...
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def main():
    rounds, runs = int(sys.argv[1]), int(sys.argv[2])
    cmds = [a.split("=", 1) for a in sys.argv[3:]]
    times = {name: [] for name, _ in cmds}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        for _ in range(rounds):
            for name, cmd in cmds:
                subprocess.run(["hyperfine", "-N", "-w", "3", "-r", str(runs), "--export-json", out, cmd],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                with open(out) as f:
                    times[name] += json.load(f)["results"][0]["times"]
    ref = statistics.median(times[cmds[0][0]])
    for name, _ in cmds:
        m = statistics.median(times[name])
        print(f"{name:28s} median {m * 1000:7.3f} ms  {m / ref:5.2f}x  (n={len(times[name])})")


if __name__ == "__main__":
    main()
