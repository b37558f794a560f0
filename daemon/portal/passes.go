package portal

import (
	"net/netip"
	"sync"
	"time"
)

// DefaultLease is how long a device that went on through the portal page
// gets "connected" answers to its probes: one DHCP lease of the hotspot,
// NetworkManager's shared-mode default (ipv4.shared-dhcp-lease-time, one
// hour). docs/decisions/guests.md, "Through the captive sheet".
const DefaultLease = time.Hour

// DefaultMaxPasses bounds how many addresses Passes remembers: four
// hotspot /24s' worth, far above the guests of one party.
const DefaultMaxPasses = 1024

// Passes remembers, in memory, the addresses of the devices that went on
// through the portal page, each until its lease would have ended. It is
// safe for concurrent use.
type Passes struct {
	now   func() time.Time
	lease time.Duration
	max   int

	mu    sync.Mutex
	until map[netip.Addr]time.Time
}

// NewPasses makes an empty memory of passes that each last lease (0:
// DefaultLease), holding at most max addresses (0: DefaultMaxPasses); now
// is the clock (nil: time.Now).
func NewPasses(now func() time.Time, lease time.Duration, max int) *Passes {
	if now == nil {
		now = time.Now
	}
	if lease <= 0 {
		lease = DefaultLease
	}
	if max <= 0 {
		max = DefaultMaxPasses
	}
	return &Passes{now: now, lease: lease, max: max, until: map[netip.Addr]time.Time{}}
}

// Mark remembers addr as gone through until one lease from now, and
// returns that time. When the memory is full, the passes that ended are
// dropped, then the one that ends first.
func (p *Passes) Mark(addr netip.Addr) time.Time {
	addr = addr.WithZone("").Unmap()
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	until := now.Add(p.lease)
	if _, ok := p.until[addr]; !ok && len(p.until) >= p.max {
		p.makeRoom(now)
	}
	p.until[addr] = until
	return until
}

// makeRoom drops the ended passes and, if that frees nothing, the one
// that ends first. p.mu is held.
func (p *Passes) makeRoom(now time.Time) {
	var first netip.Addr
	var firstUntil time.Time
	for a, u := range p.until {
		if !now.Before(u) {
			delete(p.until, a)
			continue
		}
		if firstUntil.IsZero() || u.Before(firstUntil) {
			first, firstUntil = a, u
		}
	}
	if len(p.until) >= p.max {
		delete(p.until, first)
	}
}

// Has reports whether addr went through and its pass has not ended.
func (p *Passes) Has(addr netip.Addr) bool {
	addr = addr.WithZone("").Unmap()
	p.mu.Lock()
	defer p.mu.Unlock()
	u, ok := p.until[addr]
	if ok && !p.now().Before(u) {
		delete(p.until, addr)
		return false
	}
	return ok
}

// Len is how many addresses are remembered, ended passes included until
// they are looked up or make room.
func (p *Passes) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.until)
}
