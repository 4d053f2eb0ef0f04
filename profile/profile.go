package profile

// Cap is a typed capability: one kind of thing a command would do.
type Cap string

const (
	CapRead        Cap = "read"        // read files
	CapWrite       Cap = "write"       // create or modify files
	CapDelete      Cap = "delete"      // delete or truncate files
	CapDiscard     Cap = "discard"     // discard uncommitted work or rewrite local history
	CapExec        Cap = "exec"        // run a program or code in the workspace (build, test)
	CapFetch       Cap = "fetch"       // network in
	CapSend        Cap = "send"        // network out, visible to others
	CapPublish     Cap = "publish"     // irreversible publication or destroying remote state
	CapPrivilege   Cap = "privilege"   // sudo, setuid, capabilities
	CapSystem      Cap = "system"      // system services, devices, kernel, packages
	CapPersistence Cap = "persistence" // code that runs later: hooks, rc files, cron, aliases
	CapSecrets     Cap = "secrets"     // reading credentials
	CapReveal      Cap = "reveal"      // may print secrets (env, .env)
	CapDynamic     Cap = "dynamic"     // code guard cannot see: eval "$X", python -c, $CMD
	CapNetCode     Cap = "netcode"     // code from the network or from decoding
	CapProcess     Cap = "process"     // signals other processes
	CapInject      Cap = "inject"      // types into another terminal or GUI
	CapSelf        Cap = "self"        // changes guard itself
	CapUnparsed    Cap = "unparsed"    // the text does not parse
	CapLimit       Cap = "limit"       // over an analysis limit
	CapUnsupported Cap = "unsupported" // a construct guard does not model
	CapLookalike   Cap = "lookalike"   // look-alike characters in a command name or option
	CapEnvHijack   Cap = "envhijack"   // changes which programs or code later commands run (PATH, alias)
)

// Profile is what a command line would do: every command it would run and
// every effect, with targets resolved and classed.
type Profile struct {
	Commands []Command `json:"commands"`
	Effects  []Effect  `json:"effects"`
	// Inputs are the files the review read to reach its verdict (a
	// script, package.json, a file piped into a shell), sorted by path.
	// An approval is bound to their contents: if one changes, the review
	// is a different one.
	Inputs []Input `json:"inputs,omitempty"`
}

// Input is one file the review read and the SHA-256 of the bytes it read
// ("absent" when it could not be read, so creating it later changes the
// review too).
type Input struct {
	Path string `json:"path"`
	Sum  string `json:"sha256"`
}

// Command is one program the line would run.
type Command struct {
	Name  string   `json:"name"`
	Argv  []string `json:"argv"` // unknown words are shown as written
	Pos   int      `json:"pos"`
	End   int      `json:"end"`
	Depth int      `json:"depth,omitempty"` // 0 at top level; nested execution is deeper
	Via   string   `json:"via,omitempty"`   // how it is reached: "bash -c", "xargs", "$(…)", "ssh", …
}

// Effect is one capability with its target.
type Effect struct {
	Cap     Cap    `json:"cap"`
	Rule    string `json:"rule"`
	Program string `json:"program,omitempty"`
	Target  string `json:"target,omitempty"` // a resolved path, host, key or text
	Class   Class  `json:"class,omitempty"`  // for path targets
	Msg     string `json:"msg"`
	Pos     int    `json:"pos"`
	End     int    `json:"end"`
}

// Has reports whether the profile has an effect with one of the caps.
func (p *Profile) Has(caps ...Cap) bool {
	for _, e := range p.Effects {
		for _, c := range caps {
			if e.Cap == c {
				return true
			}
		}
	}
	return false
}
