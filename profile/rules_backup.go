package profile

import "strings"

// Backup tools. They copy files into a repository that may be on another
// machine (restic's sftp:, s3:, rest:; borg's host:; kopia's and
// duplicity's URLs), restore them into any directory, and forget, prune
// or delete snapshots: a backup deleted cannot be brought back, which is
// the point of having one. Every one of them was an unknown program rated
// A. The read-only verbs are listed; any other verb changes the
// repository (principle 8).

// backupTable is the backup tools' entries.
func backupTable() map[string]*spec {
	return map[string]*spec{
		"restic": later(resticSpec), "borg": later(borgSpec), "kopia": later(kopiaSpec),
		"duplicity": later(duplicitySpec), "rdiff-backup": later(rdiffBackupSpec), "tarsnap": later(tarsnapSpec),
		"rsnapshot": {rows: []row{
			{"backup.delete", CapPublish, "op0~^(hourly|daily|weekly|monthly|sync)$", "", "runs the backups its configuration names and deletes the oldest snapshots, which cannot be undone (the configuration can also run commands)"},
			{"backup.state", CapDynamic, "!op0~^(configtest|du|diff|help|version|version-only|hourly|daily|weekly|monthly|sync)$ ops", "", "runs an rsnapshot command guard does not know"},
		}},
	}
}

// Shared rows.
func backupSend(tool string) *spec {
	return whole("backup.send", CapSend, "copies files into a "+tool+" repository, which may be on another machine")
}

func backupDelete(what string) *spec {
	return whole("backup.delete", CapPublish, "deletes "+what+" from the backup repository, which cannot be undone")
}

func backupState(what string) *spec { return whole("backup.state", CapSend, what) }

// backupRestore writes a backup's files into the directory an option or
// an operand names (extractAny prices it as an archive's extraction).
func backupRestore(op int, opts ...string) *spec {
	return &spec{val: strings.Join(opts, " "), fn: hExtractInto("", op, opts...), rows: []row{{"backup.restore", CapWrite, "", "", "restores files from a backup"}}}
}

// backupVerbs are a repository tool's verbs (operand 0) by what they do,
// each a regexp alternation.
type backupVerbs struct {
	readOnly, send, state, del, keys, mount, restore string
	extra                                            []backupVerb
}

// backupVerb is a row for a tool's own verbs (a regexp alternation):
// its condition is that operand 0 is one of them.
type backupVerb struct {
	verbs string
	r     row // without its condition
}

// rows are the verbs' rows, and one for any verb they do not list.
func (v backupVerbs) rows(tool string) []row {
	rs := []row{
		{"backup.send", CapSend, "op0~^(" + v.send + ")$", "", "copies files into a " + tool + " repository, which may be on another machine"},
		{"backup.state", CapSend, "op0~^(" + v.state + ")$", "", "creates or changes a " + tool + " repository"},
		{"backup.delete", CapPublish, "op0~^(" + v.del + ")$", "", "deletes snapshots or archives or their data from the backup repository, which cannot be undone"},
		{"backup.keys", CapPublish, "op0~^(" + v.keys + ")$ !op1~^list$", "", "changes the keys or passwords that open the " + tool + " repository (who can read it, and whether you still can)"},
		{"backup.state", CapProcess, "op0~^(" + v.mount + ")$", "", "mounts the repository as a file system"},
		{"backup.restore", CapWrite, "op0~^(" + v.restore + ")$", "", "restores files from a backup"},
	}
	known := strings.Join([]string{v.readOnly, v.send, v.state, v.del, v.keys, v.mount, v.restore}, "|")
	for _, e := range v.extra {
		known += "|" + e.verbs
		r := e.r
		r.cond = "op0~^(" + e.verbs + ")$"
		rs = append(rs, r)
	}
	return append(rs, row{"tool.unknown-subcommand", CapDynamic, "!op0~^(" + known + ")$ ops", "", "runs a " + tool + " subcommand guard does not know, so it cannot say what it changes"})
}

// restic and borg take options that run a program before their verb
// (restic --password-command, borg --rsh): their verbs are rows, so the
// handler sees every word.
func resticSpec() *spec {
	return &spec{val: "-r --repo --repository-file -p --password-file --password-command --cache-dir -o --option --tag --host --path --target -t --exclude -e --exclude-file --files-from",
		fn: chain(hPagerOption("--password-command"), hExtractInto("op0~^restore$", -1, "--target", "-t")),
		rows: backupVerbs{readOnly: "snapshots|ls|list|find|diff|stats|check|cat|dump|version|help|generate",
			send: "backup|copy", state: "init|tag|unlock|repair|rebuild-index|migrate", del: "forget|prune|rewrite",
			keys: "key", mount: "mount", restore: "restore",
			extra: []backupVerb{{"self-update", row{"sys.packages", CapSystem, "", "", "downloads a new restic and replaces the program"}}},
		}.rows("restic")}
}

