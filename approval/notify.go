package approval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/guard-sh/guard/internal/hostexec"
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

// hostProgram finds the program name guard runs itself, unconfined,
// only in PATH directories no sandboxed command could have written (the
// request's workspace, the temp dirs, the tool caches: internal/hostexec),
// and returns it with the environment to run it with (that PATH).
func hostProgram(name, workspace string) (string, []string, error) {
	list := hostexec.PATH(os.Getenv("PATH"), hostexec.CommandTrees(os.Getenv("HOME"), workspace))
	path, err := hostexec.Look(name, list)
	return path, hostexec.Env(os.Environ(), list), err
}

func notifyDesktop(ctx context.Context, req Request) error {
	path, env, err := hostProgram("notify-send", req.Workspace)
	if err != nil {
		return nil
	}
	title := fmt.Sprintf("guard: approval needed (%v)", req.Level)
	body := fmt.Sprintf("%s\n%s\nguard approve %s", oneLine(req.Command, 200), oneLine(req.Explanation, 300), req.ID)
	cmd := exec.CommandContext(ctx, path, "--app-name=guard", "--", title, body)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("notify-send: %w: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// postWebhook POSTs the request with curl. guard does not link an HTTP
// client of its own: net/http and TLS would be loaded and initialised by
// every guard process (+4 MB of binary, about 0.4 ms per start) for a
// notification only queued requests send. curl gets its whole
// configuration on stdin, so the URL, which often carries a secret, is
// not in its argument list; --disable keeps a ~/.curlrc out of it.
func postWebhook(ctx context.Context, rawURL string, req Request) error {
	u, err := checkWebhook(rawURL)
	if err != nil {
		return err
	}
	curl, env, err := hostProgram("curl", req.Workspace)
	if err != nil {
		return fmt.Errorf("webhook to %s: guard posts webhooks with curl, which is not on PATH (outside the workspace, the temp dirs and the tool caches): install curl", u.Host)
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
	config := "url = " + curlQuote(u.String()) + "\n" +
		"header = \"Content-Type: application/json\"\n" +
		"user-agent = \"guard\"\n" +
		"data-binary = " + curlQuote(string(body)) + "\n"
	cmd := exec.CommandContext(ctx, curl, "--disable", "--config", "-",
		"--silent", "--show-error", "--output", "/dev/null", "--write-out", "%{http_code}",
		// A redirect could carry the command to a host nobody configured.
		"--max-redirs", "0", "--proto", "=https,http")
	if deadline, ok := ctx.Deadline(); ok {
		cmd.Args = append(cmd.Args, "--max-time", strconv.FormatFloat(max(time.Until(deadline).Seconds(), 0.001), 'f', 3, 64))
	}
	cmd.Stdin = strings.NewReader(config)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("webhook to %s: %w", u.Host, ctx.Err())
		}
		// curl's messages name the host; the full URL is cut out in case
		// a version repeats it.
		msg := strings.ReplaceAll(strings.TrimSpace(stderr.String()), u.String(), u.Host)
		if msg == "" {
			msg = err.Error()
		}
		return fmt.Errorf("webhook to %s: %s", u.Host, strings.TrimPrefix(msg, "curl: "))
	}
	code, _ := strconv.Atoi(strings.TrimSpace(stdout.String()))
	if code < 200 || code > 299 {
		return fmt.Errorf("webhook to %s: status %d", u.Host, code)
	}
	return nil
}

// curlQuote writes s as a double-quoted value of a curl config file,
// whose escapes are \\, \", \t, \n, \r and \v.
func curlQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\v':
			b.WriteString(`\v`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// CheckWebhook reports whether raw is a webhook URL Notify accepts: https,
// or http to a loopback address.
func CheckWebhook(raw string) error {
	_, err := checkWebhook(raw)
	return err
}

// checkWebhook accepts https URLs, and http only to a loopback address:
// the payload carries command lines, which must not cross a network in
// the clear.
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
		if ip, err := netip.ParseAddr(host); host == "localhost" || (err == nil && ip.IsLoopback()) {
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
