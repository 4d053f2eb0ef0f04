package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/guard-sh/guard/sandbox/confine"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Errors for a command that could not be started. The error Run
// returns wraps one of them and reads "NAME: command not found".
var (
	ErrNotFound      = errors.New("command not found")
	ErrNotExecutable = errors.New("cannot execute")
)

// Result is the outcome of a run.
type Result struct {
	// Started reports whether the command was executed.
	Started bool
	// ExitCode is the command's exit status, 128+N when signal N killed
	// it. When the command was not started it is 127 (not found), 126
	// (not executable) or 125 (guard failed).
	ExitCode int
	// Signal is the signal that killed the command, or 0.
	Signal syscall.Signal
	// Violations are the changes made to protected paths, already
	// restored where possible. Any violation must fail the run.
	Violations []Violation
	// Grants is what the command was allowed, for hints.
	Grants Grants
	// Degraded lists what was not enforced on this kernel (empty when
	// the sandbox is complete). The caller must warn about each.
	Degraded []string
	// Unmounted is why the helper ran the command without its mounts
	// (user namespaces refused, or mounting refused in them), empty
	// when it made them; Degraded has a line for it too.
	Unmounted string
	// DroppedEnv lists the environment variables not passed on.
	DroppedEnv []string
	// Denials are stderr lines that mention a denial ("Permission
	// denied", "Operation not permitted", "Invalid cross-device link"),
	// when stderr was watched.
	Denials []string
}

// killDelay is how long a cancelled run gets between SIGTERM and SIGKILL.
const killDelay = 3 * time.Second

// Run runs argv confined by spec and waits for it. It returns an error
// when the command could not be run (bad spec, setup failure, not
// found); the command's own failure is its ExitCode, not an error.
// Cancelling ctx sends SIGTERM to the command's process group, then
// SIGKILL.
func Run(ctx context.Context, spec Spec, argv []string, stdio Stdio) (Result, error) {
	if len(argv) == 0 || argv[0] == "" {
		return Result{ExitCode: codeFailed}, errors.New("no command to run")
	}
	// The helper starts first: its start (a process and a Go runtime)
	// then runs alongside the validation, the grants and the snapshot.
	// It does nothing before it has a plan.
	l, lerr := launch(ctx, helperPath(), argv[0], stdio, spec.Home)
	return run(ctx, plan(spec, argv, stdio), stdio, l, lerr, nil)
}

// Helper is a sandbox helper started ahead of its run (Start), so that
// its start, a process and a Go runtime, runs alongside guard's review
// and decision instead of after them. It runs nothing before Run sends
// Go (Prepare may send it the plan before: it then confines itself and
// waits): a helper that is not used (the review refuses, or must ask
// the user first, or the decision record fails) is killed and reaped by
// Close, and nothing ran. Until Run it holds neither the terminal nor
// guard's signals: ^C still ends guard (and the helper with it, its
// lifeline gone).
type Helper struct {
	ctx   context.Context
	name  string
	stdio Stdio
	l     *launched
	err   error
	// launching is closed once l and err are set (Start may set them
	// from a goroutine: read them after it, through launched).
	launching chan struct{}
	// prep is the plan Prepare computes.
	prep *planning
	// guess is the plan Speculate computes, until Prepare or Run takes
	// it (to use, or to drop when it is not theirs) or Close drops it.
	guess *planning
	used  bool
	// exiting is the helper Run left exiting, for Close to reap.
	exiting *launched
}

// Start starts the helper of a run of the command name (argv[0]) with
// stdio; its start goes on alongside what the caller does next. Run or
// Close must follow; Start, Speculate, Prepare, Run and Close are
// called from one goroutine.
//
// As root the helper is forked here, not from a goroutine: a new
// goroutine waits for a thread of its own, and the helper then reaches
// its main later (measured: 0.3 ms later to fork, the whole run 0.27 ms
// slower). For any other user it is forked from a goroutine
// (startAsync): the fork of a user namespace and the writing of its id
// maps keep the forking thread about 0.9 ms, against 0.5 as root (Go's
// fork returns once the helper has exec'd), and guard's review, record
// and plan go on meanwhile (measured side by side, guard -- true as a
// normal user: 2.03 -> 1.95 times landrun).
func Start(ctx context.Context, name string, stdio Stdio) *Helper {
	h := &Helper{ctx: ctx, name: name, stdio: stdio, launching: make(chan struct{})}
	home := os.Getenv("HOME")
	start := func() {
		h.l, h.err = launch(ctx, helperPath(), name, stdio, home)
		close(h.launching)
	}
	if startAsync() {
		go start()
	} else {
		start()
	}
	return h
}

// startAsync reports whether Start forks the helper from a goroutine of
// its own: where it gets a user namespace (guard not root). Tests set it.
var startAsync = func() bool { return os.Geteuid() != 0 }

// launched waits for Start's launch.
func (h *Helper) launched() (*launched, error) {
	<-h.launching
	return h.l, h.err
}

