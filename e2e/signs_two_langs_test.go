package e2e

import (
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestSignsInTwoLanguages: for a mixed party the Share tab's sign menu
// offers the console's language with each other one ("Français +
// English"); picked, every sign's link asks for both (lang=fr,en) and the
// poster prints each fixed text in both. In English and French at phone,
// laptop and venue sizes (the quick cases: at laptop size).
func TestSignsInTwoLanguages(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.DefaultLocale = "" })
	admin := newClient(t, box.URL)
	admin.signIn(t)
	sizes := screenSizes()
	for _, c := range []struct{ lang, other, pair, label, first, second string }{
		{"en", "fr", "en,fr", "English + Français", "Scan to share your photos", "Scannez pour partager vos photos"},
		{"fr", "en", "fr,en", "Français + English", "Scannez pour partager vos photos", "Scan to share your photos"},
	} {
		for _, sz := range sizes {
			name := c.lang + "-" + sz.name
			t.Run(name, func(t *testing.T) {
				if !swept(name, "en-laptop", "fr-laptop") {
					t.Skip("a sweep case: -sweep runs it")
				}
				b := newBrowserAt(t, c.lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
				b.settle(t, "#signage a[download]")
				var label string
				b.eval(t, `(document.querySelector('#sign-lang option[value="`+c.pair+`"]') || {}).textContent || ''`, &label)
				if label != c.label {
					t.Fatalf("the sign menu's %s option reads %q, want %q", c.pair, label, c.label)
				}
				b.do(t, "picking both languages", choose(`#sign-lang`, c.pair))
				var hrefs []string
				b.eval(t, `[...document.querySelectorAll('#signage a[download]')].map((a) => a.getAttribute('href'))`, &hrefs)
				for _, h := range hrefs {
					u, err := url.Parse(h)
					if err != nil || u.Query().Get("lang") != c.pair {
						t.Errorf("the sign link %s does not ask for lang=%s", h, c.pair)
					}
				}
				b.do(t, "scrolling to the signs", chromedp.ScrollIntoView(chromedp.CSS(`#signage`)))
				b.shotScreen(t, "signs-two-langs-"+name)
				if sz.name != "laptop" {
					return
				}
				for _, h := range hrefs {
					if !strings.Contains(h, "kind=poster") || !strings.Contains(h, "size=a4") {
						continue
					}
					txt := strings.Join(strings.Fields(strings.Join(pdfText(t, admin, h), " ")), " ")
					for _, s := range []string{c.first, c.second} {
						if !strings.Contains(txt, s) {
							t.Errorf("the A4 poster in %s lacks %q; it says %q", c.pair, s, txt)
						}
					}
				}
			})
		}
	}
}
