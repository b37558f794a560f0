package portal_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/api/portal"
)

// passThrough is the next handler: it answers 299 so a test can tell that
// the request went through.
var passThrough = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.WriteHeader(299)
})

// withLocalAddr returns r as the server would hand it over when the
// connection arrived on addr.
func withLocalAddr(r *http.Request, addr string) *http.Request {
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		panic(err)
	}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tcp))
}

func TestMiddlewareRedirectsTheProbesOfEachOS(t *testing.T) {
	tests := []struct {
		name string
		url  string
	}{
		{"iOS and macOS hotspot-detect", "http://captive.apple.com/hotspot-detect.html"},
		{"iOS random path on captive.apple.com", "http://captive.apple.com/Ab3x/9zQk/success.html"},
		{"older macOS success page", "http://www.apple.com/library/test/success.html"},
		{"Android gstatic generate_204", "http://connectivitycheck.gstatic.com/generate_204"},
		{"Android clients3 generate_204", "http://clients3.google.com/generate_204"},
		{"Android www.google.com gen_204", "http://www.google.com/gen_204"},
		{"Android play.googleapis.com generate_204", "http://play.googleapis.com/generate_204"},
		{"Android vendor host with the AOSP path", "http://connect.rom.miui.com/generate_204"},
		{"Windows connecttest", "http://www.msftconnecttest.com/connecttest.txt"},
		{"Windows browser after the redirect", "http://www.msftconnecttest.com/redirect"},
		{"Windows over IPv6", "http://ipv6.msftconnecttest.com/connecttest.txt"},
		{"older Windows ncsi", "http://www.msftncsi.com/ncsi.txt"},
		{"Firefox canonical", "http://detectportal.firefox.com/canonical.html"},
		{"older Firefox success.txt", "http://detectportal.firefox.com/success.txt"},
		{"GNOME NetworkManager", "http://nmcheck.gnome.org/check_network_status.txt"},
		{"Debian NetworkManager", "http://network-test.debian.org/nm"},
		{"Ubuntu", "http://connectivity-check.ubuntu.com/"},
		{"host with upper case and a port", "http://Captive.Apple.COM:80/hotspot-detect.html"},
	}
	h := portal.Middleware(func(*http.Request) string { return "/e/abc" }, passThrough)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := withLocalAddr(httptest.NewRequest(http.MethodGet, tc.url, nil), "10.42.0.1:80")
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			res := w.Result()
			if res.StatusCode != http.StatusFound {
				t.Fatalf("status = %d, want 302", res.StatusCode)
			}
			if got := res.Header.Get("Location"); got != "http://10.42.0.1/e/abc" {
				t.Errorf("Location = %q, want http://10.42.0.1/e/abc", got)
			}
			if got := res.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q, want no-store", got)
			}
			if got := res.Header.Values("Set-Cookie"); len(got) != 0 {
				t.Errorf("Set-Cookie = %q, want none", got)
			}
			body, _ := io.ReadAll(res.Body)
			if !strings.Contains(string(body), `href="http://10.42.0.1/e/abc"`) {
				t.Errorf("body = %q, want a link to the target", body)
			}
		})
	}
}

func TestMiddlewarePassesOtherRequestsUntouched(t *testing.T) {
	tests := []struct {
		name, method, url string
	}{
		{"the box's own home page", http.MethodGet, "http://10.42.0.1/"},
		{"a guest page", http.MethodGet, "http://eventbox.local/e/abc"},
		{"an API call", http.MethodGet, "http://10.42.0.1/api/health"},
		{"a POST to a probe path", http.MethodPost, "http://connectivitycheck.gstatic.com/generate_204"},
		{"another path on apple.com", http.MethodGet, "http://www.apple.com/iphone/"},
		{"success.txt on another host", http.MethodGet, "http://10.42.0.1/success.txt"},
	}
	called := false
	h := portal.Middleware(func(*http.Request) string { called = true; return "/" }, passThrough)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.url, nil))
			if w.Code != 299 {
				t.Fatalf("status = %d, want the next handler's 299", w.Code)
			}
			if called {
				t.Error("target was called for a request that is not a probe")
			}
		})
	}
}

func TestMiddlewareBuildsTheLocationFromTheTarget(t *testing.T) {
	tests := []struct {
		name      string
		target    func(*http.Request) string
		localAddr string
		want      string
	}{
		{"a path on port 80 gives the bare address", fixed("/e/abc"), "10.42.0.1:80", "http://10.42.0.1/e/abc"},
		{"the chooser", fixed("/"), "10.42.0.1:80", "http://10.42.0.1/"},
		{"a nil target means the chooser", nil, "10.42.0.1:80", "http://10.42.0.1/"},
		{"an empty target means the chooser", fixed(""), "10.42.0.1:80", "http://10.42.0.1/"},
		{"another port is kept", fixed("/e/abc"), "192.168.1.20:8080", "http://192.168.1.20:8080/e/abc"},
		{"IPv6 is bracketed", fixed("/e/abc"), "[fd00::1]:80", "http://[fd00::1]/e/abc"},
		{"an absolute URL is used as it is", fixed("http://eventbox.local/e/abc"), "10.42.0.1:80", "http://eventbox.local/e/abc"},
		{"no local address leaves the path", fixed("/e/abc"), "", "/e/abc"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "http://captive.apple.com/hotspot-detect.html", nil)
			if tc.localAddr != "" {
				r = withLocalAddr(r, tc.localAddr)
			}
			w := httptest.NewRecorder()
			portal.Middleware(tc.target, passThrough).ServeHTTP(w, r)
			if got := w.Header().Get("Location"); got != tc.want {
				t.Errorf("Location = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestMiddlewareAnswersHEADWithoutABody(t *testing.T) {
	r := withLocalAddr(httptest.NewRequest(http.MethodHead, "http://www.msftconnecttest.com/connecttest.txt", nil), "10.42.0.1:80")
	w := httptest.NewRecorder()
	portal.Middleware(fixed("/"), passThrough).ServeHTTP(w, r)
	if w.Code != http.StatusFound || w.Body.Len() != 0 {
		t.Errorf("got %d with %d body bytes, want 302 without a body", w.Code, w.Body.Len())
	}
}

func TestMiddlewareOnARealServerUsesTheAddressTheProbeArrivedOn(t *testing.T) {
	srv := httptest.NewServer(portal.Middleware(fixed("/e/abc"), passThrough))
	defer srv.Close()
	client := &http.Client{
		Timeout:       5 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequest(http.MethodGet, srv.URL+"/hotspot-detect.html", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = "captive.apple.com"
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if want := srv.URL + "/e/abc"; res.Header.Get("Location") != want {
		t.Errorf("Location = %q, want %q", res.Header.Get("Location"), want)
	}
}

func fixed(s string) func(*http.Request) string {
	return func(*http.Request) string { return s }
}