// Prepare computes, in the background, the plan of the run of argv by
// spec: the validation, the grants, the private temp dir and the
// snapshot of the protected paths, alongside whatever guard does before
// Run (its decision record). The helper gets the plan at once and
// confines itself meanwhile too; it runs nothing before Run sends Go,
// and before Run the terminal and guard's signals stay guard's. Run
// given another spec or argv drops this plan (and this helper, if it
// has the plan) and computes its own.
//
// A plan Speculate computed for the very same spec and argv is used
// instead of computing it again; any other is dropped. When that plan
// is ready it is sent at once, from the caller's goroutine; when it is
// not, Speculate's goroutine sends it once it is, with no goroutine of
// Prepare's own to wait for a thread (0.3 ms and more).
func (h *Helper) Prepare(spec Spec, argv []string) {
	if h.used || h.prep != nil {
		return
	}
	spec, argv = spec.clone(), slices.Clone(argv)
	guess := h.guess
	h.guess = nil
	p := &planning{done: make(chan struct{})}
	h.prep = p
	// serve makes p the plan of this request from the guess g (nil:
	// none) and sends it to the helper.
	serve := func(g *prepared) {
		defer close(p.done)
		p.pr = g
		if g == nil || !g.made(spec, argv) {
			if g != nil {
				g.release()
			}
			p.pr = plan(spec, argv, h.stdio)
		}
		if l, err := h.launched(); p.pr.invalid == nil && p.pr.err == nil && err == nil {
			l.sendPlan(p.pr.encoded())
		}
	}
	if guess.handOff(serve) {
		return
	}
	if g := guess.ready(); g != nil && g.made(spec, argv) && h.launchedFits(g) {
		// The write fills an empty pipe: it does not wait for the
		// helper to read.
		serve(g)
		return
	}
	go serve(guess.wait())
}

// Speculate computes, in the background, the plan of the run of argv
// by spec before the caller knows it is the run's: a guess made before
// the review (a read-only run with the context's usual lists), so that
// the plan's cold start (resolving ~80 paths, listing the directories
// that hold them) runs alongside the review. Nothing of it reaches the
// helper unless Prepare, or Run, is then given the very same spec and
// argv (lists compare by their elements); for any other request it is
// dropped whole, and the plan is computed afresh: no path resolved for
// the guess is used for another spec. Call it before Prepare; the plan
// it computes must not depend on anything the caller writes between
// (guard opens its audit log, which creates its state directory,
// first).
func (h *Helper) Speculate(spec Spec, argv []string) {
	if h.used || h.prep != nil || h.guess != nil {
		return
	}
	spec, argv = spec.clone(), slices.Clone(argv)
	p := &planning{done: make(chan struct{})}
	h.guess = p
	go func() {
		pr := plan(spec, argv, h.stdio)
		if pr.invalid == nil && pr.err == nil {
			pr.encoded()
		}
		p.finish(pr)
	}()
}

// planning is a plan being computed in the background.
type planning struct {
	done chan struct{}
	pr   *prepared
	// then is what the computing goroutine does with the plan once it
	// is computed (handOff), unless it was finished before.
	mu       sync.Mutex
	then     func(*prepared)
	finished bool
}

// handOff has the goroutine computing p call then with the plan once it
// is computed. It reports false, and does nothing, when p is nil or is
// computed already: the caller then deals with p.pr itself.
func (p *planning) handOff(then func(*prepared)) bool {
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return false
	}
	p.then = then
	return true
}

// finish is the end of the goroutine computing p: pr is the plan, and
// what handOff asked for is done with it, on this goroutine.
func (p *planning) finish(pr *prepared) {
	p.mu.Lock()
	p.pr = pr
	then := p.then
	p.finished = true
	p.mu.Unlock()
	close(p.done)
	if then != nil {
		then(pr)
	}
}

// wait returns the plan once it is computed; nil for a nil planning.
func (p *planning) wait() *prepared {
	if p == nil {
		return nil
	}
	<-p.done
	return p.pr
}

// ready returns the plan if it is computed, without waiting; nil for a
// nil planning.
func (p *planning) ready() *prepared {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.finished {
		return nil
	}
	return p.pr
}

// prepared waits for the plan Prepare computes; nil without Prepare.
func (h *Helper) prepared() *prepared { return h.prep.wait() }

// takeGuess waits for the plan Speculate computes and takes it from h;
// nil without Speculate (or once taken).
func (h *Helper) takeGuess() *prepared {
	pr := h.guess.wait()
	h.guess = nil
	return pr
}

// Close kills and reaps a helper that was not used, and drops what
// Prepare made. After Run it reaps the helper, which Run may leave
// exiting once it has reported the command's end, and anything left;
// the caller must call it before it returns. On a nil Helper it does
// nothing. Its error is one of that last reaping (the command's outcome
// stands: the helper reported nothing of it left).
func (h *Helper) Close() error {
	if h == nil {
		return nil
	}
	if h.used {
		l := h.exiting
		h.exiting = nil
		if l == nil {
			return nil
		}
		_, _, _, err := l.reap()
		return err
	}
	h.used = true
	for _, pr := range []*prepared{h.prepared(), h.takeGuess()} {
		if pr != nil {
			pr.release()
		}
	}
	if l, err := h.launched(); err == nil {
		l.discard()
	}
	return nil
}

// Release is Close for a caller that exits right after it (guard's
// run). A helper that Run left exiting, having reported the command's
// end with nothing of it left, is not waited for: whatever else is
// guard's child is killed and reaped, as Close does, but the helper's
// own exit goes on in the background, and is reaped there (by guard's
// parent or init once guard has exited). That exit takes the end of the
// helper's mount namespace with it, which the kernel does before the
// exit can be waited for (dropping every mount, an RCU grace period):
// time guard's caller waited for (0.7-0.8 ms of a loaded guard -- true;
// BenchmarkHelperEnd, idle: 6.3-7.0 ms with Close, 6.1-6.4 with
// Release, where the next run overlaps the exit). A helper with an
// overlay of guard's cache layer is reaped as Close does: the next run
// mounts the same layer, and two overlays on one upper directory at
// once are undefined (the kernel warns, or refuses).
func (h *Helper) Release() error {
	if h == nil || !h.used || h.exiting == nil || h.exiting.layered {
		return h.Close()
	}
	l := h.exiting
	h.exiting = nil
	defer l.cleanup()
	// The helper's group, in which nothing is left (the helper reported
	// so); the helper's pid cannot be reused before it is reaped, below.
	syscall.Kill(-l.pid, syscall.SIGKILL)
	_, err := reapDescendants(l.pid, l.before)
	go l.cmd.Wait()
	return err
}

