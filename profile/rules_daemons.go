package profile

import "strings"

// daemonVerbTable: daemon clients (daemons.go) that had no rows. A run of
// one reaches the daemons' sockets, so its verbs are what the daemon does
// for it: the queries are listed, and any other verb is priced as the
// change it asks for (principle 8). Local clusters and CI runners drive
// the container engine (B, as docker run is; a host mount of home or a
// system path is C), the container runtime and libvirt change containers
// and machines (B), the sound server loads modules (B), the GPG agent
// holds the secret keys (C, as the SSH agent does), and a bus monitor
// sees what the keyring sends its clients (B).
func daemonVerbTable() map[string]*spec {
	cluster := func(tool string) *spec {
		return whole("container.cluster", CapDynamic, "creates, changes or deletes local clusters and their containers through the container engine ("+tool+")")
	}
	lists := func(tool string, verbs ...string) *spec {
		m := map[string]*spec{}
		for _, v := range verbs {
			m[v] = plain()
		}
		return subs(cluster(tool), m)
	}
	runtime := func(verbs ...string) *spec {
		m := map[string]*spec{}
		for _, v := range verbs {
			m[v] = plain()
		}
		return subs(whole("container.runtime", CapDynamic, "changes the container runtime's containers, tasks or images through containerd"), m)
	}
	return map[string]*spec{
		"kind": lists("kind", "get", "version", "--version", "help", "completion"),
		"k3d": subs(cluster("k3d"), map[string]*spec{
			"cluster": lists("k3d", "list", "ls", "get"), "node": lists("k3d", "list", "ls", "get"), "registry": lists("k3d", "list", "ls", "get"),
			"kubeconfig": lists("k3d", "get"), "version": plain(), "--version": plain(), "help": plain(), "completion": plain(),
		}),
		"minikube": subs(cluster("minikube"), map[string]*spec{
			"status": plain(), "version": plain(), "ip": plain(), "logs": plain(), "update-check": plain(), "docker-env": plain(), "podman-env": plain(),
			"ssh-key": plain(), "ssh-host": plain(), "help": plain(), "completion": plain(), "--version": plain(),
			"profile": lists("minikube", "list"), "addons": lists("minikube", "list"), "service": lists("minikube", "list"),
			"ssh":   whole("container.exec", CapDynamic, "runs a command inside the cluster's machine, which is not reviewed"),
			"mount": {fn: hHostMount, rows: []row{{"container.cluster", CapDynamic, "", "", "shares a host directory with the cluster's machine, writable from its containers"}}},
			"kubectl": {posix: true, fn: func(b *builder, c *call) stream {
				return b.exec(append([]field{staticField("kubectl", c.sp)}, c.a.rest...), c.st, c.in, "minikube kubectl", c.sp)
			}},
		}),
		"act":      {rows: []row{{"container.ci", CapDynamic, "!-l !--list !--graph !-g", "", "runs CI workflow steps in containers through the container engine (the steps are not reviewed)"}}},
		"tilt":     lists("tilt", "version", "get", "describe", "logs", "doctor", "dump", "explain", "api-resources", "help", "--version", "completion"),
		"skaffold": lists("skaffold", "version", "diagnose", "schema", "inspect", "help", "--version", "completion"),
		"ctr": subs(whole("container.runtime", CapDynamic, "changes the container runtime's containers, tasks or images through containerd"), map[string]*spec{
			"version": plain(), "info": plain(), "events": plain(), "help": plain(), "--version": plain(),
			"images": runtime("ls", "list", "check"), "image": runtime("ls", "list", "check"), "i": runtime("ls", "list", "check"),
			"containers": runtime("ls", "list", "info"), "container": runtime("ls", "list", "info"), "c": runtime("ls", "list", "info"),
			"tasks": runtime("ls", "list", "ps", "metrics"), "task": runtime("ls", "list", "ps", "metrics"), "t": runtime("ls", "list", "ps", "metrics"),
			"namespaces": runtime("ls", "list"), "namespace": runtime("ls", "list"), "ns": runtime("ls", "list"),
			"snapshots": runtime("ls", "list", "info", "usage", "tree"), "snapshot": runtime("ls", "list", "info", "usage", "tree"),
			"content": runtime("ls", "list"), "plugins": runtime("ls", "list"), "plugin": runtime("ls", "list"), "leases": runtime("ls", "list"),
		}),
		"crictl": {rows: []row{{"container.runtime", CapDynamic, "ops !op0~^(ps|images|img|imagefsinfo|pods|inspect|inspecti|inspectp|logs|stats|statsp|info|version|completion|help|--version)$", "", "changes the container runtime's pods, containers or images"}}},
		"virsh": {rows: []row{
			{"vm.change", CapDynamic, "ops !op0~^(list|dominfo|domstate|domstats|dumpxml|domblklist|domiflist|net-list|net-info|net-dumpxml|pool-list|pool-info|vol-list|vol-info|capabilities|nodeinfo|version|uri|hostname|help|--version|-v|-V)$", "", "changes virtual machines, networks or storage through libvirt"},
			{"exec.interactive", CapDynamic, "noops", "", "starts virsh's interactive shell"},
		}},
		"podman-compose": later(dockerComposeSpec),
		// Vagrant runs the Vagrantfile (ruby) and its provisioners; a dev
		// container CLI builds and starts the container the project
		// describes and runs its lifecycle commands.
		"vagrant": subs(whole("vm.change", CapDynamic, "creates, changes or destroys virtual machines (the Vagrantfile and its provisioners run)"), map[string]*spec{
			"status": plain(), "global-status": plain(), "ssh-config": plain(), "version": plain(), "validate": plain(), "port": plain(), "help": plain(), "--version": plain(),
			"box":    subs(whole("vm.change", CapDynamic, "downloads, updates or removes Vagrant boxes"), map[string]*spec{"list": plain(), "outdated": plain()}),
			"plugin": subs(whole("pkg.install-user", CapFetch, "installs or changes Vagrant plugins (code vagrant runs)"), map[string]*spec{"list": plain()}),
			"ssh":    whole("container.exec", CapDynamic, "runs a command or a shell inside the virtual machine, which is not reviewed"),
		}),
		"devcontainer": subs(whole("container.cluster", CapDynamic, "builds and starts the project's dev container and runs its lifecycle commands (devcontainer)"), map[string]*spec{
			"read-configuration": plain(), "--version": plain(), "help": plain(),
			"exec": whole("container.exec", CapDynamic, "runs a command inside the dev container, which is not reviewed"),
		}),
		"pactl": {rows: []row{{"desktop.sound", CapDynamic, "ops !op0~^(list|info|stat|get-.*|subscribe|help|--version)$", "", "changes the sound server (loads modules, moves streams, sets devices)"}}},
		"wpctl": {rows: []row{{"desktop.sound", CapDynamic, "ops !op0~^(status|inspect|get-volume|--help|--version)$", "", "changes the sound server's devices and volumes"}}},
		"gpg-connect-agent": {rows: []row{{"secrets.gpg-agent", CapSecrets, "!--version !--help", "",
			"talks to the GPG agent, which holds your secret keys (its commands sign, decrypt and export with them)"}}},
		"dbus-monitor": whole("desktop.bus-monitor", CapReveal, "watches the messages of a bus, which carries what the keyring hands its clients (passwords)"),
		// The environment every later user service and bus-activated
		// program starts with (as systemctl --user set-environment).
		"dbus-update-activation-environment": {rows: []row{{"sys.user-service", CapPersistence, "!--help !--version", "",
			"changes the environment every later user service and bus-activated program starts with"}}},
	}
}

