package scan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/guard-sh/guard/review"
)

// sarifSchemaID is the id the vendored schema declares
// (testdata/sarif-schema-2.1.0.json, from oasis-tcs/sarif-spec,
// sarif-2.1/schema/sarif-schema-2.1.0.json).
const sarifSchemaID = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

func sarifSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(sarifSchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(sarifSchemaID)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validateSARIF(t *testing.T, sch *jsonschema.Schema, out []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	return sch.Validate(inst)
}

// TestSARIFSchema: guard's SARIF validates against the SARIF 2.1.0 schema,
// with every optional part present: suppressed results, baseline states,
// allowance problems, scan's own rules, an empty report.
func TestSARIFSchema(t *testing.T) {
	sch := sarifSchema(t)
	r := scanFixture(t, 0)
	base := NewBaseline(&Report{Findings: r.Findings[:3]})
	var buf bytes.Buffer
	if err := base.Write(&buf); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	b.Apply(r)
	withDocs := testTool
	withDocs.DocsURI = "https://github.com/guard-sh/guard/blob/main/docs/"
	for name, rep := range map[string]*Report{"fixture": r, "empty": {}} {
		var out bytes.Buffer
		if err := Write(&out, rep, "sarif", WriteOptions{Report: review.A, Tool: withDocs}); err != nil {
			t.Fatal(err)
		}
		if err := validateSARIF(t, sch, out.Bytes()); err != nil {
			t.Errorf("%s: SARIF does not validate: %v", name, err)
		}
	}
	// The validation can fail: a result without a message does not pass.
	bad := []byte(`{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"guard"}},"results":[{"ruleId":"x"}]}]}`)
	if err := validateSARIF(t, sch, bad); err == nil {
		t.Error("a result without a message validated")
	}
}

// TestSARIFRenders: what GitHub code scanning shows. Rule texts come from
// the rule table and do not depend on which finding came first; results
// carry the finding's message, not the explanation; partialFingerprints
// do not change when the code moves down.
func TestSARIFRenders(t *testing.T) {
	wf := "on: issues\njobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo \"${{ github.event.issue.title }}\"\n"
	sarifOf := func(src string) map[string]any {
		t.Helper()
		r, err := Run(Options{Review: fakeReview}, []File{{Path: ".github/workflows/w.yml", Src: []byte(src)},
			{Path: "x.sh", Src: []byte("curl -fsSL https://a.example | sh\ncurl -fsSL https://b.example | sh\n")}})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		tool := testTool
		tool.DocsURI = "https://docs.example/"
		if err := Write(&out, r, "sarif", WriteOptions{Tool: tool}); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	run := func(doc map[string]any) map[string]any { return doc["runs"].([]any)[0].(map[string]any) }
	doc := sarifOf(wf)
	rules := map[string]map[string]any{}
	for _, r := range run(doc)["tool"].(map[string]any)["driver"].(map[string]any)["rules"].([]any) {
		rules[r.(map[string]any)["id"].(string)] = r.(map[string]any)
	}
	inj := rules[RuleWorkflowInjection]
	if inj == nil {
		t.Fatalf("no %s rule in %v", RuleWorkflowInjection, rules)
	}
	text := func(m map[string]any, k string) string { return m[k].(map[string]any)["text"].(string) }
	if got := text(inj, "shortDescription"); got != Describe(RuleWorkflowInjection).Short {
		t.Errorf("shortDescription %q", got)
	}
	if got := text(inj, "fullDescription"); got != Describe(RuleWorkflowInjection).Full {
		t.Errorf("fullDescription %q", got)
	}
	help := inj["help"].(map[string]any)
	for _, want := range []string{"Level C: needs your consent and your PIN.", "# guard:allow scan-workflow-injection -- ", "env:", "guard help ci"} {
		if !strings.Contains(help["text"].(string), want) || !strings.Contains(help["markdown"].(string), want) {
			t.Errorf("help lacks %q: %v", want, help)
		}
	}
	if inj["helpUri"] != "https://docs.example/ci.md" {
		t.Errorf("helpUri %v", inj["helpUri"])
	}
	props := inj["properties"].(map[string]any)
	if props["security-severity"] != "8.0" || !strings.Contains(strings.Join(toStrings(props["tags"]), ","), "injection") {
		t.Errorf("properties %v", props)
	}
	if props := rules["fake-network"]["properties"].(map[string]any); props["security-severity"] != nil {
		t.Errorf("a B rule has a security-severity: %v", props)
	}
	// Two findings of one rule with different messages: the rule's text is
	// not either message.
	if got := text(rules["fake-pipe-shell"], "shortDescription"); strings.Contains(got, "a.example") || strings.Contains(got, "b.example") {
		t.Errorf("rule described by a finding: %q", got)
	}
	fps := map[string]bool{}
	for _, res := range run(doc)["results"].([]any) {
		res := res.(map[string]any)
		msg := text(res, "message")
		if strings.Contains(msg, "Sandbox:") || strings.Contains(msg, "\n") {
			t.Errorf("message is the explanation: %q", msg)
		}
		fps[res["partialFingerprints"].(map[string]any)[sarifFingerprintKey].(string)] = true
	}
	if n := len(run(doc)["results"].([]any)); len(fps) != n || n < 5 {
		t.Fatalf("fingerprints: %v", fps)
	}
	// Three lines added above the step: same fingerprints.
	moved := sarifOf(strings.Replace(wf, "steps:\n", "steps:\n      - uses: actions/checkout@v4\n      - run: make\n      - run: make test\n", 1))
	results := run(moved)["results"].([]any)
	if len(results) != len(fps) {
		t.Fatalf("%d results after the move, %d before", len(results), len(fps))
	}
	for _, res := range results {
		res := res.(map[string]any)
		if !fps[res["partialFingerprints"].(map[string]any)[sarifFingerprintKey].(string)] {
			t.Errorf("%s %s: fingerprint changed when the code moved", res["ruleId"], text(res, "message"))
		}
	}
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
