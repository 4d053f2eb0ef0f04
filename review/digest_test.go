package review_test

import (
	"slices"
	"testing"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

// The digest depends on what the verdict says, not on how its lists are
// stored: a copy of the context's hide and protect lists digests like the
// shared lists, and a list that differs in one path does not.
func TestDigestByContent(t *testing.T) {
	ctx := memContext(nil)
	ctx.ConfigDir, ctx.StateDir = "/home/u/.config/guard", "/home/u/.local/state/guard"
	text := "rm -rf build"
	in := review.Input{Text: text, Context: ctx, Provenance: review.ProvAgent}
	v := review.Assess(profile.Build(text, ctx), in)
	if len(v.Sandbox.Hide) == 0 || len(v.Sandbox.Protect) == 0 {
		t.Fatalf("no lists to test: %+v", v.Sandbox)
	}
	copied := v
	copied.Sandbox.Hide = slices.Clone(v.Sandbox.Hide)
	copied.Sandbox.Protect = slices.Clone(v.Sandbox.Protect)
	if review.Digest(in, copied) != v.Digest {
		t.Error("a copy of the same lists gives another digest")
	}
	fewer := v
	fewer.Sandbox.Hide = v.Sandbox.Hide[1:]
	if review.Digest(in, fewer) == v.Digest {
		t.Error("a hide list without one secret gives the same digest")
	}
	other := v
	other.Sandbox.Protect = slices.Clone(v.Sandbox.Protect)
	other.Sandbox.Protect[0] = "/elsewhere"
	if review.Digest(in, other) == v.Digest {
		t.Error("a protect list with another path gives the same digest")
	}
}
