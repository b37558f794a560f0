package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/daemon/setup"
	"eventbox/internal/testtool"
)

// setupNetwork stands in for what applies the setup page's network.
type setupNetwork struct {
	mu  sync.Mutex
	got []setup.Choice
}

func (n *setupNetwork) Apply(_ context.Context, c setup.Choice) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, c)
	return nil
}

// unsetBox is a box nobody set up: a generated owner, no hotspot of the
// host's, and a stand-in for the network.
func unsetBox(t *testing.T) (*box, *setupNetwork) {
	t.Helper()
	net := &setupNetwork{}
	return startBox(t, func(c *daemon.Config) {
		c.AdminPassword = ""
		c.SetupNetwork = net
	}), net
}

// fillSetup fills the setup page's form.
func fillSetup(t *testing.T, b *browser, wifiPassword string) {
	t.Helper()
	b.do(t, "filling the setup page",
		chromedp.SendKeys(chromedp.CSS(`#setup-ownerName`), "anna"),
		chromedp.SendKeys(chromedp.CSS(`#setup-ownerPassword`), "confetti and cake"),
		chromedp.SendKeys(chromedp.CSS(`#setup-wifiName`), "Anna & Marc"),
		chromedp.SendKeys(chromedp.CSS(`#setup-wifiPassword`), wifiPassword))
	b.eval(t, `(() => { const c = document.querySelector('#setup-country'); c.value = 'FR';
		document.querySelector('#setup-timeZone').value = 'Europe/Paris'; return true; })()`, nil)
}

