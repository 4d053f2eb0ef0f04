package profile

import "testing"

func TestUnquoteLit(t *testing.T) {
	tests := []struct {
		lit, want string
		ok        bool
	}{
		{`"rm -rf ~"`, "rm -rf ~", true},
		{`'rm -rf ~'`, "rm -rf ~", true},
		{`"a\"b"`, `a"b`, true},
		{`'it\'s'`, "it's", true},
		{"`ls`", "ls", true},
		{`"rm #{x}"`, "", false},
		{`"rm ${x}"`, "", false},
		{"`rm ${h}`", "", false},
		{`"`, "", false},
	}
	for _, tt := range tests {
		got, ok := unquoteLit(tt.lit)
		if got != tt.want || ok != tt.ok {
			t.Errorf("unquoteLit(%s) = %q, %v; want %q, %v", tt.lit, got, ok, tt.want, tt.ok)
		}
	}
}
