package parse

// Script is a parsed command line: statements in the order bash runs them.
type Script struct {
	Stmts []*Stmt
}

// Stmt is one statement with its redirections.
type Stmt struct {
	Pos, End   int
	Cmd        Node
	Redirs     []*Redirect
	Background bool // cmd &
	Negated    bool // ! cmd
}

// Node is one of *Call, *Decl, *Block, *Pipeline, *FuncDecl, *Words,
// *Unsupported.
type Node interface{ node() }

// Call is a simple command: VAR=x prog arg…
type Call struct {
	Assigns []*Assign
	Args    []*Word
}

// Assign is NAME=VALUE (or NAME+=VALUE, NAME=(…)).
type Assign struct {
	Pos   int
	Name  string
	Value *Word   // nil for a naked name or an array
	Array []*Word // NAME=(a b c): the values, then every index
	// IsArray is NAME=(…), even when empty: $NAME is then the first
	// element, not a value of its own.
	IsArray bool
	Append  bool
	// Naked is a name without '=' (declare x, export x): its value
	// stays what it was. NAME= (Value nil too) sets it empty.
	Naked bool
	// Maybe is an assignment of a ${…} (Part.Assigns) nested in
	// another's operand, which bash expands only when that operator
	// uses it (${x:+${NAME:=VALUE}} when x is set). IfUnset is
	// ${NAME=VALUE}, which leaves an empty NAME alone.
	Maybe, IfUnset bool
	// Index is NAME[INDEX]=…, an expression bash evaluates.
	Index []*Word
	// Elems are NAME=(…)'s elements in order, each with its key when
	// it has one: an associative array's keys are strings, not the
	// arithmetic Index holds.
	Elems []ArrayElem
}

// ArrayElem is one element of NAME=(…): [KEY]=VALUE or VALUE.
type ArrayElem struct {
	Keyed bool
	// Key is the key's text when it is a plain word or a quoted string
	// without expansions ([k], ["k"], ['k']); KeyStatic says so.
	Key       string
	KeyStatic bool
	// Value are the words the element's value gave (in Array too).
	Value []*Word
}

// Decl is export/declare/local/readonly/typeset/nameref: options (as
// words), names and assignments.
type Decl struct {
	Variant string
	Opts    []*Word
	Assigns []*Assign
}

// Block is a group of statements. Subshell is true for ( … ), pipeline
// parts and substitutions: changes of directory or variables inside do not
// leak out. Control structures (if, while, for, case, &&, ||) are blocks in
// the same shell: guard assumes every branch may run.
type Block struct {
	Kind     string // "group", "subshell", "list", "if", "while", "for", "case", "select", "coproc"
	Subshell bool
	Stmts    []*Stmt
	// Var is the loop variable of for/select; its value is unknown.
	Var string
	// And is set on a list joined by && (its second statement runs
	// only when the first succeeds); a || list has it unset.
	And bool
}

// Pipeline is a | b | c. Each element runs in its own subshell and its
// stdin is the previous element's stdout.
type Pipeline struct {
	Stmts []*Stmt
}

// FuncDecl defines a function. Its body may run whenever the name is
// called; guard analyses the body where it is defined.
type FuncDecl struct {
	Name string
	Body *Stmt
}

// Words are words evaluated without a command: for-loop lists, case
// subjects and patterns, [[ … ]] operands, arithmetic. Their substitutions
// run.
type Words struct {
	Kind  string // "for-list", "case", "test", "arith", "let"
	Words []*Word
	// Arith are the [[ ]] operands bash evaluates as arithmetic: those of
	// -eq, -ne, -lt, -le, -gt, -ge, and the NAME of -v and -R.
	Arith []*Word
}

// Unsupported is a construct the IR does not model. The profile fails
// closed on it.
type Unsupported struct {
	Pos  int
	What string
}

func (*Call) node()        {}
func (*Decl) node()        {}
func (*Block) node()       {}
func (*Pipeline) node()    {}
func (*FuncDecl) node()    {}
func (*Words) node()       {}
func (*Unsupported) node() {}

// Redirect is a redirection: Op is the operator as written (">", ">>",
// "<", "<<", "<<-", "<<<", "&>", "&>>", ">&", "<&", ">|", "<>").
type Redirect struct {
	Pos     int
	Op      string
	Fd      string // "2" in 2>file, "" when absent
	Target  *Word  // the file, fd or here-string; the delimiter for heredocs
	Heredoc *Word  // the body of << and <<- (nil otherwise)
}

// Word is one shell word after brace expansion.
type Word struct {
	Pos, End int
	Parts    []Part
	// Brace is set on words produced by brace expansion ({rm,-rf,x}).
	Brace bool
}

// PartKind says what a part of a word is.
type PartKind int

const (
	// Lit is literal text: quotes and backslashes already removed.
	Lit PartKind = iota
	// Var is $NAME or ${NAME}: Text is the name.
	Var
	// Glob is an unquoted pattern character or extended glob: Text is
	// the pattern.
	Glob
	// Tilde is an unquoted leading ~ (Text "") or ~user (Text "user").
	Tilde
	// CmdSubst is $(…) or `…`: Script is its body.
	CmdSubst
	// ProcSubst is <(…) or >(…): Script is its body, Out is true for >(…).
	ProcSubst
	// Dynamic is any other expansion (${X:-y}, ${!X}, $((…)), …): its
	// value is unknown; Nested holds substitutions inside it.
	Dynamic
)

// Part is a piece of a word.
type Part struct {
	Kind   PartKind
	Text   string
	Quoted bool // inside double quotes: no field splitting, no globbing
	Script *Script
	Out    bool
	Nested []*Script
	// Arith are the expressions bash evaluates arithmetically in this
	// part: $((…)), an index ${a[i]}, a slice ${s:o:l}.
	Arith []*Word
	// Raw is the source text of the part (for messages).
	Raw string
	// Prompt is true when the expansion, or one nested in it, applies
	// the @P transformation: bash expands the value as a prompt string,
	// so the substitutions in it run.
	Prompt bool
	// Assigns are the assignments the expansion, or one nested in it,
	// makes when its variable is unset (or empty): ${NAME:=VALUE},
	// ${NAME=VALUE}. Name is "" when it is not a plain name (${!x:=v},
	// ${a[i]:=v}).
	Assigns []*Assign
}

// Static reports whether the word's value is known from the text alone.
func (w *Word) Static() bool {
	for _, p := range w.Parts {
		if p.Kind != Lit {
			return false
		}
	}
	return true
}

// Value returns the literal value of a static word, and false otherwise.
func (w *Word) Value() (string, bool) {
	if len(w.Parts) == 1 && w.Parts[0].Kind == Lit {
		return w.Parts[0].Text, true
	}
	s := ""
	for _, p := range w.Parts {
		if p.Kind != Lit {
			return "", false
		}
		s += p.Text
	}
	return s, true
}

// Scripts returns every substitution nested in the word (command, process
// and those inside other expansions), in order.
func (w *Word) Scripts() []*Script {
	var out []*Script
	for _, p := range w.Parts {
		if p.Script != nil {
			out = append(out, p.Script)
		}
		out = append(out, p.Nested...)
	}
	return out
}
