package profile

import (
	"slices"
	"testing"
)

// The files' formats as curl(1), wget(1) and aria2c(1) document them.
func TestOptionFileArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(string) [][]string
		text string
		want [][]string
	}{
		{"curl long names", curlConfigArgs, "url = \"https://x/a b\"\noutput=out.html\nsilent\n# -o ignored\n", [][]string{{"--url", "https://x/a b", "--output", "out.html", "--silent"}}},
		{"curl colon and blank", curlConfigArgs, "upload-file: /k\nheader \"X: \\\"y\\\"\"\n", [][]string{{"--upload-file", "/k", "--header", `X: "y"`}}},
		{"curl dashed", curlConfigArgs, "-T /k\n--data @/c\n", [][]string{{"-T", "/k", "--data", "@/c"}}},
		{"curl unquoted stops at blank", curlConfigArgs, "output /a /b\n", [][]string{{"--output", "/a"}}},
		{"wgetrc", wgetrcArgs, "# c\npost_file = /k\n", [][]string{{"-e", "post_file = /k"}}},
		{"url list", urlListArgs, "https://x/a\n\n  https://x/b  \n#c\n", [][]string{{"https://x/a", "https://x/b"}}},
		{"aria2 conf", aria2ConfArgs, "dir=/d\n#x\n", [][]string{{"--dir=/d"}}},
		{"aria2 input", aria2InputArgs, "https://x/a\thttps://m/a\n  dir=/d\n\tout=.bashrc\nhttps://x/b\n", [][]string{{"--dir=/d", "--out=.bashrc", "https://x/a"}, {"https://x/b"}}},
		{"aria2 option first", aria2InputArgs, "  dir=/d\nhttps://x/a\n", [][]string{{"https://x/a"}}},
	} {
		got := tc.read(tc.text)
		if !slices.EqualFunc(got, tc.want, slices.Equal[[]string]) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
