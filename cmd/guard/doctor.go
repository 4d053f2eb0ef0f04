package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/pin"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/sandbox"
)

// exitDoctorProblem: `guard doctor` found the sandbox not fully in force
// on this kernel, or something wrong with guard's own files.
const exitDoctorProblem = 1

// doctorCheck is one line of the report.
type doctorCheck struct {
	// Name is short: "filesystem", "audit log".
	Name string
	// OK is false when something is missing or wrong.
	OK bool
	// Detail says what holds, or what is wrong and what follows from it.
	Detail string
	// Optional checks report a known limit when not OK, without failing
	// doctor: a kernel feature guard does without, a setup step the user
	// has not taken. A check that is neither OK nor Optional makes doctor
	// exit 1.
	Optional bool
}

// status is the check's mark in the report.
func (c doctorCheck) status() string {
	switch {
	case c.OK:
		return "ok"
	case c.Optional:
		return "--"
	}
	return "FAIL"
}

// failed reports whether the check makes doctor fail.
func (c doctorCheck) failed() bool { return !c.OK && !c.Optional }

// doctorSection is one part of the report.
type doctorSection struct {
	// Title heads the section; Summary follows it on the same line.
	Title   string
	Summary string
	Checks  []doctorCheck
	// NotesTitle heads Notes: facts that are neither passed nor failed,
	// such as what guard cannot stop on this machine.
	NotesTitle string
	Notes      []string
	// Hints are printed on stderr when a check of the section fails.
	Hints []string
}

// doctorEnv is what the sections may look at; tests pass fakes.
type doctorEnv struct {
	support sandbox.Support
	// userns is why the sandbox helper cannot run in namespaces of its
	// own here (nil: it can, and covers the daemons' sockets).
	userns error
	// layer is why a writing run's writes to ~/.cache do not land in
	// guard's layer here (nil: they do). Probed only with userns nil.
	layer     error
	euid      int
	configDir string
	stateDir  string
	now       func() time.Time
}

// doctorSections are the parts of the report, in order. A new section is
// a function here.
var doctorSections = []func(*doctorEnv) doctorSection{
	doctorSandbox,
	doctorFiles,
	doctorAgents,
}

type doctorOptions struct {
	json bool
}

func newDoctorCmd(s *streams) *cobra.Command {
	opts := &doctorOptions{}
	c := &cobra.Command{
		Use:   "doctor",
		Short: "Show what the sandbox enforces on this machine, and check guard's files",
		Long: `Show the Landlock ABI of this kernel and, feature by feature, what the
sandbox enforces here ("ok"), what this kernel cannot enforce and guard does
without ("--"), and what is missing that guard needs ("FAIL"). Then list what
guard cannot stop on this machine, and check guard's own files: the config
and state directories, the audit log's hash chain, the PIN and the policy.

Exit status: 0 when the sandbox is fully in force and guard's files are in
order, 1 otherwise (run commands with --require-sandbox to refuse to run
without the whole sandbox), 125 when doctor itself fails.`,
		Example: `  guard doctor
  guard doctor --json | jq .sandbox.landlock_abi`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			d, err := guardDirs()
			if err != nil {
				return err
			}
			env := &doctorEnv{
				support:   sandbox.Probe(),
				userns:    sandbox.ProbeUserns(),
				euid:      os.Geteuid(),
				configDir: d.Config,
				stateDir:  d.State,
				now:       time.Now,
			}
			if env.userns == nil {
				env.layer = sandbox.ProbeLayer()
			}
			return runDoctor(s, opts, env)
		},
	}
	c.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	return c
}

