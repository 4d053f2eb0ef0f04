package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/guard-sh/guard/approval"
	"github.com/guard-sh/guard/audit"
	"github.com/guard-sh/guard/decision"
	"github.com/guard-sh/guard/parse"
	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// Hook limits and exit codes. An agent's hook runner reads exit 0 with no
// output as "no opinion", exit 2 as "block, stderr is the reason", and any
// other status as a failed hook that lets the tool call run. So guard's
// hook only ever exits 0 (an explicit answer on stdout, or no opinion about
// a tool that carries no command or path) or 2 (deny).
const (
	// maxHookInput bounds the event read from stdin; more is refused. It
	// is guard's limit for one command's text, so a Write of a large file
	// still fits.
	maxHookInput = maxCommandText
	// hookDeadline bounds one decision. The installers configure the
	// agent's timeout at 10 s: guard must answer (deny) before it, since
	// an agent that times a hook out runs the tool call.
	hookDeadline = 8 * time.Second
	// exitHookBlock blocks the tool call in every supported agent.
	exitHookBlock = 2
)

// hookTestHook runs after the hook read its input. Only the test binary
// sets it (to panic, proving an internal error is a deny); the shipped
// binary reads no switch for it.
var hookTestHook = func() {}

// hookAnswers are what a hook can say.
const (
	hookNoOpinion = ""
	hookAllow     = "allow"
	hookAsk       = "ask"
	hookDeny      = "deny"
)

// fileAccess is what a file tool does with its paths: the engine's
// accesses, and a patch, whose body names the files it writes.
type fileAccess = decision.Access

const (
	accessRead   = decision.AccessRead   // reads one file's contents
	accessList   = decision.AccessList   // lists names (Glob, LS)
	accessSearch = decision.AccessSearch // reads the contents of a tree (Grep)
	accessWrite  = decision.AccessWrite  // creates, changes or deletes
	// accessPatch: Codex apply_patch; each path in the body is a write.
	accessPatch fileAccess = -1
)

// pathKeys are the tool_input keys that name a file or directory, in any
// tool; pathListKeys hold paths or glob patterns, an array of them or one
// (Gemini CLI's read_many_files reads paths and include, merged; its
// search tools filter by an include pattern).
var (
	// shellCwdKeys are the tool_input keys of a shell tool that move the
	// command to another directory.
	shellCwdKeys = []string{"dir_path", "directory", "workdir", "cwd", "working_directory"}
	// shellTextKeys are a shell tool's free text for people (Claude
	// Code's description, Codex's justification): never run, never a
	// path, whatever they say.
	shellTextKeys = []string{"description", "justification"}
	pathKeys      = []string{"file_path", "notebook_path", "absolute_path", "path", "dir_path", "directory"}
	pathListKeys  = []string{"paths", "include"}
)

// hookEnv is what a decision depends on besides its input; tests replace
// it.
type hookEnv struct {
	// exe is guard's path, for the sandbox rewrite; an error (guard
	// cannot name itself) makes a rewrite a deny.
	exe      func() (string, error)
	ppid     int
	deadline time.Duration
	// terminal reports whether the hook has a controlling terminal (the
	// agent runs in one); nil counts as none.
	terminal func() bool
}

// hookGuardPath finds guard's path for the rewrite. Only the test binary
// replaces it (to panic, proving that a panic while finding it is a
// deny); the shipped binary reads no switch for it.
var hookGuardPath = guardPath

func defaultHookEnv() hookEnv {
	// Finding guard's path (its own, and PATH's guard) is a walk of the
	// file system: it runs while the event is read and reviewed, and only
	// a rewrite waits for it (the deadline still bounds the wait). A
	// panic there would end the process with Go's exit status 2 and no
	// answer: it is recovered into an error, which the rewrite denies on.
	type found struct {
		path string
		err  error
	}
	exe := make(chan found, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				exe <- found{err: fmt.Errorf("internal error while finding guard's own path: %v", r)}
			}
		}()
		exe <- found{path: hookGuardPath()}
	}()
	return hookEnv{exe: sync.OnceValues(func() (string, error) {
		f := <-exe
		return f.path, f.err
	}), ppid: os.Getppid(), deadline: hookDeadline, terminal: hasTerminal}
}

// hasTerminal reports whether guard has a controlling terminal: the
// device prompts open (/dev/tty) opens and is a terminal. An agent's hook
// inherits the agent's session, so this says whether the agent runs in
// a terminal.
func hasTerminal() bool {
	f, err := os.OpenFile(ttyPath(), os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	return term.IsTerminal(int(f.Fd()))
}

func newHookCmd(s *streams) *cobra.Command {
	return &cobra.Command{
		Use:   "hook claude|codex|gemini",
		Short: "Answer an agent's pre-tool hook (reads the event JSON on stdin)",
		Long: `Reviews the tool call an agent is about to make and answers in the agent's
hook protocol: 'claude' for Claude Code's PreToolUse, 'codex' for Codex's
PreToolUse, 'gemini' for Gemini CLI's BeforeTool.

A shell command at level A is allowed and rewritten to run through
'guard run' (so it runs in guard's sandbox). Claude Code and Gemini CLI ask
their user about level B, with the command rewritten to run once in guard's
sandbox if the user says yes (Gemini CLI only when it runs in a terminal).
Above that, or where the agent has no way to ask a person (Codex, an
unattended permission mode, Gemini CLI headless), the call is denied and
queued: the user approves it with
'guard approve ID' in a terminal and the agent runs the same command again.
Tools guard does not know (MCP tools) are judged by every command and path
in their input, at any depth. File tools are judged by the path
they touch: secrets and guard's own files are denied, writes outside the
workspace need the user, and persistence locations (shell startup files,
.git/hooks, .git/config) are denied for writes.

The hook never fails open: bad input, an unknown event, more than 4 MiB of
input, an internal error or a decision slower than 8 s is a deny (exit 2,
the reason on stderr). 'guard install claude|codex|gemini' configures it;
'guard help agents' has the details.`,
		// The agent runs exactly "guard hook NAME"; anything else must be
		// a deny, not a cobra usage error (exit 125 would fail open).
		DisableFlagParsing: true,
		Args:               cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			if code := runHook(s, args, defaultHookEnv()); code != exitOK {
				return exitCode(code)
			}
			return nil
		},
	}
}

