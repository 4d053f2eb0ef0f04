package policy

import (
	"regexp"
	"testing"
)

// TestValidNames: the hand-written checks accept exactly what the
// documented patterns accept.
func TestValidNames(t *testing.T) {
	idRe := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	envRe := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	for _, s := range []string{
		"", "a", "Z", "0", "_", ".", "-", "fs.delete", "my-rule_2", "-x", ".x", "_x", "x y", "x/y",
		"é", "aé", "PATH", "_PATH", "9PATH", "PA-TH", "PA.TH", "a\n", "\x00", "ok.", "1.2.3",
	} {
		if got, want := validID(s), idRe.MatchString(s); got != want {
			t.Errorf("validID(%q) = %v, want %v", s, got, want)
		}
		if got, want := validEnvName(s), envRe.MatchString(s); got != want {
			t.Errorf("validEnvName(%q) = %v, want %v", s, got, want)
		}
	}
}

func FuzzValidNames(f *testing.F) {
	idRe := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	envRe := regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	f.Add("fs.delete")
	f.Add("_X9")
	f.Fuzz(func(t *testing.T, s string) {
		if validID(s) != idRe.MatchString(s) || validEnvName(s) != envRe.MatchString(s) {
			t.Errorf("%q: validID %v, validEnvName %v", s, validID(s), validEnvName(s))
		}
	})
}