// launchedFits reports whether the helper is launched, and the plan g
// fits in its empty plan pipe (or launching failed: nothing to send).
func (h *Helper) launchedFits(g *prepared) bool {
	select {
	case <-h.launching:
		return h.err != nil || h.l.fits(g.encoded())
	default:
		return false
	}
}

// Run is the package's Run with the helper Start began, on the stdio
// given to Start; argv[0] must be the name given to Start.
func (h *Helper) Run(spec Spec, argv []string) (Result, error) {
	if h.used {
		return Result{ExitCode: codeFailed}, errors.New("sandbox helper already used")
	}
	if len(argv) == 0 || argv[0] != h.name {
		h.Close()
		return Result{ExitCode: codeFailed}, fmt.Errorf("sandbox helper started for %q, not for %q", h.name, argv)
	}
	h.launched()
	pr := h.prepared()
	if h.prep == nil {
		// No Prepare: a guess may be this run's plan (never sent).
		pr = h.takeGuess()
	}
	h.used = true
	if pr == nil || !pr.made(spec, argv) {
		if pr != nil {
			pr.release()
		}
		pr = plan(spec, argv, h.stdio)
		if h.err == nil && h.l.sent {
			// The helper has the other plan: a new one gets this.
			h.l.discard()
			h.l, h.err = launch(h.ctx, helperPath(), h.name, h.stdio, spec.Home)
		}
	}
	return run(h.ctx, pr, h.stdio, h.l, h.err, &h.exiting)
}

// prepared is a run's plan, computed before the helper gets it.
type prepared struct {
	// spec and argv are the request, as given (made compares them).
	spec Spec
	argv []string

	res     Result // Degraded, Grants, DroppedEnv so far
	invalid error  // the spec cannot be run (reported first)
	err     error  // the plan could not be made
	p       *confine.Plan
	enc     []byte // p encoded, once encoded asked for it
	tmp     string // the private temp dir, to remove
	snap    *snapshot
}

// encoded is the plan as the helper reads it, encoded once.
func (pr *prepared) encoded() []byte {
	if pr.enc == nil && pr.p != nil {
		pr.enc = pr.p.Encode()
	}
	return pr.enc
}

// plan validates spec and computes the plan of running argv with it.
func plan(spec Spec, argv []string, stdio Stdio) *prepared {
	pr := &prepared{spec: spec.clone(), argv: slices.Clone(argv), res: Result{ExitCode: codeFailed}}
	s, err := spec.validate()
	sup := probe()
	if err == nil {
		pr.res.Degraded = sup.Gaps(s.Net)
		if s.Require && len(pr.res.Degraded) > 0 {
			err = fmt.Errorf("%w: %s", ErrNotEnforced, strings.Join(pr.res.Degraded, "; "))
		}
	}
	if err != nil {
		pr.invalid = err
		return pr
	}
	pr.p, pr.tmp, pr.snap, pr.err = prepare(s, sup, argv, stdio, &pr.res)
	if pr.err == nil && s.Require && slices.Contains(pr.res.Degraded, runtimeTmpsGap) {
		pr.err = fmt.Errorf("%w: %s", ErrNotEnforced, runtimeTmpsGap)
	}
	return pr
}

// made reports whether pr is the plan of running argv by spec.
func (pr *prepared) made(spec Spec, argv []string) bool {
	return pr.spec.Same(spec) && slices.Equal(pr.argv, argv)
}

// release removes the private temp dir and drops the snapshot.
func (pr *prepared) release() {
	if pr.snap != nil {
		pr.snap.close()
	}
	if pr.tmp != "" {
		confine.RemoveTree(pr.tmp)
	}
}

// run is Run once the helper is launched (or failed to: lerr) and the
// plan is made. With later set, a helper that reports the command's end
// (everything it started already reaped) is left to exit on its own:
// run returns its launch in *later, for the caller to reap (Helper.Close)
// once it has done its own work, while the helper exits.
func run(ctx context.Context, pr *prepared, stdio Stdio, l *launched, lerr error, later **launched) (Result, error) {
	defer pr.release()
	res := pr.res
	err := pr.invalid
	if err == nil && lerr != nil {
		err = lerr
	}
	if err == nil {
		err = pr.err
	}
	if err != nil {
		if lerr == nil {
			l.discard()
		}
		return res, err
	}

	var (
		ps      *os.ProcessState
		denials []string
	)
	st, stErr, encErr := l.await(pr.p)
	if later != nil && st != nil && st.Ran && l.direct() && l.copiedErr() {
		// Nothing of the command is left and nothing is still to be
		// copied from its output: the helper's own exit, and guard's
		// reaping of it, can overlap the check and the caller's record.
		l.handBack()
		*later = l
		l.layered = len(pr.p.Overlays) > 0
		if l.watcher != nil {
			denials = l.watcher.denials()
		}
	} else {
		st, ps, denials, err = l.settle(st, stErr, encErr)
	}
	if err == nil && st != nil && st.Stale {
		// A guard-sandbox-exec from another build: run as before it
		// existed, re-executing guard itself.
		if l, err = launch(ctx, selfExe, pr.argv[0], stdio, pr.spec.Home); err == nil {
			st, ps, denials, err = l.finish(pr.p)
		}
	}
	res.Denials = denials
	res.Violations = pr.snap.check()
	if err != nil {
		return res, err
	}
	if st != nil && st.Ran {
		if st.Unmounted != "" {
			res.Unmounted = st.Unmounted
			res.Degraded = append(res.Degraded, unmountedGap+" ("+st.Unmounted+")")
		}
		res.Started = true
		res.ExitCode = st.Code
		res.Signal = syscall.Signal(st.Signal)
		return res, nil
	}
	if st != nil {
		res.ExitCode = st.Code
		switch st.Code {
		case codeNotFound:
			return res, fmt.Errorf("%s: %w", st.Name, ErrNotFound)
		case codeNotExecutable:
			return res, fmt.Errorf("%s: %w: %s", st.Name, ErrNotExecutable, st.Err)
		}
		return res, fmt.Errorf("sandbox setup: %s", st.Err)
	}
	res.Started = true
	ws := ps.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		res.Signal = ws.Signal()
		res.ExitCode = 128 + int(res.Signal)
	} else {
		res.ExitCode = ws.ExitStatus()
	}
	return res, nil
}

