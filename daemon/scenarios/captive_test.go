package scenarios_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/api/portal"
	"eventbox/daemon/daemontest"
)

// User agents of the probes and sheets, as the devices send them.
const (
	uaAppleProbe    = "CaptiveNetworkSupport-481.40.1 wispr"
	uaIOSSheet      = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148"
	uaMacSheet      = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)"
	uaAndroidProbe  = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/60.0.3112.32 Safari/537.36"
	uaAndroidSheet  = "Mozilla/5.0 (Linux; Android 14; Pixel 8; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.71 Mobile Safari/537.36"
	uaWindowsProbe  = "Microsoft NCSI"
	uaEdge          = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0"
	uaAndroidChrome = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.71 Mobile Safari/537.36"
)

// probeStep is one request a device sends under a vendor's Host, and the
// answer it expects once it is online.
type probeStep struct {
	host, path, ua string
	status         int    // once through
	body           string // once through; "" for none
}

// fromAddr is a browser whose connections come from ip (a loopback
// address of its own), so the box tells devices apart as on the hotspot.
func fromAddr(h *harness, ip string) *client {
	c := h.client()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c.hc.Transport = &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}}
	c.hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}

// TestCaptiveSheetGoesAwayWhileTheGuestUsesTheBox plays the probe
// sequences of iOS, macOS, Android and Windows over the real router: before
// "continue", every probe and the sheet's own pages are sent to the portal
// page; after it, the probes of that address only get the answers each OS
// expects from the internet, for ten minutes (portal.DefaultPass) from the
// continue and from each page the phone asks of the box (a page asked under
// another site's name, or a probe, does not count); ten minutes after its
// last page, the sheet comes back.
func TestCaptiveSheetGoesAwayWhileTheGuestUsesTheBox(t *testing.T) {
	h := newHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "Captive"})
	slug := ev["slug"].(string)
	devices := []struct {
		name   string
		ip     string
		sheet  probeStep // the sheet's own first page, before
		probes []probeStep
	}{
		{"iOS", "127.0.0.11", probeStep{host: "captive.apple.com", path: "/hotspot-detect.html", ua: uaIOSSheet}, []probeStep{
			{"captive.apple.com", "/hotspot-detect.html", uaAppleProbe, 200, "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"},
			{"captive.apple.com", "/Xk3b/Qa9c/success.html", uaAppleProbe, 200, "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"},
		}},
		{"macOS", "127.0.0.12", probeStep{host: "www.example.com", path: "/", ua: uaMacSheet}, []probeStep{
			{"captive.apple.com", "/hotspot-detect.html", uaAppleProbe, 200, "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"},
			{"www.apple.com", "/library/test/success.html", uaAppleProbe, 200, "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"},
		}},
		{"Android", "127.0.0.13", probeStep{host: "connectivitycheck.gstatic.com", path: "/generate_204", ua: uaAndroidSheet}, []probeStep{
			{"connectivitycheck.gstatic.com", "/generate_204", uaAndroidProbe, 204, ""},
			{"www.google.com", "/gen_204", uaAndroidProbe, 204, ""},
			{"play.googleapis.com", "/generate_204", uaAndroidProbe, 204, ""},
		}},
		{"Windows", "127.0.0.14", probeStep{host: "www.msftconnecttest.com", path: "/redirect", ua: uaEdge}, []probeStep{
			{"www.msftconnecttest.com", "/connecttest.txt", uaWindowsProbe, 200, "Microsoft Connect Test"},
			{"ipv6.msftconnecttest.com", "/connecttest.txt", uaWindowsProbe, 200, "Microsoft Connect Test"},
			{"www.msftncsi.com", "/ncsi.txt", uaWindowsProbe, 200, "Microsoft NCSI"},
			{"detectportal.firefox.com", "/success.txt", uaEdge, 200, "success\n"},
		}},
	}
	toPortal := func(t *testing.T, c *client, s probeStep) {
		t.Helper()
		r := c.do("GET", s.path, nil, "Host", s.host, "User-Agent", s.ua)
		if r.Status != http.StatusFound || !strings.HasSuffix(r.Header.Get("Location"), "/portal") {
			t.Fatalf("%s%s (%s): %d %q, want the portal page", s.host, s.path, s.ua, r.Status, r.Header.Get("Location"))
		}
	}
	online := func(t *testing.T, c *client, s probeStep) {
		t.Helper()
		r := c.do("GET", s.path, nil, "Host", s.host, "User-Agent", s.ua)
		if r.Status != s.status || string(r.Body) != s.body {
			t.Fatalf("%s%s once through: %d %q, want %d %q", s.host, s.path, r.Status, r.Body, s.status, s.body)
		}
	}
	other := fromAddr(h, "127.0.0.99")
	for _, d := range devices {
		t.Run(d.name, func(t *testing.T) {
			phone := fromAddr(h, d.ip)
			for _, s := range d.probes {
				toPortal(t, phone, s)
			}
			toPortal(t, phone, d.sheet)
			if r := phone.do("GET", "/portal", nil, "User-Agent", d.sheet.ua); r.Status != 200 || !strings.Contains(string(r.Body), "/js/portal.js") {
				t.Fatalf("the portal page: %d", r.Status)
			}
			st := phone.do("GET", "/api/portal", nil).expect(t, 200, "")
			if st.JSON["through"] != false || !strings.HasSuffix(st.JSON["address"].(string), "/e/"+slug) {
				t.Fatalf("portal state before = %v", st.JSON)
			}

			// "continue" from another origin, or under another Host, is refused.
			phone.origin = "http://evil.example"
			phone.do("POST", "/api/portal/continue", nil).expect(t, http.StatusForbidden, "forbidden")
			phone.origin = h.srv.URL
			phone.do("POST", "/api/portal/continue", nil, "Host", "captive.apple.com").expect(t, http.StatusMisdirectedRequest, "misdirected")
			toPortal(t, phone, d.probes[0])

			cont := phone.do("POST", "/api/portal/continue", nil).expect(t, 200, "")
			if until := int64(cont.JSON["until"].(float64)); until != h.clock.Now().Add(portal.DefaultPass).UnixMilli() {
				t.Errorf("until = %d, want one pass (%v) from now", until, portal.DefaultPass)
			}
			if st := phone.do("GET", "/api/portal", nil).expect(t, 200, ""); st.JSON["through"] != true {
				t.Fatalf("portal state after = %v", st.JSON)
			}
			for _, s := range d.probes {
				online(t, phone, s)
				toPortal(t, other, s) // another address still gets the sheet
			}
			// A page asked under another Host still leads to the event.
			if r := phone.do("GET", "/", nil, "Host", "www.example.com", "User-Agent", uaAndroidChrome); !strings.HasSuffix(r.Header.Get("Location"), "/e/"+slug) {
				t.Errorf("a page under another Host: %d %q, want the event", r.Status, r.Header.Get("Location"))
			}

			// The guest uses the event's page: each of its requests carries
			// the pass; the probes and other sites' pages do not.
			h.clock.Advance(portal.DefaultPass - time.Minute)
			online(t, phone, d.probes[0])
			phone.do("GET", "/api/portal", nil).expect(t, 200, "")
			h.clock.Advance(portal.DefaultPass - time.Minute)
			online(t, phone, d.probes[0])
			phone.do("GET", "/", nil, "Host", "www.example.com", "User-Agent", uaAndroidChrome)
			h.clock.Advance(time.Minute)
			for _, s := range d.probes {
				toPortal(t, phone, s) // ten minutes without a page of the box: the sheet again
			}
		})
	}
}