func runDoctor(s *streams, opts *doctorOptions, env *doctorEnv) error {
	var sections []doctorSection
	for _, f := range doctorSections {
		sections = append(sections, f(env))
	}
	var err error
	if opts.json {
		err = writeDoctorJSON(s.out, env, sections)
	} else {
		err = writeDoctorText(s.out, sections)
	}
	if err != nil {
		return failf(nil, "write report: %v", err)
	}
	var failed, hints []string
	for _, sec := range sections {
		n := len(failed)
		for _, c := range sec.Checks {
			if c.failed() {
				failed = append(failed, c.Name)
			}
		}
		if len(failed) > n {
			hints = append(hints, sec.Hints...)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return &exitError{code: exitDoctorProblem, err: fmt.Errorf("guard doctor found problems: %s", strings.Join(failed, ", ")), hints: hints}
}

// doctorFeatureRows say what each sandbox feature enforces when it is
// there. A feature may show as several rows; one sandbox does not know
// is shown by its name alone.
var doctorFeatureRows = sync.OnceValue(func() map[string][]struct{ name, enforces string } {
	return map[string][]struct{ name, enforces string }{
		"filesystem":   {{"filesystem", "reading, writing and running files outside the grants is refused"}},
		"refer":        {{"refer", "files move and link only between writable trees"}},
		"truncate":     {{"truncate", "files outside the writable paths cannot be truncated"}},
		"tcp":          {{"tcp", "TCP connect is refused without the network grant; binding a port always is (listen(2) on a TCP socket never bound is refused by the sandbox helper, with the seccomp filter)"}},
		"ioctl-dev":    {{"ioctl", "ioctl on device files other than the terminals is refused"}},
		"scopes":       {{"scopes", "signals and abstract unix socket connections to processes outside the sandbox are refused"}},
		"unix-sockets": {{"unix-sockets", "connecting to pathname unix sockets outside the grants is refused"}},
		"udp":          {{"udp (landlock)", "UDP is confined by Landlock as well as by the seccomp filter"}},
		"seccomp": {
			{"udp (seccomp)", "UDP, raw and SCTP sockets are refused without the network grant, and every inet socket (TCP Fast Open connects without connect(2))"},
			{"mptcp/io_uring", "MPTCP sockets (which Landlock's TCP rules do not see) and io_uring are refused"},
			{"guard itself", "prlimit and scheduling calls on other processes, TIOCSTI/TIOCLINUX terminal injection, TIOCSETD/TIOCEXCL on the terminal and the kernel keyrings are refused; the command is first for the OOM killer; signals aimed at the sandbox helper's watching thread, the console's keyboard and VT requests and set-user-ID bits on files are refused too"},
		},
	}
})

// doctorLimits are gaps no kernel feature closes; Support.Limits adds
// the ones of this machine.
var doctorLimits = []string{
	"inside the writable trees, chmod, chown, utimes and extended attributes are not confined (protected paths are still checked after the run, mode and POSIX ACLs included)",
	"stat(2) of any path, and reads of /proc files that are not per-process, are allowed",
	"if guard is killed with SIGKILL, its sandbox helper kills everything the command started but the protected paths are not checked; if the command kills that helper and guard is SIGKILLed too, processes it started keep running (still confined); otherwise nothing the command started outlives it",
}

// doctorRootLimit applies when guard runs as root.
const doctorRootLimit = "guard runs as root: inside its grants the command keeps root's file capabilities (CAP_DAC_OVERRIDE, CAP_CHOWN, CAP_FOWNER, …), so file permissions protect nothing Landlock allows; run guard as your own user"

// limits lists what guard cannot stop on this machine.
func (env *doctorEnv) limits() []string {
	l := append(append([]string{}, env.support.Limits...), doctorLimits...)
	if env.euid == 0 {
		l = append(l, doctorRootLimit)
	}
	return l
}

func doctorSandbox(env *doctorEnv) doctorSection {
	sup := env.support
	sec := doctorSection{Title: "Sandbox", NotesTitle: "What guard cannot stop here"}
	if sup.ABI > 0 {
		sec.Summary = fmt.Sprintf("Landlock ABI %d", sup.ABI)
	} else {
		sec.Summary = "no Landlock"
	}
	if sup.Seccomp {
		sec.Summary += ", seccomp filter for " + sup.Arch
	} else {
		sec.Summary += ", no seccomp filter for " + sup.Arch
	}
	for _, f := range sup.Features {
		rows := doctorFeatureRows()[f.Name]
		if len(rows) == 0 {
			rows = []struct{ name, enforces string }{{f.Name, "enforced"}}
		}
		for _, r := range rows {
			c := doctorCheck{Name: r.name, OK: f.OK, Optional: !f.Required}
			switch {
			case f.OK:
				c.Detail = r.enforces + " (" + f.Needs + ")"
			case f.Required:
				c.Detail = "missing (needs " + f.Needs + "): " + f.Gap
			default:
				c.Detail = "not on this kernel (needs " + f.Needs + "): " + f.Gap
			}
			sec.Checks = append(sec.Checks, c)
		}
	}
	// The helper's own mount namespace closes what Landlock leaves open,
	// where user namespaces allow one.
	c := doctorCheck{Name: "mount namespace", OK: env.userns == nil, Optional: true}
	if c.OK {
		c.Detail = "read-only outside the writable trees (chmod, chown, utimes and extended attributes are confined too); the code in ~/.cache read-only without the network; System V IPC and POSIX message queues of its own (other processes' shared memory and queues out of reach); without the network grant, a network namespace of its own (an abstract unix socket name the command binds is out of your programs' reach)"
		if sup.ABI < 9 {
			c.Detail += "; pathname unix sockets outside the run (docker.sock, tmux, the session bus, ssh-agent), and the directories where daemons started later bind theirs, covered, except for daemon clients (docker, tmux, systemctl, …)"
		}
	} else {
		c.Detail = fmt.Sprintf("none: the sandbox helper cannot confine runs with a mount namespace of its own here (%v): chmod and kin are not confined, a program that knows a socket's path reaches its daemon, ~/.cache and the code in it are writable, the System V shared memory and message queues of your other processes are reachable, and every run shares the machine's network namespace (an abstract unix socket name a program of yours binds later can be taken, and its clients answered)", env.userns)
	}
	sec.Checks = append(sec.Checks, c)
	if env.userns == nil {
		// Probed for real: the kernel may refuse the overlay where it
		// allows the namespace.
		l := doctorCheck{Name: "cache overlay", OK: env.layer == nil, Optional: true}
		if l.OK {
			l.Detail = "a writing run without the network writes ~/.cache through guard's layer: nothing it writes there reaches your builds outside guard"
		} else {
			l.Detail = fmt.Sprintf("not in force (%v): a command could leave something in ~/.cache (a go-build or ccache entry) that your next build outside guard uses", env.layer)
		}
		sec.Checks = append(sec.Checks, l)
	}
	sec.Notes = env.limits()
	if !sup.Full() {
		sec.Hints = []string{
			"commands still run, with a warning naming each gap; pass --require-sandbox to refuse to run them instead",
			"Landlock needs Linux 5.13 or later with landlock in the lsm= boot parameter; ABI 6 (Linux 6.12) gives everything guard requires",
		}
	}
	return sec
}

func doctorFiles(env *doctorEnv) doctorSection {
	sec := doctorSection{Title: "guard's files"}
	sec.Checks = append(sec.Checks,
		doctorDir("config dir", env.configDir, env.euid),
		doctorDir("state dir", env.stateDir, env.euid),
		doctorAudit(env.stateDir),
		doctorPIN(env),
		doctorPolicy(env.configDir),
		doctorNotify(),
		doctorCheckpoints(env.stateDir),
		doctorLayer(env.stateDir),
	)
	return sec
}

// doctorLayer reports guard's layer over ~/.cache (sandbox/layer.go):
// what sandboxed writing runs wrote there instead of into the user's
// cache.
func doctorLayer(stateDir string) doctorCheck {
	c := doctorCheck{Name: "cache layer", OK: true}
	dir := filepath.Join(stateDir, "layers")
	files, size := sandbox.LayerUsage(dir)
	if files == 0 {
		c.Detail = "empty: what sandboxed runs write to ~/.cache goes there, never into yours"
		return c
	}
	c.Detail = fmt.Sprintf("%d files, %s in %s: what sandboxed runs wrote to ~/.cache (later sandboxed runs see it, nothing outside guard does; 'guard undo --prune' drops it)", files, byteSize(size), dir)
	return c
}

// doctorDir checks that dir, when it exists, is a directory only its
// owner (the user running guard) can change.
func doctorDir(name, dir string, euid int) doctorCheck {
	c := doctorCheck{Name: name, OK: true}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Detail = dir + " (not created yet)"
		return c
	case err != nil:
		c.OK, c.Detail = false, fmt.Sprintf("%s: %v", dir, err)
		return c
	case !fi.IsDir():
		c.OK, c.Detail = false, dir+" is not a directory"
		return c
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != euid {
		c.OK, c.Detail = false, fmt.Sprintf("%s belongs to uid %d, not to you (uid %d)", dir, st.Uid, euid)
		return c
	}
	if fi.Mode().Perm()&0o022 != 0 {
		c.OK, c.Detail = false, fmt.Sprintf("%s has mode %#o: others could change your policy, PIN or audit log; run chmod go-w %s", dir, fi.Mode().Perm(), dir)
		return c
	}
	c.Detail = dir
	return c
}

// doctorAudit verifies the audit log's hash chain.
func doctorAudit(dir string) doctorCheck {
	c := doctorCheck{Name: "audit log"}
	rep, err := audit.Verify(dir)
	var ce *audit.ChainError
	switch {
	case errors.As(err, &ce):
		c.Detail = fmt.Sprintf("%s: %v; run 'guard log verify' for details", filepath.Join(dir, ce.File), ce)
	case err != nil:
		c.Detail = err.Error()
	case rep.Records == 0:
		c.OK, c.Detail = true, "no records yet"
	default:
		c.OK = true
		c.Detail = fmt.Sprintf("%d records in %d files, hash chain verified", rep.Records, len(rep.Files))
		if len(rep.Files) == 1 {
			c.Detail = fmt.Sprintf("%d records, hash chain verified", rep.Records)
		}
	}
	return c
}

// doctorPIN reports whether a PIN is set; read only.
func doctorPIN(env *doctorEnv) doctorCheck {
	c := doctorCheck{Name: "PIN"}
	info, err := pin.Status(env.configDir, env.stateDir, env.now)
	switch {
	case err != nil:
		c.Detail = err.Error()
	case !info.Set:
		c.Optional = true
		c.Detail = "not set: level C commands cannot be approved until you run 'guard pin set'"
	case !info.LockedUntil.IsZero():
		c.OK = true
		c.Detail = fmt.Sprintf("set; locked after %d wrong PINs until %s", info.Failures, info.LockedUntil.Local().Format("15:04:05"))
	default:
		c.OK = true
		c.Detail = "set (argon2id " + info.Params.String() + ")"
		if info.Failures > 0 {
			c.Detail += fmt.Sprintf(", %d failed attempts", info.Failures)
		}
	}
	return c
}

// doctorPolicy loads the user's policy and, in a project, the project's,
// exactly as a review would.
// doctorNotify checks that a configured webhook can be sent: guard posts
// it with curl.
func doctorNotify() doctorCheck {
	c := doctorCheck{Name: "notify", OK: true}
	st, err := loadSettings()
	switch {
	case err != nil:
		c.OK, c.Detail = false, err.Error()
	case st.notify.Webhook == "":
		c.Detail = "no webhook"
		if st.notify.Desktop {
			c.Detail += "; desktop notifications when notify-send is on PATH"
		}
	default:
		if _, err := exec.LookPath("curl"); err != nil {
			c.OK, c.Detail = false, "a webhook is set, but curl, which guard posts it with, is not on PATH: install curl"
		} else {
			c.Detail = "webhook set (posted with curl)"
		}
	}
	return c
}

func doctorPolicy(cfgDir string) doctorCheck {
	c := doctorCheck{Name: "policy"}
	e, err := newEngine()
	var ctx *profile.Context
	if err == nil {
		ctx, err = e.Context("", "")
	}
	if err == nil {
		_, err = e.Policy(ctx)
	}
	if err != nil {
		c.Detail = err.Error()
		if hs := errorHints(err); len(hs) > 0 {
			c.Detail += " (" + hs[len(hs)-1] + ")"
		}
		return c
	}
	c.OK = true
	var files []string
	user, project := e.PolicyFiles(ctx)
	for _, p := range []string{user, project} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			files = append(files, p)
		}
	}
	if len(files) == 0 {
		c.Detail = "no policy file: the defaults apply (" + filepath.Join(cfgDir, "policy.toml") + ")"
	} else {
		c.Detail = strings.Join(files, ", ") + " loaded"
	}
	return c
}

