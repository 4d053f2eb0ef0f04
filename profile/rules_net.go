package profile

// Network, publication and remote-state rows.

const curlVal = "-X -d -F -T -H -o -u -A -e -b -c -x -m -w -K -r --request --data --data-raw --data-binary --data-urlencode --data-ascii --json --form --form-string --upload-file --header --output --user --user-agent --referer --cookie --cookie-jar --proxy --max-time --write-out --config --connect-timeout --retry --url --cacert --cert --key --resolve --output-dir"

func networkTable() map[string]*spec {
	fetch := func(id, msg string) *spec { return whole(id, CapFetch, msg) }
	send := func(id, msg string) *spec { return whole(id, CapSend, msg) }
	return map[string]*spec{
		"curl": {val: curlVal, out: streamNetwork, fn: hCurl, rows: []row{
			{"net.fetch", CapFetch, "", "ops", "downloads from the network"},
			{"net.send", CapSend, "-X|--request=~^(POST|PUT|PATCH|DELETE)$", "", "sends a request that changes data on a server"},
			{"net.send", CapSend, "-d|--data|--data-raw|--data-binary|--data-urlencode|--data-ascii|--json|-F|--form|--form-string", "", "sends data to a server"},
			{"net.upload", CapSend, "-T|--upload-file", "", "uploads a file to a server"},
			{"net.upload-read", CapRead, "", "-T|--upload-file", "uploads"},
			{"net.download", CapWrite, "", "-o|--output", "writes the download to"},
			{"net.download", CapWrite, "-O|--remote-name|--remote-name-all", "", "writes the download into the current directory"},
			{"net.creds", CapRead, "", "--cert|--key|-K|--config", "reads"},
		}},
		"wget": {val: "-O -o -P -U -e --output-document --output-file --directory-prefix --post-data --post-file --header --user --password --method --body-data --body-file", out: streamNetwork, fn: hWget, rows: []row{
			{"net.fetch", CapFetch, "", "ops", "downloads from the network"},
			{"net.send", CapSend, "--post-data|--post-file|--body-data|--body-file|--method=~^(POST|PUT|PATCH|DELETE)$", "", "sends data to a server"},
			{"net.download", CapWrite, "-O|--output-document=~^[^-]", "-O|--output-document", "writes the download to"},
			{"net.download", CapWrite, "!-O !--output-document", "", "writes the download into the current directory"},
			{"net.download", CapWrite, "", "-P|--directory-prefix", "writes downloads into"},
		}},
		"http":   {out: streamNetwork, rows: []row{{"net.fetch", CapFetch, "", "", "makes an HTTP request"}, {"net.send", CapSend, "op~^(POST|PUT|PATCH|DELETE)$|=", "", "sends data to a server"}}},
		"aria2c": {val: "-d -o -i -x -s -j --dir --out --input-file", out: streamNetwork, fn: hAria2c, rows: []row{{"net.fetch", CapFetch, "", "", "downloads from the network"}, {"net.download", CapWrite, "", "-d|--dir", "writes downloads into"}}},
		"nc":     {val: "-p -s -w -i -x -X -e -c", out: streamNetwork, rows: []row{{"net.socket", CapSend, "", "", "opens a raw network connection (netcat)"}, {"net.exec-shell", CapNetCode, "-e|-c", "", "serves a shell over the network (netcat -e)"}}},
		"ncat":   {val: "-p -s -w -i -e -c --exec --sh-exec", out: streamNetwork, rows: []row{{"net.socket", CapSend, "", "", "opens a raw network connection (ncat)"}, {"net.exec-shell", CapNetCode, "-e|-c|--exec|--sh-exec", "", "serves a shell over the network"}}},
		"netcat": {val: "-p -s -w -e -c", out: streamNetwork, rows: []row{{"net.socket", CapSend, "", "", "opens a raw network connection (netcat)"}, {"net.exec-shell", CapNetCode, "-e|-c", "", "serves a shell over the network"}}},
		"socat":  {out: streamNetwork, fn: hSocat, rows: []row{{"net.socket", CapSend, "", "", "relays data over the network (socat)"}, {"net.exec-shell", CapNetCode, "any~(exec|system):", "", "connects a program to the network (socat EXEC/SYSTEM)"}}},
		// Mail senders: what they read goes to other people.
		"mail": send("net.mail", "sends email"), "mailx": send("net.mail", "sends email"), "mutt": send("net.mail", "sends email"),
		"sendmail": send("net.mail", "sends email"), "msmtp": send("net.mail", "sends email"), "ssmtp": send("net.mail", "sends email"),
		"swaks": send("net.mail", "sends email"), "s-nail": send("net.mail", "sends email"),
		// Servers: they hand the files they serve to whoever connects.
		"httpd": send("net.serve", "serves files over the network"), "lighttpd": send("net.serve", "serves files over the network"),
		"http-server": send("net.serve", "serves files over the network"), "serve": send("net.serve", "serves files over the network"),
		"telnet": send("net.socket", "opens a network connection (telnet)"),
		"ftp":    send("net.socket", "opens an FTP connection"),
		"ssh":    {val: "-p -i -l -o -F -J -L -R -D -b -c -e -m -O -Q -S -W -w -B -E", posix: true, fn: hSSH, rows: []row{{"net.ssh", CapSend, "", "", "connects to another machine over ssh"}, {"net.ssh-key", CapRead, "", "-i", "uses the key"}}},
		"mosh":   send("net.ssh", "connects to another machine (mosh)"),
		"scp": {val: "-P -i -o -F -J -l -c -S", fn: func(b *builder, c *call) stream { b.sshOptions(c); return stream{} }, rows: []row{
			{"net.upload", CapSend, "op~^[^/]*[^/\\\\]:", "", "copies files to or from another machine"},
			{"fs.write", CapWrite, "!op~^[^/]*:.*$", "last", "writes"},
			{"net.upload-read", CapRead, "", "init", "reads"},
			{"net.ssh-key", CapRead, "", "-i", "uses the key"},
		}},
		"rsync": {val: "-e --rsh --exclude --include --filter -f --port --rsync-path --log-file --password-file -B --timeout --chmod --chown -T --temp-dir --suffix --backup-dir --partial-dir", fn: chain(hRsyncInto, hRsyncBackups), rows: []row{
			{"net.upload", CapSend, "op~^[^/]*[^/\\\\]:", "", "copies files to or from another machine"},
			{"fs.write", CapWrite, "", "last", "writes into"},
			{"fs.read", CapRead, "", "init", "reads"},
			{"fs.sync-delete", CapDelete, "--delete|--delete-before|--delete-after|--delete-during|--delete-excluded", "last", "deletes files missing from the source in"},
		}},
		"gh": later(ghSpec),
		"glab": subs(fetch("gh.read", "reads from GitLab"), map[string]*spec{
			"mr":   subs(send("gh.write", "changes a merge request on GitLab"), map[string]*spec{"list": fetch("gh.read", "reads from GitLab"), "view": fetch("gh.read", "reads from GitLab"), "diff": fetch("gh.read", "reads from GitLab")}),
			"repo": subs(fetch("gh.read", "reads from GitLab"), map[string]*spec{"delete": whole("gh.repo-delete", CapPublish, "deletes a GitLab repository, which cannot be undone")}),
		}),
		"docker":  later(dockerSpec),
		"podman":  later(dockerSpec),
		"nerdctl": later(dockerSpec), // containerd's docker-compatible client
		"kubectl": later(kubectlSpec),
		"oc":      later(kubectlSpec),
		"helm": subs(fetch("helm.read", "reads from the cluster"), map[string]*spec{
			"install": send("helm.write", "installs a release into the cluster"), "upgrade": send("helm.write", "upgrades a release in the cluster"),
			"rollback":  send("helm.write", "rolls back a release in the cluster"),
			"uninstall": whole("helm.delete", CapPublish, "uninstalls a release from the cluster, destroying its resources"),
			"delete":    whole("helm.delete", CapPublish, "uninstalls a release from the cluster, destroying its resources"),
			"template":  plain(), "lint": plain(),
		}),
		"terraform": subs(fetch("tf.read", "reads infrastructure state"), map[string]*spec{
			"apply":   {rows: []row{{"tf.apply", CapSend, "", "", "changes real infrastructure"}, {"tf.apply-auto", CapPublish, "-auto-approve|--auto-approve", "", "changes real infrastructure without asking"}}},
			"destroy": whole("tf.destroy", CapPublish, "destroys real infrastructure, which cannot be undone"),
			"import":  send("tf.write", "changes infrastructure state"), "taint": send("tf.write", "changes infrastructure state"),
			"state":    subs(fetch("tf.read", "reads infrastructure state"), map[string]*spec{"rm": send("tf.write", "changes infrastructure state"), "mv": send("tf.write", "changes infrastructure state"), "push": whole("tf.state-push", CapPublish, "overwrites remote infrastructure state"), "pull": whole("secrets.token-print", CapSecrets, "prints the infrastructure's state, with the passwords and keys it holds")}),
			"fmt":      {rows: []row{{"fs.format", CapWrite, "", "", "rewrites Terraform files in the workspace"}}},
			"validate": plain(), "version": plain(),
		}),
		"aws":       later(awsSpec),
		"gcloud":    {val: "--command", fn: hCloudRemote, rows: []row{{"cloud.read", CapFetch, "", "", "talks to Google Cloud"}, {"cloud.write", CapSend, "any~^(create|update|deploy|set|add|patch|apply|start|stop|resize)", "", "changes Google Cloud resources"}, {"cloud.delete", CapPublish, "any~^delete$|^destroy$", "", "deletes Google Cloud resources, which cannot be undone"}}},
		"az":        {val: "--scripts", fn: hCloudRemote, rows: []row{{"cloud.read", CapFetch, "", "", "talks to Azure"}, {"cloud.write", CapSend, "any~^(create|update|deploy|set|add|start|stop)$", "", "changes Azure resources"}, {"cloud.delete", CapPublish, "any~^delete$|^purge$", "", "deletes Azure resources, which cannot be undone"}}},
		"psql":      {val: "-c -f -h -p -U -d --command --file --host --port --username --dbname -v --set -o --output -L --log-file", rows: []row{{"db.connect", CapSend, "", "", "connects to a PostgreSQL database"}, {"fs.output", CapWrite, "", "-o|--output|-L|--log-file", "writes query results to"}}, fn: hSQL("-c --command")},
		"mysql":     {val: "-e -h -P -u -D --execute --host --port --user --database --tee", rows: []row{{"db.connect", CapSend, "", "", "connects to a MySQL database"}, {"fs.output", CapWrite, "", "--tee", "writes the session to"}}, fn: hSQL("-e --execute")},
		"mariadb":   {val: "-e -h -P -u -D --execute", rows: []row{{"db.connect", CapSend, "", "", "connects to a MariaDB database"}}, fn: hSQL("-e --execute")},
		"sqlite3":   {val: "-cmd -separator -init", rows: []row{{"db.sqlite", CapWrite, "", "op0", "opens the database"}}, fn: hSQL("-cmd")},
		"duckdb":    {val: "-cmd -c -s -separator -init -nullvalue", rows: []row{{"db.duckdb", CapWrite, "", "op0", "opens the database"}}, fn: hSQL("-cmd -c -s")},
		"mongo":     {val: "--eval --host --port -u -p", rows: []row{{"db.connect", CapSend, "", "", "connects to a MongoDB database"}}, fn: hSQL("--eval")},
		"mongosh":   {val: "--eval --host --port -u -p", rows: []row{{"db.connect", CapSend, "", "", "connects to a MongoDB database"}}, fn: hSQL("--eval")},
		"redis-cli": {val: "-h -p -a -n -u --user --pass", rows: []row{{"db.connect", CapSend, "", "", "connects to a Redis server"}}, fn: hSQL("")},
		"cqlsh":     {val: "-e --execute -u -p", rows: []row{{"db.connect", CapSend, "", "", "connects to a Cassandra database"}}, fn: hSQL("-e --execute")},
		"npm": subs(&spec{}, map[string]*spec{
			"install": fetch("pkg.install", "downloads and installs packages (their install scripts run)"), "i": fetch("pkg.install", "downloads and installs packages (their install scripts run)"),
			"ci": fetch("pkg.install", "downloads and installs packages (their install scripts run)"), "add": fetch("pkg.install", "downloads and installs packages"),
			"update": fetch("pkg.install", "downloads and updates packages"), "upgrade": fetch("pkg.install", "downloads and updates packages"),
			"uninstall": {rows: []row{{"pkg.uninstall", CapWrite, "", "", "removes packages from the project"}}}, "remove": {rows: []row{{"pkg.uninstall", CapWrite, "", "", "removes packages from the project"}}},
			"publish":   whole("pkg.publish", CapPublish, "publishes a package to the registry, visible to everyone and hard to take back"),
			"unpublish": whole("pkg.publish", CapPublish, "removes a published package from the registry, breaking its users"),
			"deprecate": whole("pkg.publish", CapPublish, "changes a published package for all its users"),
			"dist-tag":  whole("pkg.publish", CapPublish, "changes a published package's tags for all its users"),
			"login":     whole("pkg.login", CapSend, "logs in to the registry, storing a token"), "adduser": whole("pkg.login", CapSend, "logs in to the registry, storing a token"),
			"token": whole("pkg.token", CapSecrets, "shows or creates registry tokens"),
			"exec":  npmExec(), "x": npmExec(),
			"audit":    {fn: hQuery, rows: []row{{"net.query", CapQuery, "", "", "queries the registry (read-only, with the network for this command only)"}, {"pkg.install", CapFetch, "op0~^fix$", "", "downloads and installs fixed versions"}}},
			"outdated": query("queries the registry"), "view": query("queries the registry"), "info": query("queries the registry"), "show": query("queries the registry"), "v": query("queries the registry"), "search": query("queries the registry"),
			"config": toolConfig(), "set": {fn: hToolConfig},
			"pkg":  subs(unknownSub("npm pkg"), map[string]*spec{"set": {fn: hPkgManifest}, "delete": {fn: hPkgManifest}, "fix": {fn: hPkgManifest}, "get": plain()}),
			"init": {fn: hPkgManifest},
			"run":  {fn: hPkgScript("")}, "run-script": {fn: hPkgScript("")},
			"test": {fn: hPkgScript("test")}, "t": {fn: hPkgScript("test")}, "start": {fn: hPkgScript("start")},
			"stop": {fn: hPkgScript("stop")}, "restart": {fn: hPkgScript("restart")},
			// Settings of the registry, the account and the package (C).
			"owner":  subs(whole("pkg.account", CapPublish, "changes who owns a published package"), map[string]*spec{"ls": plain(), "list": plain()}),
			"access": subs(whole("pkg.account", CapPublish, "changes who can access or publish a package"), map[string]*spec{"list": plain(), "get": plain(), "ls-packages": plain(), "ls-collaborators": plain()}),
			"team":   subs(whole("pkg.account", CapPublish, "changes a registry team"), map[string]*spec{"ls": plain(), "list": plain()}),
			"org":    subs(whole("pkg.account", CapPublish, "changes a registry organisation's members"), map[string]*spec{"ls": plain(), "list": plain()}),
			"hook":   whole("pkg.account", CapPublish, "changes registry hooks"), "profile": subs(whole("pkg.account", CapPublish, "changes your registry profile or two-factor settings"), map[string]*spec{"get": plain()}),
			"star": whole("pkg.account", CapSend, "stars a package"), "unstar": whole("pkg.account", CapSend, "unstars a package"), "logout": whole("pkg.login", CapSend, "logs out of the registry"),
			"cache": subs(whole("dev.clean-cache", CapDelete, "changes npm's cache"), map[string]*spec{"ls": plain(), "list": plain()}),
			"prune": whole("pkg.uninstall", CapDelete, "removes packages that are not in package.json"),
			"link":  fetch("pkg.link", "links the package into npm's global directory, outside the workspace, installing it and what it depends on (their install scripts run)"), "unlink": globalLink("removes links from npm's global directory, outside the workspace"),
			"edit": whole("pkg.edit", CapDynamic, "opens an installed package in an editor"), "explore": {posix: true, fn: wrap(1), rows: []row{{"pkg.edit", CapDynamic, "", "", "opens a shell in an installed package, or runs a command there"}}},
			"docs": whole("dev.browser", CapDesktop, "opens a web page"), "home": whole("dev.browser", CapDesktop, "opens a web page"), "repo": whole("dev.browser", CapDesktop, "opens a web page"), "bugs": whole("dev.browser", CapDesktop, "opens a web page"),
			"ls": plain(), "list": plain(), "ll": plain(), "la": plain(), "explain": plain(), "why": plain(), "root": plain(), "prefix": plain(), "bin": plain(),
			"help": plain(), "version": plain(), "--version": plain(), "-v": plain(), "query": plain(), "sbom": plain(), "completion": plain(), "help-search": plain(),
			"pack": {val: "--pack-destination", rows: []row{{"fs.output", CapWrite, "", "--pack-destination", "writes the package archive into"}}}, "shrinkwrap": plain(), "dedupe": plain(), "ddp": plain(), "rebuild": whole("pkg.run", CapExec, "rebuilds packages (their install scripts run)"),
			"whoami": fetch("pkg.audit", "queries the registry"), "ping": fetch("pkg.audit", "queries the registry"), "doctor": fetch("pkg.audit", "checks the registry and the install"), "fund": plain(), "diff": fetch("pkg.audit", "queries the registry"),
			"install-test": fetch("pkg.install", "downloads and installs packages, then runs tests"), "it": fetch("pkg.install", "downloads and installs packages, then runs tests"),
			"install-ci-test": fetch("pkg.install", "downloads and installs packages, then runs tests"), "cit": fetch("pkg.install", "downloads and installs packages, then runs tests"),
			"*": unknownSub("npm"),
		}),
		"npx":  npmExec(),
		"pnpx": {fn: hPlanted, rows: []row{{"pkg.exec", CapFetch, "", "", "downloads (if needed) and runs a package"}}},
		// bun is a package manager as well as a runtime: bun FILE and bun -e
		// run code (the interpreter entry); its subcommands fetch, run
		// package.json scripts (reviewed as npm's) and publish.
		"bun": subs(&spec{val: "-e --eval", fn: hBunRun}, map[string]*spec{
			"install": fetch("pkg.install", "downloads and installs packages (their install scripts run)"), "i": fetch("pkg.install", "downloads and installs packages (their install scripts run)"),
			"add": fetch("pkg.install", "downloads and installs packages"), "a": fetch("pkg.install", "downloads and installs packages"),
			"update": fetch("pkg.install", "downloads and updates packages"), "upgrade": fetch("pkg.install", "downloads a new bun"),
			"create": fetch("pkg.exec", "downloads and runs a project template"), "x": {fn: hPlanted, rows: []row{{"pkg.exec", CapFetch, "", "", "downloads (if needed) and runs a package"}}},
			"remove": {rows: []row{{"pkg.uninstall", CapWrite, "", "", "removes packages from the project"}}}, "rm": {rows: []row{{"pkg.uninstall", CapWrite, "", "", "removes packages from the project"}}},
			"publish": whole("pkg.publish", CapPublish, "publishes a package to the registry, visible to everyone and hard to take back"),
			"run":     {fn: hBunRun},
			"test":    whole("dev.build", CapExec, "runs the project's tests"), "build": {val: "--outfile --outdir -e --external --target --format --root", rows: []row{{"dev.build", CapExec, "", "", "bundles the project"}, {"fs.output", CapWrite, "", "--outfile|--outdir", "writes its bundle to"}}},
		}),
		"yarn": subs(whole("pkg.install", CapFetch, "downloads and installs packages"), map[string]*spec{
			"add": fetch("pkg.install", "downloads and installs packages"), "install": fetch("pkg.install", "downloads and installs packages"), "upgrade": fetch("pkg.install", "downloads and updates packages"),
			"publish": whole("pkg.publish", CapPublish, "publishes a package to the registry"), "npm": subs(unknownSub("yarn npm"), map[string]*spec{"publish": whole("pkg.publish", CapPublish, "publishes a package to the registry"), "info": fetch("pkg.audit", "queries the registry"), "whoami": fetch("pkg.audit", "queries the registry"), "audit": fetch("pkg.audit", "queries the registry"), "tag": subs(whole("pkg.publish", CapPublish, "changes a published package's tags"), map[string]*spec{"list": plain()}), "login": whole("pkg.login", CapSend, "logs in to the registry"), "logout": whole("pkg.login", CapSend, "logs out")}),
			"dlx": {fn: hPackageCommand, rows: []row{{"pkg.exec", CapFetch, "", "", "downloads and runs a package"}}},
			// yarn exec CMD runs CMD in the project's environment.
			"exec":   {posix: true, fn: wrap(0), rows: []row{{"pkg.run", CapExec, "", "", "runs a command in the project's environment"}}},
			"config": toolConfig(),
			"remove": whole("pkg.uninstall", CapWrite, "removes packages from the project"), "run": {fn: hPkgScript("")},
			// yarn's own commands that change the registry, the account or
			// global state; a name that is not one runs a script or a bin.
			"owner": whole("pkg.account", CapPublish, "changes who owns a published package"), "team": whole("pkg.account", CapPublish, "changes a registry team"),
			"access": whole("pkg.account", CapPublish, "changes who can access a package"), "tag": subs(whole("pkg.publish", CapPublish, "changes a published package's tags"), map[string]*spec{"list": plain(), "ls": plain()}),
			"cache":  subs(whole("dev.clean-cache", CapDelete, "changes yarn's cache"), map[string]*spec{"list": plain(), "dir": plain()}),
			"global": fetch("pkg.install-user", "installs packages for your user, outside the workspace"), "login": whole("pkg.login", CapSend, "logs in to the registry"), "logout": whole("pkg.login", CapSend, "logs out"),
			"link": globalLink("links packages into yarn's global directory, outside the workspace"), "unlink": globalLink("removes links from yarn's global directory, outside the workspace"), "autoclean": whole("pkg.uninstall", CapDelete, "deletes files from node_modules"),
			"set": fetch("pkg.install", "downloads yarn itself or changes its settings"), "plugin": fetch("pkg.install", "downloads and installs yarn plugins (code yarn runs)"), "policies": fetch("pkg.install", "downloads yarn itself"),
			"list": plain(), "info": fetch("pkg.audit", "queries the registry"), "why": plain(), "outdated": fetch("pkg.audit", "queries the registry"), "audit": fetch("pkg.audit", "queries the registry"), "help": plain(), "--version": plain(), "versions": plain(), "bin": plain(), "dir": plain(),
			// workspace NAME and workspaces foreach run a yarn command (a
			// script, exec, a binary) in workspaces.
			"workspace": {posix: true, fn: func(b *builder, c *call) stream {
				if len(c.a.rest) < 2 {
					return stream{}
				}
				return b.exec(append([]field{staticField("yarn", c.sp)}, c.a.rest[1:]...), c.st, c.in, "yarn workspace", c.sp)
			}},
			"workspaces": {fn: hYarnForeach},
			"*":          {fn: yarnBare},
		}),
		"pnpm": subs(&spec{}, map[string]*spec{
			"add": fetch("pkg.install", "downloads and installs packages"), "install": fetch("pkg.install", "downloads and installs packages"), "i": fetch("pkg.install", "downloads and installs packages"), "update": fetch("pkg.install", "downloads and updates packages"),
			"publish": whole("pkg.publish", CapPublish, "publishes a package to the registry"), "dlx": {fn: hPackageCommand, rows: []row{{"pkg.exec", CapFetch, "", "", "downloads and runs a package"}}},
			"config": toolConfig(), "run": {fn: hPkgScript("")}, "test": {fn: hPkgScript("test")}, "start": {fn: hPkgScript("start")},
			"owner": whole("pkg.account", CapPublish, "changes who owns a published package"), "access": whole("pkg.account", CapPublish, "changes who can access a package"),
			"team": whole("pkg.account", CapPublish, "changes a registry team"), "org": whole("pkg.account", CapPublish, "changes a registry organisation"), "dist-tag": whole("pkg.publish", CapPublish, "changes a published package's tags"),
			"store": subs(whole("dev.clean-cache", CapDelete, "changes pnpm's store"), map[string]*spec{"path": plain(), "status": plain()}),
			"prune": whole("pkg.uninstall", CapDelete, "removes packages that are not needed"), "remove": whole("pkg.uninstall", CapWrite, "removes packages"), "rm": whole("pkg.uninstall", CapWrite, "removes packages"),
			"link": globalLink("links packages into pnpm's global directory, outside the workspace"), "unlink": globalLink("removes links, from pnpm's global directory too"), "exec": {posix: true, fn: wrap(0), rows: []row{{"pkg.run", CapExec, "", "", "runs a project binary"}}},
			"ls": plain(), "list": plain(), "why": plain(), "outdated": fetch("pkg.audit", "queries the registry"), "audit": fetch("pkg.audit", "queries the registry"), "view": fetch("pkg.audit", "queries the registry"), "info": fetch("pkg.audit", "queries the registry"), "help": plain(), "--version": plain(), "root": plain(), "bin": plain(),
			"*": {fn: yarnBare},
		}),
		"pip": later(pipSpec), "pip3": later(pipSpec),
		"pipx": subs(fetch("pkg.install", "downloads and installs a tool"), map[string]*spec{"list": plain(), "run": {fn: chain(hRemoteRun, hPackageCommand), rows: []row{{"pkg.exec", CapFetch, "", "", "downloads (if needed) and runs a Python package"}}}}),
		"uv": subs(&spec{}, map[string]*spec{"pip": pipSpec(), "add": fetch("pkg.install", "downloads and installs packages"), "sync": fetch("pkg.install", "downloads and installs packages"), "lock": fetch("pkg.install", "resolves packages from the network"), "publish": whole("pkg.publish", CapPublish, "publishes a package to the registry"), "tool": fetch("pkg.install", "downloads and installs a tool"), "run": {val: uvRunValues, posix: true, fn: hUvRun, rows: []row{{"pkg.run", CapExec, "", "", "runs project code"}, {"pkg.exec", CapFetch, "--with|--with-editable|--with-requirements", "", "downloads packages and runs with them"}}},
			"venv": {val: "-p --python --prompt --seed --index-url --cache-dir", fn: hVenv(".venv")}, "init": plain(), "tree": plain(), "export": plain(), "version": plain(), "build": plain(), "help": plain(), "--version": plain(), "format": plain(), "remove": plain(),
			"python": subs(fetch("pkg.install-user", "downloads and installs Python versions"), map[string]*spec{"list": plain(), "find": plain(), "dir": plain()}),
			"cache":  subs(whole("dev.clean-cache", CapDelete, "deletes uv's cache"), map[string]*spec{"dir": plain()}),
			"self":   fetch("pkg.install-user", "updates uv itself"), "*": unknownSub("uv")}),
		"poetry": subs(&spec{}, map[string]*spec{"add": fetch("pkg.install", "downloads and installs packages"), "install": fetch("pkg.install", "downloads and installs packages"), "update": fetch("pkg.install", "downloads and updates packages"), "lock": fetch("pkg.install", "resolves packages from the network"), "publish": whole("pkg.publish", CapPublish, "publishes a package to the registry"),
			"run": {val: "-C --directory -P --project", posix: true, fn: wrap(0)}, "build": plain(), "check": plain(), "show": plain(), "version": plain(), "env": subs(unknownSub("poetry env"), map[string]*spec{"info": plain(), "list": plain(), "use": fetch("pkg.install", "creates an environment")}),
			"config": toolConfig(), "shell": whole("exec.interactive", CapDynamic, "starts an interactive shell"), "init": plain(), "new": plain(), "remove": plain(), "export": plain(), "help": plain(), "--version": plain(), "*": unknownSub("poetry")}),
		"twine": subs(unknownSub("twine"), map[string]*spec{"upload": whole("pkg.publish", CapPublish, "publishes a package to PyPI, visible to everyone"), "check": plain()}),
		"gem": subs(&spec{}, map[string]*spec{"sources": {rows: []row{{"pkg.config-code", CapPersistence, "-a|--add|-r|--remove|-c|--clear-all", "", "changes where gem installs code from"}}}, "install": fetch("pkg.install", "downloads and installs gems"), "push": whole("pkg.publish", CapPublish, "publishes a gem"), "yank": whole("pkg.publish", CapPublish, "removes a published gem, breaking its users"), "list": plain(),
			"owner": whole("pkg.account", CapPublish, "changes the owners of a published gem"), "signin": whole("pkg.login", CapSecrets, "stores a RubyGems token"), "signout": whole("pkg.login", CapSecrets, "removes the RubyGems token"),
			"uninstall": whole("pkg.uninstall", CapDelete, "removes installed gems"), "cleanup": whole("pkg.uninstall", CapDelete, "removes old gem versions"),
			"search": fetch("pkg.audit", "queries RubyGems"), "info": plain(), "contents": plain(), "env": plain(), "environment": plain(), "which": plain(), "help": plain(), "spec": plain(), "query": plain(), "--version": plain(), "build": plain(),
			"*": unknownSub("gem")}),
		"bundle": subs(unknownSub("bundle"), map[string]*spec{"exec": {posix: true, fn: wrap(0)}, "list": plain(), "show": plain(), "info": plain(), "check": plain(), "outdated": fetch("pkg.audit", "queries RubyGems"), "config": toolConfig(), "help": plain(), "--version": plain(), "install": fetch("pkg.install", "downloads and installs gems"), "update": fetch("pkg.install", "downloads and updates gems")}),
		"composer": subs(&spec{}, map[string]*spec{"install": fetch("pkg.install", "downloads and installs packages"), "require": fetch("pkg.install", "downloads and installs packages"), "update": fetch("pkg.install", "downloads and updates packages"),
			"show": plain(), "info": plain(), "validate": plain(), "diagnose": plain(), "licenses": plain(), "depends": plain(), "why": plain(), "why-not": plain(), "prohibits": plain(),
			"check-platform-reqs": plain(), "dump-autoload": whole("pkg.script-unreadable", CapDynamic, "runs composer.json's post-autoload-dump scripts, which guard does not review"), "help": plain(), "--version": plain(), "outdated": fetch("pkg.audit", "queries Packagist"), "search": fetch("pkg.audit", "queries Packagist"),
			"remove": fetch("pkg.install", "removes packages and updates the rest (running composer.json's scripts)"), "config": toolConfig(), "global": fetch("pkg.install-user", "installs packages for your user"),
			"*": whole("pkg.script-unreadable", CapDynamic, "runs a composer command or a composer.json script, which guard does not review")}),
		"brew": subs(&spec{}, map[string]*spec{"install": fetch("pkg.install-user", "downloads and installs software for your user"), "upgrade": fetch("pkg.install-user", "downloads and upgrades software"), "update": fetch("pkg.install-user", "updates Homebrew"), "uninstall": whole("pkg.uninstall-user", CapWrite, "removes installed software"), "list": plain(), "info": plain(), "search": fetch("pkg.audit", "queries Homebrew"),
			"outdated": plain(), "deps": plain(), "uses": plain(), "config": plain(), "doctor": plain(), "--version": plain(), "help": plain(), "leaves": plain(), "desc": plain(), "home": whole("dev.browser", CapDesktop, "opens a web page"),
			"cleanup": whole("pkg.uninstall-user", CapDelete, "deletes old versions and caches"), "tap": fetch("pkg.install-user", "adds a third-party formula repository (code brew runs)"),
			"services": subs(whole("sys.user-service", CapPersistence, "changes background services that start at login"), map[string]*spec{"list": plain(), "info": plain()}),
			"*":        unknownSub("brew")}),
		"docker-compose": later(dockerComposeSpec),
	}
}

