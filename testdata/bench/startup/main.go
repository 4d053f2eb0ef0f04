// Command startup measures whole-process start-up, side by side: every
// command is spawned by this same harness (no shell in between, stdin from a
// file where one is given), one run of each in turn, in rounds, so that load
// on a shared machine falls on all of them alike. It prints each command's median wall time (spawn to
// reaped) and its ratio to the first command, the reference.
//
// usage: startup [-rounds N] [-runs N] [-warmup N] 'name=command [< file]' ...
//
// The command is split into words as a shell would (quotes, no expansion of
// anything but $VARS from the environment); a trailing '< file' makes that
// file the command's stdin, opened afresh for every run. Without one, stdin
// is /dev/null. stdout and stderr go to /dev/null. A command that exits
// non-zero stops the measurement (exit 1), as hyperfine does.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"mvdan.cc/sh/v3/shell"
)

type bench struct {
	name  string
	argv  []string
	stdin string
	times []time.Duration
}

func main() {
	rounds := flag.Int("rounds", 8, "rounds; every command runs in each")
	runs := flag.Int("runs", 40, "measured runs per command per round")
	warmup := flag.Int("warmup", 3, "unmeasured runs before each command's runs in a round")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startup [-rounds N] [-runs N] [-warmup N] 'name=command [< file]' ...")
		os.Exit(2)
	}
	var benches []*bench
	for _, spec := range flag.Args() {
		b, err := parseSpec(spec)
		if err != nil {
			fmt.Fprintf(os.Stderr, "startup: %v\n", err)
			os.Exit(2)
		}
		benches = append(benches, b)
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintf(os.Stderr, "startup: %v\n", err)
		os.Exit(1)
	}
	for r := range *rounds {
		// One run of each command in turn, so that a change of load on a
		// shared machine falls on all of them alike; the order rotates
		// every round, so no command always follows the same one.
		for k := range *warmup + *runs {
			for i := range benches {
				b := benches[(i+r)%len(benches)]
				d, err := once(b, null)
				if err != nil {
					fmt.Fprintf(os.Stderr, "startup: %s: %v\n", b.name, err)
					os.Exit(1)
				}
				if k >= *warmup {
					b.times = append(b.times, d)
				}
			}
		}
	}
	ref := median(benches[0].times)
	for _, b := range benches {
		m := median(b.times)
		fmt.Printf("%-28s median %7.3f ms  %5.2fx  (p25 %.3f, p75 %.3f, n=%d)\n", b.name,
			ms(m), float64(m)/float64(ref), ms(quantile(b.times, 0.25)), ms(quantile(b.times, 0.75)), len(b.times))
	}
}

func parseSpec(spec string) (*bench, error) {
	name, cmd, ok := strings.Cut(spec, "=")
	if !ok || name == "" {
		return nil, fmt.Errorf("%q: want name=command", spec)
	}
	b := &bench{name: name}
	if i := strings.LastIndex(cmd, " < "); i >= 0 {
		b.stdin = strings.TrimSpace(cmd[i+3:])
		cmd = cmd[:i]
	}
	argv, err := shell.Fields(cmd, nil)
	if err != nil {
		return nil, fmt.Errorf("%q: %v", spec, err)
	}
	if len(argv) == 0 {
		return nil, fmt.Errorf("%q: empty command", spec)
	}
	if b.argv = argv; !strings.Contains(argv[0], "/") {
		return nil, fmt.Errorf("%q: give the program's path, not its name", spec)
	}
	return b, nil
}

// once spawns the command and reaps it: the time is what a caller waits
// for, start-up, work and exit together.
func once(b *bench, null *os.File) (time.Duration, error) {
	in := null
	if b.stdin != "" {
		f, err := os.Open(b.stdin)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		in = f
	}
	attr := &os.ProcAttr{Files: []*os.File{in, null, null}}
	start := time.Now()
	p, err := os.StartProcess(b.argv[0], b.argv, attr)
	if err != nil {
		return 0, err
	}
	st, err := p.Wait()
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	if !st.Success() {
		return 0, fmt.Errorf("%s", st)
	}
	return d, nil
}

func median(t []time.Duration) time.Duration { return quantile(t, 0.5) }

func quantile(t []time.Duration, q float64) time.Duration {
	s := slices.Clone(t)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(pos)
	if lo+1 >= len(s) {
		return s[lo]
	}
	frac := pos - float64(lo)
	return s[lo] + time.Duration(frac*float64(s[lo+1]-s[lo]))
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
