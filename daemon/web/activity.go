package web

import (
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// DefaultActivityAddresses bounds the addresses an Activity remembers: a
// party's phones many times over.
const DefaultActivityAddresses = 4096

// Activity remembers, per client address, when its last request began or
// ended and how many of its requests are in progress (an upload's form or
// PATCH is one until its body is read and answered). The hotspot's crowd
// watch reads it to tell an idle phone from a busy one
// (daemon/network). Its memory is bounded: past its limit, the address
// idle the longest with nothing in progress is forgotten. Safe for
// concurrent use.
type Activity struct {
	now   func() time.Time
	limit int

	mu    sync.Mutex
	addrs map[netip.Addr]*addrActivity
}

type addrActivity struct {
	last     time.Time
	inFlight int
}

// AddressActivity is what an Activity knows of one address.
type AddressActivity struct {
	// Last is when its last request began or ended.
	Last time.Time
	// InFlight is how many of its requests are in progress.
	InFlight int
}

// NewActivity returns an Activity over the clock now (time.Now when nil)
// that remembers at most limit addresses (DefaultActivityAddresses when
// limit <= 0).
func NewActivity(now func() time.Time, limit int) *Activity {
	if now == nil {
		now = time.Now
	}
	if limit <= 0 {
		limit = DefaultActivityAddresses
	}
	return &Activity{now: now, limit: limit, addrs: map[netip.Addr]*addrActivity{}}
}

// Middleware records every request of next by its client's address.
func (a *Activity) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		addr, ok := ClientAddr(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		done := a.Begin(addr)
		defer done()
		next.ServeHTTP(w, r)
	})
}

// Begin records a request of addr in progress; the function it returns
// records its end.
func (a *Activity) Begin(addr netip.Addr) (end func()) {
	addr = addr.Unmap()
	a.mu.Lock()
	e := a.addrs[addr]
	if e == nil {
		if len(a.addrs) >= a.limit {
			a.forgetOne()
		}
		e = &addrActivity{}
		a.addrs[addr] = e
	}
	e.last = a.now()
	e.inFlight++
	a.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			a.mu.Lock()
			e.last = a.now()
			e.inFlight--
			a.mu.Unlock()
		})
	}
}

// forgetOne forgets the address idle the longest with no request in
// progress; a.mu is held. An address with a request in progress is never
// forgotten (the map may then grow past the limit by those alone).
func (a *Activity) forgetOne() {
	var oldest netip.Addr
	var at time.Time
	for addr, e := range a.addrs {
		if e.inFlight == 0 && (!oldest.IsValid() || e.last.Before(at)) {
			oldest, at = addr, e.last
		}
	}
	if oldest.IsValid() {
		delete(a.addrs, oldest)
	}
}

// Of answers what is known of addr; ok is false for an address never seen
// (or forgotten).
func (a *Activity) Of(addr netip.Addr) (act AddressActivity, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e := a.addrs[addr.Unmap()]
	if e == nil {
		return AddressActivity{}, false
	}
	return AddressActivity{Last: e.last, InFlight: e.inFlight}, true
}

// Len is how many addresses it remembers.
func (a *Activity) Len() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.addrs)
}
