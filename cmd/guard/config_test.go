package main

import (
	"reflect"
	"strings"
	"testing"

	"github.com/guard-sh/guard/docs"
)

// TestConfigDocumented: docs/config.md's key table is configKeys, and
// configKeys is every field of userConfig, so a key added to the file
// format is documented (and named in hints) or this fails.
func TestConfigDocumented(t *testing.T) {
	var fields []string
	ut := reflect.TypeOf(userConfig{})
	for i := 0; i < ut.NumField(); i++ {
		table := ut.Field(i)
		for j := 0; j < table.Type.NumField(); j++ {
			fields = append(fields, table.Tag.Get("toml")+"."+table.Type.Field(j).Tag.Get("toml"))
		}
	}
	var keys []string
	for _, k := range configKeys {
		keys = append(keys, k.table+"."+k.key)
	}
	if !reflect.DeepEqual(fields, keys) {
		t.Errorf("userConfig fields %v, configKeys %v", fields, keys)
	}
	page, err := docs.Page("config")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(page, "<!-- config-keys:begin -->")
	table, _, ok2 := strings.Cut(table, "<!-- config-keys:end -->")
	if !ok || !ok2 {
		t.Fatal("docs/config.md has no config-keys table")
	}
	rows := strings.Split(strings.TrimSpace(table), "\n")[2:]
	if len(rows) != len(configKeys) {
		t.Fatalf("docs/config.md lists %d keys, configKeys %d", len(rows), len(configKeys))
	}
	for i, k := range configKeys {
		want := "| `[" + k.table + "] " + k.key + "` | `" + k.def + "` |"
		if !strings.HasPrefix(rows[i], want) {
			t.Errorf("row %d: %q, want it to start %q", i+1, rows[i], want)
		}
	}
	// The defaults in the table are the ones guard applies.
	st, err := parseSettings("config.toml", nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.consentTimeout.String() != "1m0s" || !st.notify.Desktop || st.notify.Webhook != "" {
		t.Errorf("defaults: %+v", st)
	}
}
