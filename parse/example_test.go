package parse_test

import (
	"fmt"

	"github.com/guard-sh/guard/parse"
)

// Bash resolves quoting as bash does, so an obfuscated name is seen plainly.
func ExampleBash() {
	s, err := parse.Bash(`$'\x72\x6d' -rf "$HOME"`)
	if err != nil {
		panic(err)
	}
	call := s.Stmts[0].Cmd.(*parse.Call)
	name, static := call.Args[0].Value()
	fmt.Println(name, static)
	_, static = call.Args[2].Value()
	fmt.Println("target static:", static)
	// Output:
	// rm true
	// target static: false
}