// TestPortalContinuesCannotEvictAPhonesPass replays the audit's flood
// (issue 39): a thousand continues from other addresses in under a second
// took a phone's pass, and its probe went from 204 back to the sheet.
// Continues are now limited to 10 a minute per address, an IPv6 address
// counted by its /64 (one device may use any address of its /64), and a
// live pass is never dropped: with the memory full of them, a new
// address's continue answers 429 rate_limited until the first one ends.
// The requests go to the box's handler with their peer address set, as
// the harness's sockets cannot come from link-local addresses.
func TestPortalContinuesCannotEvictAPhonesPass(t *testing.T) {
	h := newHarness(t)
	h.createEvent(h.owner(), map[string]any{"name": "Captive"})
	box := daemontest.CheckAnswers(t, h.d.Handler())
	ask := func(method, url, addr string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, url, nil)
		r.RemoteAddr = net.JoinHostPort(addr, "5000")
		r.Header.Set("Origin", "http://127.0.0.1")
		w := httptest.NewRecorder()
		box.ServeHTTP(w, r)
		return w
	}
	probe := func(addr string) int {
		return ask("GET", "http://connectivitycheck.gstatic.com/generate_204", addr).Code
	}
	goOn := func(addr string) *httptest.ResponseRecorder {
		return ask("POST", "http://127.0.0.1/api/portal/continue", addr)
	}
	refused := func(t *testing.T, w *httptest.ResponseRecorder, retry string) {
		t.Helper()
		if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), `"rate_limited"`) || w.Header().Get("Retry-After") != retry {
			t.Fatalf("continue: %d %s, Retry-After %q; want 429 rate_limited, Retry-After %s", w.Code, w.Body, w.Header().Get("Retry-After"), retry)
		}
	}

	const phone = "10.42.0.17"
	if w := goOn(phone); w.Code != http.StatusOK {
		t.Fatalf("the phone's continue: %d %s", w.Code, w.Body)
	}
	if got := probe(phone); got != http.StatusNoContent {
		t.Fatalf("the phone's probe once through: %d, want 204", got)
	}

	t.Run("1,100 link-local addresses are one /64 with 10 continues a minute", func(t *testing.T) {
		for i := range 1100 {
			addr := netip.AddrFrom16([16]byte{0: 0xfe, 1: 0x80, 12: byte(i >> 8), 13: byte(i), 15: 1}).String()
			if w := goOn(addr); i < 10 && w.Code != http.StatusOK {
				t.Fatalf("continue %d from the /64: %d %s", i+1, w.Code, w.Body)
			} else if i >= 10 {
				refused(t, w, "60")
			}
		}
		if got := probe(phone); got != http.StatusNoContent {
			t.Errorf("the phone's probe after the flood: %d, want 204", got)
		}
		if got := probe("fe80::1234:5678:9abc:def0"); got != http.StatusNoContent {
			t.Errorf("another address of the /64: %d, want 204", got)
		}
		if got := probe("fe80:0:0:1::1"); got != http.StatusFound {
			t.Errorf("an address of another /64: %d, want the sheet (302)", got)
		}
	})
	t.Run("a full memory refuses a new address and keeps every live pass", func(t *testing.T) {
		// 1,024 passes: the phone's, the /64's and 1,022 more.
		for i := range 1100 {
			addr := fmt.Sprintf("10.43.%d.%d", i/250, i%250+1)
			if w := goOn(addr); i < 1022 && w.Code != http.StatusOK {
				t.Fatalf("continue %d: %d %s", i+1, w.Code, w.Body)
			} else if i >= 1022 {
				refused(t, w, "600") // until the phone's pass ends
			}
		}
		if got := probe(phone); got != http.StatusNoContent {
			t.Errorf("the phone's probe with the memory full: %d, want 204", got)
		}
		if w := goOn(phone); w.Code != http.StatusOK {
			t.Errorf("the phone renewing its pass: %d %s", w.Code, w.Body)
		}
	})
	t.Run("once passes end a new address goes on", func(t *testing.T) {
		h.clock.Advance(portal.DefaultPass)
		if w := goOn("10.44.0.1"); w.Code != http.StatusOK {
			t.Fatalf("continue after the lease: %d %s", w.Code, w.Body)
		}
		if got := probe(phone); got != http.StatusFound {
			t.Errorf("the phone's probe after its lease: %d, want the sheet (302)", got)
		}
	})
}
