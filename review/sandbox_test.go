package review_test

import (
	"slices"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// userCtx is user u's context in the workspace /home/u/proj.
func userCtx() *profile.Context {
	return &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u",
		ConfigDir: "/home/u/.config/guard", StateDir: "/home/u/.local/state/guard"}
}

// TestApprovedDeleteKeepsProtections: deleting ~/old needs the home
// directory writable (Landlock grants rights on the parent), but that
// grant must not lift the protection of ~/.bashrc or hide less.
func TestApprovedDeleteKeepsProtections(t *testing.T) {
	ctx := userCtx()
	text := "rm -rf ~/old"
	v := review.Assess(profile.Build(text, ctx), review.Input{Text: text, Context: ctx, Provenance: review.ProvAgent})
	if v.Level != review.C {
		t.Fatalf("level %s, want C", v.Level)
	}
	if !slices.Contains(v.Sandbox.ExtraWrite, "/home/u") {
		t.Errorf("ExtraWrite %v lacks the parent /home/u needed to remove ~/old", v.Sandbox.ExtraWrite)
	}
	for _, p := range []string{"/home/u/.bashrc", "/home/u/proj/.git/hooks", "/home/u/.claude/settings.json"} {
		if !slices.Contains(v.Sandbox.Protect, p) {
			t.Errorf("%s is not protected any more: %v", p, v.Sandbox.Protect)
		}
	}
	if !slices.Contains(v.Sandbox.Hide, "/home/u/.ssh") {
		t.Errorf("~/.ssh is not hidden: %v", v.Sandbox.Hide)
	}

	// An approved write to ~/.bashrc itself lifts that one protection.
	text = "echo 'export X=1' >> ~/.bashrc"
	v = review.Assess(profile.Build(text, ctx), review.Input{Text: text, Context: ctx, Provenance: review.ProvAgent})
	if slices.Contains(v.Sandbox.Protect, "/home/u/.bashrc") {
		t.Errorf("an approved write to ~/.bashrc still protects it, so it could never run")
	}
	if !slices.Contains(v.Sandbox.Protect, "/home/u/.profile") {
		t.Errorf("~/.profile lost its protection too")
	}
}
