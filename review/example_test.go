package review_test

import (
	"fmt"

	"github.com/guard-sh/guard/profile"
	"github.com/guard-sh/guard/review"
)

func ExampleAssess() {
	ctx := &profile.Context{Cwd: "/home/u/proj", Workspace: "/home/u/proj", Home: "/home/u", User: "u"}
	for _, text := range []string{
		"git status && git diff --stat",
		"rm -rf build",
		"cd .. && rm -rf build",
		"F=--force; git push $F",
	} {
		v := review.Assess(profile.Build(text, ctx), review.Input{Text: text, Context: ctx, Provenance: review.ProvAgent})
		if len(v.Reasons) == 0 {
			fmt.Println(v.Level)
			continue
		}
		fmt.Println(v.Level, v.Reasons[0].Rule)
	}
	// Output:
	// A
	// B fs.delete
	// C fs.delete
	// C git.push-force
}