// hookAnswer is a decision and everything needed to say it.
type hookAnswer struct {
	decision string
	reason   string
	// command is the rewritten shell command (allow only): the agent runs
	// it instead of the original.
	command string
	// input is the tool input that command is put into.
	input map[string]json.RawMessage
}

func denyf(format string, args ...any) hookAnswer {
	return hookAnswer{decision: hookDeny, reason: fmt.Sprintf(format, args...)}
}

// runHook is the whole hook: it always answers, and returns 0 or 2.
func runHook(s *streams, args []string, env hookEnv) (code int) {
	defer func() {
		// Last resort: something failed while answering. Deny.
		if r := recover(); r != nil {
			fmt.Fprintf(s.err, "guard: error: internal error while answering the hook: %v; denied\n", r)
			code = exitHookBlock
		}
	}()
	if len(args) != 1 || agentNamed(args[0]) == nil {
		fmt.Fprintf(s.err, "guard: error: usage: guard hook %s (got %q); denied\n", agentNames(), strings.Join(args, " "))
		return exitHookBlock
	}
	p := agentNamed(args[0])
	if env.deadline <= 0 {
		env.deadline = hookDeadline
	}
	done := make(chan hookAnswer, 1)
	// The engine (and with it guard's state directory) is fixed before
	// the decision starts: a decision cut off by the deadline that finishes
	// later still records where this call said it would.
	e, err := newEngine()
	if err != nil {
		return p.answer(s, denyf("guard: error: %v; denied", err))
	}
	h := &hookCall{p: p, s: s, env: env, e: e}
	go func() {
		defer func() {
			if r := recover(); r != nil {
				// A decision never rests on a recovered panic: deny, and
				// record it (the deadline still bounds this).
				msg := fmt.Sprintf("internal error: %v", r)
				h.record(audit.Record{Cwd: h.ev.Cwd, Decision: audit.Failed, Note: "hook: " + msg})
				done <- denyf("guard: error: %s; denied (this is a bug in guard, please report it)", msg)
			}
		}()
		growStack(false) // the decision's stack in one step (main.go)
		done <- h.decide()
	}()
	timer := time.NewTimer(env.deadline)
	defer timer.Stop()
	var a hookAnswer
	select {
	case a = <-done:
	case <-timer.C:
		a = denyf("guard: error: the review did not finish within %s; denied", env.deadline)
	}
	return p.answer(s, a)
}

// answer writes a in the agent's protocol and returns the exit code.
func (p *agentProtocol) answer(s *streams, a hookAnswer) int {
	if a.decision == hookNoOpinion {
		if p.gemini {
			// Gemini CLI parses stdout on exit 0: an empty object is
			// its "nothing to say".
			fmt.Fprintln(s.out, "{}")
		}
		return exitOK
	}
	// The agent shows the reason to its user in a terminal: a command's
	// escape sequences in it must not rewrite what they see.
	a.reason = printable(a.reason, true)
	var out any
	if p.gemini {
		g := map[string]any{"decision": a.decision}
		if a.reason != "" {
			g["reason"] = a.reason
			if a.decision == hookAsk {
				// Gemini CLI shows systemMessage in the confirmation.
				g["systemMessage"] = a.reason
			}
		}
		if a.command != "" {
			g["hookSpecificOutput"] = map[string]any{"hookEventName": p.event, "tool_input": map[string]string{"command": a.command}}
		}
		out = g
	} else {
		h := map[string]any{"hookEventName": p.event, "permissionDecision": a.decision}
		if a.reason != "" {
			h["permissionDecisionReason"] = a.reason
		}
		if a.command != "" {
			in := map[string]json.RawMessage{}
			for k, v := range a.input {
				in[k] = v
			}
			in["command"] = jsonString(a.command)
			h["updatedInput"] = in
		}
		out = map[string]any{"hookSpecificOutput": h}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(s.err, "guard: error: encode the hook answer: %v; denied\n", err)
		return exitHookBlock
	}
	_, werr := s.out.Write(buf.Bytes())
	if a.decision == hookDeny {
		// Exit 2 is the block every agent honours; the JSON on stdout
		// says the same to those that read it.
		fmt.Fprintln(s.err, a.reason)
		return exitHookBlock
	}
	if werr != nil {
		fmt.Fprintf(s.err, "guard: error: write the hook answer: %v; denied\n", werr)
		return exitHookBlock
	}
	return exitOK
}

// jsonString encodes s without HTML escaping ("2>&1" stays readable).
func jsonString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // a string always encodes
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// hookEvent is the part of the event guard reads. Unknown fields are
// ignored; known fields of the wrong type make the event malformed.
type hookEvent struct {
	SessionID     string `json:"session_id"`
	Cwd           string `json:"cwd"`
	HookEventName string `json:"hook_event_name"`
	// PermissionMode is Claude Code's (and Codex's): only in the modes of
	// attendedModes does a person answer an ask.
	PermissionMode string          `json:"permission_mode"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`

	input map[string]json.RawMessage
}

