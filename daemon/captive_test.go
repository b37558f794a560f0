package daemon_test

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/portal"
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

// TestCaptiveSheetGoesAwayForTheLeaseOnceTheGuestGoesOn plays the probe
// sequences of iOS, macOS, Android and Windows over the real router: before
// "continue", every probe and the sheet's own pages are sent to the portal
// page; after it, the probes of that address only get the answers each OS
// expects from the internet, for the hotspot's lease; after the lease, the
// sheet comes back.
func TestCaptiveSheetGoesAwayForTheLeaseOnceTheGuestGoesOn(t *testing.T) {
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
			if until := int64(cont.JSON["until"].(float64)); until != h.clock.Now().Add(portal.DefaultLease).UnixMilli() {
				t.Errorf("until = %d, want one lease from now", until)
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

			h.clock.Advance(portal.DefaultLease - time.Minute)
			online(t, phone, d.probes[0])
			h.clock.Advance(time.Minute)
			for _, s := range d.probes {
				toPortal(t, phone, s) // the lease is over: the sheet again
			}
		})
	}
}