// globalLink: a package manager's link and unlink change its global
// directory, outside the workspace wherever its configuration puts it
// (B, as a write outside the workspace is).
func globalLink(msg string) *spec {
	return &spec{fn: func(b *builder, c *call) stream {
		b.add(Effect{Cap: CapWrite, Rule: "pkg.link", Program: c.prog, Class: ClassOutside, Target: "(" + c.prog + "'s global directory)", Msg: msg}, c.sp)
		return stream{}
	}}
}

func pipSpec() *spec {
	fetch := func(id, msg string) *spec { return whole(id, CapFetch, msg) }
	return subs(&spec{}, map[string]*spec{
		// --target, --prefix, --root and --src name where the packages
		// (and their .pth files, which every later python runs) land.
		"install": {val: "-t --target --prefix --root --src -r --requirement -c --constraint -e --editable -i --index-url --extra-index-url -f --find-links --python-version --platform --implementation --abi --upgrade-strategy --progress-bar --report", fn: hPipInstall, rows: []row{
			{"pkg.install", CapFetch, "", "", "downloads and installs Python packages (their build scripts run)"},
			{"fs.write", CapWrite, "", "-t|--target|--prefix|--root|--src", "installs Python packages into"}}},
		"download":  fetch("pkg.install", "downloads Python packages"),
		"uninstall": whole("pkg.uninstall", CapDelete, "removes installed Python packages"),
		"help":      plain(), "inspect": plain(), "debug": plain(), "hash": plain(),
		"index": fetch("pkg.audit", "queries the package index"), "search": fetch("pkg.audit", "queries the package index"), "wheel": fetch("pkg.install", "downloads and builds packages (their build scripts run)"),
		"cache": subs(whole("dev.clean-cache", CapDelete, "deletes pip's cache"), map[string]*spec{"dir": plain(), "info": plain(), "list": plain()}),
		"list":  plain(), "show": plain(), "freeze": plain(), "check": plain(), "--version": plain(),
		"config": toolConfig(), "*": unknownSub("pip"),
	})
}

