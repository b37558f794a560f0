package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"eventbox/daemon/web"
	"eventbox/internal/testclock"
)

// TestActivityKnowsEachAddressesRequests: the middleware records each
// request's start and end by its client's address, counts those in
// progress, reads an IPv4-mapped address as its IPv4 one, and forgets the
// longest idle address past its bound, never one with a request in
// progress.
func TestActivityKnowsEachAddressesRequests(t *testing.T) {
	t0 := time.Date(2026, 6, 20, 21, 0, 0, 0, time.UTC)
	clk := testclock.New(t0)
	a := web.NewActivity(clk.Now, 3)
	inside := make(chan struct{})
	release := make(chan struct{})
	h := a.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow" {
			close(inside)
			<-release
		}
	}))
	get := func(remote, path string) {
		r := httptest.NewRequest("GET", path, nil)
		r.RemoteAddr = remote
		h.ServeHTTP(httptest.NewRecorder(), r)
	}
	done := make(chan struct{})
	go func() { defer close(done); get("10.42.0.10:50000", "/slow") }()
	<-inside
	clk.Advance(time.Minute)
	get("[::ffff:10.42.0.11]:50001", "/")
	clk.Advance(time.Minute)
	get("[fe80::c]:50002", "/")
	for _, tc := range []struct {
		addr     string
		ok       bool
		last     time.Duration
		inFlight int
	}{
		{addr: "10.42.0.10", ok: true, last: 0, inFlight: 1},
		{addr: "10.42.0.11", ok: true, last: time.Minute},
		{addr: "fe80::c", ok: true, last: 2 * time.Minute},
		{addr: "10.42.0.99"},
	} {
		got, ok := a.Of(netip.MustParseAddr(tc.addr))
		if ok != tc.ok || (ok && (!got.Last.Equal(t0.Add(tc.last)) || got.InFlight != tc.inFlight)) {
			t.Errorf("%s: %+v %v, want last +%s, %d in progress", tc.addr, got, ok, tc.last, tc.inFlight)
		}
	}
	// A fourth address: the longest idle with nothing in progress goes
	// (10.42.0.11), not the one mid-request that began first.
	get("10.42.0.12:50003", "/")
	if _, ok := a.Of(netip.MustParseAddr("10.42.0.11")); ok || a.Len() != 3 {
		t.Errorf("past the bound: 10.42.0.11 still known (%v) or %d addresses", ok, a.Len())
	}
	if got, ok := a.Of(netip.MustParseAddr("10.42.0.10")); !ok || got.InFlight != 1 {
		t.Errorf("the address mid-request was forgotten: %+v %v", got, ok)
	}
	clk.Advance(time.Minute)
	close(release)
	<-done
	if got, _ := a.Of(netip.MustParseAddr("10.42.0.10")); got.InFlight != 0 || !got.Last.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("after its end: %+v, want none in progress, last at its end", got)
	}
}
