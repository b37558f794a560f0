package e2e

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/i18n"
	"eventbox/store"
)

// TestSignsSpeakTheHostsLanguage prints each sign of the Share tab from
// the tab's own links, for an event whose guests each get their own
// language: a French or Italian host gets the signs in the console's
// language with no English left on them, and the language menu beside
// the buttons turns every link to the language picked.
func TestSignsSpeakTheHostsLanguage(t *testing.T) {
	t.Parallel()
	english := englishOnly(t)
	plurals := pluralOnly(t)
	cat, err := i18n.Load(os.DirFS("../assets/web/locales"))
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.DefaultLocale = "" })
	admin := newClient(t, box.URL)
	admin.signIn(t)
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/spots", map[string]string{"label": "Giardino"}, nil)
	for _, c := range []struct{ lang, other string }{{"fr", "es"}, {"it", "fr"}} {
		if !swept(c.lang, "fr") {
			continue
		}
		t.Run(c.lang, func(t *testing.T) {
			b := newBrowserAt(t, c.lang, 1366, 768)
			b.signIn(t, box.URL)
			b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
			b.settle(t, "#signage a[download]")
			b.do(t, "naming the Wi-Fi", chromedp.SendKeys(chromedp.CSS(`#sign-ssid`), "Festa"), chromedp.SendKeys(chromedp.CSS(`#sign-pass`), "festa2026"))
			var hrefs []string
			b.eval(t, `[...document.querySelectorAll('#signage a[download]')].map((a) => a.getAttribute('href'))`, &hrefs)
			if len(hrefs) != 5 {
				t.Fatalf("the Share tab offers %d signs, want 5 (A6, A5, A4, A3, places)", len(hrefs))
			}
			f := &langFinder{lang: c.lang, english: english[c.lang], plurals: plurals[c.lang], found: map[string][]string{}}
			step := cat.Lang(c.lang).Text("signs.step2")
			for _, href := range hrefs {
				lines := pdfText(t, admin, href)
				f.check("sign "+href, lines)
				if !strings.Contains(strings.Join(lines, " "), strings.Fields(step)[0]) {
					t.Errorf("the sign %s does not say %q", href, step)
				}
			}
			if f.count() > 0 {
				t.Errorf("%d texts of the signs not in %s: %v", f.count(), c.lang, f.found)
			}
			// Another language for the signs: every link follows.
			b.eval(t, fmt.Sprintf(`(() => { const s = document.querySelector('#sign-lang'); s.value = %q; s.dispatchEvent(new Event('change')); return true; })()`, c.other), nil)
			b.eval(t, `[...document.querySelectorAll('#signage a[download]')].map((a) => a.getAttribute('href'))`, &hrefs)
			for _, href := range hrefs {
				u, err := url.Parse(href)
				if err != nil || u.Query().Get("lang") != c.other || u.Query().Get("ssid") != "Festa" {
					t.Errorf("after picking %s the sign's link is %s", c.other, href)
				}
			}
			if other := strings.Fields(cat.Lang(c.other).Text("signs.step2"))[0]; !slices.ContainsFunc(pdfText(t, admin, hrefs[2]), func(l string) bool { return strings.Contains(l, other) }) {
				t.Errorf("the poster in %s does not say %q", c.other, other)
			}
		})
	}
	// The signs' card and a gallery link with the password the box made
	// on the Share tab (make shots).
	if *shotDir == "" {
		return
	}
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"password": true, "label": "Famiglia"}, nil)
	// One sign-in a language, the tab resized for each size: twelve
	// sign-ins from one address would meet the sign-in limit (ten a
	// minute).
	for _, lang := range []string{"en", "fr", "it", "es"} {
		b := newBrowserAt(t, lang, phoneWidth, phoneHeight)
		b.signIn(t, box.URL)
		for _, size := range [][2]int{{phoneWidth, phoneHeight}, {1366, 768}, {1920, 1080}} {
			b.do(t, "sizing the tab", viewportFor(size[0], size[1]))
			b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
			b.settle(t, "#signage a[download]")
			b.eval(t, `(() => { document.querySelector('#signage').scrollIntoView(); return true; })()`, nil)
			b.shotScreen(t, fmt.Sprintf("signs-card-%s-%dx%d", lang, size[0], size[1]))
			b.eval(t, `(() => { document.querySelector('#gallery-links').scrollIntoView(); return true; })()`, nil)
			b.shotScreen(t, fmt.Sprintf("gallery-links-%s-%dx%d", lang, size[0], size[1]))
		}
	}
}