func ghSpec() *spec {
	fetch := func() *spec { return whole("gh.read", CapFetch, "reads from GitHub") }
	q := func() *spec { return query("queries GitHub") }
	send := func(msg string) *spec { return whole("gh.write", CapSend, msg) }
	destroy := func(msg string) *spec { return whole("gh.destroy", CapPublish, msg) }
	gh := subs(fetch(), map[string]*spec{
		"pr": subs(send("changes a pull request on GitHub, visible to others"), map[string]*spec{
			"list": q(), "view": q(), "diff": q(), "checks": q(), "status": q(), "checkout": fetch(),
		}),
		"issue": subs(send("changes an issue on GitHub, visible to others"), map[string]*spec{
			"list": q(), "view": q(), "status": q(),
			"delete": destroy("deletes a GitHub issue, which cannot be undone"),
		}),
		"repo": subs(send("changes a GitHub repository"), map[string]*spec{
			"view": q(), "list": q(), "clone": {rows: []row{{"gh.read", CapFetch, "", "", "reads from GitHub"}, {"git.clone-write", CapWrite, "", "ops1", "writes the clone into"}}},
			"sync":       {rows: []row{{"gh.write", CapSend, "", "", "syncs a repository with its source"}, {"gh.destroy", CapPublish, "--force", "", "force-syncs, overwriting the branch's history"}}},
			"edit":       {rows: []row{{"gh.write", CapSend, "", "", "changes a GitHub repository's settings"}, {"gh.settings", CapPublish, "--visibility|--accept-visibility-change-consequences|--default-branch|--enable-auto-merge|--delete-branch-on-merge|--allow-forking|--template|--enable-wiki", "", "changes repository settings (visibility, default branch, forking), visible to everyone"}}},
			"delete":     destroy("deletes a GitHub repository, which cannot be undone"),
			"archive":    destroy("archives a GitHub repository"),
			"deploy-key": subs(send("changes a repository's deploy keys"), map[string]*spec{"list": q(), "add": whole("gh.settings", CapPublish, "adds a deploy key: access to the repository for whoever holds the key"), "delete": destroy("deletes a deploy key")}),
		}),
		"release": subs(send("changes a GitHub release"), map[string]*spec{
			"list": q(), "view": q(), "download": fetch(),
			"create":       destroy("publishes a GitHub release, visible to everyone"),
			"delete":       destroy("deletes a GitHub release, which cannot be undone"),
			"delete-asset": destroy("deletes a release asset"),
		}),
		"api": {val: "-X -f -F -p -H -q --method --field --raw-field --header --jq --input --preview --hostname -t --template --cache", fn: hQuerySending([]string{"-F", "--field"}, []string{"--input"}), out: streamNetwork, rows: []row{
			{"net.query", CapQuery, "", "", "calls the GitHub API (read-only, with the network for this command only)"},
			{"gh.write", CapSend, "-X|--method=~^(POST|PUT|PATCH)$", "", "changes data through the GitHub API"},
			{"gh.write", CapSend, "!-X !--method !op0~^graphql$ -f|-F|--field|--raw-field|--input", "", "changes data through the GitHub API"},
			// GraphQL takes every request as a POST with fields: a query
			// reads, a mutation changes (a body guard cannot see may be
			// one). A line with a word guard cannot see holds every -X
			// term, so "!-X" rows do not apply to it: the rows above price
			// it (an unknown endpoint or method, data computed on the line).
			{"gh.write", CapSend, "!-X !--method op0~^graphql$ -f|-F|--field|--raw-field=~\\bmutation\\b", "", "changes data through the GitHub GraphQL API"},
			{"gh.write", CapSend, "!-X !--method op0~^graphql$ --input", "", "sends a GraphQL request guard cannot read (it may change data)"},
			{"gh.destroy", CapPublish, "-X|--method=~^DELETE$", "", "deletes data through the GitHub API"},
			// The settings gh repo edit, gh secret set, gh ssh-key add and
			// gh repo delete price at C, reached through the raw API: who
			// has access (keys, collaborators, invitations), secrets,
			// webhooks, branch protection, visibility and the repository
			// itself. Any write there is C, as through the verbs.
			{"gh.settings", CapPublish, "-X|--method=~^(POST|PUT|PATCH)$ op0~" + ghSettingsPath, "", "changes repository or account settings (access, keys, secrets, webhooks, protection, visibility) through the GitHub API"},
			{"gh.settings", CapPublish, "!-X !--method -f|-F|--field|--raw-field|--input op0~" + ghSettingsPath, "", "changes repository or account settings (access, keys, secrets, webhooks, protection, visibility) through the GitHub API"},
			{"gh.destroy", CapPublish, "op0~^graphql$ -f|-F|--field|--raw-field=~" + ghGraphQLDestroy, "", "deletes, archives or transfers through the GitHub GraphQL API"},
			{"gh.settings", CapPublish, "op0~^graphql$ -f|-F|--field|--raw-field=~" + ghGraphQLSettings, "", "changes repository or account settings through the GitHub GraphQL API"},
		}},
		"auth": subs(send("changes GitHub authentication"), map[string]*spec{
			"status": {fn: hQuery, rows: []row{{"net.query", CapQuery, "", "", "queries GitHub (read-only, with the network for this command only)"}, {"gh.token", CapSecrets, "-t|--show-token", "", "prints your GitHub token"}}},
			"token":  whole("gh.token", CapSecrets, "prints your GitHub token"),
		}),
		"secret":   subs(destroy("changes repository secrets"), map[string]*spec{"list": q()}),
		"variable": subs(send("changes repository variables"), map[string]*spec{"list": q(), "get": q(), "delete": destroy("deletes a repository variable")}),
		// Codespaces hold work not pushed anywhere; projects, keys and
		// deploy keys are account and repository settings.
		"codespace": subs(send("changes GitHub codespaces (machines that hold your work and run code)"), map[string]*spec{
			"list": q(), "view": q(), "logs": q(), "ports": q(),
			"delete": destroy("deletes codespaces, with any work not pushed from them"),
		}),
		"project":   subs(send("changes GitHub projects"), map[string]*spec{"list": q(), "view": q(), "field-list": q(), "item-list": q(), "delete": destroy("deletes a GitHub project")}),
		"gpg-key":   subs(fetch(), map[string]*spec{"list": q(), "add": whole("gh.ssh-key", CapPersistence, "adds a GPG key to your GitHub account"), "delete": destroy("deletes a GPG key from your GitHub account")}),
		"workflow":  subs(fetch(), map[string]*spec{"list": q(), "view": q(), "run": send("starts a GitHub Actions workflow"), "enable": send("enables a workflow"), "disable": send("disables a workflow")}),
		"run":       subs(fetch(), map[string]*spec{"list": q(), "view": q(), "watch": q(), "rerun": send("re-runs a workflow"), "cancel": send("cancels a workflow run"), "delete": destroy("deletes a workflow run")}),
		"gist":      subs(fetch(), map[string]*spec{"list": q(), "view": q(), "create": send("publishes a gist"), "edit": send("changes a gist"), "delete": destroy("deletes a gist")}),
		"label":     subs(fetch(), map[string]*spec{"list": q(), "create": send("changes repository labels"), "edit": send("changes repository labels"), "delete": destroy("deletes a label")}),
		"ssh-key":   subs(fetch(), map[string]*spec{"add": whole("gh.ssh-key", CapPersistence, "adds an SSH key to your GitHub account"), "delete": destroy("deletes an SSH key from your GitHub account")}),
		"extension": subs(fetch(), map[string]*spec{"install": whole("gh.extension", CapFetch, "downloads and installs code that gh will run")}),
		"search":    q(), "status": q(), "cache": subs(send("changes Actions caches"), map[string]*spec{"list": q()}), "ruleset": subs(fetch(), map[string]*spec{"list": q(), "view": q()}),
		"alias": subs(fetch(), map[string]*spec{"list": plain(), "set": whole("gh.alias", CapPersistence, "defines a gh alias (code gh runs later)"), "import": whole("gh.alias", CapPersistence, "defines gh aliases from a file (code gh runs later)")}),
		// gh config set editor|pager|browser names a program gh runs later.
		"config": subs(fetch(), map[string]*spec{"get": plain(), "list": plain(), "clear-cache": plain(), "set": {rows: []row{
			{"gh.config-code", CapPersistence, "op0~^(editor|pager|browser)$", "", "sets a program gh runs later (its editor, pager or browser)"},
			{"gh.read", CapFetch, "", "", "changes gh's settings"}}}}),
	})
	// --web opens a browser on any subcommand (gh pr view 1 --web).
	gh.global = []row{{"desktop.open", CapDesktop, "-w|--web", "", "opens a web browser"}}
	return gh
}

