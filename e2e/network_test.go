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
// hotspot on one channel, two networks in range, and 7 phones on a
// Raspberry Pi's own radio (the CYW43455 on its standard firmware).
func networkBox(t *testing.T) (*box, *nmtest.NM) {
	t.Helper()
	return radioNetworkBox(t, nmtest.Uevent43455, nmtest.Ethtool43455Standard)
}

// radioNetworkBox is networkBox on the radio of uevent and ethtool.
func radioNetworkBox(t *testing.T, uevent, ethtool string) (*box, *nmtest.NM) {
	t.Helper()
	nm := nmtest.New()
	nm.Ethernet, nm.Country, nm.IWPhy = "unavailable", "FR", nmtest.APAndClient
	nm.InRange = []nmtest.AP{
		{SSID: "Maison", Security: "WPA2", Password: "homepass99", Signal: 78},
		{SSID: "Café du coin", Signal: 35},
	}
	nm.Stations, nm.Ethtool = 7, ethtool
	sys := t.TempDir()
	if err := nmtest.WriteUevent(sys, uevent); err != nil {
		t.Fatal(err)
	}
	return startBox(t, func(c *daemon.Config) { c.NetworkRunner, c.SysRoot = nm, sys }), nm
}

// TestNetworkScreenPhones: on a phone, in English and French, the owner
// reads how many phones are on the Wi-Fi of about how many the radio
// holds, that it is nearly full, and the hint about the minimal firmware;
// a radio without a published figure says so; the owner's own figure
// replaces the table's.
func TestNetworkScreenPhones(t *testing.T) {
	t.Parallel()
	box, _ := networkBox(t)
	for _, c := range []struct{ lang, phones, full, hint string }{
		{"en-US", "Phones on the Wi-Fi: 7 of about 8", "The Wi-Fi is nearly full: more guests cannot join until some leave.", "minimal firmware holds about 19–20 phones"},
		{"fr-FR", "Téléphones sur le Wi-Fi\u00a0: 7 sur 8 environ", "Le Wi-Fi est presque plein\u00a0: d’autres invités ne pourront s’y connecter que quand certains partiront.", "accepte environ 19 à 20 téléphones"},
	} {
		b := newBrowserAt(t, c.lang, phoneWidth, phoneHeight)
		b.signIn(t, box.URL)
		b.do(t, "opening the Network screen", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#net-phones`)))
		b.waitText(t, "#net-phones", c.phones)
		b.waitText(t, "#net-phones-full", c.full)
		b.waitText(t, "#net-phones-hint", c.hint)
		b.waitText(t, "#net-radio", "CYW43455 (brcmfmac)")
		var wide bool
		b.eval(t, `document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)
		if wide {
			t.Errorf("%s: the Network screen is wider than the phone", c.lang)
		}
	}

	b := newBrowser(t)
	b.signIn(t, box.URL)
	b.do(t, "giving the figure by hand", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#net-phones`)),
		click(`#phones-figure summary`),
		fill(`#phones-form [name=capacity]`, "30"), click(`#phones-form [type=submit]`))
	b.waitText(t, "#net-phones", "Phones on the Wi-Fi: 7 of about 30")
	var banner bool
	b.eval(t, `!!document.querySelector('#net-phones-full')`, &banner)
	if banner {
		t.Error("7 phones of about 30: the screen still says the Wi-Fi is nearly full")
	}

	t.Run("unknown radio", func(t *testing.T) {
		usb, _ := radioNetworkBox(t, nmtest.UeventUSB, nmtest.EthtoolUSB)
		b := newBrowser(t)
		b.signIn(t, usb.URL)
		b.do(t, "opening the Network screen", chromedp.Navigate(usb.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#net-phones`)))
		b.waitText(t, "#net-phones", "7 phones on the Wi-Fi; how many the radio holds is unknown.")
		b.waitText(t, "#net-radio", "Radio: mt76x2u")
		var extra bool
		b.eval(t, `!!document.querySelector('#net-phones-full, #net-phones-hint')`, &extra)
		if extra {
			t.Error("an unknown radio: the screen says it is nearly full, or hints at the Pi's firmware")
		}
	})
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
