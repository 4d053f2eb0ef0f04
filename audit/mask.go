package audit

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Masked is what replaces the hidden part of a secret. What stays in front
// of it is a short prefix the user can recognise: "ghp_abcd…[masked]".
const Masked = "…[masked]"

// maxKept is the longest prefix a masked value keeps: a provider prefix
// ("github_pat_") plus four characters.
const maxKept = 16

// Mask hides the secrets in text: provider tokens, private key blocks, JWTs,
// credentials in URLs, secret-looking headers, flags and variable
// assignments. It works on raw command text, so secrets inside nested
// commands (bash -c "…"), quotes and heredoc bodies are found too. Each
// secret keeps a short prefix followed by Masked.
//
// Mask is idempotent (Mask(Mask(s)) == Mask(s)) and never panics. It errs
// towards hiding too much: a value after a secret-looking name is hidden
// whatever it is.
func Mask(text string) string {
	// Masking one secret can change what a later rule sees; iterate to the
	// fixed point so the result is idempotent by construction. Two passes
	// are the norm; the bound is a guard against a rule that never settles.
	for range 8 {
		next := maskOnce(text)
		if next == text {
			break
		}
		text = next
	}
	return text
}

// ruleKind says how a rule's match locates the secret.
type ruleKind int

const (
	// token: the whole match is the secret; submatch 1 is the provider
	// prefix, kept with four more characters.
	token ruleKind = iota
	// span: submatch 1 is the secret.
	span
	// value: the match ends where a value begins; scanValue finds its
	// extent (quoted or not). Submatch 1, if any, is a name that must
	// pass the rule's name test.
	value
)

// maskRule is one row of the masking table.
type maskRule struct {
	id   string
	kind ruleKind
	re   *lazyRE
	// wordStart: the match must not start inside a word (a regexp \b
	// there would cost the literal-prefix scan). Token rules always
	// check this.
	wordStart bool
	// hint: the rule can only match text holding one of these; a cheap
	// test that spares the regexp most commands.
	hint []string
	// foldHint is hint for the text in lower case.
	foldHint []string
	// find, instead of re, finds the matches by hand where a regexp is
	// slow; they have the shape of regexp submatch indexes.
	find func(string) [][]int
	// name, for value rules with a name submatch, says whether the name
	// holds a secret.
	name func(string) bool
	// check, if set, must accept a token for it to be masked.
	check func(string) bool
	// after, if set, hides only what follows this separator in the value
	// (curl -u user:password).
	after string
	// keep, if set, overrides the default prefix length.
	keep func(secret string) int
	// before, if set, lists the bytes that may precede submatch 1 (the
	// start of the text may too).
	before string
	// scheme: an authorization scheme ("Bearer ") before the value stays
	// visible.
	scheme bool
	// flag: the value follows a flag, so another flag is not a value and
	// openssl's pass: prefix stays visible.
	flag bool
}

// Token rules start with a literal, not \b, so the regexp package can
// scan for it; locate checks the word boundary. Name and flag rules check
// the byte before the name themselves (RE2 has no
// look-behind, and a match that ate it would hide the next name from
// FindAll).
const (
	// beforeName may precede a name: a blank, a quote, shell and JSON
	// punctuation, or the ? of a URL query.
	beforeName = " \t\n\r'\"{(,;&|`?"
	// beforeFlag may precede a flag.
	beforeFlag = " \t\n\r'\"("
)