// privateTmps returns the directory of the runs' private temp dirs:
// guard-UID in the shared temp dir, made if need be, when it is a
// directory of this user's alone. On a shared machine another user may
// make that name first (or leave a symlink there): guard never puts its
// temp dirs where another user reaches them, and then takes guard-tmps
// in the user's runtime directory (/run/user/UID), when that is this
// user's alone, so that no other user can make anything in it (they
// could stop every sandboxed run otherwise). Neither: an error naming
// both. The helper covers the directory in every run but binds the
// run's own temp dir back (confine: ownTmp), so no run reaches
// another's.
func privateTmps() (string, error) { return privateTmpsIn(tmpsShared, tmpsRuntime) }

// tmpsShared and tmpsRuntime are where privateTmps looks (variables for
// tests): the shared temp dir, and the user's runtime directory.
var (
	tmpsShared  = tmpDir
	tmpsRuntime = "/run/user/" + strconv.Itoa(os.Geteuid())
)

// runtimeTmpsGap is Result.Degraded's line for a writing run whose temp
// dir is in the runtime directory (the fallback: another user holds
// /tmp/guard-UID): the directory is not covered whole, so a socket a
// daemon binds there during the run (an agent, the session bus) is
// reachable; those already there are covered one by one.
const runtimeTmpsGap = "runtime directory: not covered whole, as this run's temp dir is in it (another user holds /tmp/guard-UID); sockets bound there during the run are reachable"

// privateTmpsIn is privateTmps in the shared temp dir shared, with the
// runtime directory runtime to fall back on.
func privateTmpsIn(shared, runtime string) (string, error) {
	dir := filepath.Join(shared, "guard-"+strconv.Itoa(os.Geteuid()))
	err := makeAlone(dir)
	if err == nil {
		return dir, nil
	}
	if rerr := alone(runtime); rerr != nil {
		return "", fmt.Errorf("%w; the fallback: %w", err, rerr)
	}
	fallback := filepath.Join(runtime, "guard-tmps")
	if ferr := makeAlone(fallback); ferr != nil {
		return "", fmt.Errorf("%w; the fallback: %w", err, ferr)
	}
	return fallback, nil
}

// makeAlone makes the directory dir (0700) unless it is there, and
// checks that it is this user's alone (alone).
func makeAlone(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return alone(dir)
}

// alone checks that dir is a directory (not a symlink) this user owns
// and no one else may enter.
func alone(dir string) error {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return &fs.PathError{Op: "lstat", Path: dir, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return fmt.Errorf("%s is not a directory of this user's alone (mode %o, owner %d)", dir, st.Mode&0o7777, st.Uid)
	}
	return nil
}

// coveredTmps is tmps, for the helper to cover, unless the run's own
// trees other than its temp dir tmp lie in it (a guard run inside a
// sandboxed command whose workspace is that command's TMPDIR): the
// cover would hide them. That run is inside the outer run's view
// already, where no other run's temp dir is.
func coveredTmps(s Spec, tmps, tmp string, writable []string) string {
	for _, own := range append([]string{s.Workspace, s.Dir}, writable...) {
		if own != "" && withinClean(own, tmps) && (tmp == "" || !withinClean(own, tmp)) {
			return ""
		}
	}
	return tmps
}

// unmountedGap is Result.Degraded's line for a run whose helper could
// not mount: what the mounts would have done, and the network namespace
// a run without the network grant gets only from a helper with
// namespaces of its own (ownNet).
const unmountedGap = "the helper's mounts: guard's layer over ~/.cache and the download caches (the command wrote them), the read-only file system outside the writable trees (chmod, chown, attributes), a /dev/shm of its own, the other runs' temp dirs out of view, the read-only code caches, the covers over daemons' sockets and hidden directories, and, without the network grant, a network namespace of its own (an abstract unix socket name the command binds reaches your programs' clients)"

