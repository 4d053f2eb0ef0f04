package audit

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Fake secrets of each shape. They are made up; none was ever valid.
const (
	ghp     = "ghp_1234567890abcdefghijABCDEFGHIJ123456"
	gho     = "gho_1234567890abcdefghijABCDEFGHIJ654321"
	ghu     = "ghu_abcdefghij1234567890ABCDEFGHIJ123456"
	ghs     = "ghs_ABCDEFGHIJ1234567890abcdefghij123456"
	ghPAT   = "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUV"
	openai  = "sk-proj-abc123def456ghi789jkl012mno345pqr"
	legacy  = "sk-Abc123Def456Ghi789Jkl012Mno345Pqr678Stu901Vwx"
	claude  = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEF-ghijklmnop"
	akia    = "AKIAIOSFODNN7EXAMPLE"
	asia    = "ASIAY34FZKBOKMUTVV7A"
	xoxb    = "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx"
	xoxp    = "xoxp-123456789012-1234567890123-abcdefghijklmnopqrstuvwy"
	glpat   = "glpat-abcdefghij0123456789"
	npmTok  = "npm_abcdefghijklmnopqrstuvwxyz0123456789"
	jwt     = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	keyBody = "MIIEowIBAAKCAQEAx7wLsD1BkS9Ym0Q5xZ2Jq3hTnG8pR4vK6fE1cA0bW9dY2uI5oL"
	awsSec  = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
	pw      = "hunter2-Qx9"
)