func dockerSpec() *spec {
	// What a container prints is data from an image (pulled from a
	// registry) or whatever the container fetched: network data.
	run := &spec{fn: hDockerMounts, out: streamNetwork, val: "-v -e -p -w -u --name --volume --env --publish --workdir --user --network --net --pid --ipc --cap-add --device --security-opt --mount --entrypoint --env-file -l --label --platform", posix: true, rows: []row{
		{"docker.run", CapDynamic, "", "", "runs a container: code inside it is not reviewed"},
		{"docker.privileged", CapPrivilege, "--privileged", "", "runs a privileged container, equivalent to root on this machine"},
		{"docker.host-ns", CapPrivilege, "--pid|--ipc|--network|--net|--userns|--uts=~^host$", "", "shares the host's namespaces with a container"},
		{"docker.cap-add", CapPrivilege, "--cap-add|--device|--security-opt", "", "grants a container extra kernel privileges"},
		{"docker.mount-root", CapPrivilege, "-v|--volume|--mount=~(^|source=|src=)/(:|,|$)|docker\\.sock|(^|source=|src=)/(etc|root|var/run)/?(:|,|$)", "", "mounts the host's root, /etc or the docker socket into a container"},
	}}
	fetch := func(msg string) *spec { return whole("docker.fetch", CapFetch, msg) }
	read := plain
	other := func() *spec { return whole("docker.other", CapSystem, "changes the container engine's state") }
	// A container's settings hold its environment, often its secrets.
	inspect := whole("docker.inspect", CapReveal, "prints containers' settings, their environment included (which often holds secrets)")
	top := other()
	// Global options come before the subcommand (docker --context x ps).
	top.val = "-H --host -c --context --config -l --log-level --tlscacert --tlscert --tlskey"
	return subs(top, map[string]*spec{
		"run": run, "create": run, "exec": {out: streamNetwork, rows: []row{{"docker.exec", CapDynamic, "", "", "runs a command in a container, which is not reviewed"}}},
		"pull": fetch("downloads a container image"), "build": dockerBuildSpec(),
		"push":  whole("docker.push", CapSend, "uploads a container image to a registry"),
		"login": whole("docker.login", CapSecrets, "logs in to a registry, storing credentials"),
		"ps":    read(), "images": read(), "logs": read(), "inspect": inspect, "version": read(), "info": read(), "stats": read(), "top": read(), "history": read(), "diff": read(), "port": read(), "search": fetch("searches a registry"),
		"compose": dockerComposeSpec(),
		// Local container state is B (LEVELS.md); volumes hold data (C).
		"rm": whole("docker.rm", CapProcess, "removes containers and what they hold"), "rmi": whole("docker.rm", CapProcess, "removes images"),
		"stop": whole("docker.stop", CapProcess, "stops containers"), "kill": whole("docker.stop", CapProcess, "kills containers"), "start": whole("docker.start", CapDynamic, "starts containers: code inside them is not reviewed"), "restart": whole("docker.start", CapDynamic, "restarts containers: code inside them is not reviewed"),
		"system":    subs(other(), map[string]*spec{"prune": whole("docker.prune", CapSystem, "deletes unused containers, images and volumes"), "df": read(), "info": read(), "events": read()}),
		"volume":    subs(other(), map[string]*spec{"ls": read(), "list": read(), "inspect": read(), "create": whole("docker.volume", CapSystem, "creates a volume"), "rm": whole("docker.volume-rm", CapSystem, "deletes volumes and their data"), "prune": whole("docker.prune", CapSystem, "deletes unused volumes and their data")}),
		"image":     subs(other(), map[string]*spec{"ls": read(), "list": read(), "inspect": read(), "history": read(), "build": dockerBuildSpec(), "rm": whole("docker.rm", CapProcess, "removes images"), "prune": whole("docker.prune", CapSystem, "deletes unused images"), "push": whole("docker.push", CapSend, "uploads a container image"), "pull": fetch("downloads a container image")}),
		"container": subs(other(), map[string]*spec{"ls": read(), "list": read(), "inspect": inspect, "logs": read(), "top": read(), "stats": read(), "port": read(), "diff": read(), "rm": whole("docker.rm", CapProcess, "removes containers and what they hold"), "prune": whole("docker.prune", CapSystem, "deletes stopped containers"), "run": run, "exec": {out: streamNetwork, rows: []row{{"docker.exec", CapDynamic, "", "", "runs a command in a container"}}}}),
	})
}