// maskRules is the table of what Mask hides. Token rules come first: where
// two rules find the same secret, the first one's prefix is kept.
// Built on first use, each expression compiled when a text first passes
// its rule's hint.
var maskRules = sync.OnceValue(func() []maskRule {
	return []maskRule{
		{id: "github-token", kind: token, hint: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: lazy(`(gh[pousr]_)[A-Za-z0-9]{30,}`)},
		{id: "github-pat", kind: token, hint: []string{"github_pat_"}, re: lazy(`(github_pat_)[A-Za-z0-9_]{30,}`)},
		{id: "anthropic-key", kind: token, hint: []string{"sk-ant-"}, re: lazy(`(sk-ant-)[A-Za-z0-9_-]{20,}`)},
		{id: "openai-key", kind: token, hint: []string{"sk-"}, re: lazy(`(sk-(?:proj-|svcacct-|admin-)?)[A-Za-z0-9_-]{20,}`), check: hasDigit},
		{id: "aws-access-key", kind: token, hint: []string{"AKIA", "ASIA"}, re: lazy(`(A[KS]IA)[A-Z2-7]{16}\b`)},
		{id: "slack-token", kind: token, hint: []string{"xox"}, re: lazy(`(xox[abposr]-)[A-Za-z0-9-]{10,}`)},
		{id: "gitlab-token", kind: token, hint: []string{"glpat-"}, re: lazy(`(glpat-)[A-Za-z0-9_-]{20,}`)},
		{id: "npm-token", kind: token, hint: []string{"npm_"}, re: lazy(`(npm_)[A-Za-z0-9]{30,}`)},
		{id: "jwt", kind: token, hint: []string{"eyJ"}, re: lazy(`(eyJ)[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`)},
		{
			// The body between BEGIN and END; to the end of the text when
			// the END line is missing.
			id: "private-key", kind: span, hint: []string{"PRIVATE KEY"},
			re:   lazy(`(?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)`),
			keep: func(string) int { return 0 },
		},
		{id: "url-password", kind: span, find: urlPasswords},
		// NAME=value, export NAME=value, --flag=value, "name": "value",
		// Authorization: Bearer value, X-Api-Key: value.
		{id: "secret-assignment", kind: value, name: isSecretName, before: beforeName, find: func(s string) [][]int { return namedValues(s, '=', 2) }},
		{id: "secret-header", kind: value, name: isSecretName, before: beforeName, scheme: true, find: func(s string) [][]int { return namedValues(s, ':', 0) }},
		// --password value, --token value: every name in secretFlags
		// holds one of the fold hints.
		{id: "secret-flag", kind: value, name: isSecretFlag, before: beforeFlag, flag: true, hint: []string{"-"}, foldHint: secretFlagParts, re: lazy(`(--?[A-Za-z][A-Za-z0-9_-]*)[ \t]+`)},
		// mysql -pSECRET (the password is glued to -p).
		{id: "mysql-password", kind: value, wordStart: true, hint: []string{"mysql", "mariadb"}, re: lazy(`(?:mysql[a-z]*|mariadb(?:-[a-z]+)?)[ \t][^\n;&|]*?[\s'"]-p`)},
		{id: "docker-login-password", kind: value, wordStart: true, hint: []string{"login"}, re: lazy(`(?:docker|podman|nerdctl|buildah)[ \t]+login\b[^\n;&|]*?[\s'"]-p(?:[ \t]+|=)`)},
		{id: "sshpass-password", kind: value, wordStart: true, hint: []string{"sshpass"}, re: lazy(`sshpass\b[^\n;&|]*?[\s'"]-p[ \t]*`)},
		{id: "curl-user", kind: value, wordStart: true, after: ":", hint: []string{"curl"}, re: lazy(`curl\b[^\n;&|]*?[\s'"](?:-u[ \t]*|--user(?:[ \t]+|=))`)},
	}
})

// A name holds a secret if it contains one of secretContains or ends with
// one of secretSuffixes (after lower-casing, - and . read as _), unless it
// ends with one of secretExceptions: those point at a secret (a file, a
// command) without holding it.
var (
	secretContains   = []string{"password", "passwd", "passphrase"}
	secretSuffixes   = []string{"token", "secret", "_key", "apikey", "credentials", "credential", "_pass", "_pat", "authorization", "_auth"}
	secretExceptions = []string{"_file", "_path", "_dir", "_cmd", "_command", "_env", "_var", "_url", "_name", "_id", "_type", "_helper", "_length", "_len", "_ttl", "_expiry", "_expires", "_count"}
)

// isSecretName says whether a variable, key, header or --flag= name holds a
// secret: *_TOKEN, *_SECRET, *_KEY, *PASSWORD*, Authorization, X-Api-Key…
func isSecretName(name string) bool {
	if strings.HasPrefix(name, "-") {
		return isSecretFlag(name)
	}
	n := normalName(name)
	for _, ex := range secretExceptions {
		if strings.HasSuffix(n, ex) {
			return false
		}
	}
	for _, w := range secretContains {
		if strings.Contains(n, w) {
			return true
		}
	}
	for _, w := range secretSuffixes {
		if strings.HasSuffix(n, w) {
			return true
		}
	}
	return false
}

// secretFlagParts are the words every name in secretFlags holds.
var secretFlagParts = []string{"pass", "token", "secret", "key", "bearer"}

// secretFlags are the long or short flags whose value is a secret.
var secretFlags = []string{"password", "passwd", "pass", "passin", "passout", "passphrase", "token", "secret", "api_key", "apikey", "auth_token", "access_token", "client_secret", "secret_key", "secret_access_key", "private_token", "bearer", "oauth_token"}

// isSecretFlag says whether a flag (--password, --github-token) takes a
// secret as its value. --password-file, --no-password and --token-file do
// not.
func isSecretFlag(flag string) bool {
	n := normalName(strings.TrimLeft(flag, "-"))
	if strings.HasPrefix(n, "no_") {
		return false
	}
	for _, f := range secretFlags {
		if n == f || strings.HasSuffix(n, "_"+f) {
			return true
		}
	}
	return false
}

