package profile

import (
	"path"
	"strings"
)

// Hidden write targets (issue 14, class 5): writes through a symlink the
// line made, in-place editors, output operands, and persistence that is
// not a dotfile (Python .pth files, tool configs that choose what runs
// later).

// follow resolves p through the symlinks made earlier on the line.
func (s *state) follow(p string) string {
	if s == nil || len(s.links) == 0 {
		return p
	}
	for hop := 0; hop < 8; hop++ {
		// The longest link that contains p wins (deterministic, unlike
		// map order).
		best := ""
		for l := range s.links {
			if within(p, l) && len(l) > len(best) {
				best = l
			}
		}
		if best == "" {
			break
		}
		p = path.Join(s.links[best], strings.TrimPrefix(p, best))
	}
	return p
}

// hLn records the links ln makes, so later writes and reads through them
// reach their targets.
func hLn(b *builder, c *call) stream {
	ops := c.a.ops
	if len(ops) == 0 || c.st.links == nil {
		return stream{}
	}
	var dir field
	targets := ops
	var link field
	switch {
	case c.a.has("-t", "--target-directory"):
		dir = c.a.values("-t", "--target-directory")[0]
	case len(ops) == 1:
		dir = staticField(".", c.sp)
	default:
		link, targets = ops[len(ops)-1], ops[:len(ops)-1]
	}
	for _, t := range targets {
		if !t.known {
			continue
		}
		lp := ""
		switch {
		case link.known && len(targets) == 1:
			if p, ok := b.ctx.Resolve(c.st.cwd, link.val); ok {
				lp = p
			}
		case link.known:
			if p, ok := b.ctx.Resolve(c.st.cwd, path.Join(link.val, path.Base(t.val))); ok {
				lp = p
			}
		case dir.known:
			if p, ok := b.ctx.Resolve(c.st.cwd, path.Join(dir.val, path.Base(t.val))); ok {
				lp = p
			}
		}
		if lp == "" {
			continue
		}
		base := c.st.cwd
		if c.a.has("-s", "--symbolic") && !strings.HasPrefix(t.val, "/") {
			base = path.Dir(lp) // a relative symlink is relative to its directory
		}
		tp, ok := b.ctx.Resolve(base, t.val)
		if !ok {
			continue
		}
		c.st.links[lp] = c.st.follow(tp)
		if link.known && len(targets) == 1 {
			// The link may be an existing directory: the link is then
			// made inside it.
			if p, ok := b.ctx.Resolve(c.st.cwd, path.Join(link.val, path.Base(t.val))); ok {
				c.st.links[p] = c.st.follow(tp)
			}
		}
	}
	return stream{}
}
