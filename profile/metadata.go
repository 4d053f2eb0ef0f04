package profile

import (
	"net/netip"
	"strconv"
	"strings"
)

// cloudMetadata: a cloud machine's instance metadata service hands out the
// machine's credentials to whoever asks (AWS, Azure, GCP, Oracle,
// Alibaba, ECS task roles). A network tool pointed at it reads secrets,
// however the address is written (http://2852039166/ is 169.254.169.254).
func (b *builder) cloudMetadata(c *call) {
	for _, f := range append(append([]field(nil), c.args...), c.fs...) {
		if f.known && MetadataHost(f.val) {
			b.add(Effect{Cap: CapSecrets, Rule: "secrets.cloud-metadata", Program: c.prog, Target: f.val, Msg: "reads the cloud instance metadata service, which hands out this machine's credentials"}, c.sp)
			return
		}
	}
}

// metadataNames are the metadata services' host names; the short ones
// count only in a URL (http://metadata/…), where they cannot be a file or
// a resource name.
var metadataNames = map[string]bool{"metadata.google.internal": true, "metadata.goog": true, "instance-data.ec2.internal": true}
var metadataShortNames = map[string]bool{"metadata": true, "instance-data": true}

// MetadataHost reports whether v (a URL, host[:port][/path], or a bare
// address) names a metadata service: the names above, link-local IPv4
// (169.254.0.0/16, where every cloud puts it), 100.100.100.200 (Alibaba)
// and fd00:ec2::254, in any form inet_aton or a URL accepts.
func MetadataHost(v string) bool {
	h := strings.ToLower(v)
	url := false
	if i := strings.Index(h, "://"); i >= 0 {
		h, url = h[i+3:], true
	}
	if i := strings.IndexAny(h, "/?#"); i >= 0 {
		h = h[:i]
	}
	if i := strings.LastIndexByte(h, '@'); i >= 0 {
		h = h[i+1:]
	}
	if strings.HasPrefix(h, "[") {
		end := strings.IndexByte(h, ']')
		if end < 0 {
			return false
		}
		h = h[1:end]
	} else if strings.Count(h, ":") == 1 {
		h = h[:strings.IndexByte(h, ':')]
	}
	h = strings.TrimSuffix(h, ".")
	if metadataNames[h] || url && metadataShortNames[h] {
		return true
	}
	if a, err := netip.ParseAddr(h); err == nil {
		a = a.Unmap()
		if a.Is6() {
			return a == netip.MustParseAddr("fd00:ec2::254")
		}
		return metadataV4(a.As4())
	}
	if ip, ok := inetAton(h); ok {
		return metadataV4(ip)
	}
	return false
}

func metadataV4(ip [4]byte) bool {
	return ip[0] == 169 && ip[1] == 254 || ip == [4]byte{100, 100, 100, 200}
}

// inetAton parses an IPv4 address as inet_aton (and so curl and most
// clients) does: one to four parts, each decimal, octal (0…) or hex (0x…),
// the last filling the remaining bytes (2852039166, 0xa9fea9fe,
// 0251.0376.0251.0376, 169.254.43518).
func inetAton(s string) ([4]byte, bool) {
	var out [4]byte
	parts := strings.Split(s, ".")
	if len(parts) == 0 || len(parts) > 4 {
		return out, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x"):
			base, digits = 16, p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		n, err := strconv.ParseUint(digits, base, 32)
		if err != nil || digits == "" {
			return out, false
		}
		vals[i] = n
	}
	last := len(vals) - 1
	for i := 0; i < last; i++ {
		if vals[i] > 255 {
			return out, false
		}
		out[i] = byte(vals[i])
	}
	rest := vals[last]
	if rest >= 1<<(8*uint(4-last)) {
		return out, false
	}
	for i := 3; i >= last; i-- {
		out[i] = byte(rest)
		rest >>= 8
	}
	return out, true
}
