package profile_test

import (
	"fmt"

	"github.com/guard-sh/guard/profile"
)

func ExampleBuild() {
	ctx := &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	p := profile.Build(`cd .. && rm -rf build; echo "rm -rf /" > notes.txt`, ctx)
	for _, e := range p.Effects {
		fmt.Println(e.Cap, e.Class, e.Target)
	}
	// Output:
	// delete outside /home/u/build
	// write outside /home/u/notes.txt
}
