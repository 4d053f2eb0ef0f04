package profile

import "sync"

// handlerRulesV2 are the rule ids that review v2's handlers emit from code
// (taint, hidden targets, secrets, allow-listed tools, friction rows).
var handlerRulesV2 = sync.OnceValue(func() []string {
	return []string{
		"exec.remote-code", "exec.runs-downloaded", "exec.runs-written", "pkg.exec", "pkg.manifest-edit",
		"secrets.file-operand", "net.send-file", "docker.mount-host", "env.code-dynamic", "env.git-config", "fs.extract",
		"ipc.dbus", "pkg.config-code", "secrets.ssh-keygen", "sys.power", "sys.service", "sys.user-service", "fs.edit-in-place", "fs.move", "fs.write",
	}
})

// v2Tables are the specs that are reachable only through v2 handlers (not
// from the command table), so their row ids are registered too.
func v2Tables() []*spec {
	return nil
}
