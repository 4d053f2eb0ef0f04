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

func TestNotifyDesktop(t *testing.T) {
	bin := t.TempDir()
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
