package sandbox_test

import (
	"path/filepath"
	"testing"

	"github.com/guard-sh/guard/sandbox"
)

// TestAttackLayerReachesSecret: an approved install (the network
// granted: `npm install` runs every package's scripts) plants a program
// in ~/.cache, which lands in guard's layer. A later run with a
// revealed secret (`aws s3 ls` reads ~/.aws) or the daemons' sockets
// that runs it hands it what the install never had: on eed3eff the
// network runs and these shared one layer, and the planted program
// copied ~/.aws/credentials into the workspace. Now such runs see no
// shared layer (a layer of their own, removed after them); the control:
// a later network run still sees the download, and nothing reached the
// user's cache.
func TestAttackLayerReachesSecret(t *testing.T) {
	c := newCacheCase(t)
	tool := filepath.Join(c.f.home, ".cache/tool/helper.sh")
	loot := c.f.p("ws/loot")
	withNet := c.spec
	withNet.Net = true
	mustSucceed(t, run(t, withNet, "sh", "-c", `printf '#!/bin/sh\ncat "$HOME/.aws/credentials" > "$1" 2>/dev/null\necho ran\n' > "$0"`, tool))
	secret := c.spec
	secret.Reveal = []string{filepath.Join(c.f.home, ".aws")}
	secret.Env = append(secret.Env, "HOME="+c.f.home)
	daemons := c.spec
	daemons.Daemons = true
	for _, w := range []struct {
		name string
		spec sandbox.Spec
	}{{"revealed secret", secret}, {"daemons", daemons}} {
		t.Run(w.name, func(t *testing.T) {
			o := run(t, w.spec, "sh", "-c", `sh "$0" "$1" 2>/dev/null || echo no-tool; echo made > "$2"`, tool, loot, filepath.Join(c.f.home, ".cache/tool/own"))
			if o.stdout != "no-tool\n" {
				t.Errorf("a run with more to give ran what a network run planted in the cache: %q", o.stdout)
			}
			if got := readFile(t, loot); got != "<absent>" {
				t.Errorf("the planted program copied the revealed secret into the workspace: %q", got)
			}
		})
	}
	t.Run("control: a network run sees the download, the user's cache does not", func(t *testing.T) {
		o := run(t, withNet, "sh", "-c", `test -f "$0" && echo seen; test -f "$1" || echo own-gone`, tool, filepath.Join(c.f.home, ".cache/tool/own"))
		if o.stdout != "seen\nown-gone\n" {
			t.Errorf("a later network run reads %q, want the download and none of the sealed runs' writes", o.stdout)
		}
		if got := readFile(t, tool); got != "<absent>" {
			t.Errorf("the download reached the user's cache: %q", got)
		}
	})
}

// TestAttackLayerWidensRun: what a sandboxed run writes to ~/.cache
// lands in guard's layer, and later sandboxed runs use it. A level A
// build (no network, nothing revealed) rewrites a go-build entry there;
// a later run with more to give — the network (an approved install), a
// revealed secret, the daemons' sockets — must not run it: wide runs
// see a layer of their own over the user's caches, never the narrow
// one. The control: a narrow run still sees what a wide one (a download)
// put in the cache, below its own writes. Fails on 6ee89b7 (the wide
// runs read "poisoned" and the planted entry).
func TestAttackLayerWidensRun(t *testing.T) {
	c := newCacheCase(t)
	mustSucceed(t, run(t, c.spec, "sh", "-c", `echo poisoned > "$1"; echo planted > "$2"`, "sh", c.entry, c.planted))
	c.real(t)
	fetched := filepath.Join(c.f.home, ".cache/go-build/ab/fetched-d")
	withNet := c.spec
	withNet.Net = true
	revealed := c.spec
	revealed.Reveal = []string{filepath.Join(c.f.home, ".kube")}
	daemons := c.spec
	daemons.Daemons = true
	for _, w := range []struct {
		name string
		spec sandbox.Spec
	}{{"network", withNet}, {"revealed secret", revealed}, {"daemons", daemons}} {
		t.Run(w.name, func(t *testing.T) {
			o := run(t, w.spec, "sh", "-c", `cat "$1"; cat "$2" 2>/dev/null || echo no-planted`, "sh", c.entry, c.planted)
			if o.stdout != "ORIGINAL\nno-planted\n" {
				t.Errorf("a wide run reads %q, want the user's entry and no planted one (a narrow run's writes)", o.stdout)
			}
		})
	}
	t.Run("control: a narrow run sees a download", func(t *testing.T) {
		mustSucceed(t, run(t, withNet, "sh", "-c", `echo fetched > "$1"`, "sh", fetched))
		o := run(t, c.spec, "sh", "-c", `cat "$1" "$2" "$3"`, "sh", fetched, c.entry, c.planted)
		mustSucceed(t, o)
		if o.stdout != "fetched\npoisoned\nplanted\n" {
			t.Errorf("a narrow run reads %q, want the wide layer's download below its own writes", o.stdout)
		}
		if got := readFile(t, fetched); got != "<absent>" {
			t.Errorf("the download reached the user's cache: %q", got)
		}
		c.real(t)
	})
}
