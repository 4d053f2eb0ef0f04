package scan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// RuleContainer names the adjustment scan makes to Dockerfile commands.
// It is not a finding of its own: a lowered finding keeps its rule and
// says in Adjusted (and in its explanation) what was lowered and why.
const RuleContainer = "scan-container"

// Adjustment records that scan lowered a finding's level.
type Adjustment struct {
	// Rule is the scan rule that lowered it (RuleContainer).
	Rule string `json:"rule"`
	// From is the level the engine gave.
	From review.Level `json:"from"`
	// Why says why, in a few words.
	Why string `json:"why"`
}

// ContainerRow is one row of ContainerTable: the effects it matches and
// the level they get inside an image build.
type ContainerRow struct {
	// Rule, when set, matches effects of that engine rule; Program, when
	// set, narrows it to effects of that program.
	Rule, Program string
	// Caps and Classes, when set, match effects with one of the
	// capabilities and one of the path classes.
	Caps    []profile.Cap
	Classes []profile.Class
	// Except are trees the row does not cover: the kernel's /proc and
	// /sys are the host's in a build container too.
	Except []string
	// Level is the most the effect costs in an image build.
	Level review.Level
	Why   string
	// VMWhy is Why for a Vagrant provisioner's script (RuleVM): the
	// same effect, in the virtual machine it provisions.
	VMWhy string
}

// ContainerTable is how scan reviews a Dockerfile RUN. The command runs in
// the build container, not on the machine that runs guard: system paths
// are the image's own, packages are the image's, accounts are the image's
// /etc/passwd. The engine classes paths for this machine, so scan lowers
// the effects below to B (a change to the image, which a reviewer of the
// Dockerfile should see) and leaves everything else as the engine says:
//
//   - code from the network (curl … | sh stays C: it is baked into the
//     image unreviewed), credentials, publishing and remote state, and
//     sending to the network;
//   - code set to run later (persistence: cron, profile.d, systemd units,
//     rc files), setuid bits, capabilities, sudoers and chroot;
//   - devices, terminals, services, mounts, disks, the kernel (/proc,
//     /sys), the firewall and network interfaces (a build that can reach
//     them, with --security=insecure, reaches the host's);
//   - guard's own files, and text guard could not analyse.
//
// A row only lowers: an effect the engine gives B or A keeps its level.
var ContainerTable = []ContainerRow{
	{Caps: []profile.Cap{profile.CapWrite, profile.CapDelete, profile.CapSystem},
		Classes: []profile.Class{profile.ClassSystem, profile.ClassRoot},
		Except:  []string{"/proc", "/sys"},
		Level:   review.B, Why: "system paths in a Dockerfile RUN are the image's own",
		VMWhy: "system paths a provisioner writes are the virtual machine's"},
	{Rule: "sys.packages", Level: review.B, Why: "packages installed in a Dockerfile RUN are the image's",
		VMWhy: "packages a provisioner installs are the virtual machine's"},
	{Rule: "priv.users", Level: review.B, Why: "accounts added in a Dockerfile RUN are the image's",
		VMWhy: "accounts a provisioner adds are the virtual machine's"},
	{Rule: "sys.config", Program: "ldconfig", Level: review.B, Why: "the linker cache a Dockerfile RUN updates is the image's",
		VMWhy: "the linker cache a provisioner updates is the virtual machine's"},
	{Rule: "priv.sudo", Level: review.B, Why: "sudo, su and doas in a Dockerfile RUN switch users inside the build container", VMWhy: vmSudo},
	{Rule: "priv.su", Level: review.B, Why: "sudo, su and doas in a Dockerfile RUN switch users inside the build container", VMWhy: vmSudo},
	{Rule: "priv.doas", Level: review.B, Why: "sudo, su and doas in a Dockerfile RUN switch users inside the build container", VMWhy: vmSudo},
}

const vmSudo = "sudo, su and doas in a provisioner switch users inside the virtual machine"

func (r *ContainerRow) matches(e profile.Effect) bool {
	return (r.Rule == "" || r.Rule == e.Rule) &&
		(r.Program == "" || r.Program == e.Program) &&
		(len(r.Caps) == 0 || slices.Contains(r.Caps, e.Cap)) &&
		(len(r.Classes) == 0 || slices.Contains(r.Classes, e.Class)) &&
		!slices.ContainsFunc(r.Except, func(dir string) bool { return e.Target == dir || strings.HasPrefix(e.Target, dir+"/") })
}

// RuleCI names the adjustment scan makes to commands of CI files (GitHub
// Actions run steps, .gitlab-ci.yml scripts), like RuleContainer for
// Dockerfiles.
const RuleCI = "scan-ci"

// CITable is how scan reviews a command in a CI file. It runs on a CI
// runner: a machine (or container) made for the job and thrown away after
// it, where installing the build's tools is the normal first step. System
// package managers (apt-get, dnf, apk, …: rule sys.packages) and sudo, su
// and doas (the runner's root) are B there: a reviewer of the workflow
// should see them, but they are not the C they are on a developer's
// machine. Everything else keeps the engine's level: code from the
// network (curl … | sh), what sudo runs (sudo rm -rf / is still C by its
// own rule), credentials, publishing, persistence, the kernel.
var CITable = []ContainerRow{
	{Rule: "sys.packages", Level: review.B, Why: "system packages installed by a CI job are the runner's, thrown away after the job"},
	{Rule: "priv.sudo", Level: review.B, Why: "root on a CI runner is the runner's; what runs as root keeps its own level"},
	{Rule: "priv.su", Level: review.B, Why: "root on a CI runner is the runner's; what runs as root keeps its own level"},
	{Rule: "priv.doas", Level: review.B, Why: "root on a CI runner is the runner's; what runs as root keeps its own level"},
}

