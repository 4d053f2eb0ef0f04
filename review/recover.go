package review

import "github.com/guard-sh/guard/profile"

// RecoverableNote is what the explanation says about a delete that guard's
// checkpoint restores.
const RecoverableNote = "(recoverable with `guard undo`)"

// recovered reports whether e is a delete inside the workspace whose
// target guard's checkpoint restores (in.Recoverable, computed before
// review by checkpoint.Cover). Deletes outside the workspace, of temp
// dirs, of sensitive files and of targets without a path never are.
func recovered(e profile.Effect, in Input) bool {
	if e.Cap != profile.CapDelete || e.Class != profile.ClassWorkspace || e.Target == "" {
		return false
	}
	for _, t := range in.Recoverable {
		if t == e.Target {
			return true
		}
	}
	return false
}

// levelIn is EffectLevel with the checkpoint taken into account: a
// recoverable workspace delete (B on the ladder) is A.
func levelIn(e profile.Effect, in Input) Level {
	l := EffectLevel(e)
	if l == B && recovered(e, in) {
		return A
	}
	return l
}