// hookCall is one decision in progress.
type hookCall struct {
	p   *agentProtocol
	s   *streams
	env hookEnv
	ev  hookEvent
	e   *decision.Engine
}

// decide reads the event and decides. Every path that returns writes one
// audit record, except "no opinion".
func (h *hookCall) decide() hookAnswer {
	p := h.p
	data, err := io.ReadAll(io.LimitReader(h.s.in, maxHookInput+1))
	switch {
	case err != nil:
		return h.fail("", "read the hook input: %v", err)
	case len(data) > maxHookInput:
		return h.fail("", "the hook input is larger than %d bytes", maxHookInput)
	}
	hookTestHook()
	if err := h.parse(data); err != nil {
		return h.fail("", "%v", err)
	}
	if slices.Contains(p.shellTools, h.ev.ToolName) {
		return h.shell()
	}
	if acc, ok := p.fileTools[h.ev.ToolName]; ok {
		return h.files(acc)
	}
	return h.other()
}

// parse validates the event.
func (h *hookCall) parse(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("malformed hook input: it is empty (want the event JSON on stdin)")
	}
	if !utf8.Valid(data) {
		// Go's decoder would turn the bad bytes into U+FFFD: guard would
		// judge a text other than the one the agent holds.
		return errors.New("malformed hook input: it is not valid UTF-8")
	}
	if err := json.Unmarshal(data, &h.ev); err != nil {
		return fmt.Errorf("malformed hook input: %v", err)
	}
	if err := checkHookKeys(data); err != nil {
		return fmt.Errorf("malformed hook input: %v", err)
	}
	ev := &h.ev
	switch {
	case ev.HookEventName != h.p.event:
		return fmt.Errorf("unknown hook event %q: 'guard hook %s' answers %s only", ev.HookEventName, h.p.name, h.p.event)
	case ev.ToolName == "":
		return errors.New("malformed hook input: no tool_name")
	}
	if err := json.Unmarshal(ev.ToolInput, &ev.input); err != nil || ev.input == nil {
		return errors.New("malformed hook input: tool_input is not a JSON object")
	}
	if ev.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("the event has no cwd and the current directory is unknown: %v", err)
		}
		ev.Cwd = wd
	}
	if !filepath.IsAbs(ev.Cwd) {
		return fmt.Errorf("malformed hook input: cwd %q is not absolute", ev.Cwd)
	}
	ev.Cwd = filepath.Clean(ev.Cwd)
	return nil
}

// stringField reads a string field of tool_input: ok is false when it is
// absent, err set when it is not a string.
func (h *hookCall) stringField(key string) (v string, ok bool, err error) {
	raw, ok := h.ev.input[key]
	if !ok || string(raw) == "null" {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", true, fmt.Errorf("malformed hook input: tool_input.%s is not a string", key)
	}
	return v, true, nil
}

// attendedModes are the permission modes in which the agent's prompt
// reaches a person: Claude Code's default (Manual), acceptEdits and plan,
// and none at all (Gemini CLI sends no mode). Any other mode does not ask
// a person: bypassPermissions skips prompts, dontAsk denies what is not
// pre-approved, auto hands them to a classifier model; a mode guard does
// not know is treated the same.
var attendedModes = []string{"", "default", "acceptEdits", "plan"}

// canAsk reports whether an ask reaches the agent's user: the protocol has
// one, the session's permission mode is one where a person answers, and,
// for an agent whose event does not say whether anyone is there
// (askNeedsTerminal), the agent runs in a terminal. Otherwise what would
// be asked is denied and queued, for the user's terminal.
func (h *hookCall) canAsk() bool {
	if !h.p.canAsk || !slices.Contains(attendedModes, h.ev.PermissionMode) {
		return false
	}
	return !h.p.askNeedsTerminal || h.env.terminal != nil && h.env.terminal()
}

// record appends one audit record. It returns false when the record could
// not be written: the caller then denies (no audit record, no run).
func (h *hookCall) record(r audit.Record) bool { return h.append(r, (*audit.Log).Append) }

// append writes r with add, one of audit.Log's appends.
func (h *hookCall) append(r audit.Record, add func(*audit.Log, audit.Record) (audit.Record, error)) bool {
	r.ID = audit.NewID()
	r.Session = audit.Session(h.ev.SessionID, h.env.ppid)
	r.Provenance = h.p.provenance
	if err := appendRecord(h.e.Dirs().State, r, add); err != nil {
		fmt.Fprintf(h.s.err, "guard: error: audit log: %v\n", err)
		return false
	}
	return true
}

// recorded is a, unless r cannot be recorded: then a deny.
// An a that is already a deny (building the answer failed, and h.fail
// recorded that) is returned as it is: r, which says what would have
// happened, never reaches the log.
func (h *hookCall) recorded(r audit.Record, a hookAnswer) hookAnswer {
	if a.decision == hookDeny {
		return a
	}
	add := (*audit.Log).Append
	if a.command != "" {
		// The agent runs the rewrite, guard run: nothing happens before
		// guard run's own decision record, which is synced and takes
		// this line to disk with it. Not waiting for the disk here
		// spares the hook call a flush (about 0.3 ms of 2.9 measured).
		add = (*audit.Log).AppendUnsynced
	}
	if !h.append(r, add) {
		return denyf("guard: error: the audit log cannot be written, so guard allows nothing; denied (run 'guard doctor')")
	}
	return a
}

// fail is a deny for input or an internal state guard cannot judge.
func (h *hookCall) fail(command, format string, args ...any) hookAnswer {
	msg := fmt.Sprintf(format, args...)
	h.record(audit.Record{Cwd: h.ev.Cwd, Command: command, Decision: audit.Failed, Note: "hook: " + msg})
	return denyf("guard: error: %s; denied", msg)
}

