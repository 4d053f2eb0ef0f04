// Package paths compares absolute, slash-separated paths without
// allocating: the review, the engine and the sandbox compare every target
// with every table entry, and building dir+"/" for each comparison was
// most of their cost.
package paths

import (
	"path"
	"strings"
)

// Within reports whether p is dir or below it. dir is cleaned first when
// it is not clean; "/" holds every path.
func Within(p, dir string) bool {
	if !IsClean(dir) {
		dir = path.Clean(dir)
	}
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

// IsClean reports whether path.Clean would leave the absolute path p
// unchanged.
func IsClean(p string) bool {
	if p == "/" {
		return true
	}
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if rest == "" || rest[0] == '/' || rest == "." || rest == ".." ||
			strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			return false
		}
	}
	return true
}