var nameSeparators = strings.NewReplacer("-", "_", ".", "_")

func normalName(s string) string {
	return nameSeparators.Replace(strings.ToLower(s))
}

// authSchemes are the words before the credential in an Authorization
// header; they stay visible.
var authSchemes = []string{"bearer", "basic", "token", "digest", "bot", "negotiate", "apikey", "key"}

type secretSpan struct {
	start, end int
	keep       int
	rule       int
}

func maskOnce(s string) string {
	var spans []secretSpan
	lower := sync.OnceValue(func() string { return strings.ToLower(s) })
	for i, r := range maskRules() {
		for _, m := range r.matches(s, lower) {
			start, end, ok := r.locate(s, m)
			if !ok || start >= end || isMasked(s[start:end]) {
				continue
			}
			keep := defaultKeep(end - start)
			switch {
			case r.keep != nil:
				keep = r.keep(s[start:end])
			case r.kind == token:
				keep = m[3] - m[2] + 4
			}
			spans = append(spans, secretSpan{start, end, keep, i})
		}
	}
	if len(spans) == 0 {
		return s
	}
	slices.SortStableFunc(spans, func(a, b secretSpan) int {
		if a.start != b.start {
			return a.start - b.start
		}
		return a.rule - b.rule
	})
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i := 0; i < len(spans); {
		g := spans[i]
		for i++; i < len(spans) && spans[i].start < g.end; i++ {
			g.end = max(g.end, spans[i].end)
		}
		b.WriteString(s[last:g.start])
		b.WriteString(kept(s[g.start:g.end], g.keep))
		b.WriteString(Masked)
		last = g.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// matches finds the rule's matches in s, as regexp submatch indexes;
// lower is s in lower case.
func (r maskRule) matches(s string, lower func() string) [][]int {
	if r.find != nil {
		return r.find(s)
	}
	if r.hint != nil && !slices.ContainsFunc(r.hint, func(h string) bool { return strings.Contains(s, h) }) {
		return nil
	}
	if r.foldHint != nil && !slices.ContainsFunc(r.foldHint, func(h string) bool { return strings.Contains(lower(), h) }) {
		return nil
	}
	return r.re.get().FindAllStringSubmatchIndex(s, -1)
}

// lazyRE is a rule's expression, compiled the first time a text passes
// the rule's hint: most commands hold none of the hints, and compiling
// the whole table cost every decision record 0.1 ms.
type lazyRE struct {
	once sync.Once
	expr string
	re   *regexp.Regexp
}

func lazy(expr string) *lazyRE { return &lazyRE{expr: expr} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.expr) })
	return l.re
}

// namedValues finds NAME<sep>value: at each sep, the name before it (maybe
// closed by a quote, maybe followed by blanks) and where the value starts
// (past blanks). Each match is {name start, value start, name start, name
// end}, like a regexp match whose submatch 1 is the name. A name is
// [A-Za-z_][A-Za-z0-9_.-]* after at most dashes leading dashes.
func namedValues(s string, sep byte, dashes int) [][]int {
	var out [][]int
	for p := 0; p < len(s); p++ {
		i := strings.IndexByte(s[p:], sep)
		if i < 0 {
			break
		}
		p += i
		q := p
		for q > 0 && (s[q-1] == ' ' || s[q-1] == '\t') {
			q--
		}
		if q > 0 && (s[q-1] == '"' || s[q-1] == '\'') {
			q--
		}
		end := q
		for q > 0 && isNameByte(s[q-1]) {
			q--
		}
		core := strings.TrimLeft(s[q:end], "-")
		if core == "" || end-q-len(core) > dashes || !isNameStart(core[0]) {
			continue
		}
		v := p + 1
		for v < len(s) && (s[v] == ' ' || s[v] == '\t') {
			v++
		}
		out = append(out, []int{q, v, q, end})
	}
	return out
}

// urlPasswords finds the password of scheme://user:password@host. Each
// match is {user start, @, password start, @}.
func urlPasswords(s string) [][]int {
	var out [][]int
	for p := 0; p < len(s); {
		i := strings.Index(s[p:], "://")
		if i < 0 {
			break
		}
		user := p + i + len("://")
		p = user
		end := user
		for end < len(s) && !strings.ContainsRune(" \t\n\r\v\f/@'\"\\", rune(s[end])) {
			end++
		}
		colon := strings.IndexByte(s[user:end], ':')
		if end == len(s) || s[end] != '@' || colon < 0 {
			continue
		}
		out = append(out, []int{user, end, user + colon + 1, end})
		p = end
	}
	return out
}

func isNameStart(b byte) bool {
	return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_'
}

func isWordByte(b byte) bool {
	return isNameStart(b) || '0' <= b && b <= '9'
}