// prepare computes the plan (and the private temp dir, to remove once
// the run is over, even on error) and takes the snapshot of the
// protected paths, filling res's grants and dropped variables.
func prepare(s Spec, sup Support, argv []string, stdio Stdio, res *Result) (p *confine.Plan, tmp string, snap *snapshot, err error) {
	var reg *registration
	env := s.Env
	if env == nil {
		env = os.Environ()
	}
	env, res.DroppedEnv = filterEnv(env, s.KeepEnv)
	// Made for every run, so that each covers it (confine: ownTmp):
	// one made after a run began would be in that run's view.
	tmps, err := privateTmps()
	if err != nil {
		return nil, "", nil, fmt.Errorf("the runs' temp dirs: %w", err)
	}
	if s.Write {
		tmp, err = os.MkdirTemp(tmps, "run-")
		if err != nil {
			return nil, "", nil, fmt.Errorf("create private temp dir: %w", err)
		}
		env = setEnv(env, "TMPDIR", tmp)
		if withinClean(tmps, filepath.Clean(tmpsRuntime)) {
			// The fallback: the run's temp dir is in the runtime
			// directory, which the helper then cannot cover whole.
			res.Degraded = append(res.Degraded, runtimeTmpsGap)
		}
	}
	gs, err := buildGrants(s, terminals(stdio), tmp)
	if err != nil {
		return nil, tmp, nil, err
	}
	res.Grants = gs.grants
	p = &confine.Plan{Dir: s.Dir, Argv: argv, Env: env, Rules: make([]confine.Rule, len(gs.rules)), Tmp: tmp, Tmps: coveredTmps(s, tmps, tmp, gs.grants.Write), Require: s.Require, OwnNet: !s.Net}
	for i, r := range gs.rules {
		p.Rules[i] = confine.Rule{Path: r.Path, Access: r.Access}
	}
	if sup.ABI > 0 {
		p.Landlock = true
		p.HandledFS, p.HandledNet, p.Scoped = handled(sup.ABI, s.Net)
	}
	if sup.Seccomp {
		if p.Filter, err = seccompProgram(s.Net); err != nil {
			return nil, tmp, nil, err
		}
		// With the network the command may make TCP sockets, and
		// Landlock does not see a listen(2) that binds one itself.
		p.Listen = s.Net
	}
	p.Cover = coveredSockets(unixSockets(envValue(env, "XDG_RUNTIME_DIR")), s, tmp, env)
	p.CoverDirs, p.Conceal = socketDirs(s, tmp, gs.grants.Write, keptSockets(s, env))
	if s.Write && !s.Net {
		p.ReadOnly = codeCacheDirs(s.res, s.Home)
	}
	// Where the helper has a mount namespace, everything but the
	// writable trees is read-only there as well.
	p.Seal, p.Writable = true, gs.grants.Write
	if s.Write {
		p.Pinned = pinned(s.Workspace, gs.grants.Write)
	}
	if len(p.Cover) > maxSockets {
		return nil, tmp, nil, fmt.Errorf("%d unix sockets to cover, more than %d", len(p.Cover), maxSockets)
	}
	roots := protectRoots(s, gs.grants.Write)
	var cutoff time.Time
	if len(roots) > 0 && s.Runs != "" {
		// Registered before the snapshot, until the check is done
		// (runs.go): other runs' commands may be changing these paths.
		if reg, cutoff, err = register(s.Runs); err != nil {
			return nil, tmp, nil, fmt.Errorf("register the run in %s: %w", s.Runs, err)
		}
	}
	ovs, lay, err := cacheLayer(s, gs.grants.Write)
	if err != nil {
		reg.release()
		return nil, tmp, nil, fmt.Errorf("guard's layer over the cache: %w", err)
	}
	p.Overlays = ovs
	snap = takeSnapshot(s.res, roots, cutoff)
	snap.reg = reg
	snap.layer = lay
	for _, d := range sharedTmpDirs(s.Workspace) {
		p.Absent = append(p.Absent, snap.absentIn(d)...)
	}
	return p, tmp, snap, nil
}

// handled sizes the Landlock ruleset to the kernel's ABI: every
// filesystem right it knows is handled (so denied unless granted), TCP
// bind always and TCP connect without net, both scopes.
func handled(abi int, net bool) (fsSet, netSet, scoped uint64) {
	if abi >= 1 {
		fsSet = 1<<13 - 1
	}
	if abi >= 2 {
		fsSet |= ll.AccessFSRefer
	}
	if abi >= 3 {
		fsSet |= ll.AccessFSTruncate
	}
	if abi >= 5 {
		fsSet |= ll.AccessFSIoctlDev
	}
	if abi >= 9 {
		fsSet |= ll.AccessFSResolveUnix
	}
	if abi >= 4 {
		netSet = ll.AccessNetBindTCP
		if !net {
			netSet |= ll.AccessNetConnectTCP
		}
	}
	if abi >= 10 && !net {
		netSet |= ll.AccessNetBindUDP | ll.AccessNetConnectSendUDP
	}
	if abi >= 6 {
		scoped = ll.ScopeAbstractUnixSocket | ll.ScopeSignal
	}
	return fsSet, netSet, scoped
}

// launched is a helper started and waiting for its plan. guard starts
// it before computing the plan, so the helper's own start (a process
// and a Go runtime) runs alongside the grants and the snapshot.
type launched struct {
	ctx     context.Context
	cmd     *exec.Cmd
	pid     int
	planW   *os.File
	statR   *os.File
	tty     int
	before  []int // guard's children before the helper
	watcher *denialWatcher
	// back are the steps that give guard back the terminal and its
	// signals, undo the other steps that put guard back as it was; each
	// runs last first, back before undo.
	back, undo []func()
	// exited is closed once the helper has exited (not yet reaped).
	exited chan struct{}
	// sigs are the signals caught to relay: caughtEarly once caught is
	// closed, all of them once relaying (relaySignals).
	sigs     chan os.Signal
	caught   chan struct{}
	relaying bool
	// sent: the plan is sent (encErr: its write failed).
	sent   bool
	encErr error
	// errR is the read end of the command's stderr when the watcher
	// reads it; copied is closed once copyErr is done with it.
	errR   *os.File
	copied chan struct{}
	// layered: the helper's mounts include an overlay of guard's cache
	// layer, which the next run may mount too (see Helper.Release).
	layered bool
}