func TestMask(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Provider tokens keep their prefix and four characters.
		{"ghp", "gh api user --token " + ghp, "gh api user --token ghp_1234…[masked]"},
		{"gho", "echo " + gho, "echo gho_1234…[masked]"},
		{"ghu", "echo " + ghu, "echo ghu_abcd…[masked]"},
		{"ghs", "git clone https://x-access-token:" + ghs + "@github.com/o/r", "git clone https://x-access-token:ghs_ABCD…[masked]@github.com/o/r"},
		{"github_pat", "echo " + ghPAT, "echo github_pat_11AB…[masked]"},
		{"openai project key", "echo " + openai, "echo sk-proj-abc1…[masked]"},
		{"openai legacy key", "echo " + legacy, "echo sk-Abc1…[masked]"},
		{"anthropic key", "echo " + claude, "echo sk-ant-api0…[masked]"},
		{"AKIA", "aws configure set aws_access_key_id " + akia, "aws configure set aws_access_key_id AKIAIOSF…[masked]"},
		{"ASIA", "echo " + asia, "echo ASIAY34F…[masked]"},
		{"xoxb", "echo " + xoxb, "echo xoxb-1234…[masked]"},
		{"xoxp", "echo " + xoxp, "echo xoxp-1234…[masked]"},
		{"glpat", "echo " + glpat, "echo glpat-abcd…[masked]"},
		{"npm", "npm config set //registry.npmjs.org/:_authToken=" + npmTok, "npm config set //registry.npmjs.org/:_authToken=npm_abcd…[masked]"},
		{"jwt", "echo " + jwt, "echo eyJhbGc…[masked]"},

		// Private key blocks lose their whole body.
		{"private key", "cat > k.pem <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n" + keyBody + "\nabcd==\n-----END RSA PRIVATE KEY-----\nEOF",
			"cat > k.pem <<EOF\n-----BEGIN RSA PRIVATE KEY-----…[masked]-----END RSA PRIVATE KEY-----\nEOF"},
		{"openssh key", "printf '%s\\n' '-----BEGIN OPENSSH PRIVATE KEY-----\\n" + keyBody + "\\n-----END OPENSSH PRIVATE KEY-----' > id",
			"printf '%s\\n' '-----BEGIN OPENSSH PRIVATE KEY-----…[masked]-----END OPENSSH PRIVATE KEY-----' > id"},
		{"pgp key block", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n" + keyBody + "\n-----END PGP PRIVATE KEY BLOCK-----",
			"-----BEGIN PGP PRIVATE KEY BLOCK-----…[masked]-----END PGP PRIVATE KEY BLOCK-----"},
		{"key without END", "echo '-----BEGIN EC PRIVATE KEY-----\n" + keyBody, "echo '-----BEGIN EC PRIVATE KEY-----…[masked]"},

		// Headers: the scheme stays, the credential goes.
		{"bearer header", "curl -H 'Authorization: Bearer abcdef1234567890abcdef' https://api.example.com",
			"curl -H 'Authorization: Bearer abcd…[masked]' https://api.example.com"},
		{"basic header", `curl -H "Authorization: Basic dXNlcjpwYXNzd29yZA==" x`, `curl -H "Authorization: Basic dXNl…[masked]" x`},
		{"lower-case header, no blank", `curl -H "authorization:bearer xyz123" x`, `curl -H "authorization:bearer …[masked]" x`},
		{"api key header", "curl -H 'X-Api-Key: s3cr3tvalue99' x", "curl -H 'X-Api-Key: s3…[masked]' x"},
		{"gitlab private-token header", "curl --header 'PRIVATE-TOKEN: abcdefghij123' x", "curl --header 'PRIVATE-TOKEN: ab…[masked]' x"},
		{"header names a variable", `curl -H "Authorization: token $GITHUB_TOKEN" x`, `curl -H "Authorization: token $GITHUB_TOKEN" x`},

		// Credentials in URLs and flags.
		{"url password", "git clone https://user:hunter2pass@github.com/x/y", "git clone https://user:h…[masked]@github.com/x/y"},
		{"database url", "psql postgres://app:Pa55word!@db:5432/app", "psql postgres://app:P…[masked]@db:5432/app"},
		{"--password=", "app --password=" + pw + " --user bob", "app --password=h…[masked] --user bob"},
		{"--password value", "app --password " + pw, "app --password h…[masked]"},
		{"--db-password value", "app --db-password '" + pw + "'", "app --db-password 'h…[masked]'"},
		{"--token value", "app --token abcdefghijklmnop", "app --token ab…[masked]"},
		{"mysql -p", "mysql -u root -p" + pw + " app", "mysql -u root -ph…[masked] app"},
		{"mysqldump -p quoted", "mysqldump -uroot -p'" + pw + "' app", "mysqldump -uroot -p'h…[masked]' app"},
		{"curl -u", "curl -u admin:s3cret-pass https://x", "curl -u admin:s…[masked] https://x"},
		{"docker login -p", "docker login -u me -p " + pw + " registry.example.com", "docker login -u me -p h…[masked] registry.example.com"},
		{"sshpass -p", "sshpass -p " + pw + " ssh host", "sshpass -p h…[masked] ssh host"},
		{"openssl pass:", "openssl enc -aes256 -pass pass:" + pw + " -in f", "openssl enc -aes256 -pass pass:h…[masked] -in f"},

		// Assignments to secret-named variables and keys.
		{"PGPASSWORD", "PGPASSWORD=" + pw + " psql -h db", "PGPASSWORD=h…[masked] psql -h db"},
		{"export token", "export GITHUB_TOKEN=abcdefghijklmnopqrstuvwx", "export GITHUB_TOKEN=abcd…[masked]"},
		{"export token holding a provider token", "export GH_TOKEN=" + ghp, "export GH_TOKEN=ghp_1234…[masked]"},
		{"aws secret", "AWS_SECRET_ACCESS_KEY=" + awsSec + " aws s3 ls", "AWS_SECRET_ACCESS_KEY=wJal…[masked] aws s3 ls"},
		{"*_SECRET quoted", `CLIENT_SECRET="two words here" ./deploy`, `CLIENT_SECRET="tw…[masked]" ./deploy`},
		{"*_KEY", "STRIPE_API_KEY=rk_live_abcdef123456 npm start", "STRIPE_API_KEY=rk_l…[masked] npm start"},
		{"env prefix", "env DB_PASSWORD=" + pw + " make migrate", "env DB_PASSWORD=h…[masked] make migrate"},
		{"json body", `curl -d '{"user":"bob","password":"` + pw + `"}' https://x`, `curl -d '{"user":"bob","password":"h…[masked]"}' https://x`},
		{"yaml in a heredoc", "cat > c.yml <<EOF\nuser: bob\napi_token: abcdefghijklmnopq\nEOF", "cat > c.yml <<EOF\nuser: bob\napi_token: ab…[masked]\nEOF"},
		{"dotenv heredoc", "cat > .env <<'EOF'\nAPI_KEY=abc123xyz789\nDB_PASSWORD='two words'\nEOF", "cat > .env <<'EOF'\nAPI_KEY=ab…[masked]\nDB_PASSWORD='t…[masked]'\nEOF"},
		{"url query", "curl 'https://x/api?api_key=abcdef123456&page=2'", "curl 'https://x/api?api_key=ab…[masked]&page=2'"},

		// Nested commands: the same rules apply inside the string.
		{"bash -c header", `bash -c "curl -H 'Authorization: Bearer abcdef1234567890abcdef' https://x"`, `bash -c "curl -H 'Authorization: Bearer abcd…[masked]' https://x"`},
		{"bash -c escaped quotes", `bash -c "curl -H \"X-Api-Key: s3cr3tvalue99\" https://x"`, `bash -c "curl -H \"X-Api-Key: s3…[masked]\" https://x"`},
		{"sh -c export", `sh -c 'export NPM_TOKEN=abcdefghijkl1234; npm publish'`, `sh -c 'export NPM_TOKEN=ab…[masked]; npm publish'`},
		{"ssh remote command", `ssh host "mysql -u root -p` + pw + ` -e 'select 1'"`, `ssh host "mysql -u root -ph…[masked] -e 'select 1'"`},

		// What is not a secret stays as it is.
		{"git sha", "git show 3f786850e387550fdab836ed7e6dc881de23001b", "git show 3f786850e387550fdab836ed7e6dc881de23001b"},
		{"skill-set", "pip install skill-set scikit-learn", "pip install skill-set scikit-learn"},
		{"sk- in a word", "echo risk-assessment-for-the-quarterly-review task-abcdefghijklmnopqrstuvw", "echo risk-assessment-for-the-quarterly-review task-abcdefghijklmnopqrstuvw"},
		{"sk- without digits", "git checkout sk-this-is-a-long-branch-name", "git checkout sk-this-is-a-long-branch-name"},
		{"--password-file keeps the path", "app --password-file /run/secrets/db --password-file=/etc/pw", "app --password-file /run/secrets/db --password-file=/etc/pw"},
		{"_FILE variable keeps the path", "POSTGRES_PASSWORD_FILE=/run/secrets/pg docker compose up", "POSTGRES_PASSWORD_FILE=/run/secrets/pg docker compose up"},
		{"mysql -p prompts", "mysql -u root -p app", "mysql -u root -p app"},
		{"psql --password prompts", "psql --password -h db", "psql --password -h db"},
		{"--no-password", "pg_dump --no-password app", "pg_dump --no-password app"},
		{"variable reference", "TOKEN=$GITHUB_TOKEN make && curl -H \"Authorization: Bearer ${TOKEN}\" x", "TOKEN=$GITHUB_TOKEN make && curl -H \"Authorization: Bearer ${TOKEN}\" x"},
		{"command substitution", `export GH_TOKEN="$(gh auth token)"`, `export GH_TOKEN="$(gh auth token)"`},
		{"url with port", "curl http://localhost:8080/path@v1", "curl http://localhost:8080/path@v1"},
		{"ordinary command", "go test ./... && git push origin main", "go test ./... && git push origin main"},
		{"aws key id by name", "AWS_ACCESS_KEY_ID=id-not-secret", "AWS_ACCESS_KEY_ID=id-not-secret"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Mask(tt.in)
			if got != tt.want {
				t.Errorf("Mask(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			if again := Mask(got); again != got {
				t.Errorf("not idempotent: Mask(%q) = %q", got, again)
			}
		})
	}
}

