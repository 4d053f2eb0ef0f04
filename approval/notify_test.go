package approval

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/guard-sh/guard/internal/testwork"
	"github.com/guard-sh/guard/review"
)

func TestNotifyWebhook(t *testing.T) {
	got := make(chan WebhookPayload, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("webhook got %s with Content-Type %q", r.Method, r.Header.Get("Content-Type"))
		}
		var p WebhookPayload
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			t.Error(err)
		}
		got <- p
	}))
	defer srv.Close()
	req := request(key, review.C)
	req.ID = "3fa2b1c0"
	if err := Notify(context.Background(), req, Notifications{Webhook: srv.URL + "/hook"}); err != nil {
		t.Fatal(err)
	}
	p := <-got
	if p.Event != "approval_requested" || p.ID != "3fa2b1c0" || p.Level != "C" || p.Command != key.Command ||
		p.Cwd != key.Cwd || p.Explanation != req.Explanation || p.Approve != "guard approve 3fa2b1c0" {
		t.Errorf("payload = %+v", p)
	}
}

func TestNotifyWebhookFailuresAreErrorsOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusInternalServerError)
	}))
	defer srv.Close()
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer slow.Close()
	defer close(release)
	req := request(key, review.B)
	for name, to := range map[string]Notifications{
		"status 500":       {Webhook: srv.URL + "/secret-token"},
		"plain http":       {Webhook: "http://example.com/secret-token"},
		"not a url":        {Webhook: "::secret-token"},
		"timeout":          {Webhook: slow.URL + "/secret-token", Timeout: 200 * time.Millisecond},
		"unsupported type": {Webhook: "ftp://example.com/secret-token"},
	} {
		start := time.Now()
		err := Notify(context.Background(), req, to)
		if err == nil {
			t.Errorf("%s: no error", name)
			continue
		}
		if strings.Contains(err.Error(), "secret-token") {
			t.Errorf("%s: error %q repeats the webhook's path", name, err)
		}
		if time.Since(start) > 2*time.Second {
			t.Errorf("%s: Notify took %v", name, time.Since(start))
		}
	}
}

// TestNotifyWebhookCurl: the webhook goes through curl, which gets the
// URL on stdin (not in its argument list, which other users can read),
// ignores the user's ~/.curlrc, follows no redirect, and whose absence
// is an error naming curl but not the URL.
func TestNotifyWebhookCurl(t *testing.T) {
	req := request(key, review.B)
	req.ID = "3fa2b1c0"

	// A ~/.curlrc that would send everything through a dead proxy.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".curlrc"), []byte("proxy = \"http://127.0.0.1:9\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	hit := make(chan string, 4)
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit <- r.URL.Path
	}))
	defer target.Close()
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hit <- r.URL.Path
		http.Redirect(w, r, target.URL+"/stolen", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()

	if err := Notify(context.Background(), req, Notifications{Webhook: target.URL + "/ok-token"}); err != nil {
		t.Fatalf("webhook with a hostile ~/.curlrc: %v", err)
	}
	if p := <-hit; p != "/ok-token" {
		t.Errorf("webhook hit %q", p)
	}
	err := Notify(context.Background(), req, Notifications{Webhook: redirect.URL + "/redirect-token"})
	if err == nil || !strings.Contains(err.Error(), "status 307") || strings.Contains(err.Error(), "redirect-token") {
		t.Errorf("redirecting webhook: err = %v, want status 307 without the path", err)
	}
	<-hit
	select {
	case p := <-hit:
		t.Errorf("the redirect was followed to %q", p)
	default:
	}

	// The URL is not in curl's arguments.
	bin := hostBin(t)
	args := filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + args + "\nwhile IFS= read -r l; do printf '%s\\n' \"$l\"; done > " + args + ".stdin\nprintf 204\n"
	if err := os.WriteFile(filepath.Join(bin, "curl"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	if err := Notify(context.Background(), req, Notifications{Webhook: "https://hooks.example.com/argv-token"}); err != nil {
		t.Fatal(err)
	}
	argv, _ := os.ReadFile(args)
	stdin, _ := os.ReadFile(args + ".stdin")
	if strings.Contains(string(argv), "argv-token") || !strings.Contains(string(stdin), `url = "https://hooks.example.com/argv-token"`) {
		t.Errorf("curl argv %q, stdin %q: want the URL on stdin only", argv, stdin)
	}
	if !strings.HasPrefix(string(argv), "--disable\n") {
		t.Errorf("curl argv %q: want --disable first (no ~/.curlrc)", argv)
	}

	// Without curl: an error that says so, without the URL's secret.
	t.Setenv("PATH", t.TempDir())
	err = Notify(context.Background(), req, Notifications{Webhook: "https://hooks.example.com/missing-token"})
	if err == nil || !strings.Contains(err.Error(), "curl, which is not on PATH") || strings.Contains(err.Error(), "missing-token") {
		t.Errorf("webhook without curl: err = %v", err)
	}
}

// TestCurlQuote: a payload with quotes, backslashes and newlines reaches
// the server as it was encoded.
func TestCurlQuote(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:         `"plain"`,
		`a"b\c`:         `"a\"b\\c"`,
		"line\nnext\t.": `"line\nnext\t."`,
	} {
		if got := curlQuote(in); got != want {
			t.Errorf("curlQuote(%q) = %s, want %s", in, got, want)
		}
	}
}

// hostBin is a directory for fake programs that guard may run: outside
// the temp dirs (guard never runs a program found there) and, with HOME
// moved to a temp dir, outside the home's caches.
func hostBin(t *testing.T) string {
	t.Helper()
	bin := testwork.Dir(t, "guard-approval-bin-")
	t.Setenv("HOME", t.TempDir())
	return bin
}

// TestNotifyPlantedProgram: a sandboxed command can write the workspace;
// a notify-send it planted in a workspace directory on PATH (an
// activated .venv/bin) ahead of the real one is never what guard runs,
// unconfined, when it announces a request.
func TestNotifyPlantedProgram(t *testing.T) {
	real := hostBin(t)
	ws := t.TempDir()
	planted := filepath.Join(ws, ".venv", "bin")
	os.MkdirAll(planted, 0o755)
	mark := filepath.Join(t.TempDir(), "planted-ran")
	os.WriteFile(filepath.Join(planted, "notify-send"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755)
	out := filepath.Join(t.TempDir(), "real-ran")
	os.WriteFile(filepath.Join(real, "notify-send"), []byte("#!/bin/sh\ntouch "+out+"\n"), 0o755)
	t.Setenv("PATH", planted+":"+real+":/usr/bin:/bin")
	req := request(key, review.B)
	req.Workspace = ws
	if err := Notify(context.Background(), req, Notifications{Desktop: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("guard ran the notify-send planted in the workspace")
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the real notify-send did not run: %v", err)
	}
}

func TestNotifyDesktop(t *testing.T) {
	bin := hostBin(t)
	out := filepath.Join(t.TempDir(), "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + out + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	req := request(key, review.B)
	req.ID = "3fa2b1c0"
	if err := Notify(context.Background(), req, Notifications{Desktop: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	args := string(b)
	for _, want := range []string{"--app-name=guard", "guard: approval needed (B)", "rm -rf build", "guard approve 3fa2b1c0"} {
		if !strings.Contains(args, want) {
			t.Errorf("notify-send args %q lack %q", args, want)
		}
	}

	// Without notify-send on PATH, the desktop notification is skipped quietly.
	t.Setenv("PATH", t.TempDir())
	if err := Notify(context.Background(), req, Notifications{Desktop: true}); err != nil {
		t.Errorf("Notify without notify-send = %v, want nil", err)
	}
}
