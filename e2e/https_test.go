package e2e

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/cmd/eventbox/boxca"
	"eventbox/daemon"
)

// TestBoothCameraOverHTTPS: on the box's real name (eventbox.local, not a
// secure context over http) the booth page explains how to get the
// camera and links to HTTPS; over HTTPS, with the box's CA trusted by the
// browser (its SPKI), Chromium's fake camera shows.
func TestBoothCameraOverHTTPS(t *testing.T) {
	t.Parallel()
	tlsLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ca, _, err := boxca.Load(t.TempDir(), boxca.NamesFor("eventbox", net.ParseIP("10.42.0.1"), ""), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	box := startBoxWith(t, func(c *daemon.Config) {
		c.OwnHosts = []string{"eventbox.local"}
		c.HTTPSPort = tlsLn.Addr().(*net.TCPAddr).Port
		c.BoxCA = ca.CACertDER()
	})
	secure := httptest.NewUnstartedServer(box.Handler)
	secure.Listener.Close()
	secure.Listener = tlsLn
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{ca.Certificate()}}
	secure.StartTLS()
	t.Cleanup(func() { secure.CloseClientConnections(); secure.Close() })

	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Booth night", nil)
	var on struct {
		BoothKey string `json:"boothKey"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/booth", map[string]any{}, &on); st != http.StatusOK && st != http.StatusCreated {
		t.Fatalf("turning the booth on: status %d", st)
	}

	caCert, err := x509.ParseCertificate(ca.CACertDER())
	if err != nil {
		t.Fatal(err)
	}
	spki := sha256.Sum256(caCert.RawSubjectPublicKeyInfo)
	b := newBrowserFlags(t, "en-US", phoneWidth, phoneHeight, map[string]any{
		"host-resolver-rules":                 "MAP eventbox.local 127.0.0.1",
		"ignore-certificate-errors-spki-list": base64.StdEncoding.EncodeToString(spki[:]),
	})

	u, _ := url.Parse(box.URL)
	plain := fmt.Sprintf("http://eventbox.local:%s/e/%s?booth=%s", u.Port(), ev.Slug, on.BoothKey)
	b.do(t, "opening the booth link over plain http on the box's name",
		chromedp.Navigate(plain),
		chromedp.WaitVisible(chromedp.CSS(`#booth-https-link`)))
	b.waitText(t, "#booth-https", "no camera")
	// The help is readable: its text against its card's background is at
	// least WCAG AA's 4.5:1 (it was white on white inside the dark booth).
	var ratio float64
	b.eval(t, `(() => {
		const lum = (c) => { const v = c.match(/[\d.]+/g).slice(0, 3).map(Number).map((x) => { x /= 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; }); return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
		const el = document.querySelector('#booth-https'), p = el.querySelector('p, li') || el;
		const a = lum(getComputedStyle(p).color), bg = lum(getComputedStyle(el).backgroundColor);
		return (Math.max(a, bg) + 0.05) / (Math.min(a, bg) + 0.05);
	})()`, &ratio)
	if ratio < 4.5 {
		t.Fatalf("the booth's https help has a contrast of %.2f:1, under 4.5:1", ratio)
	}
	var link string
	b.eval(t, `document.querySelector('#booth-https-link').href`, &link)
	want := fmt.Sprintf("https://eventbox.local:%d/e/%s?booth=%s", tlsLn.Addr().(*net.TCPAddr).Port, ev.Slug, on.BoothKey)
	if link != want {
		t.Fatalf("https link %q, want %q", link, want)
	}
	var caLinks string
	b.eval(t, `[...document.querySelectorAll('#booth-https a')].map(a => a.getAttribute('href')).join(' ')`, &caLinks)
	if !strings.Contains(caLinks, "/ca.mobileconfig") || !strings.Contains(caLinks, "/ca.crt") {
		t.Fatalf("CA links: %q", caLinks)
	}
	b.do(t, "following the https link and starting the booth",
		click(`#booth-https-link`),
		chromedp.WaitVisible(chromedp.CSS(`#booth-start`)),
		click(`#booth-start`),
		chromedp.WaitVisible(chromedp.CSS(`.booth video`)))
	b.waitJS(t, "the camera shows over https", `(() => { const v = document.querySelector('.booth video'); return location.protocol === 'https:' && v && v.videoWidth > 0; })()`)

	// The CA downloads as a certificate and as an iOS profile.
	for path, ct := range map[string]string{"/ca.crt": "application/x-x509-ca-cert", "/ca.mobileconfig": "application/x-apple-aspen-config"} {
		res, err := http.Get(box.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != ct {
			t.Errorf("%s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
}
