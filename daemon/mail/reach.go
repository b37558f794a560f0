package mail

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Reachable reports whether a link under origin (the box's BASE_URL, or
// the address the console was opened at) opens from the internet, where
// guests read their mail: not a .local, .lan, .home.arpa or single-label
// name, not localhost, and not a private, link-local, loopback or
// unspecified address. The box is offline by design, so its own links
// usually work only on its Wi-Fi.
func Reachable(origin string) bool {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return false
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.Unmap()
		return ip.IsGlobalUnicast() && !ip.IsPrivate() && !cgnat.Contains(ip) && !ip.Is4In6()
	}
	if !strings.Contains(host, ".") || net.ParseIP(host) != nil {
		return false
	}
	for _, suffix := range []string{".local", ".lan", ".home", ".home.arpa", ".internal", ".localhost", ".localdomain", ".invalid"} {
		if strings.HasSuffix("."+host, suffix) {
			return false
		}
	}
	return true
}

// cgnat is the shared address space of carrier-grade NAT (RFC 6598):
// not reachable from the internet either.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")
