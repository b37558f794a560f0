package network_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"eventbox/api"
	"eventbox/daemon"
	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
	"eventbox/store"
)

const ownerPassword = "owner-password-1"

// box is the real daemon over a fresh store, with the NetworkManager
// stand-in nm (nil: none on this machine), and an owner's cookie; opts
// change its configuration.
type box struct {
	t       *testing.T
	h       http.Handler
	st      *store.Store
	cookies []*http.Cookie
}

func newBox(t *testing.T, nm *nmtest.NM, opts ...func(*daemon.Config)) *box {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	cfg := daemon.DefaultConfig()
	cfg.DataDir = dir
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.AdminPassword = ownerPassword
	cfg.PasswordCost = 4
	if nm != nil {
		cfg.NetworkRunner = nm
	}
	for _, o := range opts {
		o(&cfg)
	}
	srv, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	b := &box{t: t, h: srv.Handler(), st: st}
	res, _ := b.do("POST", "/api/admin/login", map[string]any{"password": ownerPassword})
	if res.Code != http.StatusOK {
		t.Fatalf("sign-in answered %d: %s", res.Code, res.Body)
	}
	b.cookies = res.Result().Cookies()
	return b
}

// do sends a request as the owner's browser and checks the answer
// against api/openapi.yaml.
func (b *box) do(method, path string, body any) (*httptest.ResponseRecorder, map[string]any) {
	b.t.Helper()
	var rdr io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			b.t.Fatal(err)
		}
		rdr = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, "http://localhost"+path, rdr)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Origin", "http://localhost")
	for _, c := range b.cookies {
		req.AddCookie(c)
	}
	res := httptest.NewRecorder()
	b.h.ServeHTTP(res, req)
	checkAnswer(b.t, req, res)
	var out map[string]any
	if strings.HasPrefix(res.Header().Get("Content-Type"), "application/json") {
		if err := json.Unmarshal(res.Body.Bytes(), &out); err != nil {
			b.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return res, out
}

// apiRouter is a router over api/openapi.yaml, loaded once for the test
// binary: loading it for every request was most of these tests' time.
var apiRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI())
	if err != nil {
		return nil, fmt.Errorf("loading api/openapi.yaml: %w", err)
	}
	return legacy.NewRouter(doc)
})

// checkAnswer fails the test when an answer is not one api/openapi.yaml
// allows.
func checkAnswer(t *testing.T, req *http.Request, res *httptest.ResponseRecorder) {
	t.Helper()
	rt, err := apiRouter()
	if err != nil {
		t.Fatal(err)
	}
	route, params, err := rt.FindRoute(req)
	if err != nil {
		return
	}
	if !strings.HasPrefix(res.Header().Get("Content-Type"), "application/json") {
		if route.Operation.Responses.Status(res.Code) == nil {
			t.Errorf("%s %s answered %d, which api/openapi.yaml does not list", req.Method, req.URL.Path, res.Code)
		}
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.Code, Header: res.Header(), Body: io.NopCloser(bytes.NewReader(res.Body.Bytes())),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("%s %s answered %d, which api/openapi.yaml does not allow: %v\n%s", req.Method, req.URL.Path, res.Code, err, res.Body)
	}
}