// launch starts the helper with stdio; name is the command's, for the
// helper's argv (ps shows it). The plan says where the command runs.
// home is the run's home directory, where its code caches are (the
// helper gets namespaces when there is something to cover or make
// read-only: needNamespaces). finish (or discard) must follow.
func launch(ctx context.Context, helper, name string, stdio Stdio, home string) (*launched, error) {
	l := &launched{ctx: ctx, tty: -1}
	ok := false
	defer func() {
		if !ok {
			l.cleanup()
		}
	}()
	planR, planW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox pipe: %w", err)
	}
	l.planW = planW
	l.undo = append(l.undo, func() { planR.Close(); planW.Close() })
	statR, statW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox pipe: %w", err)
	}
	l.statR = statR
	l.undo = append(l.undo, func() { statR.Close(); statW.Close() })

	var errW *os.File
	if stdio.WatchErr && stdio.Err != nil && !visibleInterposition(stdio) {
		// guard copies the command's stderr through the watcher itself
		// (copyErr), not exec.Cmd: the copy then ends when the helper
		// reports, without waiting for the helper's exit.
		l.watcher = &denialWatcher{w: stdio.Err}
		errR, w, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("sandbox pipe: %w", err)
		}
		l.errR, errW = errR, w
		l.undo = append(l.undo, func() { errR.Close(); w.Close() })
	}
	helperCmd := func(ns bool) *exec.Cmd {
		cmd := &exec.Cmd{
			Path:       helper,
			Args:       []string{"guard-sandbox", name},
			Env:        []string{confine.Env + "=1"},
			Stdin:      stdio.In,
			Stdout:     stdio.Out,
			Stderr:     stdio.Err,
			ExtraFiles: []*os.File{planR, statW},
			// A background process that keeps a stdio pipe open must not
			// keep guard waiting once the group is gone.
			WaitDelay: time.Second,
			// No parent-death signal: should guard die, the helper must
			// live on to kill what the command started (confine/watch.go);
			// the plan pipe's EOF tells it.
			SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
		}
		if errW != nil {
			cmd.Stderr = errW
		}
		if ns {
			namespaced(cmd)
		}
		return cmd
	}
	// The terminal and guard's signals are handed over with the plan
	// (handOver): until then the helper may be one that is never used.
	l.tty = terminalFD(stdio)
	if err := becomeSubreaper(); err != nil {
		return nil, err
	}
	spawnMu.Lock()
	l.before, err = confine.Children()
	var cmd *exec.Cmd
	if err == nil {
		// Namespaces cost a little: only where there are sockets.
		ns := !noUserns.Load() && needNamespaces(home)
		cmd = helperCmd(ns)
		err = startHelper(cmd)
		if err != nil && ns && namespacesRefused(err) {
			// No user namespaces for this user (a sysctl, a container's
			// seccomp profile, a security module): the helper runs in
			// guard's own, where it mounts nothing, and says so in its
			// report (Result.Degraded). Any other error (a limit a
			// concurrent command can reach) fails this run alone.
			noUserns.Store(true)
			cmd = helperCmd(false)
			err = startHelper(cmd)
		}
	}
	l.cmd = cmd
	if err != nil {
		spawnMu.Unlock()
		return nil, fmt.Errorf("start sandbox helper: %w", err)
	}
	pid := cmd.Process.Pid
	l.pid = pid
	helpers[pid] = true
	spawnMu.Unlock()
	l.undo = append(l.undo, func() {
		spawnMu.Lock()
		delete(helpers, pid)
		spawnMu.Unlock()
	})
	planR.Close()
	statW.Close()
	if errW != nil {
		errW.Close()
		l.copied = make(chan struct{})
		go l.copyErr()
	}
	l.catchEarly()
	ok = true
	return l, nil
}

// startHelper starts the helper's process (a variable for tests, which
// make it fail as a limit of the moment would).
var startHelper = (*exec.Cmd).Start

// copyErr copies the command's stderr through the watcher until every
// writer has closed it: the command and what it started, gone once the
// helper reports, and the helper, which closes its own before it
// reports. A write error ends the copy, as exec.Cmd's would.
func (l *launched) copyErr() {
	io.Copy(l.watcher, l.errR)
	l.errR.Close()
	close(l.copied)
}

// copiedErr reports whether the stderr copy is over, waiting for it
// until the helper has exited: once the helper has reported, the copy
// ends at once unless a process outside the run holds the pipe.
func (l *launched) copiedErr() bool {
	if l.copied == nil {
		return true
	}
	select {
	case <-l.copied:
		return true
	case <-l.exited:
		// Both may be ready at once (the helper exits as the copy reads
		// its last bytes): the copy done wins, so the early path is not
		// lost to select's random pick.
		select {
		case <-l.copied:
			return true
		default:
			return false
		}
	}
}

// handOver gives the helper, about to get its plan, the terminal's
// foreground when guard's group has it, so ^C and ^Z reach the command
// directly; cleanup takes it back.
func (l *launched) handOver() {
	pid := l.pid
	if l.tty >= 0 {
		// Moving the terminal between guard's group and the
		// command's is done from the background: SIGTTOU would stop
		// guard.
		signal.Ignore(syscall.SIGTTOU)
		l.back = append(l.back, func() { signal.Reset(syscall.SIGTTOU) })
		tty := l.tty
		if foreground(tty, unix.Getpgrp()) {
			unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, pid)
		}
		l.back = append(l.back, func() {
			if foreground(tty, pid) {
				unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
			}
		})
	}
}

// relaySignals relays guard's signals to the command's group until the
// run is over (cleanup). It is called once the plan is sent, alongside
// the helper's confinement (registering takes a round trip to the
// runtime's signal-mask thread per signal, 0.1-0.4 ms), and before Go
// is sent, so every signal guard gets once the command may run reaches
// it. Undoing it waits for the runtime's signal loop to be idle, so it
// is done after the run on the relay's goroutine, off the critical path
// too.
//
// The signals of caughtEarly are caught from the launch on (catchEarly),
// so that the runtime's signal thread and loop are running by then;
// those caught before the relay are dropped, as guard dropped them
// before it caught them.
func (l *launched) relaySignals() {
	l.relaying = true
	for drained := false; !drained; {
		select {
		case <-l.sigs:
		default:
			drained = true
		}
	}
	signal.Notify(l.sigs, relayedLate()...)
	done := make(chan struct{})
	go func() {
		relay(l.ctx, l.pid, l.sigs, done, l.tty >= 0)
		<-l.caught
		signal.Stop(l.sigs)
	}()
	l.back = append(l.back, func() { close(done) })
}

