// Package checkpoint records a workspace before and after a command so
// that `guard undo` can take back what the command did.
//
// In a git workspace (the workspace is the top level of a work tree) a
// checkpoint is a pair of trees in git's own object store: every tracked
// file and every untracked file that is not ignored, written through
// guard's own index of the repository (seeded once from the user's
// index) and a record of the directories git reads for untracked files
// (scan.go). A snapshot compares the work tree with both by lstat, in
// process, and runs git only for what changed (update-index for those
// paths, write-tree, check-ignore for new names); what it cannot be sure
// of falls back to git add -A. The trees are kept alive against git gc
// by refs under refs/guard/checkpoints/ID and refs/guard/index/H, a
// namespace git log, git status, git branch and git stash list do not
// show. The user's index, HEAD, branches and stash are never written. git
// runs with GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE set explicitly,
// every other GIT_* variable removed, no hooks, no fsmonitor, no pager,
// no automatic gc, and malloc tunables that spare it a page fault per
// page of every zlib stream (git.go).
//
// Delete targets git does not hold (ignored files such as build/, and
// every file of a workspace outside git) get a hard-link backup, within
// a Budget of files and bytes, under STATE/checkpoints/ID/files when the
// state directory is on the workspace's filesystem, else under the
// repository's git dir (.git/guard-checkpoints/ID/files). A workspace
// outside git on another filesystem than the state directory gets no
// backups: its deletes are not covered. A hard link keeps the old bytes
// only while nobody writes the file in place, so targets that may be
// changed in place (truncate, or written earlier on the same line) are
// covered only by git, and undo refuses a backup whose size or mtime
// changed.
//
// Cover answers, before review, whether every file under a delete target
// will be restorable; review turns covered workspace deletes into A.
// PlanUndo compares the workspace now with the after state: a path that
// changed since the command ran is a conflict and is kept unless the
// caller forces it.
//
// Not covered, ever: anything outside the workspace, ignored files that
// are not delete targets, empty directories outside delete targets, file
// owners and permission bits other than the executable bit (git keeps
// only that), network effects and databases. The package never prints
// and reads no clock: callers pass the time.
package checkpoint