// at walks a decoded answer along a dotted path ("hotspot.ssid").
func at(v any, path string) any {
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestNetworkRoutes(t *testing.T) {
	home := nmtest.AP{SSID: "Home", Security: "WPA2", Password: "homepass99", Signal: 80}
	tests := []struct {
		name   string
		noNM   bool                         // no NetworkManager on this machine
		setup  func(nm *nmtest.NM)          // before the request
		method string                       // of the request
		path   string                       // of the request
		body   any                          // of the request
		status int                          // wanted
		want   map[string]any               // dotted path → value in the answer
		check  func(*testing.T, *nmtest.NM) // the stand-in afterwards
		ctype  string                       // the answer's type, when not JSON
	}{
		{
			name: "the state: hotspot with its password and QR text, Ethernet, internet, capability",
			setup: func(nm *nmtest.NM) {
				nm.Ethernet, nm.Connectivity, nm.Country, nm.IWPhy = "unavailable", "limited", "FR", nmtest.APAndClient
			},
			method: "GET", path: "/api/admin/network", status: 200,
			want: map[string]any{"available": true, "hotspot.ssid": "Party", "hotspot.password": "letmein123",
				"hotspot.hasPassword": true, "hotspot.channel": 6.0, "hotspot.country": "FR", "hotspot.on": true,
				"hotspot.active": true, "hotspot.qrText": "WIFI:T:WPA;S:Party;P:letmein123;;",
				"ethernet.device": "eth0", "ethernet.connected": false, "internet": "limited",
				"capability.hotspot": "follows", "fallbackSeconds": 120.0, "home": nil, "lastDelivered.mail": nil},
		},
		{
			name: "a radio iw cannot read: unknown", method: "GET", path: "/api/admin/network", status: 200,
			want: map[string]any{"capability.hotspot": "unknown", "ethernet": nil, "internet": "none"},
		},
		{
			name: "no NetworkManager: available false, not a failure", noNM: true,
			method: "GET", path: "/api/admin/network", status: 200,
			want: map[string]any{"available": false, "hotspot": nil, "internet": "unknown", "fallbackSeconds": 120.0},
		},
		{
			name: "NetworkManager stopped: available false", setup: func(nm *nmtest.NM) { nm.Stopped = true },
			method: "GET", path: "/api/admin/network", status: 200, want: map[string]any{"available": false},
		},
		{
			name:   "changing the hotspot: name, password, channel, country, off",
			method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "Anna & Ben", "password": "newpass123", "channel": 11, "country": "it", "on": false},
			status: 200,
			want: map[string]any{"hotspot.ssid": "Anna & Ben", "hotspot.password": "newpass123", "hotspot.channel": 11.0,
				"hotspot.country": "IT", "hotspot.on": false, "hotspot.active": false},
			check: func(t *testing.T, nm *nmtest.NM) {
				if nm.IsActive(netsetup.DefaultConnection) {
					t.Error("the hotspot is still up after it was switched off")
				}
				if !contains(nm.Calls(), "systemctl start eventbox-wifi-country@IT.service") {
					t.Errorf("the country was not set through its unit: %q", nm.Calls())
				}
			},
		},
		{
			name: "an open hotspot, the country kept", setup: func(nm *nmtest.NM) { nm.Country = "FR" },
			method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "Party", "password": "", "channel": 6, "country": "FR", "on": true},
			status: 200,
			want:   map[string]any{"hotspot.hasPassword": false, "hotspot.qrText": "WIFI:T:nopass;S:Party;;", "hotspot.on": true, "hotspot.active": true},
			check: func(t *testing.T, nm *nmtest.NM) {
				for _, c := range nm.Calls() {
					if strings.HasPrefix(c, "systemctl") {
						t.Errorf("the same country was set again: %q", c)
					}
				}
			},
		},
		{
			name: "a box without a hotspot gets one", setup: func(nm *nmtest.NM) { nm.Hotspot = nil; delete(nm.Active, netsetup.DefaultConnection) },
			method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "Party", "password": "letmein123", "channel": 1, "country": "", "on": true},
			status: 200, want: map[string]any{"hotspot.exists": true, "hotspot.active": true, "hotspot.channel": 1.0},
		},
		{
			name: "bad hotspot fields, each named", method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "", "password": "short", "channel": 14, "country": "France", "on": true},
			status: 400,
			want: map[string]any{"error": "bad_request", "details.ssid": "must be 1 to 32 bytes",
				"details.password": "must be 8 to 63 printable ASCII characters, or empty for an open network",
				"details.channel":  "must be a 2.4 GHz channel from 1 to 13",
				"details.country":  "must be a two-letter country code such as FR, or empty to keep it"},
			check: func(t *testing.T, nm *nmtest.NM) {
				if c := nm.Calls(); len(c) != 0 {
					t.Errorf("NetworkManager was asked %q for a refused change", c)
				}
			},
		},
		{
			name: "a missing field", method: "PUT", path: "/api/admin/network/hotspot",
			body: map[string]any{"ssid": "Party", "channel": 6, "country": "", "on": true}, status: 400,
			want: map[string]any{"details.password": "is required"},
		},
		{
			name: "an unknown field", method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "Party", "password": "", "channel": 6, "country": "", "on": true, "band": "a"},
			status: 400, want: map[string]any{"error": "bad_request"},
		},
		{
			name: "NetworkManager refuses the change: 502 in its words",
			setup: func(nm *nmtest.NM) {
				nm.Fail["nmcli connection modify eventbox-hotspot 802-11-wireless.ssid*"] = "Error: not authorized to modify system connections"
			},
			method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "Party", "password": "letmein123", "channel": 6, "country": "", "on": true},
			status: 502, want: map[string]any{"error": "network_failed"},
		},
		{
			name: "changing the hotspot without NetworkManager: 503", noNM: true,
			method: "PUT", path: "/api/admin/network/hotspot",
			body:   map[string]any{"ssid": "Party", "password": "letmein123", "channel": 6, "country": "", "on": true},
			status: 503, want: map[string]any{"error": "unavailable"},
		},
		{
			name:   "the networks in range, strongest first",
			setup:  func(nm *nmtest.NM) { nm.InRange = []nmtest.AP{{SSID: "Café", Signal: 40}, home} },
			method: "GET", path: "/api/admin/network/wifi", status: 200,
			want: map[string]any{"networks": []any{
				map[string]any{"ssid": "Home", "signal": 80.0, "security": "WPA2", "open": false, "inUse": false},
				map[string]any{"ssid": "Café", "signal": 40.0, "security": "", "open": true, "inUse": false}}},
		},
		{
			name: "scanning without NetworkManager: 503", noNM: true,
			method: "GET", path: "/api/admin/network/wifi", status: 503, want: map[string]any{"error": "unavailable"},
		},
		{
			name:   "joining answers 202 at once",
			setup:  func(nm *nmtest.NM) { nm.InRange = []nmtest.AP{home} },
			method: "POST", path: "/api/admin/network/wifi/join", body: map[string]any{"ssid": "Home", "password": "homepass99"},
			status: 202, want: map[string]any{"ssid": "Home", "fallbackSeconds": 120.0},
		},
		{
			name: "a join with a bad password length", method: "POST", path: "/api/admin/network/wifi/join",
			body: map[string]any{"ssid": "Home", "password": "short"}, status: 400,
			want: map[string]any{"details.password": "must be 8 to 63 printable ASCII characters (or 64 hex digits), or empty for an open network"},
		},
		{
			name: "a join without NetworkManager: 503", noNM: true, method: "POST", path: "/api/admin/network/wifi/join",
			body: map[string]any{"ssid": "Home", "password": ""}, status: 503, want: map[string]any{"error": "unavailable"},
		},
		{
			name: "back to the hotspot by hand", setup: func(nm *nmtest.NM) {
				delete(nm.Active, netsetup.DefaultConnection)
				nm.Active[netsetup.DefaultHomeConnection] = "activated"
			},
			method: "POST", path: "/api/admin/network/hotspot/back", status: 200, want: map[string]any{"ok": true},
			check: func(t *testing.T, nm *nmtest.NM) {
				if !nm.IsActive(netsetup.DefaultConnection) || nm.IsActive(netsetup.DefaultHomeConnection) {
					t.Errorf("after going back: hotspot up %v, home up %v", nm.IsActive(netsetup.DefaultConnection), nm.IsActive(netsetup.DefaultHomeConnection))
				}
			},
		},
		{
			name: "the hotspot's QR code", method: "GET", path: "/api/admin/network/qr", status: 200,
			ctype: "image/svg+xml",
		},
		{
			name: "no QR code without a hotspot", setup: func(nm *nmtest.NM) { nm.Hotspot = nil },
			method: "GET", path: "/api/admin/network/qr", status: 404, want: map[string]any{"error": "not_found"},
		},
	}
	nm := nmtest.New()
	withNM, withoutNM := newBox(t, nm), newBox(t, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := withNM
			if tc.noNM {
				b = withoutNM
			}
			b.t = t
			nm.Reset()
			if tc.setup != nil {
				nm.Lock(tc.setup)
			}
			res, got := b.do(tc.method, tc.path, tc.body)
			if res.Code != tc.status {
				t.Fatalf("%s %s answered %d, want %d: %s", tc.method, tc.path, res.Code, tc.status, res.Body)
			}
			if tc.ctype != "" && (res.Header().Get("Content-Type") != tc.ctype || !bytes.Contains(res.Body.Bytes(), []byte("<svg"))) {
				t.Errorf("answered %q: %.80s", res.Header().Get("Content-Type"), res.Body)
			}
			for path, want := range tc.want {
				g, _ := json.Marshal(at(got, path))
				w, _ := json.Marshal(want)
				if string(g) != string(w) {
					t.Errorf("%s = %s, want %s", path, g, w)
				}
			}
			if tc.check != nil {
				tc.check(t, nm)
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestLastDeliveries: the state says when the latest mail, webhook
// delivery and export got through: the last done job of each kind, not a
// failed or waiting one.
func TestLastDeliveries(t *testing.T) {
	b := newBox(t, nil)
	ctx := context.Background()
	finish := func(kind string, outcome store.Outcome) int64 {
		t.Helper()
		if _, err := b.st.Jobs().Enqueue(ctx, store.JobSpec{Kind: kind}); err != nil {
			t.Fatal(err)
		}
		c, err := b.st.Jobs().Claim(ctx, kind, store.JobLimits{MaxFailures: 1})
		if err != nil || !c.Claimed {
			t.Fatalf("claiming a %s job: %v %+v", kind, err, c)
		}
		j, err := b.st.Jobs().Finish(ctx, c.Job.ID, c.Job.Tries, store.JobEnd{Outcome: outcome}, store.JobLimits{MaxFailures: 1})
		if err != nil {
			t.Fatal(err)
		}
		return j.FinishedAt
	}
	mailAt := finish(store.MailJobKind, store.OutcomeOK)
	finish(store.MailJobKind, store.OutcomePermanent)
	exportAt := finish(store.ExportJobKind, store.OutcomeOK)
	if _, err := b.st.Jobs().Enqueue(ctx, store.JobSpec{Kind: "webhook"}); err != nil {
		t.Fatal(err)
	}
	_, got := b.do("GET", "/api/admin/network", nil)
	want := map[string]any{"mail": float64(mailAt), "webhook": nil, "export": float64(exportAt)}
	for k, w := range want {
		if g := at(got, "lastDelivered."+k); g != w {
			t.Errorf("lastDelivered.%s = %v, want %v", k, g, w)
		}
	}
}

// meeting is the Network screen's NetworkManager stand-in with a meeting
// point: while armed, a call whose command starts with one of prefixes
// waits until want such calls are in flight at once, or a second has
// passed (calls made one after another never meet).
type meeting struct {
	*nmtest.NM
	prefixes []string
	want     int

	mu     sync.Mutex
	armed  bool
	n      int
	met    chan struct{}
	apart  int // calls that waited out the second alone
	joined int // calls that met the others
}

func (m *meeting) Run(ctx context.Context, name string, args ...string) ([]byte, error) {
	cmd := strings.Join(append([]string{name}, args...), " ")
	m.mu.Lock()
	hold := false
	for _, p := range m.prefixes {
		hold = hold || (m.armed && strings.HasPrefix(cmd, p))
	}
	if hold {
		if m.n++; m.n == m.want {
			close(m.met)
		}
	}
	m.mu.Unlock()
	if hold {
		t := time.NewTimer(time.Second)
		select {
		case <-m.met:
			m.mu.Lock()
			m.joined++
			m.mu.Unlock()
		case <-t.C:
			m.mu.Lock()
			m.apart++
			m.mu.Unlock()
		}
		t.Stop()
		m.mu.Lock()
		m.n--
		m.mu.Unlock()
	}
	return m.NM.Run(ctx, name, args...)
}

// TestStateReadsSideBySide asks the Network screen while NetworkManager's
// connectivity check and the radio's capability (two of the screen's
// independent reads, each a process on the box) must be in flight at
// once to answer: read one after another, each waits alone.
func TestStateReadsSideBySide(t *testing.T) {
	nm := nmtest.New()
	nm.Ethernet, nm.Connectivity, nm.IWPhy = "connected", "none", nmtest.APAndClient
	m := &meeting{NM: nm, prefixes: []string{"nmcli networking connectivity", "iw dev wlan0 info"}, want: 2, met: make(chan struct{})}
	b := newBox(t, nm, func(c *daemon.Config) { c.NetworkRunner = m })
	m.mu.Lock()
	m.armed = true
	m.mu.Unlock()
	res, body := b.do("GET", "/api/admin/network", nil)
	if res.Code != http.StatusOK {
		t.Fatalf("GET /api/admin/network answered %d: %s", res.Code, res.Body)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.joined != 2 || m.apart != 0 {
		t.Errorf("the connectivity check and the capability: %d met in flight, %d waited alone; want 2 and 0", m.joined, m.apart)
	}
	if got := at(body, "internet"); got != "none" {
		t.Errorf("internet = %v, want none", got)
	}
	if got := at(body, "capability.hotspot"); got == nil || got == "unknown" {
		t.Errorf("capability.hotspot = %v, want the radio's", got)
	}
}
