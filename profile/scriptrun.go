package profile

import (
	"strings"
	"sync"
)

// Interpreter options that stand for a command guard knows.

// hNode is node's handler: an interpreter, or with --run a script runner.
func hNode(b *builder, c *call) stream {
	if c.a.has("--run") {
		return hNodeRun(b, c)
	}
	return hInterp("-e -p --eval --print")(b, c)
}

// hNodeRun: node --run NAME runs the package.json script NAME, as npm run
// NAME does (node 22).
func hNodeRun(b *builder, c *call) stream {
	var out stream
	for _, f := range c.a.values("--run") {
		if !f.known {
			out = b.dynamicCode(f, c, "node --run")
			continue
		}
		out = hPkgScript(f.val)(b, c)
	}
	return out
}

// hPerlArgv: perl opens the files of its arguments (<> under -n and -p,
// and in any script that reads them) with the two-argument open, where
// a name is a mode too: 'CMD|' and '|CMD' run CMD through the shell,
// '>FILE' and '>>FILE' write FILE. The script file itself (the first
// operand without -e) is opened plainly.
func hPerlArgv(b *builder, c *call) stream {
	ops := c.a.ops
	if len(c.a.values("-e", "-E")) == 0 && len(ops) > 0 {
		ops = ops[1:]
	}
	for _, f := range ops {
		if !f.known {
			continue
		}
		v := strings.TrimSpace(f.val)
		cmd, pipe := strings.CutPrefix(v, "|")
		if !pipe {
			cmd, pipe = strings.CutSuffix(v, "|")
		}
		if pipe && strings.TrimSpace(cmd) != "" {
			b.text(cmd, c.st.clone(), stream{}, "perl's open of "+f.val, span{f.pos, f.end})
			continue
		}
		if p, ok := strings.CutPrefix(v, ">"); ok {
			g := f
			g.val = strings.TrimSpace(strings.TrimPrefix(p, ">"))
			b.pathEffect(CapWrite, "fs.output", c.prog, g, c.st, c.sp, "opens for writing (a >NAME argument)")
		}
	}
	return stream{}
}

// rubyUn are the commands of ruby's un library (ruby -run -e CMD -- ARGS)
// and the programs they stand for.
var rubyUn = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"cp": "cp", "ln": "ln", "mv": "mv", "rm": "rm", "mkdir": "mkdir", "rmdir": "rmdir", "install": "install", "chmod": "chmod", "touch": "touch",
	}
})

// hRubyUn: ruby -run -e CMD -- ARGS runs un.rb's CMD on ARGS, the file
// utility of that name (ruby -run -e rm -- -rf ~ is rm -rf ~); httpd
// serves a directory to the network.
func hRubyUn(b *builder, c *call) stream {
	un := false
	for _, r := range c.a.values("-r") {
		un = un || r.known && r.val == "un"
	}
	if !un {
		return stream{}
	}
	for _, e := range c.a.values("-e") {
		if !e.known {
			continue // hInterp prices code guard cannot see
		}
		if e.val == "httpd" {
			b.add(Effect{Cap: CapSend, Rule: "net.serve", Program: "ruby", Msg: "serves files over the network (ruby -run -e httpd)"}, c.sp)
			continue
		}
		if prog, ok := rubyUn()[e.val]; ok {
			b.exec(append([]field{staticField(prog, span{e.pos, e.end})}, c.a.ops...), c.st.clone(), c.in, "ruby -run -e "+e.val, c.sp)
		}
	}
	return stream{}
}