// TestSetupPageOnAPhone: a host's phone on the setup Wi-Fi opens the box
// and lands on the setup page, which fits the phone's screen; a value the
// box refuses is said beside its field; once sent, the page says which
// Wi-Fi to join and how to reach the console, and the owner can sign in.
// A second phone then finds the box set up.
func TestSetupPageOnAPhone(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	box, net := unsetBox(t)
	b := newBrowserAt(t, "en", phoneWidth, phoneHeight)
	b.do(t, "opening the box",
		chromedp.Navigate(box.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#setup-ownerName`)))
	var url string
	b.eval(t, `location.pathname`, &url)
	if url != "/setup" {
		t.Errorf("the front page of an unset box went to %q, want /setup", url)
	}
	b.waitText(t, "h1", "Set up your eventbox")
	var overflow bool
	b.eval(t, `document.documentElement.scrollWidth > window.innerWidth`, &overflow)
	if overflow {
		t.Error("the setup page is wider than the phone's screen")
	}
	// An empty form: every field says its problem at once (the country
	// and zone the page guessed from the phone cleared too).
	b.eval(t, `(() => { document.querySelector('#setup-country').value = ''; document.querySelector('#setup-timeZone').value = ''; return true; })()`, nil)
	b.do(t, "sending the form empty", click(`form button[type=submit]`))
	b.waitJS(t, "the problems", `!!document.querySelector('#setup-timeZone-err').textContent`)
	var flagged []string
	b.eval(t, `[...document.querySelectorAll('.field.invalid [aria-describedby]')].map((e) => e.id)`, &flagged)
	if want := []string{"setup-ownerName", "setup-ownerPassword", "setup-wifiName", "setup-wifiPassword", "setup-country", "setup-timeZone"}; !slices.Equal(flagged, want) {
		t.Errorf("an empty form flags %v, want every field %v", flagged, want)
	}
	// The country is a list; the time zone a list a city's name finds.
	var country string
	b.eval(t, `document.querySelector('#setup-country').tagName + ' ' + document.querySelector('#setup-country').options.length`, &country)
	if !strings.HasPrefix(country, "SELECT ") || len(country) < len("SELECT 200") {
		t.Errorf("the country is %q, want a list of the countries", country)
	}
	b.do(t, "finding Paris", chromedp.SendKeys(chromedp.CSS(`#setup-tzSearch`), "paris"))
	var zone string
	b.eval(t, `document.querySelector('#setup-timeZone').value`, &zone)
	if zone != "Europe/Paris" {
		t.Errorf("typing paris picks the time zone %q, want Europe/Paris", zone)
	}
	fillSetup(t, b, "short")
	b.do(t, "sending a password too short", click(`form button[type=submit]`))
	b.waitText(t, "#setup-wifiPassword-err", "8 to 63 characters")
	b.do(t, "fixing it",
		chromedp.SendKeys(chromedp.CSS(`#setup-wifiPassword`), "-and-longer"),
		click(`form button[type=submit]`))
	// The last screen: done, the Wi-Fi with its password, the console's
	// addresses as links, to keep the page.
	b.waitText(t, "h1", "Your eventbox is set up")
	b.waitText(t, "#setup-done-ssid", "Anna & Marc")
	b.waitText(t, "#setup-done-pass", "short-and-longer")
	b.waitText(t, "main", "sign in as “anna”")
	b.waitText(t, "main", "screenshot")
	var links []string
	b.eval(t, `[...document.querySelectorAll('#setup-done-addresses a')].map((a) => a.href)`, &links)
	if want := []string{"http://eventbox.local/admin", "http://10.42.0.1/admin"}; !slices.Equal(links, want) {
		t.Errorf("the last screen links to %v, want %v", links, want)
	}
	var copies int
	b.eval(t, `document.querySelectorAll('#setup-done-addresses button').length`, &copies)
	if copies != 2 {
		t.Errorf("the last screen has %d copy buttons, want one per address", copies)
	}
	net.mu.Lock()
	got := fmt.Sprintf("%+v", net.got)
	net.mu.Unlock()
	if want := fmt.Sprintf("%+v", []setup.Choice{{OwnerName: "anna", OwnerPassword: "confetti and cake", WiFiName: "Anna & Marc",
		WiFiPassword: "short-and-longer", Country: "FR", TimeZone: "Europe/Paris"}}); got != want {
		t.Errorf("network applied %s, want %s", got, want)
	}
	second := newBrowserAt(t, "en", phoneWidth, phoneHeight)
	second.do(t, "opening the setup page again",
		chromedp.Navigate(box.URL+"/setup"),
		chromedp.WaitVisible(chromedp.CSS(`main .card`)))
	second.waitText(t, "main", "This box is set up already")
	var inputs int
	second.eval(t, `document.querySelectorAll('form input').length`, &inputs)
	if inputs != 0 {
		t.Errorf("the set-up box still shows a form of %d inputs", inputs)
	}
}

// TestShotsSetup takes screenshots of the setup page (run with -shots
// DIR): the form and the page once sent, in English, French, Italian and
// Spanish, on a phone, a laptop and a large screen.
func TestShotsSetup(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	for _, lang := range []string{"en", "fr", "it", "es"} {
		for _, size := range [][2]int{{phoneWidth, phoneHeight}, {1366, 768}, {1920, 1080}} {
			box, _ := unsetBox(t)
			b := newBrowserAt(t, lang, size[0], size[1])
			name := fmt.Sprintf("setup-%s-%dx%d", lang, size[0], size[1])
			b.do(t, "opening the setup page",
				chromedp.Navigate(box.URL+"/setup"),
				chromedp.WaitVisible(chromedp.CSS(`#setup-ownerName`)))
			b.shotScreen(t, name+"-form")
			b.shot(t, name+"-form-full")
			fillSetup(t, b, "short")
			b.do(t, "sending", click(`form button[type=submit]`))
			b.waitJS(t, "an error shown", `document.querySelector('#setup-wifiPassword-err').textContent`)
			b.shot(t, name+"-error")
			b.do(t, "fixing", chromedp.SendKeys(chromedp.CSS(`#setup-wifiPassword`), "-and-longer"), click(`form button[type=submit]`))
			b.waitJS(t, "the page once sent", `!document.querySelector('form')`)
			b.shotScreen(t, name+"-done")
			b.shot(t, name+"-done-full")
		}
	}
}