// seeded are the secrets FuzzMask and TestLogHoldsNoSecret must never see
// unmasked, each in a context that names or shapes it as a secret.
var seeded = []struct{ context, secret string }{
	{"gh api user --token %s", ghp},
	{"echo %s", gho},
	{"GH_TOKEN=%s gh pr list", ghu},
	{"git clone https://x-access-token:%s@github.com/o/r", ghs},
	{"export GITHUB_TOKEN=%s", ghPAT},
	{"OPENAI_API_KEY=%s python app.py", openai},
	{"echo %s | llm", legacy},
	{`curl -H "x-api-key: %s" https://api.anthropic.com`, claude},
	{"aws configure set aws_access_key_id %s", akia},
	{"echo %s", asia},
	{"curl -H 'Authorization: Bearer %s' https://slack.com/api", xoxb},
	{"SLACK_TOKEN='%s' ./notify", xoxp},
	{"curl --header 'PRIVATE-TOKEN: %s' https://gitlab.com/api", glpat},
	{"npm config set //registry.npmjs.org/:_authToken=%s", npmTok},
	{`bash -c "curl -H 'Authorization: Bearer %s' https://x"`, jwt},
	{"cat > k.pem <<EOF\n-----BEGIN RSA PRIVATE KEY-----\n%s\n-----END RSA PRIVATE KEY-----\nEOF", keyBody},
	{"AWS_SECRET_ACCESS_KEY=%s aws s3 ls", awsSec},
	{"mysql -u root -p%s app", pw},
	{"PGPASSWORD=%s psql -h db", pw},
	{"app --password %s", pw},
	{"app --password=%s", pw},
	{"git clone https://bob:%s@example.com/r.git", pw},
	{`curl -d '{"password":"%s"}' https://x`, pw},
	{"cat > .env <<'EOF'\nDB_PASSWORD=%s\nEOF", pw},
	{`ssh host "export API_SECRET='%s'; ./run"`, pw},
}

