package network

import (
	"cmp"
	"hash/maphash"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"eventbox/daemon/web"
)

// An access point in router mode puts the phones behind it on one address
// of its own (NAT): the box then sees one guest where there are many, and
// its per-address limits (joins a minute, uploads at once) hold them all
// back together. NATWatch notices it: it counts, per client address, the
// distinct browsers (user agents) that asked the box's pages in the last
// NATWindow, and reports the addresses with NATDevices or more.
const (
	// NATWindow is how far back NATWatch looks.
	NATWindow = 10 * time.Minute
	// NATDevices is how many distinct browsers behind one address make it
	// look shared. One phone shows one or two (its browser, its
	// captive-portal sheet, whose requests are not counted anyway).
	NATDevices = 4
	// natMaxAddrs and natMaxAgents bound the memory: the addresses
	// watched, and the browsers kept per address.
	natMaxAddrs  = 4096
	natMaxAgents = 64
)

// SharedAddress is an address several devices seem to come from.
type SharedAddress struct {
	Address string `json:"address"`
	// Devices is how many distinct browsers came from it in the window.
	Devices int `json:"devices"`
	// Last is when the last of them was seen, epoch ms.
	Last int64 `json:"last"`
}

// NATWatch counts the distinct browsers per client address. It keeps
// nothing of them but a short hash of the user agent and when it was last
// seen, in memory. It is safe for concurrent use; a nil *NATWatch watches
// nothing.
type NATWatch struct {
	now  func() time.Time
	seed maphash.Seed

	mu    sync.Mutex
	addrs map[netip.Addr]map[uint64]time.Time
}

// NewNATWatch makes a watch; now is the clock (nil: time.Now).
func NewNATWatch(now func() time.Time) *NATWatch {
	if now == nil {
		now = time.Now
	}
	return &NATWatch{now: now, seed: maphash.MakeSeed(), addrs: map[netip.Addr]map[uint64]time.Time{}}
}

// Observe counts r's browser for its client address. Call it for the
// requests the box answers as itself (not a captive-portal probe or
// sheet: the daemon leaves those out).
func (n *NATWatch) Observe(r *http.Request) {
	if n == nil {
		return
	}
	ua := r.UserAgent()
	if ua == "" {
		return
	}
	addr, ok := web.ClientAddr(r)
	if !ok {
		return
	}
	key := maphash.String(n.seed, ua)
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.now()
	agents, ok := n.addrs[addr]
	if !ok {
		if len(n.addrs) >= natMaxAddrs {
			n.dropOld(now)
			if len(n.addrs) >= natMaxAddrs {
				return
			}
		}
		agents = map[uint64]time.Time{}
		n.addrs[addr] = agents
	}
	if _, seen := agents[key]; !seen && len(agents) >= natMaxAgents {
		return
	}
	agents[key] = now
}

// dropOld forgets what is older than the window. n.mu is held.
func (n *NATWatch) dropOld(now time.Time) {
	for a, agents := range n.addrs {
		for k, t := range agents {
			if now.Sub(t) >= NATWindow {
				delete(agents, k)
			}
		}
		if len(agents) == 0 {
			delete(n.addrs, a)
		}
	}
}

// Shared lists the addresses with NATDevices or more distinct browsers
// in the window, the most first.
func (n *NATWatch) Shared() []SharedAddress {
	out := []SharedAddress{}
	if n == nil {
		return out
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	now := n.now()
	n.dropOld(now)
	for a, agents := range n.addrs {
		if len(agents) < NATDevices {
			continue
		}
		var last time.Time
		for _, t := range agents {
			if t.After(last) {
				last = t
			}
		}
		out = append(out, SharedAddress{Address: a.String(), Devices: len(agents), Last: last.UnixMilli()})
	}
	slices.SortFunc(out, func(x, y SharedAddress) int {
		return cmp.Or(cmp.Compare(y.Devices, x.Devices), strings.Compare(x.Address, y.Address))
	})
	return out
}
