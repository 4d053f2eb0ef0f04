package profile

import (
	"slices"
	"strconv"
	"strings"
)

// bash's directory stack: pushd, popd and dirs. The list dirs prints is
// the current directory followed by st.dirs; "" is a directory guard
// does not know. A shell starts with an empty stack, so popd there fails
// and stays where it is, and pushd +N rotates the list to the Nth entry
// (pushd ~; pushd /tmp; pushd +1 is back in ~). pushd and popd were
// cd DIR and "somewhere unknown".

// chdir moves the line to dir ("" when unknown), keeping PWD and OLDPWD
// as cd does.
func chdir(st *state, dir string) {
	if old := st.cwd; old != "" {
		st.vars["OLDPWD"] = &old
	} else {
		st.vars["OLDPWD"] = nil
	}
	st.cwd = dir
	if dir != "" {
		v := dir
		st.vars["PWD"] = &v
	} else {
		st.vars["PWD"] = nil
	}
}

// stackIndex turns +N or -N into an index of a list of n entries; ok is
// false when word is not such an index or is out of range (bash then
// fails and changes nothing).
func stackIndex(word string, n int) (i int, isIndex, ok bool) {
	if len(word) < 2 || word[0] != '+' && word[0] != '-' {
		return 0, false, false
	}
	k, err := strconv.Atoi(word[1:])
	if err != nil || k < 0 {
		return 0, false, false
	}
	if k >= n {
		return 0, true, false
	}
	if word[0] == '-' {
		k = n - 1 - k
	}
	return k, true, true
}

// forgetStack makes every entry of the stack unknown (after an argument
// guard cannot see).
func forgetStack(st *state) {
	for i := range st.dirs {
		st.dirs[i] = ""
	}
	chdir(st, "")
}

// stackArgs reads pushd's and popd's words: -n, and the first other
// word (a directory or +N/-N; "" when none). ok is false after a word
// guard cannot see, which leaves every entry of the stack unknown. The
// stack is copied first: the state's slice may be shared with a clone.
func stackArgs(c *call) (noCd bool, arg string, ok bool) {
	c.st.dirs = slices.Clone(c.st.dirs)
	for _, f := range c.fs {
		if !f.known {
			forgetStack(c.st)
			return false, "", false
		}
		switch {
		case f.val == "-n":
			noCd = true
		case f.val == "--":
		case arg == "":
			arg = f.val
		}
	}
	return noCd, arg, true
}

// hPushd: pushd DIR pushes the current directory and goes to DIR; pushd
// alone swaps the first two entries; pushd +N/-N rotates the list so
// entry N is first; -n changes the stack without changing directory.
func hPushd(b *builder, c *call) stream {
	st := c.st
	noCd, arg, ok := stackArgs(c)
	if !ok {
		return stream{}
	}
	list := append([]string{st.cwd}, st.dirs...)
	if arg == "" {
		if len(st.dirs) == 0 {
			return stream{} // no other directory: bash fails
		}
		if !noCd {
			top := st.dirs[0]
			st.dirs[0] = st.cwd
			chdir(st, top)
		}
		return stream{}
	}
	if k, isIndex, ok := stackIndex(arg, len(list)); isIndex {
		if !ok {
			return stream{}
		}
		rotated := append(slices.Clone(list[k:]), list[:k]...)
		if !noCd {
			st.dirs = rotated[1:]
			chdir(st, rotated[0])
		}
		return stream{}
	}
	dir := b.cdTarget(st, arg)
	if noCd {
		st.dirs = append([]string{dir}, st.dirs...)
		return stream{}
	}
	st.dirs = append([]string{st.cwd}, st.dirs...)
	chdir(st, dir)
	return stream{}
}

// hPopd: popd removes the first entry and goes to the next; popd +N/-N
// removes entry N (going to the next only for the first); -n removes
// the second entry and stays. With an empty stack bash fails and stays.
func hPopd(b *builder, c *call) stream {
	st := c.st
	noCd, arg, ok := stackArgs(c)
	if !ok || len(st.dirs) == 0 {
		return stream{} // directory stack empty: bash fails
	}
	list := append([]string{st.cwd}, st.dirs...)
	k := 0
	if noCd {
		k = 1
	}
	if arg != "" {
		i, _, ok := stackIndex(arg, len(list))
		if !ok {
			return stream{}
		}
		k = i
	}
	if k == 0 {
		top := st.dirs[0]
		st.dirs = st.dirs[1:]
		if !noCd {
			chdir(st, top)
		}
		return stream{}
	}
	st.dirs = slices.Delete(st.dirs, k-1, k)
	return stream{}
}

// hDirs: dirs -c clears the stack; the other forms print it.
func hDirs(b *builder, c *call) stream {
	for _, f := range c.fs {
		if !f.known {
			return stream{kind: streamUnknown}
		}
		if strings.HasPrefix(f.val, "-") && strings.Contains(f.val, "c") {
			c.st.dirs = nil
		}
	}
	return stream{kind: streamUnknown}
}
