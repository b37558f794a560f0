package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/netsetup"
	"eventbox/netsetup/nmtest"
)

// portsBox is a box with two Ethernet ports (eth0 at home, eth1 free), the
// built-in radio on its hotspot and a USB Wi-Fi adapter (wlan1), and four
// browsers seen from one address, as behind an access point in router mode.
func portsBox(t *testing.T) (*box, *nmtest.NM) {
	t.Helper()
	nm := nmtest.New()
	nm.Ethernet, nm.Country, nm.IWPhy = "connected", "FR", nmtest.APAndClient
	nm.Stations, nm.Ethtool = 7, nmtest.Ethtool43455Standard
	nm.Devices = []nmtest.Device{{Name: "eth1", Type: "ethernet"}, {Name: "wlan1", Type: "wifi"}}
	sys := t.TempDir()
	if err := nmtest.WriteUevent(sys, nmtest.Uevent43455); err != nil {
		t.Fatal(err)
	}
	usb := filepath.Join(sys, "sys/devices/platform/usb1/1-1/1-1:1.0")
	for _, d := range []string{usb, filepath.Join(sys, "sys/class/net/wlan1")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(sys, "sys/bus/usb"), filepath.Join(usb, "subsystem")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(usb, filepath.Join(sys, "sys/class/net/wlan1/device")); err != nil {
		t.Fatal(err)
	}
	bx := startBox(t, func(c *daemon.Config) { c.NetworkRunner, c.SysRoot = nm, sys })
	for i := range 4 {
		req, err := http.NewRequest("GET", bx.URL+"/", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("User-Agent", fmt.Sprintf("Mozilla/5.0 (Linux; Android 14; Phone %d) AppleWebKit/537.36 Chrome/125.0 Mobile Safari/537.36", i))
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	return bx, nm
}

// TestNetworkScreenRadiosAndPorts: on a phone, in English and French, the
// owner reads every radio and port with what it does and its phones, and
// the notice that several browsers come from one address; sets the second
// Ethernet port to guests' access points (asked first), and gives it back.
func TestNetworkScreenRadiosAndPorts(t *testing.T) {
	t.Parallel()
	box, nm := portsBox(t)
	for _, c := range []struct{ lang, usb, hotspot, home, phones, shared string }{
		{"en-US", "Wi-Fi radio on USB", "Hotspot", "Home internet", "Phones: 7", "Several phones come from one address (127.0.0.1: "},
		{"fr-FR", "Radio Wi-Fi en USB", "Point d'accès", "Internet de la maison", "Téléphones\u00a0: 7", "Plusieurs téléphones arrivent d’une même adresse (127.0.0.1\u00a0: "},
	} {
		b := newBrowserAt(t, c.lang, phoneWidth, phoneHeight)
		b.signIn(t, box.URL)
		b.do(t, "opening the Network screen", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#ports-card`)))
		b.waitText(t, `#net-ports [data-device="wlan1"]`, c.usb)
		b.waitText(t, `#net-ports [data-device="wlan0"]`, c.hotspot)
		b.waitText(t, `#net-ports [data-device="wlan0"]`, c.phones)
		b.waitText(t, `#net-ports [data-device="eth0"]`, c.home)
		b.waitText(t, `#net-shared`, c.shared)
		var wide bool
		b.eval(t, `document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)
		if wide {
			t.Errorf("%s: the Network screen is wider than the phone", c.lang)
		}
	}

	b := newBrowser(t)
	b.signIn(t, box.URL)
	b.do(t, "opening the Network screen", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#ports-form`)))
	b.eval(t, `(window.asked = '', window.confirm = (q) => { window.asked = q; return true; }, true)`, nil)
	b.eval(t, `(() => { const s = document.querySelector('#ports-form [name=guestPort]'); s.value = 'eth1'; return true; })()`, nil)
	b.do(t, "saving eth1 for guests", click(`#ports-form [type=submit]`))
	b.waitText(t, `#net-ports [data-device="eth1"]`, "Guests' access points")
	var asked string
	b.eval(t, `window.asked`, &asked)
	if !strings.Contains(asked, "eth1") {
		t.Errorf("the owner was asked %q, want a question naming eth1", asked)
	}
	if !nm.IsActive(netsetup.GuestPortConnection("eth1")) {
		t.Error("eth1's guests' connection is not up")
	}
	b.eval(t, `(() => { const s = document.querySelector('#ports-form [name=guestPort]'); s.value = ''; return true; })()`, nil)
	b.do(t, "giving every port back to the home internet", click(`#ports-form [type=submit]`))
	b.waitText(t, `#net-ports [data-device="eth1"]`, "Not used")
	if nm.IsActive(netsetup.GuestPortConnection("eth1")) {
		t.Error("eth1's guests' connection is still up")
	}
}

// TestNetworkPortsShots saves the Network screen's radios and ports at
// phone, laptop and venue-screen sizes in English and French (run with
// -shots DIR).
func TestNetworkPortsShots(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	box, _ := portsBox(t)
	for _, lang := range []string{"en-US", "fr-FR"} {
		for _, size := range []struct {
			name          string
			width, height int
		}{{"phone", phoneWidth, phoneHeight}, {"laptop", 1366, 768}, {"venue", 1920, 1080}} {
			b := newBrowserAt(t, lang, size.width, size.height)
			b.signIn(t, box.URL)
			b.do(t, "opening the Network screen", chromedp.Navigate(box.URL+"/admin/settings/network"), chromedp.WaitVisible(chromedp.CSS(`#ports-card`)))
			code := strings.SplitN(lang, "-", 2)[0]
			b.shot(t, fmt.Sprintf("network-ports-%s-%s", code, size.name))
			b.eval(t, `(document.querySelector('#ports-card').scrollIntoView({block: 'start'}), window.scrollBy(0, -140), true)`, nil)
			b.shotScreen(t, fmt.Sprintf("network-ports-%s-%s-card", code, size.name))
		}
	}
}
