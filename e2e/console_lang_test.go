package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// axeViolations runs axe-core (axePath, fetched by `make axe`) on the
// page for the WCAG 2.1 A and AA rules and returns one line per violation
// (rule, impact, first nodes). Without axe-core the test skips.
func (b *browser) axeViolations(t *testing.T) []string {
	t.Helper()
	src, err := os.ReadFile(axePath)
	if err != nil {
		testtool.Missing(t, fmt.Sprintf("no axe-core (%v): run make axe", err))
	}
	b.eval(t, string(src)+";true", nil)
	var out []string
	b.eval(t, axeRun+`
		.then((vs) => vs.map((v) => v.id + ' (' + v.impact + '): ' + v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')))`, &out)
	return out
}

// TestConsoleInFrench has a host whose browser speaks French: the console
// speaks French from the sign-in on, its tabs stay reachable on a phone, and the
// language menu switches it back to English.
func TestConsoleInFrench(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Mariage", func(e *store.Event) { e.Moderation = "pre" })
	guestUploads(t, box, ev, "Léa", 1)
	b := newBrowserAt(t, "fr-FR", 1366, 900)
	b.do(t, "opening the console",
		chromedp.Navigate(box.URL+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)))
	b.waitText(t, "#sign-in", "Mot de passe")
	b.waitText(t, "#sign-in button[type=submit]", "Se connecter")
	b.shot(t, "console-fr-sign-in")
	b.do(t, "signing in",
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), ownerPassword),
		click(`#sign-in button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#events`)))
	b.waitText(t, "nav.tabs", "Événements")
	b.waitText(t, "#events", "à vérifier")
	if lang := b.text(t, "html[lang=fr] .brand"); lang == "" {
		t.Errorf("the page is not marked as French")
	}
	b.do(t, "opening the event's photos",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
		chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
	b.waitText(t, "#event-head nav", "Téléchargements et fin")
	b.waitText(t, "main", "Toutes les photos")
	b.waitText(t, "#photo-keys", "approuver")
	b.shot(t, "console-fr-photos")

	phone := newBrowserAt(t, "fr-FR", phoneWidth, phoneHeight)
	phone.signIn(t, box.URL)
	phone.do(t, "opening the event on a phone",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
		chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
	// A tab bar keeps one row (TestTabBarsStayOnOneRow): one wider than
	// the screen must scroll, within the screen, and no label may be cut
	// inside its tab.
	var clipped bool
	phone.eval(t, `[...document.querySelectorAll('nav.tabs')].some((n) => { const r = n.getBoundingClientRect(); return r.right > window.innerWidth + 1 ||
		(n.scrollWidth > n.clientWidth + 1 && getComputedStyle(n).overflowX !== 'auto') ||
		[...n.querySelectorAll('a')].some((a) => a.scrollWidth > a.clientWidth + 1); })`, &clipped)
	if clipped {
		t.Error("a tab is out of reach on a phone: a tab bar wider than the screen must scroll, and no label may be cut")
	}
	phone.shot(t, "console-fr-phone-photos")

	b.do(t, "choosing English in the menu", chromedp.Navigate(box.URL+"/admin"), chromedp.WaitVisible(chromedp.CSS(`#events`)))
	b.do(t, "signing out to reach the menu", click(`header button.small`), chromedp.WaitVisible(chromedp.CSS(`select.lang-menu`)))
	b.eval(t, `(() => { const s = document.querySelector('select.lang-menu'); s.value = 'en'; s.dispatchEvent(new Event('change')); return true; })()`, nil)
	b.do(t, "the page reloads in English", chromedp.Sleep(500*time.Millisecond), chromedp.WaitVisible(chromedp.CSS(`#sign-in`)))
	b.waitText(t, "#sign-in button[type=submit]", "Sign in")
}

// TestConsoleAccessibility runs axe-core's WCAG 2.1 A and AA rules on the
// console's main screens.
func TestConsoleAccessibility(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Checked party", func(e *store.Event) { e.Moderation = "pre" })
	guestUploads(t, box, ev, "Ada", 2)
	b := newBrowserAt(t, "en-US", 1366, 900)
	b.do(t, "opening the sign-in", chromedp.Navigate(box.URL+"/admin"), chromedp.WaitVisible(chromedp.CSS(`#sign-in`)))
	screens := []struct{ name, path, ready string }{
		{"events", "/admin", "#events"},
		{"settings", "/admin/events/" + ev.ID + "/settings", "form"},
		{"photos", "/admin/events/" + ev.ID + "/photos", "#photos .tile"},
		{"guestbook", "/admin/events/" + ev.ID + "/guestbook", "#messages"},
		{"share", "/admin/events/" + ev.ID + "/share", "#walls li"},
		{"account", "/admin/account", "form"},
	}
	check := func(name string) {
		if v := b.axeViolations(t); len(v) > 0 {
			t.Errorf("%s: %d WCAG 2.1 A/AA violations:\n%s", name, len(v), strings.Join(v, "\n"))
		}
	}
	check("sign-in")
	b.signIn(t, box.URL)
	for _, s := range screens {
		b.do(t, "opening "+s.name, chromedp.Navigate(box.URL+s.path), chromedp.WaitVisible(chromedp.CSS(s.ready)))
		check(s.name)
	}
}

// TestConsoleSettingsInFrench opens the owners' settings screens (mail,
// webhooks, cloud, backup, updates) in a French browser: each one's
// headings speak French.
func TestConsoleSettingsInFrench(t *testing.T) {
	t.Parallel()
	box := startBox(t, func(c *daemon.Config) { c.Version = "1.4.2" })
	b := newBrowserAt(t, "fr-FR", 1366, 900)
	b.signIn(t, box.URL)
	screens := []struct{ part, heading, text string }{
		{"mail", "E-mails sortants", "Serveur SMTP"},
		{"webhooks", "Envois récents", "Aucun webhook pour l’instant."},
		{"cloud", "Stockage en ligne (WebDAV)", "Adresse WebDAV"},
		{"backup", "Sauvegardes conservées", "Télécharger une sauvegarde"},
		{"updates", "Logiciel", "Version en service\u00a0: 1.4.2."},
	}
	for _, s := range screens {
		b.do(t, "opening the "+s.part+" settings", chromedp.Navigate(box.URL+"/admin/settings/"+s.part))
		b.waitJS(t, "a heading "+s.heading+" on "+s.part,
			`[...document.querySelectorAll('main h2, main h3')].some((e) => e.textContent.trim() === `+jsString(s.heading)+`)`)
		b.waitText(t, "main", s.text)
		b.shot(t, "console-fr-settings-"+s.part)
	}
}

// TestConsoleDatesInItsLanguage: the console writes its dates and times in
// the language it speaks, not in the browser's own locale (an English
// browser with the console in French reads "26 nov. 2026", not "Nov 26,
// 2026, 2:20 AM"). The clock banner of a box whose time was unsure shows
// one: the time it was set to, this browser's.
func TestConsoleDatesInItsLanguage(t *testing.T) {
	english := time.Now().Format("Jan") // the month as an English date writes it
	for _, lang := range []string{"fr", "it", "es", "en"} {
		if !swept(lang, "fr", "en") {
			continue
		}
		t.Run(lang, func(t *testing.T) {
			// A box of its own: the first owner's console sets its clock.
			bx := startBox(t, func(c *daemon.Config) {
				c.Clock.Synced = func() (bool, error) { return false, nil }
				c.Clock.SetTime = func(time.Time) error { return nil } // within the tolerance: never called
			})
			b := newBrowserAt(t, "en", 1366, 768)
			b.do(t, "opening the console", chromedp.Navigate(bx.URL+"/admin"))
			b.eval(t, `(localStorage.setItem('eventbox.lang', '`+lang+`'), true)`, nil)
			b.signIn(t, bx.URL)
			b.do(t, "waiting for the clock banner", chromedp.WaitVisible(chromedp.CSS(`#clock-banner`)))
			got := b.text(t, `#clock-banner`)
			if has := strings.Contains(got, english); has != (lang == "en") {
				t.Fatalf("the clock banner of the console in %s reads %q: its date is in the browser's English", lang, got)
			}
		})
	}
}
