package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
)

// networkBox is a box whose NetworkManager is the stand-in: on its
// hotspot "Party", Ethernet without a cable, a radio that keeps the
// hotspot on one channel, two networks in range.
func networkBox(t *testing.T) (*box, *nmtest.NM) {
	t.Helper()
	nm := nmtest.New()
	nm.Ethernet, nm.Country, nm.IWPhy = "unavailable", "FR", nmtest.APAndClient
	nm.InRange = []nmtest.AP{
		{SSID: "Maison", Security: "WPA2", Password: "homepass99", Signal: 78},
		{SSID: "Café du coin", Signal: 35},
	}
	return startBox(t, func(c *daemon.Config) { c.NetworkRunner = nm }), nm
}

// TestNetworkScreen: on a phone, the owner sees the hotspot with its QR
// code, what the box will do with it once online and the fall-back's
// promise, picks the home network in range, gives its password, and is
// told the box is joining; NetworkManager gets the join. A machine
// without NetworkManager says so instead of failing.
func TestNetworkScreen(t *testing.T) {
	t.Parallel()
	box, nm := networkBox(t)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	b.do(t, "opening the Network screen", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#hotspot-form`)))
	var ssid, pass string
	b.eval(t, `document.querySelector('#hotspot-form [name=ssid]').value`, &ssid)
	b.eval(t, `document.querySelector('#hotspot-form [name=password]').value`, &pass)
	if ssid != "Party" || pass != "letmein123" {
		t.Errorf("the hotspot form shows %q / %q, want Party / letmein123", ssid, pass)
	}
	b.waitJS(t, "the QR code drawn", `(() => { const i = document.querySelector('#hotspot-qr'); return i && i.complete && i.naturalWidth > 0; })()`)
	b.waitText(t, "#net-capability", "on the home network's channel")
	b.waitText(t, "#net-fallback", "comes back on its hotspot within 2 minutes")
	b.waitText(t, "#net-ethernet", "No cable")
	b.waitText(t, "#net-last-mail", "never")
	var wide bool
	b.eval(t, `document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)
	if wide {
		t.Error("the Network screen is wider than the phone")
	}

	b.do(t, "looking for networks", click(`#wifi-scan`), chromedp.WaitVisible(chromedp.CSS(`#wifi-list [data-ssid="Maison"]`)))
	b.waitText(t, "#wifi-list", "Café du coin")
	b.do(t, "joining the home network", click(`#wifi-list [data-ssid="Maison"]`), chromedp.WaitVisible(chromedp.CSS(`#join-form [name=password]`)),
		fill(`#join-form [name=password]`, "homepass99"), click(`#join-form [type=submit]`), chromedp.WaitVisible(chromedp.CSS(`#join-sent`)))
	b.waitText(t, "#join-sent", "The box is joining Maison")
	b.waitJS(t, "the box on the home Wi-Fi", `fetch('/api/admin/network').then(r => r.json()).then(s => s.home && s.home.connected && !s.home.joining)`)
	if home, psk, _ := nm.Home(); home != "Maison" || psk != "homepass99" {
		t.Errorf("NetworkManager holds %q / %q for the home Wi-Fi", home, psk)
	}

	b.do(t, "going back to the hotspot", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#hotspot-back`)), click(`#hotspot-back`))
	b.waitJS(t, "the hotspot back", `fetch('/api/admin/network').then(r => r.json()).then(s => s.hotspot.active && !s.home.watching)`)
	if !nm.IsActive(netsetup.DefaultConnection) {
		t.Error("the hotspot is not up after going back")
	}

	t.Run("no NetworkManager", func(t *testing.T) {
		plain := startBox(t)
		b := newBrowser(t)
		b.signIn(t, plain.URL)
		b.do(t, "opening the Network screen", chromedp.Navigate(plain.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#net-unavailable`)))
		b.waitText(t, "#net-unavailable", "Not available on this machine")
	})
}

// TestNetworkScreenShots saves the Network screen at phone, laptop and
// venue-screen sizes in English and French (run with -shots DIR).
func TestNetworkScreenShots(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	box, _ := networkBox(t)
	for _, lang := range []string{"en-US", "fr-FR"} {
		for _, size := range []struct {
			name          string
			width, height int
		}{{"phone", phoneWidth, phoneHeight}, {"laptop", 1366, 768}, {"venue", 1920, 1080}} {
			b := newBrowserAt(t, lang, size.width, size.height)
			b.signIn(t, box.URL)
			b.do(t, "opening the Network screen", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#hotspot-form`)))
			b.waitJS(t, "the QR code drawn", `(() => { const i = document.querySelector('#hotspot-qr'); return i && i.complete && i.naturalWidth > 0; })()`)
			code := strings.SplitN(lang, "-", 2)[0]
			b.shot(t, fmt.Sprintf("network-%s-%s", code, size.name))
			b.do(t, "looking for networks", click(`#wifi-scan`), chromedp.WaitVisible(chromedp.CSS(`#wifi-list li`)),
				click(`#wifi-list [data-ssid="Maison"]`), chromedp.WaitVisible(chromedp.CSS(`#join-form`)))
			b.eval(t, `document.querySelector('#join-form').scrollIntoView({block: 'center'}); true`, nil)
			b.shotScreen(t, fmt.Sprintf("network-%s-%s-join", code, size.name))
		}
	}
}
