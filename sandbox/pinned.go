package sandbox

import (
	"path/filepath"
	"slices"
)

// pinned are the directories the command may not rename or remove
// (confine.Plan.Pinned): the workspace and every directory between it
// and the outermost writable tree it lies in, outermost first; none when
// the workspace is a writable tree of its own, not inside another (then
// it is a mount of its own already, and its parent is read-only).
//
// A workspace below the shared temp dir (an agent's clone in /tmp/a/ws),
// or in a directory an approved delete made writable, has a parent the
// command may write: it moved the workspace (or /tmp/a) away and made a
// tree of its own at the workspace's name, with a hook in a .git of its
// making. guard's check, through the directories it opened before the
// run, followed the user's tree where it went; the next git at the
// workspace's path ran the planted one, and guard's restore of .git put
// the user's repository into the command's tree
// (TestAttackWorkspaceRenamed).
func pinned(ws string, writable []string) []string {
	root := ""
	for _, w := range writable {
		if w != ws && withinClean(ws, w) && (root == "" || len(w) < len(root)) {
			root = w
		}
	}
	if root == "" {
		return nil
	}
	var out []string
	for d := ws; d != root && withinClean(d, root); d = filepath.Dir(d) {
		out = append(out, d)
	}
	slices.Reverse(out)
	return out
}