// uvRunValues are uv run's options that take a value (before the command
// it runs).
const uvRunValues = "--with --with-editable --with-requirements -p --python --package --extra --group --only-group --no-group --env-file --directory --project --config-file --index --default-index --index-url --extra-index-url -f --find-links -C --config-setting"

// hUvRun: uv run [OPTIONS] CMD ARGS runs CMD in the project's environment
// (a URL or a script too).
func hUvRun(b *builder, c *call) stream {
	hRemoteRun(b, c)
	return wrap(0)(b, c)
}

// npmExec: npm exec and npx download (if needed) and run a package, and
// -c/--call runs a command line in a shell.
func npmExec() *spec {
	return &spec{val: "-c --call --package -p", rows: []row{{"pkg.exec", CapFetch, "", "", "downloads and runs a package"}},
		fn: func(b *builder, c *call) stream {
			for _, f := range c.a.values("-c", "--call") {
				b.commandText(f, c, c.prog+" exec -c")
			}
			b.plantedOperand(c)
			return hPackageCommand(b, c)
		}}
}

func dockerComposeSpec() *spec {
	return subs(whole("docker.compose", CapDynamic, "runs containers with docker compose: code inside them is not reviewed"), map[string]*spec{
		"ps": plain(), "logs": plain(), "ls": plain(),
		"config": whole("docker.inspect", CapReveal, "prints the compose configuration with its variables filled in (.env secrets included)"),
		"pull":   whole("docker.fetch", CapFetch, "downloads container images"),
		"push":   whole("docker.push", CapSend, "uploads container images"),
		"down":   {rows: []row{{"docker.compose", CapSystem, "", "", "stops and removes containers"}, {"docker.volume-rm", CapSystem, "-v|--volumes", "", "deletes volumes and their data"}}},
	})
}