func borgSpec() *spec {
	return &spec{val: "--rsh --remote-path -e --exclude --exclude-from --patterns-from --pattern",
		fn: chain(hPagerOption("--rsh"), hExtractInto("op0~^extract$", -1)),
		rows: backupVerbs{readOnly: "list|info|diff|check|help|benchmark|umount|version",
			send: "create|import-tar", state: "init|rcreate|rename|break-lock|config|upgrade", del: "delete|rdelete|prune|compact|recreate",
			keys: "key|change-passphrase", mount: "mount", restore: "extract",
			extra: []backupVerb{{"serve", row{"net.serve", CapSend, "", "", "serves a borg repository"}}, {"export-tar", row{"fs.output", CapWrite, "", "op2", "writes"}}},
		}.rows("borg")}
}

// kopiaActions are kopia policy set's options naming a command it runs
// around every later snapshot of the path.
const kopiaActions = "--before-folder-action --after-folder-action --before-snapshot-root-action --after-snapshot-root-action"

func kopiaSpec() *spec {
	return subs(unknownSub("kopia"), map[string]*spec{
		"snapshot": subs(unknownSub("kopia snapshot"), map[string]*spec{
			"list": plain(), "ls": plain(), "verify": plain(), "estimate": plain(),
			"create": backupSend("kopia"), "copy-history": backupState("copies snapshot history"), "move-history": backupState("moves snapshot history"),
			"restore": backupRestore(1), "delete": backupDelete("snapshots"), "expire": backupDelete("snapshots"),
		}),
		"restore": backupRestore(1), "ls": plain(), "show": plain(), "diff": plain(), "content": subs(unknownSub("kopia content"), map[string]*spec{"list": plain(), "show": plain(), "stats": plain(), "verify": plain(), "delete": backupDelete("content")}),
		"repository": subs(backupState("creates, connects to or changes a kopia repository"), map[string]*spec{"status": plain(), "validate-provider": plain()}),
		"policy": subs(backupState("changes kopia's snapshot policies (which can name actions it runs)"), map[string]*spec{"list": plain(), "show": plain(),
			"set": {val: kopiaActions, fn: hPagerOption(strings.Fields(kopiaActions)...), rows: []row{
				{"backup.state", CapSend, "", "", "changes kopia's snapshot policies"},
				{"backup.action", CapPersistence, strings.ReplaceAll(kopiaActions, " ", "|"), "", "sets a command kopia runs before or after every later snapshot, outside any review"},
			}}}),
		"maintenance": subs(backupDelete("data no snapshot uses (maintenance)"), map[string]*spec{"info": plain()}),
		"mount":       whole("backup.state", CapProcess, "mounts snapshots as a file system"),
		"server":      whole("net.serve", CapSend, "serves a kopia repository"),
	})
}

func duplicitySpec() *spec {
	return &spec{val: "--name --archive-dir --encrypt-key --sign-key --file-to-restore -t --time --exclude --include --ssh-options --rsync-options", rows: []row{
		{"backup.send", CapSend, "!op0~^(restore|verify|collection-status|list-current-files|remove-older-than|remove-all-but-n-full|remove-all-inc-of-but-n-full|cleanup)$ ops", "", "copies files into a duplicity backup, which may be on another machine"},
		{"backup.delete", CapPublish, "op0~^(remove-older-than|remove-all-but-n-full|remove-all-inc-of-but-n-full|cleanup)$", "", "deletes backups, which cannot be undone"},
		{"backup.restore", CapWrite, "op0~^restore$", "", "restores files from a backup"},
	}, fn: hExtractInto("op0~^restore$", 2)}
}

func rdiffBackupSpec() *spec {
	return &spec{val: "-r --restore-as-of --remove-older-than --exclude --include --remote-schema", fn: chain(hPagerOption("--remote-schema"), hExtractInto("-r|--restore-as-of", 1)), rows: []row{
		{"backup.delete", CapPublish, "--remove-older-than", "", "deletes old increments, which cannot be undone"},
		{"backup.restore", CapWrite, "-r|--restore-as-of", "", "restores files from a backup"},
		{"backup.send", CapSend, "!-r !--restore-as-of !--remove-older-than !--list-increments !-l !--list-changed-since !--list-at-time !--compare ops", "", "copies files into an rdiff-backup repository, which may be on another machine"},
	}}
}

func tarsnapSpec() *spec {
	return &spec{val: "-f -C --keyfile --cachedir", fn: hExtractInto("-x", -1, "-C"), rows: []row{
		{"backup.send", CapSend, "-c", "", "copies files into a tarsnap archive, on tarsnap's servers"},
		{"backup.delete", CapPublish, "-d|--nuke", "", "deletes tarsnap archives, which cannot be undone"},
		{"backup.restore", CapWrite, "-x", "", "restores files from a tarsnap archive"},
		{"backup.state", CapSend, "--fsck|--fsck-prune|--recover", "", "changes tarsnap's cache and archives"},
	}}
}