// toolManagerTable: version managers and installers that had no rows.
// Their queries are listed; any other verb downloads or installs tools
// for your user, outside the workspace (B), and a version that is a path
// (asdf's path:DIR) makes every shim run what is there (C).
func toolManagerTable() map[string]*spec {
	install := func(msg string) *spec { return whole("pkg.install-user", CapFetch, msg) }
	m := func(def *spec, queries ...string) *spec {
		s := map[string]*spec{}
		for _, q := range queries {
			s[q] = plain()
		}
		return subs(def, s)
	}
	pathVersion := row{"pkg.config-code", CapPersistence, "any~^path:", "", "sets a tool version that is a path: every shim of that tool then runs the programs found there"}
	asdfSet := &spec{rows: []row{{"pkg.install-user", CapFetch, "", "", "changes your tool versions (and may download them)"}, pathVersion}}
	return map[string]*spec{
		"asdf": subs(install("downloads, installs or removes tools or asdf plugins for your user (plugins are code asdf runs)"), map[string]*spec{
			"list": plain(), "current": plain(), "where": plain(), "which": plain(), "info": plain(), "version": plain(), "--version": plain(), "help": plain(),
			"plugin": m(install("adds, updates or removes asdf plugins (code asdf runs for every install and shim)"), "list"),
			"exec":   {posix: true, fn: wrap(0)}, "env": {posix: true, fn: wrap(1)},
			"global": asdfSet, "set": asdfSet, "local": asdfSet, "shell": asdfSet,
		}),
		"volta": subs(install("downloads and installs node tools for your user"), map[string]*spec{
			"list": plain(), "ls": plain(), "which": plain(), "--version": plain(), "-v": plain(), "help": plain(), "completions": plain(),
			"run": {posix: true, fn: wrap(0)},
		}),
		"corepack": subs(install("installs package-manager shims next to node or downloads package managers, outside the workspace"), map[string]*spec{
			"--version": plain(), "-v": plain(), "help": plain(),
			"yarn": {posix: true, fn: wrapNamed("yarn")}, "pnpm": {posix: true, fn: wrapNamed("pnpm")}, "npm": {posix: true, fn: wrapNamed("npm")},
		}),
	}
}

