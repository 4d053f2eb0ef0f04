package checkpoint

import (
	"os"
	"strings"
	"testing"
)

// git runs with guard's malloc tunables, after which the caller's own
// GLIBC_TUNABLES still apply (glibc reads them in order: the caller's
// settings win); no GIT_* variable of the caller reaches it.
func TestGitEnv(t *testing.T) {
	for _, c := range []struct {
		name   string
		caller *string
		want   string
	}{
		{"unset", nil, mallocTunables},
		{"empty", ptr(""), mallocTunables},
		{"set", ptr("glibc.malloc.mmap_threshold=4096"), mallocTunables + ":glibc.malloc.mmap_threshold=4096"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("GLIBC_TUNABLES", "")
			t.Setenv("GIT_DIR", "/elsewhere")
			if c.caller == nil {
				os.Unsetenv("GLIBC_TUNABLES")
			} else {
				os.Setenv("GLIBC_TUNABLES", *c.caller)
			}
			var got []string
			for _, kv := range baseEnv() {
				if v, ok := strings.CutPrefix(kv, "GLIBC_TUNABLES="); ok {
					got = append(got, v)
				}
				if strings.HasPrefix(kv, "GIT_DIR=") {
					t.Errorf("the caller's %s reaches git", kv)
				}
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("GLIBC_TUNABLES = %q, want [%q]", got, c.want)
			}
		})
	}
}

func ptr(s string) *string { return &s }
