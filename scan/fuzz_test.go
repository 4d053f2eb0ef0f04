package scan

import (
	"os"
	"path/filepath"
	"testing"
)

// fuzzNames are the file names a fuzz input is extracted as.
var fuzzNames = []string{"a.sh", ".github/workflows/w.yml", "action.yml", ".gitlab-ci.yml", "Makefile", "Dockerfile", "package.json", "justfile", "Jenkinsfile", "Procfile", "mise.toml", "pyproject.toml", "tox.ini", "tox.toml", "devbox.json", "Earthfile", "deno.json", "Makefile.toml", "netlify.toml", ".gitea/workflows/w.yml", "appveyor.yml", ".gitconfig", ".gitmodules", ".vscode/settings.json", "compose.yaml", "Rakefile", "Vagrantfile", ".npmrc"}

// FuzzExtract: no input makes extraction panic or hang, and every byte it
// says it copied from the file is that byte.
func FuzzExtract(f *testing.F) {
	_ = filepath.WalkDir(fixture, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if src, err := os.ReadFile(p); err == nil {
				for i := range fuzzNames {
					f.Add(uint8(i), src)
				}
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, kind uint8, src []byte) {
		name := fuzzNames[int(kind)%len(fuzzNames)]
		sn, _ := Extract(name, src)
		for _, s := range sn {
			for off := 0; off <= len(s.Text); off++ {
				p := s.Pos(off)
				if p.Line < 1 || p.Col < 1 {
					t.Fatalf("offset %d maps to %+v", off, p)
				}
			}
		}
		checkExact(t, map[string][]byte{name: src}, sn)
	})
}
