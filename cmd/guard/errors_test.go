package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"testing"
)

// TestReportAlwaysHints: when guard itself fails (exit 125), the error is
// followed by a hint even if the code that failed gave none; a refusal
// (exit 126) is an answer and gets only what it carries.
func TestReportAlwaysHints(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code int
		want string
	}{
		{"own hint", failf([]string{"do this"}, "broke"), exitGuardFailed,
			"guard: error: broke\nguard: hint: do this\n"},
		{"no hint", failf(nil, "broke"), exitGuardFailed,
			"guard: error: broke\nguard: hint: 'guard doctor' checks guard's setup and files; 'guard help' shows usage\n"},
		{"a missing file", failf(nil, "read x: %w", fs.ErrNotExist), exitGuardFailed,
			"guard: error: read x: file does not exist\nguard: hint: check that the path named above exists\n"},
		{"permission", failf(nil, "read x: %w", fs.ErrPermission), exitGuardFailed,
			"guard: error: read x: permission denied\nguard: hint: check the permissions of the file named above ('guard doctor' checks guard's own files)\n"},
		{"a refusal", &exitError{code: exitNotRun, err: fmt.Errorf("not approved")}, exitNotRun,
			"guard: error: not approved\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if code := report(&b, tc.err); code != tc.code || b.String() != tc.want {
				t.Errorf("report = %d, %q; want %d, %q", code, b.String(), tc.code, tc.want)
			}
		})
	}
}
