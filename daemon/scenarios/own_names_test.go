package scenarios_test

import (
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/daemon"
)

// fakeInterfaces is the box's interface list, changed by the test.
type fakeInterfaces struct {
	mu    sync.Mutex
	addrs []string // CIDR
	calls int
}

func (f *fakeInterfaces) set(cidrs ...string) {
	f.mu.Lock()
	f.addrs = cidrs
	f.mu.Unlock()
}

func (f *fakeInterfaces) list() ([]net.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	var out []net.Addr
	for _, c := range f.addrs {
		ip, n, err := net.ParseCIDR(c)
		if err != nil {
			return nil, err
		}
		n.IP = ip
		out = append(out, n)
	}
	return out, nil
}

// TestOnlyTheBoxsOwnNamesAreServed: a DNS-rebinding page (Host and Origin
// evil.example) can neither join, list the shared album, fetch an
// original nor upload (421 misdirected); its pages get the portal's
// redirect to the box; every own name is served, with or without port.
func TestOnlyTheBoxsOwnNamesAreServed(t *testing.T) {
	ifaces := &fakeInterfaces{}
	ifaces.set("10.42.0.1/24", "fe80::1/64")
	h := newHarness(t, func(c *daemon.Config) {
		c.BaseURL = "http://party.example:8080"
		c.OwnHosts = []string{"eventbox.local"}
		c.InterfaceAddrs = ifaces.list
	})
	ev := h.createEvent(h.owner(), map[string]any{"name": "Rebinding", "albumShared": true})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	photo := g.upload(slug, photoJPEG(t, 64, 48, 0, false, 1), nil, "").expect(t, 201, "")
	photoID := photo.JSON["photo"].(map[string]any)["id"].(string)
	ct, jpeg := multipartBody(t, "photo", "a.jpg", photoJPEG(t, 64, 48, 0, false, 2), nil)
	noRedirect := func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	g.hc.CheckRedirect = noRedirect
	port := mustPort(t, h.srv.URL)

	foreign := []struct {
		name, method, path string
		body               any
		headers            []string
	}{
		{"joining", "POST", "/api/e/" + slug + "/join", nil, nil},
		{"reading the event", "GET", "/api/e/" + slug, nil, nil},
		{"listing the shared album", "GET", "/api/e/" + slug + "/photos?scope=all", nil, nil},
		{"downloading an original", "GET", "/api/media/" + photoID + "?v=original", nil, nil},
		{"uploading", "POST", "/api/e/" + slug + "/photos", jpeg, []string{"Content-Type", ct}},
		{"signing in", "POST", "/api/admin/login", map[string]any{"password": ownerPassword}, nil},
		{"an unknown api path", "GET", "/api/nothing", nil, nil},
	}
	for _, host := range []string{"evil.example", "evil.example:" + port, "eventbox.local.evil.example", "10.42.0.2", "party.example.evil.example", "localhost.evil.example"} {
		for _, tc := range foreign {
			t.Run(tc.name+" under Host "+host+" is misdirected", func(t *testing.T) {
				g.origin = "http://" + host
				defer func() { g.origin = h.srv.URL }()
				r := g.do(tc.method, tc.path, tc.body, append([]string{"Host", host}, tc.headers...)...)
				r.expect(t, http.StatusMisdirectedRequest, "misdirected")
			})
		}
	}

	for _, path := range []string{"/", "/e/" + slug, "/admin", "/g/sometoken", "/app.css"} {
		t.Run("the page "+path+" under a foreign Host redirects to the box", func(t *testing.T) {
			r := g.do("GET", path, nil, "Host", "evil.example")
			loc, err := url.Parse(r.Header.Get("Location"))
			if r.Status != http.StatusFound || err != nil {
				t.Fatalf("got %d %q", r.Status, r.Header.Get("Location"))
			}
			if loc.Host != strings.TrimPrefix(h.srv.URL, "http://") || loc.Path != "/e/"+slug {
				t.Fatalf("redirected to %s, want the open event on the box's own address", loc)
			}
		})
	}

	own := []string{
		"127.0.0.1:" + port, "127.0.0.1", "localhost", "localhost:" + port, "LOCALHOST", "[::1]:" + port, "[::1]",
		"eventbox.local", "EventBox.Local.", "eventbox.local:" + port,
		"party.example", "party.example:8080",
		"10.42.0.1", "10.42.0.1:80", "[fe80::1]", "[fe80::1]:" + port,
	}
	for _, host := range own {
		t.Run("own name "+host+" is served", func(t *testing.T) {
			c := h.client()
			c.origin = "http://" + host
			c.do("POST", "/api/e/"+slug+"/join", nil, "Host", host).expect(t, 200, "")
			list := c.do("GET", "/api/e/"+slug+"/photos?scope=all", nil, "Host", host).expect(t, 200, "")
			if n := len(list.JSON["photos"].([]any)); n != 1 {
				t.Fatalf("the shared album lists %d photos, want 1", n)
			}
			if r := c.do("GET", "/e/"+slug, nil, "Host", host); r.Status != 200 {
				t.Fatalf("page answered %d", r.Status)
			}
		})
	}

	t.Run("a new interface address is served once looked up again", func(t *testing.T) {
		g.do("GET", "/api/e/"+slug, nil, "Host", "192.168.1.20").expect(t, http.StatusMisdirectedRequest, "misdirected")
		ifaces.set("10.42.0.1/24", "192.168.1.20/24")
		calls := ifaces.calls
		g.do("GET", "/api/e/"+slug, nil, "Host", "192.168.1.20").expect(t, http.StatusMisdirectedRequest, "misdirected")
		if ifaces.calls != calls {
			t.Fatal("an unknown address looked the interfaces up again within seconds")
		}
		h.clock.Advance(6 * time.Second)
		g.do("GET", "/api/e/"+slug, nil, "Host", "192.168.1.20").expect(t, 200, "")
	})

	t.Run("a phone's captive-portal probe under its vendor's Host still opens the event", func(t *testing.T) {
		for _, p := range []struct{ host, path string }{
			{"captive.apple.com", "/hotspot-detect.html"},
			{"connectivitycheck.gstatic.com", "/generate_204"},
			{"www.msftconnecttest.com", "/connecttest.txt"},
		} {
			// The sheet opens the portal page, which names the event.
			r := g.do("GET", p.path, nil, "Host", p.host)
			if r.Status != http.StatusFound || !strings.HasSuffix(r.Header.Get("Location"), "/portal") {
				t.Fatalf("%s%s: %d %q", p.host, p.path, r.Status, r.Header.Get("Location"))
			}
			if a := g.do("GET", "/api/portal", nil).expect(t, 200, "").JSON["address"].(string); !strings.HasSuffix(a, "/e/"+slug) {
				t.Fatalf("the portal page names %q, want the event", a)
			}
		}
	})
}

func mustPort(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}
