package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/guard-sh/guard/internal/paths"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Access rights, as Landlock filesystem access bits.
const (
	accRead = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// accWrite leaves out creating device nodes: a writable tree never
	// needs one, and as root it would reopen every disk.
	accWrite = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock |
		ll.AccessFSMakeFifo | ll.AccessFSMakeSym | ll.AccessFSTruncate
	accReadWrite = accRead | accWrite | ll.AccessFSRefer
	accRemove    = ll.AccessFSRemoveDir | ll.AccessFSRemoveFile
	// accFile is what a rule on a non-directory may hold.
	accFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev
	accDevRW  = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate
	accDevRO  = ll.AccessFSReadFile
	accTTY    = accDevRW | ll.AccessFSIoctlDev
	accListed = ll.AccessFSReadDir
)

// maxHiddenShown is how many hidden paths a hint names.
const maxHiddenShown = 6

// maxRules bounds the enumeration of siblings used to hide paths.
const maxRules = 20000

// toolCache is the directory under Home that build tools write to on
// every run (~/.cache/go-build, pip's, ccache's); Write grants it when
// it exists.
const toolCache = ".cache"

// downloadCaches hold code that tools outside the sandbox build or run
// later, unchecked: module and crate sources (go build compiles what is
// in ~/go/pkg/mod; go.sum is checked when a module is downloaded, not
// when it is built), npx's installed packages. Only a download writes
// them, so Write grants them with Net only: a command without the
// network cannot plant code there for your next build outside guard.
var downloadCaches = []string{
	"go/pkg/mod",
	".npm",
	".cargo/registry",
	".cargo/git",
}

// codeCaches are the directories under ~/.cache (which builds write)
// that hold code tools outside the sandbox run later, unchecked:
// pre-commit's hook environments (run by your next git commit),
// corepack's package managers, browsers that test runners start,
// poetry's virtual environments, deno's remote modules, node-gyp's
// headers, pip's built wheels. Only installs and downloads write them,
// so a run without the network gets them read-only: a read-only bind
// mount in the sandbox helper's own mount namespace (Landlock cannot
// take a subtree out of a grant without splitting the directory above,
// which would then take no new entries).
var codeCaches = []string{
	".cache/pre-commit", ".cache/node/corepack", ".cache/ms-playwright", ".cache/puppeteer",
	".cache/Cypress", ".cache/pypoetry/virtualenvs", ".cache/deno", ".cache/node-gyp", ".cache/pip",
}