func TestMaskSeeded(t *testing.T) {
	for _, s := range seeded {
		in := fmt.Sprintf(s.context, s.secret)
		if got := Mask(in); strings.Contains(got, s.secret) {
			t.Errorf("Mask(%q) = %q: secret left in", in, got)
		}
	}
}

// TestMaskHintsCoverRules: a rule's hints only spare work, never a secret.
// Every GitHub token prefix and every secret flag (in any case, with - or
// _) is still masked.
func TestMaskHintsCoverRules(t *testing.T) {
	for _, c := range "pousr" {
		tok := "gh" + string(c) + "_" + strings.Repeat("A1b2", 9)
		if got := Mask("git clone https://x/y " + tok); strings.Contains(got, tok) {
			t.Errorf("gh%c_ token left in: %q", c, got)
		}
	}
	for _, f := range secretFlags {
		if !slices.ContainsFunc(secretFlagParts, func(p string) bool { return strings.Contains(f, p) }) {
			t.Errorf("secret flag %q holds none of secretFlagParts %v: the rule's hint would skip it", f, secretFlagParts)
		}
		for _, flag := range []string{"--" + f, "--" + strings.ToUpper(strings.ReplaceAll(f, "_", "-")), "--my-" + f} {
			if got := Mask("tool " + flag + " " + pw); strings.Contains(got, pw) {
				t.Errorf("Mask(tool %s …) = %q: secret left in", flag, got)
			}
		}
	}
}

func TestMaskNeverPanics(t *testing.T) {
	for _, in := range []string{
		"\xff\xfe" + ghp + "\xff",
		"PASSWORD=\xe2\x80",
		"PASSWORD=\"",
		"PASSWORD=\\",
		"PASSWORD=\\\\\\\"",
		"-----BEGIN PRIVATE KEY-----",
		"mysql -p",
		"curl -u",
		"x=" + Masked + Masked,
		"TOKEN=" + strings.Repeat("…", 10) + Masked,
		"TOKEN=" + Masked + "x",
		"TOKEN='" + Masked,
	} {
		got := Mask(in)
		if again := Mask(got); again != got {
			t.Errorf("not idempotent: Mask(%q) = %q, Mask of that = %q", in, got, again)
		}
		if utf8.ValidString(in) && !utf8.ValidString(got) {
			t.Errorf("Mask(%q) = %q: not valid UTF-8", in, got)
		}
	}
}

// FuzzMask: Mask never panics and is idempotent, and a seeded secret in its
// context never survives, whatever text surrounds it.
func FuzzMask(f *testing.F) {
	for i, s := range seeded {
		f.Add(fmt.Sprintf(s.context, s.secret), "", uint8(i))
	}
	f.Add(`bash -c "X_TOKEN=\"a b\" cmd"`, "PASSWORD='", uint8(3))
	f.Add("-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----", uint8(7))
	f.Fuzz(func(t *testing.T, before, after string, pick uint8) {
		if got := Mask(before); Mask(got) != got {
			t.Fatalf("not idempotent on %q: %q then %q", before, got, Mask(got))
		}
		s := seeded[int(pick)%len(seeded)]
		if strings.Contains(before, s.secret) || strings.Contains(after, s.secret) {
			return // the secret outside its context: not ours to find
		}
		in := before + "\n" + fmt.Sprintf(s.context, s.secret) + "\n" + after
		got := Mask(in)
		if strings.Contains(got, s.secret) {
			t.Fatalf("secret %q left in Mask(%q) = %q", s.secret, in, got)
		}
		if again := Mask(got); again != got {
			t.Fatalf("not idempotent on %q: %q then %q", in, got, again)
		}
	})
}

// BenchmarkMask masks a typical agent command holding one secret.
func BenchmarkMask(b *testing.B) {
	cmd := `cd /home/u/proj && GH_TOKEN=` + ghp + ` gh pr create --title "fix: retry on 502" --body "$(cat notes.md)" && curl -sS -H 'Authorization: Bearer abcdef1234567890abcdef' https://api.example.com/v1/deploy | jq .status`
	b.SetBytes(int64(len(cmd)))
	for b.Loop() {
		Mask(cmd)
	}
}