// adjustment is a table of lowered levels with the scan rule that names
// it and the title of the section it adds to an explanation.
type adjustment struct {
	table []ContainerRow
	rule  string
	title string
}

// RuleVM names the adjustment scan makes to a Vagrant provisioner's
// script: it runs in the virtual machine it provisions, whose system
// paths, packages and accounts are that machine's, as an image's are a
// Dockerfile RUN's: ContainerTable lowers the same effects (each row's
// VMWhy says why).
const RuleVM = "scan-vm"

var (
	inImage  = adjustment{ContainerTable, RuleContainer, "In the image (" + RuleContainer + "): a Dockerfile RUN runs in the build container, not on this machine:"}
	onRunner = adjustment{CITable, RuleCI, "On a CI runner (" + RuleCI + "): a CI job runs on a machine made for it:"}
	inVM     = adjustment{ContainerTable, RuleVM, "In the virtual machine (" + RuleVM + "): a Vagrant provisioner runs in the machine it provisions, not on this one:"}
)

// adjustments says which adjustment applies to commands of each kind.
var adjustments = map[Kind]*adjustment{Dockerfile: &inImage, Workflow: &onRunner, GitLab: &onRunner, Vagrant: &inVM}

// level is what an effect costs under a, and the row that lowered it (nil
// when none did).
func (a *adjustment) level(e profile.Effect) (review.Level, *ContainerRow) {
	l := review.EffectLevel(e)
	for i := range a.table {
		r := &a.table[i]
		if r.matches(e) && r.Level < l {
			return r.Level, r
		}
	}
	return l, nil
}

// apply adjusts a review by a's table (a Dockerfile command by
// ContainerTable, a CI command by CITable). Each reason the engine derived
// from effects (same rule and message) gets the highest level any of
// those effects has there, if that is lower; reasons of policy rules, and
// reasons no effect explains, are kept. The verdict's level and the
// heading of its explanation follow. adj[i] says why Reasons[i] was
// lowered, or is nil. rv is not modified.
func (a *adjustment) apply(rv Review) (v review.Verdict, adj []*Adjustment) {
	v = rv.Verdict
	if len(rv.Effects) == 0 || len(v.Reasons) == 0 {
		return v, nil
	}
	type key struct{ rule, msg string }
	type lowered struct {
		level review.Level
		row   *ContainerRow
	}
	by := map[key]*lowered{}
	for _, e := range rv.Effects {
		l, row := a.level(e)
		k := key{e.Rule, e.Msg}
		if cur, ok := by[k]; !ok || l > cur.level {
			by[k] = &lowered{l, row}
		}
	}
	var reasons []review.Reason
	var lines []string
	before, after := review.Level(0), review.Level(0)
	for i, r := range v.Reasons {
		before = review.Max(before, r.Level)
		lo := by[key{r.Rule, r.Message}]
		if strings.HasPrefix(r.Rule, "policy.") || lo == nil || lo.row == nil || lo.level >= r.Level {
			after = review.Max(after, r.Level)
			continue
		}
		if reasons == nil {
			reasons = slices.Clone(v.Reasons)
			adj = make([]*Adjustment, len(v.Reasons))
		}
		why := lo.row.Why
		if a.rule == RuleVM {
			why = lo.row.VMWhy
		}
		adj[i] = &Adjustment{Rule: a.rule, From: r.Level, Why: why}
		reasons[i].Level = lo.level
		after = review.Max(after, lo.level)
		lines = append(lines, fmt.Sprintf("%s: %s → %s, %s", r.Rule, r.Level, lo.level, why))
	}
	if reasons == nil {
		return v, nil
	}
	v.Reasons = reasons
	if v.Level <= before {
		// A level above every reason (the engine should not give one) is
		// kept; scan reports it as RuleUnexplained.
		v.Level = review.Max(review.A, after)
	}
	v.Explanation = withSection(retitle(v.Explanation, v.Level), a.title, uniq(lines))
	return v, adj
}

// retitle rewrites the "Level X: …" heading of an engine explanation for
// level l. An explanation without that heading is returned as it is.
func retitle(expl string, l review.Level) string {
	if !strings.HasPrefix(expl, "Level ") {
		return expl
	}
	_, rest, _ := strings.Cut(expl, "\n")
	return review.Heading(l) + rest
}

// withSection adds a titled list to an explanation, before its closing
// "Sandbox: " line when it has one (as the policy's section is).
func withSection(expl, title string, items []string) string {
	if expl == "" || len(items) == 0 {
		return expl
	}
	var b strings.Builder
	b.WriteString(title + "\n")
	for _, it := range items {
		b.WriteString("  - " + it + "\n")
	}
	body, nl := strings.CutSuffix(expl, "\n")
	if i := strings.LastIndex(body, "\n"); i >= 0 && strings.HasPrefix(body[i+1:], "Sandbox: ") {
		return body[:i+1] + b.String() + body[i+1:] + "\n"
	}
	out := body + "\n" + b.String()
	if !nl {
		out = strings.TrimSuffix(out, "\n")
	}
	return out
}

func uniq(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