// codeCacheDirs are the code caches under home that exist, resolved.
func codeCacheDirs(r *resolver, home string) []string {
	var out []string
	for _, c := range codeCaches {
		p := r.canonical(filepath.Join(home, c))
		if r.isDir(p) && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

// fixedDevices are granted to every run: without /dev/null nearly
// every script breaks.
var fixedDevices = []rule{
	{Path: "/dev/null", Access: accDevRW},
	{Path: "/dev/zero", Access: accDevRW},
	{Path: "/dev/full", Access: accDevRW},
	{Path: "/dev/urandom", Access: accDevRO},
	{Path: "/dev/random", Access: accDevRO},
	{Path: "/dev/tty", Access: accTTY},
}

// resolverSockets are the pathname unix sockets a DNS lookup may use;
// with Net they are granted where the kernel confines such sockets.
var resolverSockets = []string{
	"/run/systemd/resolve",
	"/run/nscd",
}

// rule grants Access to the file hierarchy at Path.
type rule struct {
	Path   string `json:"path"`
	Access uint64 `json:"access"`
	dir    bool   // Path is a directory (known when the rule is made)
}

// grantSet is the computed confinement: Landlock rules plus what the
// user should be told about it.
type grantSet struct {
	rules  []rule
	grants Grants
}

// Grants says in human terms what a run may do, for hints after a
// failure ("what was allowed, and what would widen it").
type Grants struct {
	// Read says what is readable.
	Read string `json:"read"`
	// Write lists the writable trees and files.
	Write []string `json:"write"`
	// Hidden lists the paths whose contents are unreadable.
	Hidden []string `json:"hidden"`
	// Revealed lists the paths inside hidden ones that are readable.
	Revealed []string `json:"revealed,omitempty"`
	// Devices lists the device files granted.
	Devices []string `json:"devices"`
	// Net says what network use is allowed.
	Net string `json:"net"`
}

// Lines renders the grants as short lines for a hint.
func (g Grants) Lines() []string {
	write := "nothing"
	if len(g.Write) > 0 {
		write = strings.Join(g.Write, ", ")
	}
	lines := []string{
		"read: " + g.Read,
		"write: " + write,
		"network: " + g.Net,
	}
	if len(g.Hidden) > 0 {
		// The secret table is long: name the first few.
		shown := g.Hidden[:min(len(g.Hidden), maxHiddenShown)]
		line := "hidden: " + strings.Join(shown, ", ")
		if n := len(g.Hidden) - len(shown); n > 0 {
			line += fmt.Sprintf(" and %d more", n)
		}
		lines = append(lines, line)
	}
	if len(g.Revealed) > 0 {
		lines = append(lines, "readable although hidden: "+strings.Join(g.Revealed, ", "))
	}
	return lines
}

// buildGrants turns a validated spec into Landlock rules. ttys are the
// terminal devices of the child's standard streams; tmp is the private
// temp dir ("" without Write).
func buildGrants(s Spec, ttys []string, tmp string) (grantSet, error) {
	var g grantSet
	r := s.res
	hidden := hiddenPaths(r, s.Hide)
	g.grants.Hidden = slices.Clone(hidden)

	// Everything is readable but the hidden paths and /dev, whose
	// devices are granted one by one below.
	readExcluded := append(slices.Clone(hidden), "/dev")
	if err := expand(&g.rules, "/", true, accRead, readExcluded); err != nil {
		return g, err
	}
	g.grants.Read = "everything except the hidden paths and /dev"
	for _, p := range s.Reveal {
		c := r.canonical(p)
		if !r.exists(c) {
			continue
		}
		for _, h := range hidden {
			if paths.Within(c, h) && !paths.Within(p, h) {
				return g, fmt.Errorf("cannot reveal %s: it resolves to %s, inside hidden %s", p, c, h)
			}
		}
		// A hidden path inside the revealed one stays hidden unless
		// revealed itself.
		var inner []string
		for _, h := range hidden {
			if h != c && paths.Within(h, c) {
				inner = append(inner, h)
			}
		}
		if err := expand(&g.rules, c, r.isDir(c), accRead, inner); err != nil {
			return g, err
		}
		g.grants.Revealed = append(g.grants.Revealed, p)
	}

	for _, d := range fixedDevices {
		if r.exists(d.Path) {
			g.rules = append(g.rules, d)
			g.grants.Devices = append(g.grants.Devices, d.Path)
		}
	}
	for _, t := range ttys {
		g.rules = append(g.rules, rule{Path: t, Access: accTTY})
		g.grants.Devices = append(g.grants.Devices, t)
	}
	g.rules = append(g.rules, rule{Path: "/dev", Access: accListed, dir: true})

	var writable []string
	if s.Write {
		writable = append(writable, s.Workspace)
		if tmp != "" {
			writable = append(writable, tmp)
		}
		writable = append(writable, tmpDir, "/dev/shm")
		writable = append(writable, filepath.Join(s.Home, toolCache))
		if s.Net {
			for _, c := range downloadCaches {
				writable = append(writable, filepath.Join(s.Home, c))
			}
		}
	}
	for _, p := range s.ExtraWrite {
		if !r.exists(p) {
			// Creating p needs rights on its parent.
			parent := filepath.Dir(p)
			if !r.isDir(parent) {
				return g, fmt.Errorf("cannot grant write access to %s: %s is not a directory", p, parent)
			}
			p = parent
		}
		writable = append(writable, p)
	}
	for _, p := range writable {
		c := r.canonical(p)
		if !r.exists(c) {
			continue // a cache that does not exist yet
		}
		if slices.Contains(g.grants.Write, c) {
			continue
		}
		g.grants.Write = append(g.grants.Write, c)
		n := len(g.rules)
		excl := hidden
		if c == r.canonical(filepath.Join(s.Home, toolCache)) {
			// A secret that is not there yet (~/.cache/huggingface/token)
			// does not split the cache: a split directory gets no new
			// writable entries, and a build's first run must be able to
			// make its cache (~/.cache/go-build).
			excl = nil
			for _, h := range hidden {
				if r.exists(h) {
					excl = append(excl, h)
				}
			}
		}
		if err := expand(&g.rules, c, r.isDir(c), accReadWrite, excl); err != nil {
			return g, err
		}
		if len(g.rules) > n && g.rules[n].Path == c && g.rules[n].Access == accListed {
			// The grant holds a hidden path, so its top was split into
			// its entries (~/old-data for an approved rm -rf ~/old-data):
			// it still needs the right to remove them. Rights reach the
			// whole tree below, so entries of the hidden paths become
			// removable too, never readable, writable or creatable.
			g.rules[n].Access |= accRemove
		}
	}

	if s.Net {
		g.grants.Net = "TCP connect and UDP (DNS); no TCP listening"
		for _, p := range resolverSockets {
			if r.exists(p) {
				g.rules = append(g.rules, rule{Path: p, Access: ll.AccessFSResolveUnix, dir: r.isDir(p)})
			}
		}
	} else {
		g.grants.Net = "none"
	}
	if len(g.rules) > maxRules {
		return g, fmt.Errorf("hiding needs %d rules, more than %d: hide fewer or narrower paths", len(g.rules), maxRules)
	}
	// Rules on non-directories may only hold file rights.
	for i := range g.rules {
		if !g.rules[i].dir {
			g.rules[i].Access &= accFile
		}
	}
	return g, nil
}

// hiddenPaths resolves the hidden paths to the real tree: a hidden
// symbolic link hides its target too.
func hiddenPaths(r *resolver, hide []string) []string {
	if len(hide) == 0 {
		return nil
	}
	// Sorted, then compacted, rather than a search of the list for
	// each of ~80 paths (two forms each).
	out := make([]string, 0, 2*len(hide))
	for _, h := range hide {
		out = append(out, r.canonical(h), filepath.Clean(h))
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// expand grants access on the tree at dir, except beneath the excluded
// paths. A Landlock rule cannot be subtracted, so a directory that
// contains an excluded path is not granted as a whole: it gets only the
// right to list it, and each of its entries is granted (or expanded) in
// turn. Symbolic links are never granted: the kernel checks their
// targets, which are granted or not on their own.
//
// Only the excluded paths inside dir go down to its entries, and an
// entry is expanded only when one of them lies in it: the others are
// granted whole at once. So the work is the entries listed plus the
// excluded paths, not their product (/ and the home directory hold
// dozens of entries, the secret table dozens of paths).
func expand(out *[]rule, dir string, isDir bool, access uint64, excluded []string) error {
	// Clean once here: the comparisons below, one per excluded path
	// per directory, then need none (paths.Within checks its directory
	// every time; that was a third of the plan's time).
	dir = filepath.Clean(dir)
	clean := make([]string, len(excluded))
	for i, x := range excluded {
		clean[i] = filepath.Clean(x)
	}
	return expandClean(out, dir, isDir, access, clean)
}

// expandClean is expand of a clean dir and clean excluded paths.
func expandClean(out *[]rule, dir string, isDir bool, access uint64, excluded []string) error {
	var inner []string
	for _, x := range excluded {
		if withinClean(dir, x) {
			return nil // dir is excluded
		}
		if withinClean(x, dir) {
			inner = append(inner, x)
		}
	}
	if len(inner) == 0 {
		*out = append(*out, rule{Path: dir, Access: access, dir: isDir})
		return nil
	}
	*out = append(*out, rule{Path: dir, Access: access & accListed, dir: true})
	if len(*out) > maxRules {
		return fmt.Errorf("hiding needs more than %d rules: hide fewer or narrower paths", maxRules)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		// Unreadable: grant nothing beneath it (fail closed).
		return nil
	}
	// The entries that are, or hold, an excluded path.
	prefix := strings.TrimSuffix(dir, "/") + "/"
	holds := make(map[string]bool, len(inner))
	for _, x := range inner {
		name, _, _ := strings.Cut(x[len(prefix):], "/")
		holds[name] = true
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if !holds[e.Name()] {
			*out = append(*out, rule{Path: p, Access: access, dir: e.IsDir()})
			continue
		}
		if err := expandClean(out, p, e.IsDir(), access, inner); err != nil {
			return err
		}
	}
	return nil
}

// withinClean is paths.Within of clean absolute paths.
func withinClean(p, dir string) bool {
	if dir == "/" {
		return strings.HasPrefix(p, "/")
	}
	return strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}