// kubectlGet: kubectl get is a read-only query, but its output formats
// that print objects whole print a Secret's data (its credentials).
func kubectlGet() *spec {
	s := query("reads from the Kubernetes cluster")
	s.val = "-o --output -l --selector -n --namespace --field-selector -L --label-columns --sort-by --template --kubeconfig --context --raw"
	// Resource names are case-insensitive and may carry their group and
	// version (Secret, secrets.v1.); --template prints with a go-template.
	const secrets = `op0~(?i)(^|,)secrets?(\.[^,/]*)?(/|,|$)`
	const whole = `-o|--output=~^(json|yaml|jsonpath|go-template|template|custom-columns)`
	s.rows = append(s.rows,
		row{"k8s.secret-print", CapSecrets, secrets + " " + whole, "", "prints Kubernetes secrets' data (credentials)"},
		row{"k8s.secret-print", CapSecrets, secrets + " --template", "", "prints Kubernetes secrets' data (credentials)"},
		// --raw PATH prints what the API server answers for PATH as it
		// is: a Secret's or every Secret's data under .../secrets.
		row{"k8s.secret-print", CapSecrets, `--raw=~(?i)/secrets(/|\?|$)`, "", "prints Kubernetes secrets' data (credentials) straight from the API server"},
		// Objects named by a manifest or a kustomization may be Secrets.
		row{"k8s.secret-print", CapReveal, "-f|--filename|-k|--kustomize " + whole, "", "prints whole the objects a manifest names, which may be Secrets"},
		row{"k8s.secret-print", CapReveal, "-f|--filename|-k|--kustomize --template", "", "prints the objects a manifest names, which may be Secrets"})
	return s
}