// wrapNamed runs the program name with the subcommand's arguments
// (corepack yarn install is yarn install).
func wrapNamed(name string) handler {
	return func(b *builder, c *call) stream {
		return b.exec(append([]field{staticField(name, c.sp)}, c.fs...), c.st, c.in, c.prog+" "+name, c.sp)
	}
}

// hHostMount: minikube mount SRC:DST shares SRC with the cluster's
// machine, writable from inside it. SRC in the workspace or a temp
// directory is B (the row); home, a system path or one guard cannot
// resolve is C, as a container's host mount of them is.
func hHostMount(b *builder, c *call) stream {
	if len(c.a.ops) == 0 {
		return stream{}
	}
	op := c.a.ops[0]
	src, _, _ := strings.Cut(op.val, ":")
	cl := ClassUnknown
	if op.known {
		if p, ok := b.ctx.Resolve(c.st.cwd, src); ok {
			cl = b.ctx.Classify(p)
		}
	}
	if cl != ClassWorkspace && cl != ClassTemp {
		b.add(Effect{Cap: CapPrivilege, Rule: "docker.mount-root", Program: c.prog, Target: src, Class: cl,
			Msg: "shares " + describeTarget(src, cl) + " with the cluster's machine, writable from its containers"}, c.sp)
	}
	return stream{}
}

// dockerBuildSpec: docker build (and docker image build). -o/--output
// DIR, or type=local,dest=DIR / type=tar,dest=FILE, writes the files of
// the build's last stage on the host: names the Dockerfile chooses, so
// into home they may be .bashrc.
func dockerBuildSpec() *spec {
	return &spec{val: "-t -f --tag --file --build-arg --target --platform -o --output", rows: []row{{"docker.build", CapFetch, "", "", "builds an image (downloading base images and running build steps)"}},
		fn: func(b *builder, c *call) stream {
			for _, o := range c.a.values("-o", "--output") {
				dest, file := o, false
				if o.known && strings.Contains(o.val, "=") {
					dest.val = ""
					for _, kv := range strings.Split(o.val, ",") {
						if v, ok := strings.CutPrefix(kv, "dest="); ok {
							dest.val = v
						}
						file = file || kv == "type=tar" || kv == "type=oci" || kv == "type=docker"
					}
				}
				if !o.known || dest.val == "" || dest.val == "-" {
					continue // an image or a stream, not files on the host
				}
				if file {
					b.pathEffect(CapWrite, "fs.output", c.prog, dest, c.st, c.sp, "writes the build's files as an archive to")
					continue
				}
				b.pathEffect(CapWrite, "fs.extract", c.prog, dest, c.st, c.sp, "writes the build's files into")
				b.writeAnyName(c, dest, "fs.extract", "writes the build's files, under names the Dockerfile chooses, into")
			}
			return stream{}
		}}
}