func writeDoctorText(w io.Writer, sections []doctorSection) error {
	var b strings.Builder
	for i, sec := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(sec.Title)
		if sec.Summary != "" {
			b.WriteString(": " + sec.Summary)
		}
		b.WriteString("\n")
		width := 0
		for _, c := range sec.Checks {
			width = max(width, len(c.Name))
		}
		for _, c := range sec.Checks {
			fmt.Fprintf(&b, "  %-4s %-*s  %s\n", c.status(), width, c.Name, c.Detail)
		}
		if len(sec.Notes) > 0 {
			fmt.Fprintf(&b, "%s:\n", sec.NotesTitle)
			for _, n := range sec.Notes {
				fmt.Fprintf(&b, "  - %s\n", n)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// doctorJSON is the --json report. Field names are stable.
type doctorJSON struct {
	OK       bool                `json:"ok"`
	Sandbox  doctorSandboxJSON   `json:"sandbox"`
	Sections []doctorSectionJSON `json:"sections"`
}

type doctorSandboxJSON struct {
	ABI      int                 `json:"landlock_abi"`
	Arch     string              `json:"arch"`
	Seccomp  bool                `json:"seccomp"`
	Full     bool                `json:"full"`
	Features []doctorFeatureJSON `json:"features"`
	Gaps     []string            `json:"gaps"`
	Limits   []string            `json:"limits"`
}

type doctorFeatureJSON struct {
	Name     string `json:"name"`
	Needs    string `json:"needs"`
	OK       bool   `json:"ok"`
	Required bool   `json:"required"`
	Gap      string `json:"gap"`
}

type doctorSectionJSON struct {
	Title  string            `json:"title"`
	Checks []doctorCheckJSON `json:"checks"`
	Notes  []string          `json:"notes"`
}

type doctorCheckJSON struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, limit or fail
	Detail string `json:"detail"`
}

func writeDoctorJSON(w io.Writer, env *doctorEnv, sections []doctorSection) error {
	sup := env.support
	v := doctorJSON{OK: true, Sandbox: doctorSandboxJSON{
		ABI: sup.ABI, Arch: sup.Arch, Seccomp: sup.Seccomp, Full: sup.Full(),
		Features: []doctorFeatureJSON{}, Gaps: sup.Gaps(false), Limits: env.limits(),
	}}
	if v.Sandbox.Gaps == nil {
		v.Sandbox.Gaps = []string{}
	}
	for _, f := range sup.Features {
		v.Sandbox.Features = append(v.Sandbox.Features, doctorFeatureJSON{Name: f.Name, Needs: f.Needs, OK: f.OK, Required: f.Required, Gap: f.Gap})
	}
	for _, sec := range sections {
		sj := doctorSectionJSON{Title: sec.Title, Checks: []doctorCheckJSON{}, Notes: []string{}}
		sj.Notes = append(sj.Notes, sec.Notes...)
		for _, c := range sec.Checks {
			status := "ok"
			switch {
			case c.failed():
				status = "fail"
				v.OK = false
			case !c.OK:
				status = "limit"
			}
			sj.Checks = append(sj.Checks, doctorCheckJSON{Name: c.Name, Status: status, Detail: c.Detail})
		}
		v.Sections = append(v.Sections, sj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