// caughtEarly are the relayed signals whose catching changes nothing for
// guard, and whose relay would change nothing for the command: guard
// takes no action on SIGWINCH, nor the command unless it asks, and the
// kernel continues guard on SIGCONT whoever catches it. (SIGUSR1 and
// SIGUSR2 are not among them: guard ignores them too, but one caught
// just before the relay and handed on late by the runtime's signal
// loop would reach the command, which they kill.)
var caughtEarly = []os.Signal{syscall.SIGWINCH, syscall.SIGCONT}

// relayedLate are the relayed signals but caughtEarly: caught only once
// the command is about to run (a SIGINT before that must still end
// guard as it always does).
func relayedLate() []os.Signal {
	var out []os.Signal
	for _, s := range confine.Forwarded {
		if !slices.Contains(caughtEarly, s) {
			out = append(out, s)
		}
	}
	return out
}

// catchEarly starts catching caughtEarly into l.sigs, off the caller's
// path: the first signal.Notify of a process starts the runtime's
// signal thread and loop (0.1-0.2 ms), which relaySignals, on the
// critical path just before Go, then finds running.
func (l *launched) catchEarly() {
	l.sigs = make(chan os.Signal, 8)
	l.caught = make(chan struct{})
	go func() {
		signal.Notify(l.sigs, caughtEarly...)
		close(l.caught)
	}()
	l.undo = append(l.undo, func() {
		if !l.relaying {
			// Otherwise the relay's goroutine stops it, off the path.
			<-l.caught
			signal.Stop(l.sigs)
		}
	})
}

// discard kills and reaps a helper that gets no plan: nothing ran.
func (l *launched) discard() {
	syscall.Kill(-l.pid, syscall.SIGKILL)
	l.finish(nil)
}

// handBack gives guard back the terminal and its signals, last step
// first: the command is over. It runs once.
func (l *launched) handBack() {
	for i := len(l.back) - 1; i >= 0; i-- {
		l.back[i]()
	}
	l.back = nil
}

// cleanup undoes what launch did, last step first.
func (l *launched) cleanup() {
	l.handBack()
	for i := len(l.undo) - 1; i >= 0; i-- {
		l.undo[i]()
	}
	l.undo = nil
}

// direct reports whether exec.Cmd copies none of the command's stdio
// (they are files, or the pipe copyErr reads): its Wait then waits for
// the helper alone, and once the command is over its output is where it
// goes (copiedErr for the watched stderr).
func (l *launched) direct() bool {
	for _, x := range []any{l.cmd.Stdin, l.cmd.Stdout, l.cmd.Stderr} {
		if _, ok := x.(*os.File); !ok && x != nil {
			return false
		}
	}
	return true
}

// sendPlan sends the encoded plan, once: the helper confines itself,
// then waits for Go.
func (l *launched) sendPlan(enc []byte) {
	if l.sent {
		return
	}
	l.sent = true
	_, l.encErr = l.planW.Write(enc)
}

// fits reports whether the encoded plan fits in the plan pipe, empty
// until it is sent: writing it then does not wait for the helper.
func (l *launched) fits(enc []byte) bool {
	size := -1
	rc, err := l.planW.SyscallConn()
	if err == nil {
		rc.Control(func(fd uintptr) {
			if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil {
				size = n
			}
		})
	}
	return !l.sent && len(enc) <= size
}

// finish sends the plan (nil: none, the helper gives up), waits for the
// command and everything it started, and puts guard back. It returns
// the helper's line (a failure, or the report of the command's end), or
// without one the helper's process state.
func (l *launched) finish(p *confine.Plan) (*status, *os.ProcessState, []string, error) {
	return l.settle(l.await(p))
}

// await sends the plan (nil: none, the helper gives up) and waits for
// the helper's line, or for its end when it has none: the status
// pipe's writer is the helper alone. Meanwhile, its job control: see
// waitExit, which goes on until the helper has exited (l.exited).
func (l *launched) await(p *confine.Plan) (st *status, stErr, encErr error) {
	// planW stays open until the run is over: it is the helper's
	// lifeline, whose EOF means guard is gone.
	if p != nil {
		l.handOver()
		if !l.sent {
			// Encoded here only when Prepare did not send it.
			l.sendPlan(p.Encode())
		}
		encErr = l.encErr
		// Alongside the helper's confinement; the command starts once
		// the helper reads Go.
		l.relaySignals()
		if encErr == nil {
			_, encErr = l.planW.Write([]byte{confine.Go})
		}
	} else {
		l.planW.Close()
	}
	type line struct {
		st  *status
		err error
	}
	lines := make(chan line, 1)
	// The pipe is read through the runtime's poller: this goroutine
	// holds no thread while it waits.
	go func() {
		st, err := readStatus(l.statR)
		lines <- line{st, err}
	}()
	l.exited = make(chan struct{})
	go func() {
		waitExit(l.pid, l.tty)
		close(l.exited)
	}()
	var got line
	select {
	case got = <-lines:
	case <-l.exited:
		// Its line, if any, is in the pipe; EOF follows once nothing
		// else holds the pipe: the helper's group goes first (as in
		// reap; the helper, a zombie, keeps its pid from reuse).
		syscall.Kill(-l.pid, syscall.SIGKILL)
		got = <-lines
	}
	return got.st, got.err, encErr
}

// settle reaps the helper and everything left (reap), and returns the
// helper's line st, or the helper's process state without one.
func (l *launched) settle(st *status, stErr, encErr error) (*status, *os.ProcessState, []string, error) {
	ps, denials, waitErr, reapErr := l.reap()
	if reapErr != nil {
		return nil, nil, denials, reapErr
	}
	if st != nil {
		return st, nil, denials, nil
	}
	if stErr != nil {
		return nil, nil, denials, stErr
	}
	if encErr != nil {
		return nil, nil, denials, fmt.Errorf("send sandbox plan: %w", encErr)
	}
	var ee *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &ee) && !errors.Is(waitErr, exec.ErrWaitDelay) {
		return nil, nil, denials, fmt.Errorf("wait for command: %w", waitErr)
	}
	return nil, ps, denials, nil
}

