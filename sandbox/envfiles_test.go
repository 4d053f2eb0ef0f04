package sandbox_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackEnvNamedSecretsBypass: the credential files the environment
// names were hidden only when the run revealed nothing — but guard
// reveals its own policy to every run, so through the real CLI no file
// was ever hidden; only absolute values counted (a relative KEY_FILE or a
// ~/ KUBECONFIG, which the tools read, named nothing); and the table
// missed the tools' own variables (DOCKER_CONFIG's config.json,
// GNUPGHOME's private keys, AWS_CONFIG_FILE, CARGO_HOME's tokens,
// REGISTRY_AUTH_FILE). On the old code the command read every SECRET
// below; now none (nor through a hard link or a symlink it makes in the
// workspace, nor /proc/self/root), while a revealed client's file,
// cargo's registry cache and the variables themselves stay.
func TestAttackEnvNamedSecretsBypass(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{
		"outside/keys/sa.json":                    "SECRET-sa",
		"outside/tls/server.key":                  "SECRET-tls",
		"home/kube/config":                        "SECRET-kube",
		"outside/docker/config.json":              "SECRET-docker",
		"outside/gnupg/private-keys-v1.d/k.key":   "SECRET-gpg",
		"outside/aws/config":                      "SECRET-awsconfig",
		"outside/cargo/credentials.toml":          "SECRET-cargo",
		"outside/cargo/registry/index/cache.txt":  "CARGO-CACHE",
		"outside/containers/auth.json":            "SECRET-registry",
		"home/.config/guard/policy-revealed.toml": "POLICY",
		"outside/kubeelsewhere/config":            "KUBE-REVEALED",
	}
	for rel, content := range files {
		p := f.p(rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	spec := f.spec()
	spec.Env = append(spec.Env,
		"GOOGLE_APPLICATION_CREDENTIALS="+f.p("outside/keys/sa.json"),
		"SERVER_KEY_FILE=../outside/tls/server.key", // relative to the working directory (ws)
		"KUBECONFIG=~/kube/config",                  // the tools expand ~
		"DOCKER_CONFIG="+f.p("outside/docker"),
		"GNUPGHOME="+f.p("outside/gnupg"),
		"AWS_CONFIG_FILE="+f.p("outside/aws/config"),
		"CARGO_HOME="+f.p("outside/cargo"),
		"REGISTRY_AUTH_FILE="+f.p("outside/containers/auth.json"),
	)
	// As guard does for every run: its policy is revealed.
	spec.Reveal = []string{f.p("home/.config/guard/policy-revealed.toml")}
	read := `for v in "$GOOGLE_APPLICATION_CREDENTIALS" "$SERVER_KEY_FILE" "$HOME/kube/config" "$DOCKER_CONFIG/config.json" "$GNUPGHOME"/private-keys-v1.d/* "$AWS_CONFIG_FILE" "$CARGO_HOME/credentials.toml" "$REGISTRY_AUTH_FILE"; do cat "$v"; done; ln "$GOOGLE_APPLICATION_CREDENTIALS" sa-link && cat sa-link; ln -s "$GOOGLE_APPLICATION_CREDENTIALS" sa-sym && cat sa-sym; cat "/proc/self/root$GOOGLE_APPLICATION_CREDENTIALS"; echo "KUBECONFIG=$KUBECONFIG"; cat "$CARGO_HOME/registry/index/cache.txt"`
	t.Run("read through the environment", func(t *testing.T) {
		o := run(t, spec, "sh", "-c", read)
		for _, line := range strings.Split(o.stdout, "\n") {
			if strings.HasPrefix(line, "SECRET-") {
				t.Errorf("the command read a credential its environment names: %s", line)
			}
		}
		if !strings.Contains(o.stdout, "KUBECONFIG=~/kube/config") {
			t.Errorf("the variable itself did not reach the command: %q", o.stdout)
		}
		if !strings.Contains(o.stdout, "CARGO-CACHE") {
			t.Errorf("cargo's registry cache is hidden with its tokens: %v", o)
		}
	})
	t.Run("the home location a client was revealed", func(t *testing.T) {
		// kubectl get: the review revealed ~/.kube; KUBECONFIG elsewhere
		// stands in for it and stays readable. The service account key
		// it did not reveal stays hidden.
		rv := spec
		rv.Env = append(append([]string(nil), spec.Env...), "KUBECONFIG="+f.p("outside/kubeelsewhere/config"))
		rv.Reveal = []string{filepath.Join(f.home, ".kube")}
		o := run(t, rv, "sh", "-c", `cat "$KUBECONFIG"; cat "$GOOGLE_APPLICATION_CREDENTIALS"`)
		if !strings.Contains(o.stdout, "KUBE-REVEALED") {
			t.Errorf("the revealed client's kubeconfig is hidden: %v", o)
		}
		if strings.Contains(o.stdout, "SECRET-sa") {
			t.Errorf("a credential the review did not reveal was read: %v", o)
		}
	})
}
