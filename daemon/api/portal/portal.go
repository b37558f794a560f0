package portal

import (
	"html"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// probe names one known connectivity check. An empty host matches any host
// (some vendors send the same path to their own hosts); an empty path
// matches every path on the host.
type probe struct {
	host string
	path string
}

// probes lists the connectivity checks of iOS/macOS, Android, Windows,
// Firefox and Linux desktops. It is read-only.
var probes = []probe{
	// Apple: hotspot-detect.html, and random paths on the same hosts.
	{host: "captive.apple.com"},
	{host: "www.apple.com", path: "/library/test/success.html"},
	{host: "www.appleiphonecell.com"},
	{host: "www.itools.info"},
	{host: "www.ibook.info"},
	{host: "www.airport.us"},
	{host: "www.thinkdifferent.us"},
	{path: "/hotspot-detect.html"},
	// Android (AOSP and vendors that reuse the path on their own hosts).
	{path: "/generate_204"},
	{path: "/gen_204"},
	{host: "connectivitycheck.gstatic.com"},
	{host: "connectivitycheck.android.com"},
	// Windows NCSI.
	{host: "www.msftconnecttest.com"},
	{host: "ipv6.msftconnecttest.com"},
	{host: "www.msftncsi.com"},
	{path: "/connecttest.txt"},
	{path: "/ncsi.txt"},
	// Firefox.
	{host: "detectportal.firefox.com"},
	// Linux desktops (NetworkManager, GNOME, Ubuntu, Debian).
	{host: "nmcheck.gnome.org"},
	{host: "network-test.debian.org"},
	{host: "connectivity-check.ubuntu.com"},
	{host: "fedoraproject.org", path: "/static/hotspot.txt"},
}

// IsProbe reports whether r is a captive-portal connectivity check: a GET or
// HEAD whose host (without port, case-insensitive) and path match one of the
// known probes of iOS/macOS, Android, Windows, Firefox or Linux desktops.
func IsProbe(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	host := probeHost(r)
	for _, p := range probes {
		if p.host != "" && p.host != host {
			continue
		}
		if p.path != "" && p.path != r.URL.Path {
			continue
		}
		return true
	}
	return false
}

// Middleware answers captive-portal probes (see IsProbe) with a redirect and
// passes every other request to next untouched.
//
// target names the page the probing device should open: an absolute URL
// such as "http://10.42.0.1/e/abc", or a path such as "/e/abc" or "/" (the
// chooser). A path is made absolute with the address the request arrived on
// (http.LocalAddrContextKey), because the probe's Host header names Apple or
// Google, not the box. target may be nil, meaning "/"; it is called only for
// probes, must be safe for concurrent use, and must not block for long.
//
// The answer is 302 with Location, Cache-Control: no-store and a short HTML
// body with a link (some OSes ignore an empty body). No cookie is set and
// nothing about the device is kept. next must not be nil.
func Middleware(target func(r *http.Request) string, next http.Handler) http.Handler {
	toPortal := Redirect(target)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !IsProbe(r) {
			next.ServeHTTP(w, r)
			return
		}
		toPortal.ServeHTTP(w, r)
	})
}

// Redirect answers every request with the redirect Middleware gives a
// probe: 302 to target, made absolute on the address the request arrived
// on. The daemon also sends it for pages asked under a Host that is not
// the box's own (docs/design.md, "The box's own names"). target is as for
// Middleware.
func Redirect(target func(r *http.Request) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		dest := "/"
		if target != nil {
			if t := target(r); t != "" {
				dest = t
			}
		}
		redirect(w, r, absolute(r, dest))
	})
}

// redirect writes the 302 answer to a probe.
func redirect(w http.ResponseWriter, r *http.Request, location string) {
	h := w.Header()
	h.Set("Location", location)
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusFound)
	if r.Method == http.MethodHead {
		return
	}
	link := html.EscapeString(location)
	_, _ = w.Write([]byte("<!DOCTYPE html><html><head><title>eventbox</title></head><body>" +
		`<a href="` + link + `">Continue to the event</a></body></html>` + "\n"))
}

// absolute turns dest into an absolute http URL on the box's own address.
// An absolute dest, or a request without a local address, is returned as it
// is (a path then resolves against the probe's host, which the hotspot's
// DNS also points at the box).
func absolute(r *http.Request, dest string) string {
	if u, err := url.Parse(dest); err == nil && u.IsAbs() {
		return dest
	}
	if !strings.HasPrefix(dest, "/") {
		dest = "/" + dest
	}
	addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || addr == nil {
		return dest
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return dest
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return dest
	}
	if i := strings.IndexByte(host, '%'); i >= 0 {
		// A link-local zone means nothing to the client.
		host = host[:i]
	}
	if port != "80" {
		host = net.JoinHostPort(host, port)
	} else if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return "http://" + host + dest
}
