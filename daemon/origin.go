package daemon

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"time"
)

// origin is the absolute origin for links the box hands out (invitation
// urls, QR codes, mails): BASE_URL when set, else the scheme and Host of
// the request itself, so that a link made on eventbox.local works on
// eventbox.local. It has no trailing slash.
func (s *Server) origin(r *http.Request) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// defaultOrigin is the origin of links made without a request (a booth
// photo printed by itself): BASE_URL, else the box's first own name.
func (s *Server) defaultOrigin() string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	if len(s.cfg.OwnHosts) > 0 {
		return "http://" + strings.TrimSuffix(s.cfg.OwnHosts[0], ".")
	}
	return "http://eventbox.local"
}

// addrRecheck is how long a lookup of the box's interface addresses is
// trusted for a Host that it did not contain: a Host naming an unknown
// address looks the interfaces up again at most this often, so a new
// hotspot or Wi-Fi address is seen within seconds while a flood of foreign
// addresses costs one lookup per interval.
const addrRecheck = 5 * time.Second

// ownNames decides whether a request's Host names the box itself
// (docs/design.md, "The box's own names"): BASE_URL's host, the names of
// Config.OwnHosts, localhost, a loopback address, the address the
// connection arrived on, or an address of one of the box's interfaces. It
// is safe for concurrent use.
type ownNames struct {
	names map[string]bool // lower-case host names, no port, no final dot
	addrs func() ([]net.Addr, error)
	now   func() time.Time

	mu       sync.Mutex
	known    map[netip.Addr]bool
	lookedUp time.Time // zero: never
}

func newOwnNames(cfg Config) *ownNames {
	o := &ownNames{names: map[string]bool{"localhost": true}, addrs: cfg.InterfaceAddrs, now: cfg.Now}
	if o.addrs == nil {
		o.addrs = net.InterfaceAddrs
	}
	if o.now == nil {
		o.now = time.Now
	}
	if cfg.BaseURL != "" {
		if u, err := url.Parse(cfg.BaseURL); err == nil {
			o.names[normalHost(u.Hostname())] = true
		}
	}
	for _, n := range cfg.OwnHosts {
		o.names[normalHost(n)] = true
	}
	return o
}

// normalHost lower-cases a host name and drops a final dot.
func normalHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// splitHost returns the host of a Host header without its port and
// brackets.
func splitHost(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// own reports whether r's Host names the box.
func (o *ownNames) own(r *http.Request) bool {
	host := normalHost(splitHost(r.Host))
	if host == "" {
		return false
	}
	if o.names[host] {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		// A name the box does not carry: another site's DNS name pointed
		// at the box (DNS rebinding), or the hotspot's catch-all DNS.
		return false
	}
	ip = ip.WithZone("").Unmap()
	if ip.IsLoopback() {
		return true
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if ap, err := netip.ParseAddrPort(local.String()); err == nil && ap.Addr().WithZone("").Unmap() == ip {
			return true
		}
	}
	return o.isInterfaceAddr(ip)
}

// isInterfaceAddr reports whether ip is an address of one of the box's
// interfaces, looking them up again when ip is unknown and the last lookup
// is older than addrRecheck.
func (o *ownNames) isInterfaceAddr(ip netip.Addr) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.known[ip] {
		return true
	}
	now := o.now()
	if !o.lookedUp.IsZero() && now.Sub(o.lookedUp) < addrRecheck {
		return false
	}
	o.lookedUp = now
	addrs, err := o.addrs()
	if err != nil {
		// Keep what is known; the next unknown Host tries again after
		// addrRecheck.
		return false
	}
	o.known = make(map[netip.Addr]bool, len(addrs))
	for _, a := range addrs {
		var s string
		switch v := a.(type) {
		case *net.IPNet:
			s = v.IP.String()
		case *net.IPAddr:
			s = v.IP.String()
		default:
			s = a.String()
		}
		if p, err := netip.ParseAddr(s); err == nil {
			o.known[p.WithZone("").Unmap()] = true
		}
	}
	return o.known[ip]
}

// boxName is the box's name in an S3 export's keys: its first own name's
// first label (MDNS_NAME: "eventbox-07.local" is "eventbox-07"), else
// "eventbox".
func boxName(ownHosts []string) string {
	for _, h := range ownHosts {
		if label, _, _ := strings.Cut(strings.TrimSuffix(h, "."), "."); label != "" {
			return label
		}
	}
	return "eventbox"
}