func kubectlSpec() *spec {
	read := func() *spec { return query("reads from the Kubernetes cluster") }
	write := func(msg string) *spec { return whole("k8s.write", CapSend, msg) }
	destroy := func(msg string) *spec { return whole("k8s.delete", CapPublish, msg) }
	top := write("changes the Kubernetes cluster")
	// Global options come before the subcommand (kubectl -n prod get pods).
	top.val = "-n --namespace --context --cluster --kubeconfig -s --server --user --token --as --as-group --request-timeout --certificate-authority --client-certificate --client-key -v"
	// A kubeconfig can name a credential command kubectl runs (users[].exec),
	// before or after the subcommand.
	top.global = []row{{"k8s.kubeconfig", CapDynamic, `--kubeconfig !--kubeconfig=~/\.kube/[^/]+$`, "", "points kubectl at another configuration (which can run credential commands)"},
		// Another API server gets the current context's credentials (a
		// bearer token is sent to whatever server is named); with a token
		// given on the line, only that token goes.
		{"net.credential-redirect", CapSecrets, "-s|--server !--token", "", "sends your cluster credentials to a server named on the line"}}
	return subs(top, map[string]*spec{
		"version": {fn: func(b *builder, c *call) stream {
			if c.a.has("--client") {
				return stream{kind: streamText}
			}
			return hQuery(b, c)
		}, rows: []row{{"net.query", CapQuery, "!--client", "", "queries the Kubernetes cluster's version (read-only, with the network for this command only)"}}},
		"get": kubectlGet(), "describe": read(), "logs": read(), "top": read(), "explain": read(), "api-resources": read(), "cluster-info": read(), "diff": read(), "events": read(), "auth": read(),
		"config": subs(unknownSub("kubectl config"), map[string]*spec{"view": {rows: []row{{"k8s.config-view", CapSecrets, "--raw|--flatten", "", "prints cluster credentials"}}}, "use-context": whole("k8s.context", CapSend, "switches the current cluster"),
			"get-contexts": plain(), "current-context": plain(), "get-clusters": plain(), "get-users": plain(),
			"set": whole("k8s.config-write", CapSecrets, "changes your kubeconfig, which holds cluster credentials"), "unset": whole("k8s.config-write", CapSecrets, "changes your kubeconfig, which holds cluster credentials"),
			"set-context": whole("k8s.config-write", CapSecrets, "changes your kubeconfig, which holds cluster credentials"), "set-cluster": whole("k8s.config-write", CapSecrets, "changes your kubeconfig, which holds cluster credentials"),
			"set-credentials": whole("k8s.config-write", CapSecrets, "changes your kubeconfig, which holds cluster credentials"), "delete-context": whole("k8s.config-write", CapSecrets, "changes your kubeconfig"),
			"delete-cluster": whole("k8s.config-write", CapSecrets, "changes your kubeconfig"), "delete-user": whole("k8s.config-write", CapSecrets, "changes your kubeconfig"), "rename-context": whole("k8s.config-write", CapSecrets, "changes your kubeconfig")}),
		"delete":       destroy("deletes resources from the Kubernetes cluster, which cannot be undone"),
		"drain":        destroy("drains a node, evicting every workload on it"),
		"exec":         {out: streamNetwork, rows: []row{{"k8s.exec", CapDynamic, "", "", "runs a command inside a pod, which is not reviewed"}}},
		"port-forward": write("forwards a port into the cluster"),
		"apply":        {rows: []row{{"k8s.write", CapSend, "", "", "changes the Kubernetes cluster"}, {"k8s.prune", CapPublish, "--prune", "", "deletes cluster resources missing from the manifests"}}},
	})
}

func awsSpec() *spec {
	return &spec{rows: []row{
		{"cloud.read", CapFetch, "", "", "talks to AWS"},
		{"cloud.write", CapSend, "any~^(cp|mv|sync|put-|create-|update-|run-instances|start-|stop-|invoke|publish|send-|attach-|modify-|tag-|deploy)", "", "changes AWS resources"},
		{"cloud.delete", CapPublish, "any~^(rm|rb|delete-|terminate-|remove-|purge-|deregister-|detach-|revoke-)", "", "deletes AWS resources, which cannot be undone"},
		{"cloud.delete", CapPublish, "--delete any~^sync$", "", "deletes files in S3 that are missing from the source"},
		{"cloud.secrets", CapSecrets, "any~^(get-secret-value|get-session-token|get-parameter|get-login-password|configure)$", "", "reads or stores AWS credentials or secrets"},
	}}
}
