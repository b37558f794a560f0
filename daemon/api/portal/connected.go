package portal

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// appleSuccess is the page Apple's probes get from the internet.
const appleSuccess = "<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"

// firefoxCanonical is what detectportal.firefox.com/canonical.html holds.
const firefoxCanonical = `<meta http-equiv="refresh" content="0;url=https://support.mozilla.org/kb/captive-portal"/>`

// success is the answer a probe expects when the device is online.
type success struct {
	status      int
	contentType string
	body        string
}

// successFor is the "online" answer to the probe r (IsProbe(r) holds): the
// page, text or empty 204 each OS compares with what it expects.
func successFor(r *http.Request) success {
	host := probeHost(r)
	path := r.URL.Path
	text := func(s string) success { return success{http.StatusOK, "text/plain", s} }
	switch {
	case path == "/generate_204" || path == "/gen_204" || strings.HasPrefix(host, "connectivitycheck."):
		return success{status: http.StatusNoContent}
	case path == "/connecttest.txt" || strings.HasSuffix(host, "msftconnecttest.com"):
		return text("Microsoft Connect Test")
	case path == "/ncsi.txt" || host == "www.msftncsi.com":
		return text("Microsoft NCSI")
	case host == "detectportal.firefox.com" && path == "/canonical.html":
		return success{http.StatusOK, "text/html", firefoxCanonical}
	case host == "detectportal.firefox.com":
		return text("success\n")
	case host == "nmcheck.gnome.org" || host == "network-test.debian.org":
		return text("NetworkManager is online\n")
	case host == "connectivity-check.ubuntu.com":
		return success{status: http.StatusNoContent}
	case host == "fedoraproject.org":
		return text("OK\n")
	}
	// Apple's hosts and paths, and /hotspot-detect.html anywhere.
	return success{http.StatusOK, "text/html", appleSuccess}
}

// writeConnected writes the "online" answer to the probe r.
func writeConnected(w http.ResponseWriter, r *http.Request) {
	s := successFor(r)
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	if s.status == http.StatusNoContent {
		w.WriteHeader(s.status)
		return
	}
	h.Set("Content-Type", s.contentType+"; charset=utf-8")
	w.WriteHeader(s.status)
	if r.Method != http.MethodHead {
		_, _ = w.Write([]byte(s.body))
	}
}

// Connected answers the connectivity probes (IsProbe) of a device whose
// address went through the portal page (passes) as the internet would, so
// that the device keeps the Wi-Fi and shows no sign-in sheet, and passes
// every other request to next untouched. next must not be nil.
func Connected(passes *Passes, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if IsProbe(r) {
			if addr, ok := clientAddr(r); ok && passes.Has(addr) {
				writeConnected(w, r)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// SeenRequest carries the pass of r's peer (Passes.Seen) when r is a page
// or API call the box answers as itself, not a probe: the daemon calls it
// for requests under the box's own names only, so that an app's background
// request to another site, which the hotspot's DNS also sends to the box,
// does not keep a phone that is done with the box on its Wi-Fi.
func (p *Passes) SeenRequest(r *http.Request) {
	if IsProbe(r) {
		return
	}
	if addr, ok := clientAddr(r); ok {
		p.Seen(addr)
	}
}

// clientAddr is the address of the request's peer (RemoteAddr only: a
// forwarded-for header is the client's to invent).
func clientAddr(r *http.Request) (netip.Addr, bool) {
	host := r.RemoteAddr
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	a, err := netip.ParseAddr(strings.Trim(host, "[]"))
	if err != nil {
		return netip.Addr{}, false
	}
	return a.WithZone("").Unmap(), true
}

// miniBrowserMarks are pieces of the user agents of the captive-portal
// mini-browsers and of the probes that open them: Apple's probe daemon
// ("CaptiveNetworkSupport-… wispr"), Windows' NCSI ("Microsoft NCSI"),
// and Android's captive portal login, a WebView ("; wv)").
var miniBrowserMarks = []string{"captivenetworksupport", "wispr", "microsoft ncsi", "; wv)"}

// InMiniBrowser reports whether r comes from a captive-portal mini-browser
// or the probe that opens one: a probe itself (the sheet loads the probe's
// address first), a user agent of the marks above, or Apple's web sheet
// (Apple WebKit on an iPhone, iPad or Mac that does not call itself
// Safari, as the Captive Network Assistant does not).
func InMiniBrowser(r *http.Request) bool {
	if IsProbe(r) {
		return true
	}
	ua := strings.ToLower(r.UserAgent())
	for _, m := range miniBrowserMarks {
		if strings.Contains(ua, m) {
			return true
		}
	}
	apple := strings.Contains(ua, "iphone") || strings.Contains(ua, "ipad") || strings.Contains(ua, "macintosh")
	return apple && strings.Contains(ua, "applewebkit/") && !strings.Contains(ua, "safari/")
}

// probeHost is r's host, lower-case, without port or final dot.
func probeHost(r *http.Request) string {
	host := strings.ToLower(r.Host)
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	return strings.TrimSuffix(host, ".")
}