// reap waits for the helper's end (await started the wait), kills and
// reaps whatever the command left running, reaps the helper and puts
// guard back as it was.
func (l *launched) reap() (ps *os.ProcessState, denials []string, waitErr, reapErr error) {
	defer l.cleanup()
	<-l.exited
	// Whatever the command left running goes with it: its group (the
	// helper, a zombie until Wait, keeps its pid from reuse), and every
	// descendant that left the group (guard is their subreaper).
	syscall.Kill(-l.pid, syscall.SIGKILL)
	if l.direct() {
		// No output to copy, so Wait cannot be held up by a leftover
		// that keeps a pipe open: reaping the helper first leaves guard
		// no child in the common case, which reapDescendants then sees
		// in one system call.
		waitErr = l.cmd.Wait()
		_, reapErr = reapDescendants(l.pid, l.before)
	} else {
		_, reapErr = reapDescendants(l.pid, l.before)
		waitErr = l.cmd.Wait()
	}
	if l.copied != nil {
		// Everything in the run is gone; a process outside it that
		// holds the stderr pipe (passed over a socket) gets as long as
		// exec.Cmd's WaitDelay gives.
		select {
		case <-l.copied:
		case <-time.After(l.cmd.WaitDelay):
			l.errR.Close()
			<-l.copied
		}
	}
	if l.watcher != nil {
		denials = l.watcher.denials()
	}
	return l.cmd.ProcessState, denials, waitErr, reapErr
}

// relay forwards guard's signals to the command's process group and
// turns a cancelled ctx into SIGTERM, then SIGKILL.
func relay(ctx context.Context, pid int, sigs <-chan os.Signal, done <-chan struct{}, tty bool) {
	var kill <-chan time.Time
	cancelled := ctx.Done()
	for {
		select {
		case <-done:
			return
		case sig := <-sigs:
			if tty && sig == syscall.SIGCONT {
				// With a terminal, waitExit continues the command, once
				// it has handed it the terminal: continued first, the
				// command read it from the background and stopped again
				// (SIGTTIN), and guard with it (TestTerminalStop).
				continue
			}
			syscall.Kill(-pid, sig.(syscall.Signal))
		case <-cancelled:
			cancelled = nil
			syscall.Kill(-pid, syscall.SIGTERM)
			kill = time.After(killDelay)
		case <-kill:
			syscall.Kill(-pid, syscall.SIGKILL)
		}
	}
}

// waitExit blocks until the command has exited, without reaping it
// (cmd.Wait does). When the command stops (^Z, or reading the terminal
// from the background) and its stdio has a terminal, guard stops too,
// as a shell's job would, taking the terminal back if the command had
// it. When guard is continued in the foreground (fg), it hands the
// terminal to the command; either way it continues the command.
//
// The helper stops only to tell guard that the command stopped (the
// command cannot stop it: its signals are scoped away from the helper,
// TestAttackHelperKilled; where the kernel has no signal scoping, it
// can). A stopped helper neither reaps nor reports, nor sees guard's
// end. So without a terminal (an agent's run) guard continues the helper
// alone at once (the command stays as it is). With one, guard stops too,
// as a job, and continues the helper with the command when it is
// continued; a helper stopped then sees guard's end through its watchdog
// (confine/watchdog.go).
func waitExit(pid, tty int) {
	for confine.WaitStop(pid) {
		if tty < 0 {
			syscall.Kill(pid, syscall.SIGCONT)
			continue
		}
		if foreground(tty, pid) {
			unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, unix.Getpgrp())
		}
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		// Continued.
		if foreground(tty, unix.Getpgrp()) {
			unix.IoctlSetPointerInt(tty, unix.TIOCSPGRP, pid)
		}
		syscall.Kill(-pid, syscall.SIGCONT)
	}
}

// terminals lists the terminal devices among the child's stdio, which
// it may reopen (and use ioctl on).
func terminals(stdio Stdio) []string {
	var out []string
	for _, f := range stdioFiles(stdio) {
		if !isTerminal(f) {
			continue
		}
		name, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
		if err == nil && strings.HasPrefix(name, "/dev/") && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// terminalFD returns the descriptor of the first terminal among the
// stdio, or -1. When guard's group is in its foreground, the command's
// group is put there instead, so ^C and ^Z reach it directly.
func terminalFD(stdio Stdio) int {
	for _, f := range stdioFiles(stdio) {
		if isTerminal(f) {
			return int(f.Fd())
		}
	}
	return -1
}

// foreground reports whether process group pgid owns the terminal.
func foreground(tty, pgid int) bool {
	pg, err := unix.IoctlGetInt(tty, unix.TIOCGPGRP)
	return err == nil && pg == pgid
}

// visibleInterposition reports whether putting a pipe between the
// child's stderr and its destination would change what the user sees:
// a terminal stays a terminal, and 2>&1 keeps its interleaving.
func visibleInterposition(stdio Stdio) bool {
	ef, ok := stdio.Err.(*os.File)
	if !ok {
		return false
	}
	if isTerminal(ef) {
		return true
	}
	of, ok := stdio.Out.(*os.File)
	if !ok {
		return false
	}
	var a, b unix.Stat_t
	if unix.Fstat(int(ef.Fd()), &a) != nil || unix.Fstat(int(of.Fd()), &b) != nil {
		return false
	}
	return a.Dev == b.Dev && a.Ino == b.Ino
}

func stdioFiles(stdio Stdio) []*os.File {
	var out []*os.File
	for _, x := range []any{stdio.In, stdio.Out, stdio.Err} {
		if f, ok := x.(*os.File); ok && f != nil {
			out = append(out, f)
		}
	}
	return out
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// probe is Probe, replaceable in tests that simulate a weaker kernel.
var probe = Probe
