package portal

import (
	"fmt"
	"net/netip"
	"sync"
	"time"
)

// DefaultPass is how long a device that went on through the portal page
// gets "connected" answers to its probes, from its continue and again from
// each page it asks of the box (Seen): long enough for the sheet to close
// and for the guest's uploads, short enough that a phone done with the box
// soon counts its Wi-Fi as a captive network again and goes back to its
// own internet. docs/decisions/guests.md, "Through the captive sheet".
const DefaultPass = 10 * time.Minute

// DefaultMaxPasses bounds how many devices Passes remembers: four
// hotspot /24s' worth, far above the guests of one party.
const DefaultMaxPasses = 1024

// FullError is Mark's answer for a new device while the memory holds only
// live passes: no live pass is dropped for it, and room frees at Free,
// when the first of them ends.
type FullError struct {
	Free time.Time
}

// Error says the memory is full and until when.
func (e *FullError) Error() string {
	return fmt.Sprintf("every one of the portal's passes is live, the first until %s", e.Free.Format(time.RFC3339))
}

// Passes remembers, in memory, the devices that went on through the
// portal page, each until one pass (DefaultPass) after its continue or
// its last page asked of the box. A device is its
// address for IPv4, and its address's /64 for IPv6, where one device may
// use any address of its /64 (privacy and link-local addresses). It is
// safe for concurrent use.
type Passes struct {
	now  func() time.Time
	pass time.Duration
	max  int

	mu    sync.Mutex
	until map[netip.Prefix]time.Time
}

// NewPasses makes an empty memory of passes that each last pass (0:
// DefaultPass) from a continue or a page seen, holding at most max
// devices (0: DefaultMaxPasses); now is the clock (nil: time.Now).
func NewPasses(now func() time.Time, pass time.Duration, max int) *Passes {
	if now == nil {
		now = time.Now
	}
	if pass <= 0 {
		pass = DefaultPass
	}
	if max <= 0 {
		max = DefaultMaxPasses
	}
	return &Passes{now: now, pass: pass, max: max, until: map[netip.Prefix]time.Time{}}
}

// Device is the device an address stands for: an IPv4 address (an
// IPv4-mapped one too) as a /32, an IPv6 address's /64, without its zone.
func Device(addr netip.Addr) netip.Prefix {
	addr = addr.WithZone("").Unmap()
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, err := addr.Prefix(bits)
	if err != nil {
		return netip.Prefix{} // an invalid address: a device of its own, never marked by a request
	}
	return p
}

// Mark remembers addr's device as gone through until one pass from now,
// and returns that time. A device already remembered is renewed. When the
// memory is full, the ended passes are dropped; if every pass is still
// live, nothing is dropped and Mark answers a *FullError.
func (p *Passes) Mark(addr netip.Addr) (time.Time, error) {
	d := Device(addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if _, ok := p.until[d]; !ok && len(p.until) >= p.max {
		if free := p.dropEnded(now); len(p.until) >= p.max {
			return time.Time{}, &FullError{Free: free}
		}
	}
	until := now.Add(p.pass)
	p.until[d] = until
	return until, nil
}

// Seen carries the live pass of addr's device to one pass from now: the
// device asked a page of the box, so its guest is still using it. A
// device without a live pass stays without one (its phone shows the
// sheet again, and its guest continues again if they need to).
func (p *Passes) Seen(addr netip.Addr) {
	d := Device(addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	u, ok := p.until[d]
	if !ok || !now.Before(u) {
		return
	}
	if next := now.Add(p.pass); next.After(u) {
		p.until[d] = next
	}
}

// dropEnded drops the passes that ended by now and returns when the first
// of the others ends. p.mu is held.
func (p *Passes) dropEnded(now time.Time) time.Time {
	var first time.Time
	for d, u := range p.until {
		if !now.Before(u) {
			delete(p.until, d)
			continue
		}
		if first.IsZero() || u.Before(first) {
			first = u
		}
	}
	return first
}

// Has reports whether addr's device went through and its pass has not
// ended.
func (p *Passes) Has(addr netip.Addr) bool {
	d := Device(addr)
	p.mu.Lock()
	defer p.mu.Unlock()
	u, ok := p.until[d]
	if ok && !p.now().Before(u) {
		delete(p.until, d)
		return false
	}
	return ok
}

// Len is how many devices are remembered, ended passes included until
// they are looked up or make room.
func (p *Passes) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.until)
}
