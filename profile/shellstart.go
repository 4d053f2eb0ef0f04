package profile

// startupFile: an interactive bash — -i (also with -c), or no -c, script
// or -s with the terminal as its input — first runs its start-up file,
// and --rcfile FILE or --init-file FILE names it: code the shell runs
// before anything else, reviewed as source FILE is (a file guard cannot
// read is code it cannot see). A shell that is not interactive never
// reads it. The call returned carries the state the file leaves
// (functions, aliases, variables) for the rest of the shell's work.
func (b *builder) startupFile(c *call) *call {
	files := c.a.values("--rcfile", "--init-file")
	if len(files) == 0 {
		return c
	}
	terminal := !c.a.has("-c", "-s") && len(c.a.rest) == 0 && c.in.kind == streamNone
	if !c.a.has("-i") && !terminal {
		return c
	}
	nc := *c
	nc.st = c.st.clone()
	b.scriptOperand(files[len(files)-1], &nc, true)
	return &nc
}