func isNameByte(b byte) bool {
	return isNameStart(b) || '0' <= b && b <= '9' || b == '.' || b == '-'
}

// locate returns where the secret of one match is.
func (r maskRule) locate(s string, m []int) (start, end int, ok bool) {
	if (r.wordStart || r.kind == token) && m[0] > 0 && isWordByte(s[m[0]-1]) {
		return 0, 0, false
	}
	switch r.kind {
	case token:
		if r.check != nil && !r.check(s[m[0]:m[1]]) {
			return 0, 0, false
		}
		return m[0], m[1], true
	case span:
		if m[2] < 0 {
			return 0, 0, false
		}
		return m[2], m[3], true
	}
	if r.name != nil && (len(m) < 4 || m[2] < 0 || !r.name(s[m[2]:m[3]])) {
		return 0, 0, false
	}
	if r.before != "" && m[2] > 0 && !strings.ContainsRune(r.before, rune(s[m[2]-1])) {
		return 0, 0, false
	}
	pos := m[1]
	if r.scheme {
		pos = skipScheme(s, pos, len(s))
	}
	start, end = scanValue(s, pos)
	if r.scheme {
		start = skipScheme(s, start, end)
	}
	if start >= end {
		return 0, 0, false
	}
	v := s[start:end]
	if r.flag {
		if v[0] == '-' {
			// The next flag, not a value: psql --password -h host.
			return 0, 0, false
		}
		// openssl's -pass pass:SECRET; env:, file: and fd: name
		// where the secret is.
		if strings.HasPrefix(v, "pass:") {
			start += len("pass:")
			v = v[len("pass:"):]
		} else if strings.HasPrefix(v, "env:") || strings.HasPrefix(v, "file:") || strings.HasPrefix(v, "fd:") {
			return 0, 0, false
		}
	}
	if v == "" || v[0] == '$' {
		// A variable or command substitution: the secret is not here.
		return 0, 0, false
	}
	if r.after != "" {
		i := strings.Index(v, r.after)
		if i < 0 {
			return 0, 0, false
		}
		start += i + len(r.after)
	}
	return start, end, start < end
}

// skipScheme moves past an authorization scheme ("Bearer ") at the start
// of a value, so the scheme stays readable.
func skipScheme(s string, start, end int) int {
	v := s[start:end]
	for _, w := range authSchemes {
		if len(v) > len(w) && strings.EqualFold(v[:len(w)], w) && (v[len(w)] == ' ' || v[len(w)] == '\t') {
			i := len(w)
			for i < len(v) && (v[i] == ' ' || v[i] == '\t') {
				i++
			}
			return start + i
		}
	}
	return start
}

// scanValue returns the extent of the value that starts at i: inside its
// quotes if quoted (also \"…\" inside an outer double-quoted string), else
// up to the next blank, quote or shell operator.
func scanValue(s string, i int) (start, end int) {
	k := i
	for k < len(s) && s[k] == '\\' {
		k++
	}
	if k < len(s) && (s[k] == '"' || s[k] == '\'') {
		q, esc := s[k], k-i
		start = k + 1
		for p := start; p < len(s); p++ {
			if s[p] != q {
				continue
			}
			n := 0
			for p-n-1 >= start && s[p-n-1] == '\\' {
				n++
			}
			if q == '\'' && esc == 0 || n == esc || esc == 0 && n%2 == 0 {
				end = p - esc
				return start, max(start, end)
			}
		}
		// No closing quote: to the end of the line.
		end = strings.IndexByte(s[start:], '\n')
		if end < 0 {
			return start, len(s)
		}
		return start, start + end
	}
	end = i
	for end < len(s) && !stopsValue(s[end]) {
		end++
	}
	return i, end
}

// stopsValue says whether b ends an unquoted value. It must not be a byte of
// Masked, or masking would not settle.
func stopsValue(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r', '\v', '\f', '\'', '"', '\\', ';', '&', '|', '<', '>', '(', ')', '`', '}', '$':
		return true
	}
	return false
}

// isMasked says whether v is already the output of Mask.
func isMasked(v string) bool {
	p, ok := strings.CutSuffix(v, Masked)
	return ok && len(p) <= maxKept && !strings.Contains(p, Masked)
}

// defaultKeep is how much of an n-byte value stays visible: nothing of a
// short password, a few characters of a long key.
func defaultKeep(n int) int {
	switch {
	case n < 8:
		return 0
	case n < 12:
		return 1
	case n < 20:
		return 2
	}
	return 4
}

// kept is the visible prefix of secret: at most keep bytes, never half of
// it, cut at a character boundary.
func kept(secret string, keep int) string {
	keep = min(keep, len(secret)/2, maxKept)
	for keep > 0 && !utf8.RuneStart(secret[keep]) {
		keep--
	}
	return secret[:keep]
}

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}