// shell decides a shell tool call with the engine's ladder. The agent's
// own prompt can answer B where the protocol has an ask; nobody in a hook
// can answer C (the PIN is typed at guard's terminal only).
func (h *hookCall) shell() hookAnswer {
	text, ok, err := h.stringField("command")
	if err != nil {
		return h.fail("", "%v", err)
	}
	if !ok {
		return h.fail("", "malformed hook input: %s without tool_input.command", h.ev.ToolName)
	}
	if err := nulCommand(text); err != nil {
		return h.fail(text, "%v", err)
	}
	// Any other member the agent may read (a new option, a path, a
	// second command) is judged as an unknown tool's input would be: a
	// deny there is the answer. An ask there never stands in for the
	// command's own review: the agent runs the command when its user
	// says yes to the member, so the command must be one guard would run
	// (A, then rewritten into the sandbox); otherwise it is denied.
	extras, fail := h.inputParts(append(append([]string{"command"}, shellTextKeys...), shellCwdKeys...)...)
	if fail != nil {
		return *fail
	}
	extra := worstPart(extras)
	if extra != nil && extra.ans.decision == hookDeny {
		return h.settle(extras)
	}
	if extra != nil && extra.ans.decision == hookNoOpinion {
		extra = nil
	}
	cwd := h.ev.Cwd
	// The command may run in another directory: Gemini's run_shell_command
	// takes dir_path (or directory), Codex's shell tools workdir.
	// Two of them that disagree are malformed: guard cannot know which
	// the agent honours.
	moved := ""
	for _, k := range shellCwdKeys {
		d, ok, err := h.stringField(k)
		if err != nil {
			return h.fail(text, "%v", err)
		}
		if !ok || d == "" {
			continue
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(h.ev.Cwd, d)
		}
		d = filepath.Clean(d)
		if moved != "" && d != cwd {
			return h.fail(text, "malformed hook input: tool_input.%s and tool_input.%s name different directories", moved, k)
		}
		moved, cwd = k, d
	}
	// Codex applies a patch a shell command spells out (apply_patch "…",
	// apply_patch <<'EOF' … EOF, after cd DIR &&) itself, in-process,
	// not through the shell: eed3eff read apply_patch as an unknown
	// program (A) and allowed it, a patch adding ~/.bashrc included, and
	// a Codex that does not apply guard's rewrite applied it. The files
	// such a command names are judged as the patch tool's are.
	if ps := patchPaths(text); len(ps) > 0 {
		paths := make([]toolPath, 0, len(ps))
		for _, p := range ps {
			if !filepath.IsAbs(p) && p != "~" && !strings.HasPrefix(p, "~/") {
				p = filepath.Join(cwd, p)
			}
			paths = append(paths, toolPath{p, accessWrite})
		}
		part, err := h.pathParts(paths, false)
		if err != nil {
			return h.fail(text, "%v", err)
		}
		if part.ans.decision != hookNoOpinion {
			return h.settle([]judged{part})
		}
	}
	opts := assessOptions{Cwd: cwd, Provenance: review.ProvAgent}
	a, err := h.e.Assess(text, opts)
	if err != nil {
		return h.fail(text, "review failed: %v", err)
	}
	// The level guard run will give: a workspace delete its checkpoint
	// restores is A, and the rewrite below runs it through guard run,
	// which takes the checkpoint (or decides again without it).
	a, _ = coverDeletes(h.e, a, opts)
	d, err := h.e.Decide(a, decision.Who{AskB: h.canAsk()})
	if err != nil {
		return h.fail(text, "%v", err)
	}
	v := a.Verdict
	rec := audit.Record{Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Command: text, Level: v.Level, Rules: a.RuleIDs()}
	if extra != nil {
		// Another member needs the user's yes (an ask). The command may
		// ride on that yes only where guard would run it anyway.
		if d.Action != decision.Run {
			rec.Decision = audit.Refused
			h.record(rec)
			return denyf("%s\n%s\nThe tool call carries a second thing that needs the user's approval; guard asks about one at a time: run the command alone.", levelReason(a), extra.ans.reason)
		}
		rw := h.allowRewritten(text, "")
		if rw.decision == hookDeny {
			return rw
		}
		extra.ans.command, extra.ans.input = rw.command, rw.input
		return h.settle([]judged{*extra})
	}
	switch d.Action {
	case decision.Refuse:
		rec.Decision = audit.DeniedPolicy
		h.record(rec)
		return denyf("guard: denied: %s: %s. A policy rule forbids this command; it cannot be approved.", d.Reason.Rule, audit.Mask(d.Reason.Message))
	case decision.Run:
		// No sandbox in this record: the command runs through guard run,
		// whose own decision record carries the sandbox it runs in.
		rec.Decision = audit.ApprovedAuto
		rec.Note = "rewritten to run through guard run"
		return h.recorded(rec, h.allowRewritten(text, "guard: level A; runs in guard's sandbox"))
	case decision.UseApproval:
		// guard run, which the rewrite calls, consumes the approval: it
		// is honoured once, in the sandbox.
		rec.Decision = audit.ApprovedQueue
		rec.Note = "approval " + d.Approval + " (guard run uses it)"
		return h.recorded(rec, h.allowRewritten(text, fmt.Sprintf("guard: level %s, approved by the user as %s; runs once in guard's sandbox", v.Level, d.Approval)))
	case decision.Ask:
		if h.p.askRewrite {
			return h.askRewritten(a, rec)
		}
		// The user answers in the agent's prompt; the command then runs
		// as the agent runs it (the agent cannot carry guard's rewrite).
		rec.Decision = audit.Pending
		rec.Note = "asked in " + h.p.label + "'s prompt"
		return h.recorded(rec, hookAnswer{decision: hookAsk, reason: withoutSandboxLine(levelReason(a)) + "\nApprove only if you expect this command: it then runs as " + h.p.label + " runs it, outside guard's sandbox."})
	}
	id := d.Pending
	if id == "" {
		req, err := h.e.Enqueue(a, h.p.provenance, audit.Session(h.ev.SessionID, h.env.ppid))
		if err != nil {
			return h.fail(text, "%v", err)
		}
		id = req.ID
		notifyQueued(h.s, req)
	}
	rec.Decision = audit.Pending
	rec.Note = "queued as " + id
	h.record(rec)
	need := "the user's approval"
	if v.Level == review.C {
		need = "the user's approval with their PIN"
	}
	return denyf("%s\nThis needs %s, which cannot be given through %s. It is queued as %s: ask the user to run 'guard approve %s' in their terminal, then run exactly the same command again from the same directory (an approval is good once, for 15 minutes).",
		levelReason(a), need, h.p.label, id, id)
}

