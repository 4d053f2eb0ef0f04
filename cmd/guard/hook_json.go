package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode"
)

// maxHookJSONDepth bounds the nesting of the event; deeper input is
// refused (denied), never skipped.
const maxHookJSONDepth = 256

// hookEventKeys are the top-level keys guard reads, from hookEvent's tags.
var hookEventKeys = sync.OnceValue(func() []string {
	var keys []string
	t := reflect.TypeFor[hookEvent]()
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			keys = append(keys, name)
		}
	}
	return keys
})

// checkHookKeys refuses an event that could mean one thing to guard and
// another to the agent that sent it. Go's decoder keeps the last of two
// equal keys and matches a struct's fields ignoring case (and folding
// the Kelvin sign and long s); the agent may keep the first, and reads
// "tool_name" only as spelled. So: no object may hold two keys that are
// equal under case folding, and no top-level key may differ from one
// guard reads only by case.
func checkHookKeys(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		object  bool
		wantKey bool              // the next string is a key
		keys    map[string]string // folded key -> key as written
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		var top *frame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			continue
		}
		if s, ok := tok.(string); ok && top != nil && top.object && top.wantKey {
			top.wantKey = false
			f := foldKey(s)
			if prev, dup := top.keys[f]; dup {
				if prev == s {
					return fmt.Errorf("the key %q appears twice in one object", s)
				}
				return fmt.Errorf("the keys %q and %q differ only in case", prev, s)
			}
			top.keys[f] = s
			if len(stack) == 1 {
				for _, k := range hookEventKeys() {
					if s != k && f == foldKey(k) {
						return fmt.Errorf("the key %q differs from %q only in case", s, k)
					}
				}
			}
			continue
		}
		// A value: the object holding it wants a key next.
		if top != nil && top.object {
			top.wantKey = true
		}
		if d, ok := tok.(json.Delim); ok {
			if len(stack) >= maxHookJSONDepth {
				return fmt.Errorf("it is nested deeper than %d levels", maxHookJSONDepth)
			}
			stack = append(stack, &frame{object: d == '{', wantKey: d == '{', keys: map[string]string{}})
		}
	}
}

// foldKey maps each rune of s to the smallest rune it folds to, so keys
// equal under Unicode case folding have one form.
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		lo := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			lo = min(lo, f)
		}
		return lo
	}, s)
}
