package portal_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"sync"
	"testing"
	"time"

	"eventbox/daemon/api/portal"
)

// clock is the injected clock of these tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestPassesLastOneLeasePerAddress(t *testing.T) {
	c := &clock{t: time.Date(2026, 6, 20, 20, 0, 0, 0, time.UTC)}
	p := portal.NewPasses(c.now, time.Hour, 8)
	a := netip.MustParseAddr("10.42.0.17")
	if p.Has(a) {
		t.Fatal("an address nobody marked has a pass")
	}
	if until, err := p.Mark(a); err != nil || !until.Equal(c.now().Add(time.Hour)) {
		t.Errorf("Mark = %v, %v; want an hour from now", until, err)
	}
	tests := []struct {
		name  string
		after time.Duration
		addr  string
		want  bool
	}{
		{"the same address", 0, "10.42.0.17", true},
		{"the same address, IPv4-mapped", 0, "::ffff:10.42.0.17", true},
		{"another address", 0, "10.42.0.18", false},
		{"just before the lease ends", 59*time.Minute + 59*time.Second, "10.42.0.17", true},
		{"when the lease ends", time.Second, "10.42.0.17", false},
	}
	for _, tc := range tests {
		c.add(tc.after)
		if got := p.Has(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("%s: Has = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPassesNeverEvictALivePass: when the memory is full of live passes,
// a new address is refused (FullError, saying when the first pass ends)
// and every live pass stays; an address already kept is renewed; once a
// pass ends, a new address takes its room.
func TestPassesNeverEvictALivePass(t *testing.T) {
	c := &clock{t: time.Date(2026, 6, 20, 20, 0, 0, 0, time.UTC)}
	p := portal.NewPasses(c.now, time.Hour, 4)
	addr := func(i int) netip.Addr { return netip.MustParseAddr("10.42.0." + strconv.Itoa(i)) }
	first := c.now().Add(time.Hour)
	for i := 1; i <= 4; i++ {
		if _, err := p.Mark(addr(i)); err != nil {
			t.Fatalf("mark %d of 4: %v", i, err)
		}
		c.add(time.Second)
	}
	steps := []struct {
		name    string
		after   time.Duration
		addr    int
		refused bool
	}{
		{"a fifth address while four passes are live", 0, 5, true},
		{"a thousand more", 0, 1000, true},
		{"an address already kept is renewed", 0, 2, false},
		{"just before the first pass ends", first.Sub(c.now()) - time.Second, 6, true},
		{"once the first pass ended", time.Second, 6, false},
		{"the room is taken again", 0, 7, true},
	}
	for _, s := range steps {
		c.add(s.after)
		until, err := p.Mark(addr(s.addr % 250))
		var full *portal.FullError
		switch {
		case s.refused && (!errors.As(err, &full) || !full.Free.After(c.now())):
			t.Errorf("%s: Mark = %v, %v; want a FullError saying when room frees", s.name, until, err)
		case !s.refused && (err != nil || !until.Equal(c.now().Add(time.Hour))):
			t.Errorf("%s: Mark = %v, %v; want a pass for an hour", s.name, until, err)
		}
		if p.Len() > 4 {
			t.Fatalf("%s: %d addresses are kept, want at most 4", s.name, p.Len())
		}
	}
	for _, i := range []int{2, 3, 4, 6} {
		if !p.Has(addr(i)) {
			t.Errorf("the live pass of %s was dropped", addr(i))
		}
	}
	for _, i := range []int{1, 5, 7} {
		if p.Has(addr(i)) {
			t.Errorf("%s has a pass, want none", addr(i))
		}
	}
}

// TestPassesCountIPv6ByItsSlash64: a device may use any address of its
// /64 (privacy and link-local addresses), so an IPv6 pass is its /64's;
// an IPv4 pass is the address's only.
func TestPassesCountIPv6ByItsSlash64(t *testing.T) {
	c := &clock{t: time.Date(2026, 6, 20, 20, 0, 0, 0, time.UTC)}
	p := portal.NewPasses(c.now, time.Hour, 2)
	for _, a := range []string{"fe80::1%wlan0", "2001:db8:1:2::17"} {
		if _, err := p.Mark(netip.MustParseAddr(a)); err != nil {
			t.Fatalf("marking %s: %v", a, err)
		}
	}
	tests := []struct {
		addr string
		want bool
	}{
		{"fe80::1", true},
		{"fe80::dead:beef:1:2%eth0", true},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", true},
		{"2001:db8:1:3::17", false},
		{"fe81::1", false},
		{"10.42.0.17", false},
	}
	for _, tc := range tests {
		if got := p.Has(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Has(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
	// A thousand addresses of a kept /64 are one device: nothing is refused.
	for i := range 1000 {
		a := netip.AddrFrom16([16]byte{0xfe, 0x80, 14: byte(i >> 8), 15: byte(i)})
		if _, err := p.Mark(a); err != nil {
			t.Fatalf("marking %s of a kept /64: %v", a, err)
		}
	}
	if p.Len() != 2 {
		t.Errorf("%d passes kept, want 2", p.Len())
	}
}

func TestInMiniBrowser(t *testing.T) {
	tests := []struct {
		name, url, ua string
		want          bool
	}{
		{"Apple's probe", "http://captive.apple.com/hotspot-detect.html", "CaptiveNetworkSupport-481.40.1 wispr", true},
		{"the iOS web sheet on another site", "http://example.com/", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", true},
		{"the macOS Captive Network Assistant", "http://example.com/", "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)", true},
		{"Android's captive portal login", "http://example.com/", "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0 Mobile Safari/537.36", true},
		{"Windows NCSI", "http://example.com/", "Microsoft NCSI", true},
		{"any probe path", "http://example.com/generate_204", "Mozilla/5.0", true},
		{"Safari on an iPhone", "http://example.com/", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", false},
		{"Chrome on Android", "http://example.com/", "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36", false},
		{"Firefox on a laptop", "http://example.com/", "Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0", false},
	}
	for _, tc := range tests {
		r := httptest.NewRequest(http.MethodGet, tc.url, nil)
		r.Header.Set("User-Agent", tc.ua)
		if got := portal.InMiniBrowser(r); got != tc.want {
			t.Errorf("%s: InMiniBrowser = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestConnectedAnswersEachProbeAsTheInternetWould(t *testing.T) {
	c := &clock{t: time.Date(2026, 6, 20, 20, 0, 0, 0, time.UTC)}
	p := portal.NewPasses(c.now, time.Hour, 0)
	p.Mark(netip.MustParseAddr("10.42.0.17"))
	apple := "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
	tests := []struct {
		name, method, url, remote string
		status                    int
		body                      string
	}{
		{"iOS", "GET", "http://captive.apple.com/hotspot-detect.html", "10.42.0.17:5000", 200, apple},
		{"Android", "GET", "http://connectivitycheck.gstatic.com/generate_204", "10.42.0.17:5000", 204, ""},
		{"Android gen_204", "GET", "http://www.google.com/gen_204", "10.42.0.17:5000", 204, ""},
		{"Windows", "GET", "http://www.msftconnecttest.com/connecttest.txt", "10.42.0.17:5000", 200, "Microsoft Connect Test"},
		{"Windows HEAD", "HEAD", "http://www.msftconnecttest.com/connecttest.txt", "10.42.0.17:5000", 200, ""},
		{"older Windows", "GET", "http://www.msftncsi.com/ncsi.txt", "10.42.0.17:5000", 200, "Microsoft NCSI"},
		{"Firefox", "GET", "http://detectportal.firefox.com/success.txt", "10.42.0.17:5000", 200, "success\n"},
		{"GNOME", "GET", "http://nmcheck.gnome.org/check_network_status.txt", "10.42.0.17:5000", 200, "NetworkManager is online\n"},
		{"another address", "GET", "http://captive.apple.com/hotspot-detect.html", "10.42.0.18:5000", 299, ""},
		{"not a probe", "GET", "http://10.42.0.1/e/abc", "10.42.0.17:5000", 299, ""},
	}
	h := portal.Connected(p, passThrough)
	for _, tc := range tests {
		r := httptest.NewRequest(tc.method, tc.url, nil)
		r.RemoteAddr = tc.remote
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || w.Body.String() != tc.body {
			t.Errorf("%s: %d %q, want %d %q", tc.name, w.Code, w.Body.String(), tc.status, tc.body)
		}
	}
}

// TestPassesLastWhileThePhoneUsesTheBox: a pass lasts DefaultPass (ten
// minutes) from the guest's continue, and each page the phone asks of the
// box (Seen) carries it to ten minutes from then; the probes themselves
// never do (a phone's own re-checks would keep it forever), and a pass that
// ended is not brought back by a page: the phone shows the sheet again.
func TestPassesLastWhileThePhoneUsesTheBox(t *testing.T) {
	c := &clock{t: time.Date(2026, 6, 20, 20, 0, 0, 0, time.UTC)}
	p := portal.NewPasses(c.now, 0, 8)
	phone := netip.MustParseAddr("10.42.0.17")
	other := netip.MustParseAddr("10.42.0.18")
	if until, err := p.Mark(phone); err != nil || !until.Equal(c.now().Add(portal.DefaultPass)) {
		t.Fatalf("Mark = %v, %v; want %v from now", until, err, portal.DefaultPass)
	}
	if portal.DefaultPass != 10*time.Minute {
		t.Fatalf("DefaultPass = %v, want ten minutes", portal.DefaultPass)
	}
	steps := []struct {
		name  string
		after time.Duration
		seen  string // an address whose page the box answers, or ""
		addr  string
		want  bool
	}{
		{"just after continue", 0, "", "10.42.0.17", true},
		{"a page from another phone changes nothing", 0, "10.42.0.18", "10.42.0.18", false},
		{"nine minutes later, with a page", 9 * time.Minute, "10.42.0.17", "10.42.0.17", true},
		{"ten minutes after continue: the page carried it", time.Minute, "", "10.42.0.17", true},
		{"just before ten minutes after the page", 8*time.Minute + 59*time.Second, "", "10.42.0.17", true},
		{"ten minutes after the last page", time.Second, "", "10.42.0.17", false},
		{"a page after the end does not bring it back", time.Second, "10.42.0.17", "10.42.0.17", false},
	}
	for _, s := range steps {
		c.add(s.after)
		if s.seen != "" {
			p.Seen(netip.MustParseAddr(s.seen))
		}
		if got := p.Has(netip.MustParseAddr(s.addr)); got != s.want {
			t.Errorf("%s: Has = %v, want %v", s.name, got, s.want)
		}
	}
	if p.Has(other) {
		t.Error("a phone that never went on has a pass")
	}
}
