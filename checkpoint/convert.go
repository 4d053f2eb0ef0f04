package checkpoint

import (
	"bytes"
	"errors"
	"strings"
)

// git converts a file's bytes when it stores them and when it checks
// them out, as attributes say (.gitattributes anywhere in the work tree,
// info/attributes, core.attributesFile): line endings (text, eol, crlf),
// $Id$ (ident), a filter, an encoding (working-tree-encoding). A
// checkpoint holds what git stores, and undo writes what git checks out,
// which is not always what the file held: a file with CRLF endings under
// "text" comes back with LF, one with LF under "eol=crlf" with CRLF, a
// "$Id: …$" is expanded anew (TestUndoLossyConversion). guard's git
// converts nothing by configuration (core.autocrlf=false, core.eol=lf in
// gitFlags); a delete is not covered when an attribute may convert a
// file git holds under it.

// convertAttrs are the attributes that make git convert content.
var convertAttrs = []string{"text", "eol", "crlf", "ident", "filter", "working-tree-encoding"}

// errConverts: git may store or check out the file otherwise than it is.
var errConverts = errors.New("holds a file git converts (.gitattributes: text, eol, ident, filter or encoding), which undo would not bring back byte for byte")

// converted lists which of rels (workspace-relative files git holds)
// git may store or check out otherwise than they are in the work tree.
func (r *repo) converted(rels []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(rels) == 0 {
		return out, nil
	}
	args := append([]string{"check-attr", "-z", "--stdin"}, convertAttrs...)
	res, err := r.git("", nil, strings.NewReader(strings.Join(rels, "\x00")+"\x00"), args...)
	if err != nil {
		return nil, err
	}
	// path NUL attribute NUL value NUL, each attribute of each path.
	f := strings.Split(strings.TrimSuffix(string(res), "\x00"), "\x00")
	if len(f) != 3*len(convertAttrs)*len(rels) {
		return nil, errors.New("git check-attr: an answer of unexpected length")
	}
	b, err := openBeneath(r.work)
	if err != nil {
		return nil, err
	}
	defer b.close()
	for i := 0; i < len(f); i += 3 * len(convertAttrs) {
		p := f[i]
		v := map[string]string{}
		for j := i; j < i+3*len(convertAttrs); j += 3 {
			if f[j] != p {
				return nil, errors.New("git check-attr: answers out of order")
			}
			v[f[j+1]] = f[j+2]
		}
		if conv, err := converts(b, p, v); err != nil || conv {
			out[p] = true
		}
	}
	return out, nil
}

// converts decides for the file at rel, with attribute values v (as git
// check-attr prints them), whether git's store and check-out may change
// its bytes.
func converts(b beneath, rel string, v map[string]string) (bool, error) {
	set := func(a string) bool { return v[a] != "unspecified" && v[a] != "unset" }
	if set("filter") || set("ident") || set("working-tree-encoding") {
		return true, nil
	}
	if v["text"] == "unset" || v["crlf"] == "unset" {
		return false, nil // binary: stored and checked out as it is
	}
	if v["eol"] == "crlf" {
		return true, nil // an LF is checked out as CRLF
	}
	if !set("text") && !set("crlf") && !set("eol") {
		return false, nil
	}
	// Text: a CRLF is stored as LF, and checked out as LF (core.eol=lf).
	// A file without a CR comes back as it is.
	data, err := b.read(rel, maxPackedBlob)
	if err != nil {
		return true, err
	}
	return bytes.IndexByte(data, '\r') >= 0, nil
}