// nulCommand refuses shell text that holds a NUL byte. Whatever runs it
// (a shell started with it as an argument, a C library call) receives the
// text before the NUL only, while guard's parser reads on: it would judge
// another command than the one that runs ("rm -rf .git" then a NUL and
// "x" was asked about as a delete of .gitx in the workspace, B; what ran
// deletes .git, C).
func nulCommand(text string) error {
	if i := strings.IndexByte(text, 0); i >= 0 {
		return fmt.Errorf("malformed hook input: the command holds a NUL byte (at byte %d); what runs it sees only the text before it, so guard cannot judge the command that would run", i)
	}
	return nil
}

// askRewritten asks the user in the agent's own prompt about a level B
// command, rewritten to run through guard run with the token of an
// approval queued for exactly this review: the agent runs the rewrite only
// when its user says yes, and guard run then uses that approval, once, and
// runs the command in the sandbox. The prompt shows the rewrite.
//
// The protocol gives guard no proof of the yes: the token is the proof
// that the command came through this answer. An agent that replays the
// rewrite on its own gains nothing: through a hook or the shim, running
// guard is level C (guard-self), which no agent prompt can approve; on a
// path guard does not see it could run the command itself anyway. The
// approval is single-use, bound to the text, cwd, workspace and verdict,
// level B only, and lapses unused (docs/agents.md).
func (h *hookCall) askRewritten(a *assessment, rec audit.Record) hookAnswer {
	req, token, err := h.e.EnqueueAsked(a, h.p.provenance, audit.Session(h.ev.SessionID, h.env.ppid), h.p.label)
	if err != nil {
		return h.fail(a.Text, "%v", err)
	}
	reason := levelReason(a) + fmt.Sprintf("\nIf you approve, guard runs it once in its sandbox (approval %s).", req.ID)
	ans := h.rewritten(hookAsk, a.Text, reason, "--asked", token)
	rec.Decision = audit.Pending
	rec.Note = fmt.Sprintf("asked in %s's prompt as %s; runs in guard's sandbox if approved", h.p.label, req.ID)
	return h.recorded(rec, ans)
}

// allowRewritten allows the shell command, rewritten to run through guard
// run: guard reviews it again there (same text, cwd and workspace give the
// same verdict) and runs it in the sandbox.
func (h *hookCall) allowRewritten(text, reason string) hookAnswer {
	return h.rewritten(hookAllow, text, reason)
}

// rewritten is an answer whose command is text run through guard run
// (with extra flags before -c).
func (h *hookCall) rewritten(decision, text, reason string, extra ...string) hookAnswer {
	exe, err := h.env.exe()
	if err == nil && exe == "" {
		err = errors.New("guard cannot name its own executable for the sandbox rewrite")
	}
	if err != nil {
		return h.fail(text, "%v", err)
	}
	argv := append([]string{exe, "run", "--provenance", "agent"}, extra...)
	cmd, err := parse.Quote(append(argv, "-c", text))
	if err != nil {
		return h.fail(text, "cannot quote the command for guard run: %v", err)
	}
	if sid := h.ev.SessionID; sid != "" {
		// guard run's audit records then carry the agent's session.
		if q, err := parse.Quote([]string{sid}); err == nil {
			cmd = "GUARD_SESSION=" + q + " " + cmd
		}
	}
	return hookAnswer{decision: decision, reason: reason, command: cmd, input: h.ev.input}
}

// notifyQueued announces a queued request as the run path does; failures
// are warnings.
func notifyQueued(s *streams, req approval.Request) {
	cfg, err := loadSettings()
	if err != nil {
		fmt.Fprintf(s.err, "guard: warning: approval notification: %v\n", err)
		return
	}
	if err := approval.Notify(context.Background(), req, cfg.notify); err != nil {
		fmt.Fprintf(s.err, "guard: warning: approval notification: %v\n", err)
	}
}

// levelReason is the verdict in words: level, first rule, explanation,
// masked.
func levelReason(a *assessment) string {
	v := a.Verdict
	r := a.FirstReason()
	var b strings.Builder
	fmt.Fprintf(&b, "guard: level %s: %s: %s", v.Level, r.Rule, audit.Mask(r.Message))
	if e := strings.TrimSpace(audit.Mask(v.Explanation)); e != "" {
		b.WriteString("\n")
		b.WriteString(e)
	}
	return b.String()
}

