package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"time"
)

// Notifications says where to announce a queued request.
type Notifications struct {
	// Webhook is a URL to POST the request to as JSON; "" for none. It
	// must be https, or http to a loopback address.
	Webhook string
	// Desktop runs notify-send when it is on PATH.
	Desktop bool
	// Timeout bounds the whole notification; zero means 3 seconds.
	Timeout time.Duration
}

// WebhookPayload is the JSON body POSTed to the webhook.
type WebhookPayload struct {
	Event       string    `json:"event"` // "approval_requested"
	ID          string    `json:"id"`
	Level       string    `json:"level"`
	Command     string    `json:"command"`
	Cwd         string    `json:"cwd"`
	Workspace   string    `json:"workspace"`
	Provenance  string    `json:"provenance,omitempty"`
	Session     string    `json:"session,omitempty"`
	Explanation string    `json:"explanation"`
	Created     time.Time `json:"created"`
	Expires     time.Time `json:"expires"`
	// Approve is the command that approves it, for the reader's
	// convenience: "guard approve 3fa2b1c0".
	Approve string `json:"approve"`
}

// Notify announces a queued request on the desktop and to a webhook, both
// at once and within the timeout. It is best-effort: the request is queued
// whatever happens here, and the returned error (all failures joined) is
// for a warning only. A missing notify-send is not an error.
func Notify(ctx context.Context, req Request, to Notifications) error {
	timeout := to.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	errc := make(chan error, 2)
	n := 0
	if to.Desktop {
		n++
		go func() { errc <- notifyDesktop(ctx, req) }()
	}
	if to.Webhook != "" {
		n++
		go func() { errc <- postWebhook(ctx, to.Webhook, req) }()
	}
	var errs []error
	for range n {
		errs = append(errs, <-errc)
	}
	return errors.Join(errs...)
}

func notifyDesktop(ctx context.Context, req Request) error {
	path, err := exec.LookPath("notify-send")
	if err != nil {
		return nil
	}
	title := fmt.Sprintf("guard: approval needed (%v)", req.Level)
	body := fmt.Sprintf("%s\n%s\nguard approve %s", oneLine(req.Command, 200), oneLine(req.Explanation, 300), req.ID)
	cmd := exec.CommandContext(ctx, path, "--app-name=guard", "--", title, body)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("notify-send: %w: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

func postWebhook(ctx context.Context, rawURL string, req Request) error {
	u, err := checkWebhook(rawURL)
	if err != nil {
		return err
	}
	body, err := json.Marshal(WebhookPayload{
		Event: "approval_requested", ID: req.ID, Level: req.Level.String(),
		Command: req.Command, Cwd: req.Cwd, Workspace: req.Workspace,
		Provenance: req.Provenance, Session: req.Session, Explanation: req.Explanation,
		Created: req.Created, Expires: req.Expires, Approve: "guard approve " + req.ID,
	})
	if err != nil {
		return fmt.Errorf("webhook: encode: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("webhook: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("User-Agent", "guard")
	client := &http.Client{
		// A redirect could carry the command to a host nobody configured.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	resp, err := client.Do(hreq)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // its message repeats the whole URL
		}
		return fmt.Errorf("webhook to %s: %w", u.Host, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("webhook to %s: %s", u.Host, resp.Status)
	}
	return nil
}

// checkWebhook accepts https URLs, and http only to a loopback address:
// the payload carries command lines, which must not cross a network in
// the clear.
// CheckWebhook reports whether raw is a webhook URL Notify accepts: https,
// or http to a loopback address.
func CheckWebhook(raw string) error {
	_, err := checkWebhook(raw)
	return err
}

func checkWebhook(raw string) (*url.URL, error) {
	// Errors name the host only: webhook URLs often carry a secret in
	// the path or query, and stderr is read by the agent.
	u, err := url.Parse(raw)
	if err != nil {
		return nil, errors.New("webhook: not a valid URL")
	}
	switch u.Scheme {
	case "https":
		return u, nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return u, nil
		}
		return nil, fmt.Errorf("webhook to %s: http is allowed only to a loopback address; use https", u.Host)
	}
	return nil, errors.New("webhook: want an https URL")
}

// oneLine squeezes s onto one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
