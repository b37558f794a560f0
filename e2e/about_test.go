package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
)

// TestConsoleAbout: from the Account page a host reaches the About screen,
// which shows the running version, eventbox's licence and the third-party
// notice (libheif, the fonts, the Go modules) in the console's language, at
// phone, laptop and venue-screen sizes, with nothing wider than the screen
// and no WCAG 2.1 A/AA violation.
func TestConsoleAbout(t *testing.T) {
	t.Parallel()
	box := startBox(t, func(c *daemon.Config) { c.Version = "2.3.1" })
	langs := []struct{ lang, code, title, version, notice string }{
		{"en-US", "en", "About eventbox", "This box runs eventbox 2.3.1.", "What the box carries from others"},
		{"fr-FR", "fr", "À propos d’eventbox", "Cette boîte fait tourner eventbox 2.3.1.", "Ce que la boîte reprend d’autres projets"},
	}
	sizes := []struct {
		name          string
		width, height int
	}{
		{"phone", phoneWidth, phoneHeight},
		{"laptop", 1366, 768},
		{"venue", 1920, 1080},
	}
	for _, l := range langs {
		for _, size := range sizes {
			if !swept(l.code+"-"+size.name, "fr-phone", "en-venue") {
				continue
			}
			b := newBrowserAt(t, l.lang, size.width, size.height)
			b.signIn(t, box.URL)
			// The two-step card loads after the page is drawn and moves
			// the link down: wait for it before clicking.
			b.do(t, "opening the account page", chromedp.Navigate(box.URL+"/admin/account"), chromedp.WaitVisible(chromedp.CSS(`#tf-start`)))
			b.do(t, "following the About link", click(`#about-link`), chromedp.WaitVisible(chromedp.CSS(`#notice`)))
			b.waitText(t, "main h1", l.title)
			b.waitText(t, "#about-version", l.version)
			b.waitText(t, "#about-notice h2", l.notice)
			b.waitText(t, "#about-licence", "Apache-2.0")
			notice := b.text(t, "#notice")
			for _, want := range []string{"libheif", "libde265", "assets/fonts/EventboxDevanagari.ttf", "go.etcd.io/bbolt", "GNU LESSER GENERAL PUBLIC LICENSE"} {
				if !strings.Contains(notice, want) {
					t.Errorf("%s %s: the notice on the About screen does not name %s", l.code, size.name, want)
				}
			}
			var wide bool
			b.eval(t, `document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)
			if wide {
				t.Errorf("%s %s: the About screen is wider than the window", l.code, size.name)
			}
			if size.name == "laptop" {
				if v := b.axeViolations(t); len(v) > 0 {
					t.Errorf("%s: %d WCAG 2.1 A/AA violations on the About screen:\n%s", l.code, len(v), strings.Join(v, "\n"))
				}
			}
			b.eval(t, `window.scrollTo(0, 0); true`, nil)
			b.shotScreen(t, fmt.Sprintf("console-%s-%s-about", l.code, size.name))
		}
	}
}