// withoutSandboxLine drops the explanation's "Sandbox: …" line, for
// answers after which the command does not run in guard's sandbox.
func withoutSandboxLine(reason string) string {
	lines := strings.Split(reason, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, "Sandbox: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// toolPath is one path a tool call touches.
type toolPath struct {
	path   string
	access fileAccess
}

// files decides a file tool call by the paths it touches.
func (h *hookCall) files(acc fileAccess) hookAnswer {
	paths, err := h.toolPaths(acc)
	if err != nil {
		return h.fail(h.ev.ToolName, "%v", err)
	}
	return h.judgePaths(paths, false)
}

// toolPaths lists the paths of a known file tool. A tool that should carry
// a path and does not is malformed; Glob, LS and Grep default to the cwd.
func (h *hookCall) toolPaths(acc fileAccess) ([]toolPath, error) {
	if acc == accessPatch {
		// The body is under command (Codex), patch or input, or a key a
		// new version names: every string member is read as a patch,
		// and every file any of them names counts.
		keys := make([]string, 0, len(h.ev.input))
		for k := range h.ev.input {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out []toolPath
		for _, k := range keys {
			var body string
			if json.Unmarshal(h.ev.input[k], &body) != nil {
				continue
			}
			for _, p := range patchPaths(body) {
				out = append(out, toolPath{p, accessWrite})
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("malformed hook input: %s names no file", h.ev.ToolName)
		}
		return out, nil
	}
	out, err := h.anyPaths(acc)
	if err != nil {
		return nil, err
	}
	if pat, ok, err := h.stringField("pattern"); err == nil && ok && acc == accessList {
		// Glob's pattern may be a path of its own: judge its static part.
		if pre := globPrefix(pat); pre != "" {
			out = append(out, toolPath{pre, accessList})
		}
	}
	if len(out) == 0 {
		if acc == accessList || acc == accessSearch {
			return []toolPath{{h.ev.Cwd, acc}}, nil
		}
		return nil, fmt.Errorf("malformed hook input: %s without a file path", h.ev.ToolName)
	}
	return out, nil
}

// anyPaths collects the values of the path keys of tool_input.
func (h *hookCall) anyPaths(acc fileAccess) ([]toolPath, error) {
	var out []toolPath
	for _, k := range pathKeys {
		v, ok, err := h.stringField(k)
		if err != nil {
			return nil, err
		}
		if ok && v != "" {
			out = append(out, toolPath{v, acc})
		}
	}
	for _, k := range pathListKeys {
		raw, ok := h.ev.input[k]
		if !ok || string(raw) == "null" {
			continue
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			var one string
			if json.Unmarshal(raw, &one) != nil {
				return nil, fmt.Errorf("malformed hook input: tool_input.%s is not a string or a list of strings", k)
			}
			list = []string{one}
		}
		for _, v := range list {
			if pre := globPrefix(v); pre != "" {
				out = append(out, toolPath{pre, acc})
			}
		}
	}
	return out, nil
}

// other decides a tool guard does not know (an MCP tool, a new built-in):
// every string in its input, under any key and at any depth, that holds a
// shell command or looks like a path is judged. A command is never allowed
// outright (guard cannot sandbox or queue what another tool runs); a path
// to a secret or guard's own state is denied whatever the key. A tool that
// carries neither gets no opinion.
func (h *hookCall) other() hookAnswer { return h.judgeInput() }

// judged is one part of a tool call's answer and the audit record that
// says it, not yet written: the worst part is the answer (settle).
type judged struct {
	ans hookAnswer
	rec audit.Record
}

// hookRank orders answers: a deny beats an ask beats no opinion.
func hookRank(d string) int {
	return map[string]int{hookNoOpinion: 0, hookAllow: 1, hookAsk: 2, hookDeny: 3}[d]
}

// settle answers with the worst of the parts (the first of equals) and
// writes its record: an ask about one member never hides a deny of
// another, whatever order they come in.
func (h *hookCall) settle(parts []judged) hookAnswer {
	worst := worstPart(parts)
	switch {
	case worst == nil || worst.ans.decision == hookNoOpinion:
		return hookAnswer{}
	case worst.ans.decision == hookDeny:
		h.record(worst.rec)
		return worst.ans
	}
	return h.recorded(worst.rec, worst.ans)
}

// worstPart is the part with the worst answer, the first of equals; nil
// for none.
func worstPart(parts []judged) *judged {
	var worst *judged
	for i := range parts {
		if worst == nil || hookRank(parts[i].ans.decision) > hookRank(worst.ans.decision) {
			worst = &parts[i]
		}
	}
	return worst
}

// judgeInput judges every command, code and path in tool_input, leaving
// out the top-level keys skip (which the caller judges itself): the worst
// of them is the answer.
func (h *hookCall) judgeInput(skip ...string) hookAnswer {
	parts, fail := h.inputParts(skip...)
	if fail != nil {
		return *fail
	}
	return h.settle(parts)
}

// inputParts judges each command, code and path in tool_input apart;
// fail is set (and recorded) when the input cannot be judged.
func (h *hookCall) inputParts(skip ...string) (parts []judged, fail *hookAnswer) {
	failed := func(a hookAnswer) ([]judged, *hookAnswer) { return nil, &a }
	var input any
	if err := json.Unmarshal(h.ev.ToolInput, &input); err != nil {
		return failed(h.fail(h.ev.ToolName, "malformed hook input: %v", err))
	}
	if m, ok := input.(map[string]any); ok {
		for _, k := range skip {
			delete(m, k)
		}
	}
	found := toolStrings{terminal: isTerminalTool(h.ev.ToolName), shellArgv: toolShellArgv(h.ev.ToolName), toolTag: toolCodeTag(h.ev.ToolName), shellProg: toolShellProgram(h.ev.ToolName)}
	if err := found.walk("", input, 0); err != nil {
		return failed(h.fail(h.ev.ToolName, "%v", err))
	}
	if len(found.metadata) > 0 {
		// A fetch tool pointed at the cloud metadata service reads the
		// machine's credentials (as curl there does: secrets, C).
		u := found.metadata[0]
		parts = append(parts, judged{
			rec: audit.Record{Cwd: h.ev.Cwd, Command: h.ev.ToolName + " " + u, Level: review.C, Rules: []string{"secrets.cloud-metadata"}, Decision: audit.Refused, Note: "tool " + h.ev.ToolName},
			ans: denyf("guard: denied: %s %s: it is the cloud instance metadata service, which hands out this machine's credentials", h.ev.ToolName, u)})
	}
	var maybe []string
	if len(found.commands) > 0 {
		maybe = found.pathDirs
	}
	dirs, err := h.toolDirs(found.dirs, maybe)
	if err != nil {
		return failed(h.fail(h.ev.ToolName, "%v", err))
	}
	for _, c := range found.foreign {
		// Code guard has no reviewer for: inline code it does not review
		// (interp.inline-code, B), as python3 -c is.
		rec := audit.Record{Cwd: h.ev.Cwd, Command: h.ev.ToolName + " " + c.code, Level: review.B, Rules: []string{"interp.inline-code"}, Note: "tool " + h.ev.ToolName + " runs " + c.what()}
		reason := fmt.Sprintf("guard: level B: interp.inline-code: tool %s runs %s, which guard does not review", h.ev.ToolName, c.what())
		if h.canAsk() {
			rec.Decision = audit.Pending
			parts = append(parts, judged{rec: rec, ans: hookAnswer{decision: hookAsk, reason: reason + " (it runs outside guard's sandbox)"}})
			continue
		}
		rec.Decision = audit.Refused
		parts = append(parts, judged{rec: rec, ans: denyf("%s\nThis needs the user's approval, which cannot be given through %s: ask the user to run it themselves.", reason, h.p.label)})
	}
	for _, text := range found.commands {
		if err := nulCommand(text); err != nil {
			return failed(h.fail(text, "%v", err))
		}
		// The tool may run the command in the event's cwd or in any
		// directory its input names: the worst of them counts.
		var a *assessment
		for _, dir := range dirs {
			in, err := h.e.Assess(text, assessOptions{Cwd: dir, Provenance: review.ProvAgent})
			if err != nil {
				return failed(h.fail(text, "review failed: %v", err))
			}
			if a == nil || in.Verdict.Level > a.Verdict.Level {
				a = in
			}
		}
		v := a.Verdict
		if v.Level == review.A {
			continue
		}
		rec := audit.Record{Cwd: a.Ctx.Cwd, Workspace: a.Ctx.Workspace, Command: text, Level: v.Level, Rules: a.RuleIDs(), Note: "tool " + h.ev.ToolName}
		if v.Level == review.B && h.canAsk() {
			rec.Decision = audit.Pending
			parts = append(parts, judged{rec: rec, ans: hookAnswer{decision: hookAsk, reason: withoutSandboxLine(levelReason(a)) + fmt.Sprintf("\n(tool %s runs it outside guard's sandbox)", h.ev.ToolName)}})
			continue
		}
		rec.Decision = audit.Refused
		if v.Level == review.Deny {
			rec.Decision = audit.DeniedPolicy
		}
		parts = append(parts, judged{rec: rec, ans: denyf("%s\nguard cannot sandbox or queue commands that tool %s runs; use the shell tool, so the command can be reviewed and approved.", levelReason(a), h.ev.ToolName)})
	}
	content, err := h.contentParts(found.content, dirs)
	if err != nil {
		return failed(h.fail(h.ev.ToolName, "%v", err))
	}
	parts = append(parts, content...)
	if len(found.paths) == 0 {
		return parts, nil
	}
	// A relative path may be relative to any directory the input names
	// (a root or cwd member) as well as to the event's cwd.
	for _, tp := range found.paths {
		if filepath.IsAbs(tp.path) || tp.path == "~" || strings.HasPrefix(tp.path, "~/") {
			continue
		}
		for _, d := range dirs[1:] {
			found.paths = append(found.paths, toolPath{filepath.Join(d, tp.path), tp.access})
		}
	}
	// Unknown tools may write what they name: judge them as writes. Their
	// "path" may not be a local file (an API or repository path), so only
	// what is dangerous anyway (secrets, guard, persistence, agent
	// settings) is denied; the rest is at most asked about.
	p, err := h.pathParts(found.paths, true)
	if err != nil {
		return failed(h.fail(h.ev.ToolName, "%v", err))
	}
	return append(parts, p), nil
}

// Limits of the walk over an unknown tool's input: deeper or larger input
// is refused (denied), never skipped.
const (
	maxToolDepth   = 64
	maxToolStrings = 10000
	maxToolDirs    = 16
)

// toolDirs are the directories a tool's commands may run in: the event's
// cwd first, then each directory its input names (relative ones from the
// cwd; ~ and $HOME both as written and as the home directory, since guard
// cannot know whether the tool expands them). More than maxToolDirs is
// refused: each costs a review of every command.
//
// maybe are the other strings of the input written as paths (under a
// key of any name: path, location, base, in): those that name a
// directory that exists are directories the tool may run its commands
// in as well. eed3eff judged {"command": "rm -rf *", "path": "~"} in
// the event's cwd only (a delete in the workspace, asked) while the tool
// could delete the home directory.
func (h *hookCall) toolDirs(named, maybe []string) ([]string, error) {
	dirs := []string{h.ev.Cwd}
	add := func(d string, onlyDir bool) {
		if !filepath.IsAbs(d) {
			d = filepath.Join(h.ev.Cwd, d)
		}
		d = filepath.Clean(d)
		if onlyDir {
			if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
				return
			}
		}
		if !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	var home string
	for i, d := range append(slices.Clip(named), maybe...) {
		onlyDir := i >= len(named)
		if !onlyDir || !strings.HasPrefix(d, "~") && !strings.HasPrefix(d, "$") {
			add(d, onlyDir)
		}
		for _, pre := range []string{"~", "$HOME", "${HOME}"} {
			rest, ok := strings.CutPrefix(d, pre)
			if !ok || rest != "" && rest[0] != '/' {
				continue
			}
			if home == "" {
				ctx, err := h.e.Context(h.ev.Cwd, "")
				if err != nil {
					return nil, err
				}
				if home = ctx.Home; home == "" {
					return nil, fmt.Errorf("tool_input names the directory %q and the home directory is unknown", d)
				}
			}
			add(home+rest, onlyDir)
		}
	}
	if len(dirs) > maxToolDirs {
		// Not "malformed": since f62ffee an ordinary list of existing
		// directories beside a command (paths: [pkg/a, pkg/b, …])
		// counts, and the user must see why the call was refused.
		return nil, fmt.Errorf("tool_input names more than %d directories its commands may run in (any value that names an existing directory counts), and guard judges each command in at most %d", maxToolDirs-1, maxToolDirs-1)
	}
	return dirs, nil
}

// localOnlyClasses are denied for writes only when the path is surely a
// local file (a known file tool); an unknown tool's "path" is asked about.
var localOnlyClasses = []profile.Class{profile.ClassSystem, profile.ClassRoot, profile.ClassDevice, profile.ClassTTY}

// judgedAs is the engine's access for a tool's: a patch writes.
func judgedAs(acc fileAccess) decision.Access {
	if acc == accessPatch {
		return decision.AccessWrite
	}
	return acc
}

// judgePaths decides by the worst of the paths, priced by the engine
// (decision.JudgePath: review's effect table). Where every path is A guard
// has no opinion: the agent's own rules (its prompt before an edit, with
// the diff) stay in force; guard only adds asks (B) and denies (C).
// unknown: the tool is not one guard knows.
func (h *hookCall) judgePaths(paths []toolPath, unknown bool) hookAnswer {
	p, err := h.pathParts(paths, unknown)
	if err != nil {
		return h.fail(h.ev.ToolName, "%v", err)
	}
	return h.settle([]judged{p})
}

// pathParts is judgePaths' answer and record, not yet written.
func (h *hookCall) pathParts(paths []toolPath, unknown bool) (judged, error) {
	ctx, err := h.e.Context(h.ev.Cwd, "")
	if err != nil {
		return judged{}, err
	}
	worst := decision.PathJudgement{Level: review.A}
	var shown []string
	for _, tp := range paths {
		j := decision.JudgePath(ctx, tp.path, judgedAs(tp.access))
		if unknown && j.Level == review.C && slices.Contains(localOnlyClasses, j.Class) {
			j.Level = review.B
		}
		shown = append(shown, j.Path)
		if j.Level > worst.Level {
			worst = j
		}
	}
	command := h.ev.ToolName
	if q, err := parse.Quote(shown); err == nil {
		command += " " + q
	}
	rec := audit.Record{Cwd: ctx.Cwd, Workspace: ctx.Workspace, Command: command, Level: worst.Level, Note: "file tool"}
	if worst.Class != "" {
		rec.Note = fmt.Sprintf("file tool: %s is %s", worst.Path, worst.Class)
	}
	switch worst.Level {
	case review.A:
		return judged{}, nil
	case review.B:
		reason := fmt.Sprintf("guard: level B: %s %s: %s", h.ev.ToolName, worst.Path, worst.Why)
		if h.canAsk() {
			rec.Decision = audit.Pending
			rec.Note += "; asked in " + h.p.label + "'s prompt"
			return judged{rec: rec, ans: hookAnswer{decision: hookAsk, reason: reason}}, nil
		}
		rec.Decision = audit.Refused
		return judged{rec: rec, ans: denyf("%s\nThis needs the user's approval, which cannot be given through %s: ask the user to make this change themselves.", reason, h.p.label)}, nil
	}
	rec.Decision = audit.Refused
	return judged{rec: rec, ans: denyf("guard: denied: %s %s: %s. guard does not let an agent do this; ask the user to do it themselves if it is really needed.", h.ev.ToolName, worst.Path, worst.Why)}, nil
}

// patchPaths are the files a Codex apply_patch body adds, updates, deletes
// or moves to.
func patchPaths(body string) []string {
	var out []string
	for _, line := range strings.Split(body, "\n") {
		// Read leniently (space around the stars, any case): a line
		// that may name a file to the patch tool names one to guard.
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "***")
		if !ok {
			continue
		}
		rest = strings.Join(strings.Fields(rest), " ")
		for _, m := range []string{"Add File:", "Update File:", "Delete File:", "Move to:"} {
			if len(rest) > len(m) && strings.EqualFold(rest[:len(m)], m) {
				if p := strings.TrimSpace(rest[len(m):]); p != "" {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// globPrefix is the directory part of a glob pattern before its first
// pattern character ("" for a pattern that starts with one, meaning the
// tool's own directory).
func globPrefix(pat string) string {
	i := strings.IndexAny(pat, "*?[{")
	if i < 0 {
		return pat
	}
	dir := pat[:i]
	if j := strings.LastIndex(dir, "/"); j >= 0 {
		if j == 0 {
			return "/"
		}
		return dir[:j]
	}
	return ""
}
