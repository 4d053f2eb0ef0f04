package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackEnvNamedSecrets: credentials kept outside the known secret
// locations, which the environment names by path — a service account
// key in GOOGLE_APPLICATION_CREDENTIALS, a kubeconfig in a list, a TLS key
// — are read by a command rated A that looks them up the way the tools
// do, and stashed in the workspace for a later push. The variables still
// reach the command; the files they name are hidden.
func TestAttackEnvNamedSecrets(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{
		"GOOGLE_APPLICATION_CREDENTIALS": f.p("outside/keys/sa.json"),
		"KUBECONFIG":                     f.p("outside/kube/a") + ":" + f.p("outside/kube/b"),
		"SERVER_KEY_FILE":                f.p("outside/tls/server.key"),
	}
	for _, p := range []string{f.p("outside/keys/sa.json"), f.p("outside/kube/a"), f.p("outside/kube/b"), f.p("outside/tls/server.key"), f.p("ws/dev/sa.json")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("SECRET-"+filepath.Base(p)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := f.spec()
	for name, v := range files {
		spec.Env = append(spec.Env, name+"="+v)
	}
	read := `for v in "$GOOGLE_APPLICATION_CREDENTIALS" "$SERVER_KEY_FILE" $(echo "$KUBECONFIG" | tr : ' '); do cat "$v" >> stash.txt; done; echo "$KUBECONFIG"`
	t.Run("read through the environment", func(t *testing.T) {
		o := run(t, spec, "sh", "-c", read)
		if strings.Contains(readFile(t, f.p("ws/stash.txt")), "SECRET") {
			t.Errorf("the command read a credential its environment names: %q", readFile(t, f.p("ws/stash.txt")))
		}
		if strings.TrimSpace(o.stdout) != files["KUBECONFIG"] {
			t.Errorf("the variable itself did not reach the command: %q", o.stdout)
		}
	})
	t.Run("a key in the workspace stays the project's", func(t *testing.T) {
		ws := spec
		ws.Env = append(append([]string(nil), f.spec().Env...), "GOOGLE_APPLICATION_CREDENTIALS="+f.p("ws/dev/sa.json"))
		o := run(t, ws, "sh", "-c", `cat "$GOOGLE_APPLICATION_CREDENTIALS"`)
		mustSucceed(t, o)
		if !strings.Contains(o.stdout, "SECRET-sa.json") {
			t.Errorf("got %q", o.stdout)
		}
	})
	t.Run("a known client's credential the review revealed", func(t *testing.T) {
		// kubectl get with KUBECONFIG elsewhere: the review revealed a
		// credential, so the run hides none its environment names.
		rv := spec
		rv.Reveal = []string{f.p("outside/kube")}
		o := run(t, rv, "sh", "-c", `cat "${KUBECONFIG%%:*}"`)
		mustSucceed(t, o)
		if !strings.Contains(o.stdout, "SECRET-a") {
			t.Errorf("got %q", o.stdout)
		}
	})
}
