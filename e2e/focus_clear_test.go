package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestConsoleFocusStaysClearOfTheTopBar: on a phone the console's top bar
// (the box's name, Sign out and the menu) stays on the screen as the page
// scrolls; a host going back up the Share tab with Shift+Tab must see
// each control the focus lands on, not have it scrolled under the bar
// (WCAG 2.4.11, focus not obscured). From the Live wall card up to the
// guest link, every focused control outside the bar lies wholly below
// it. In English at 390×844 (every language, and 360×740, with -sweep).
func TestConsoleFocusStaysClearOfTheTopBar(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", nil)
	for _, lang := range []string{"en", "fr", "it", "es"} {
		for _, sz := range [][2]int{{390, 844}, {360, 740}} {
			name := fmt.Sprintf("%s-%dx%d", lang, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				if !swept(name, "en-390x844") {
					t.Skip("a sweep case: -sweep runs it")
				}
				b := newBrowserAt(t, lang, sz[0], sz[1])
				b.signIn(t, box.URL)
				b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
				b.settle(t, "#walls input")
				b.eval(t, `(document.querySelector('#walls input').focus(), true)`, nil)
				for i := range 16 {
					b.do(t, "going back with Shift+Tab", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(chromedp.ModifierShift)))
					var got struct {
						Top, Bottom, Bar float64
						InBar            bool
						What             string
					}
					b.eval(t, `(() => {
						const e = document.activeElement, r = e.getBoundingClientRect(), bar = document.querySelector('header.top');
						return { top: r.top, bottom: r.bottom, bar: bar.getBoundingClientRect().bottom, inBar: bar.contains(e),
							what: e.id || (e.textContent || e.tagName).trim().slice(0, 40) };
					})()`, &got)
					if got.InBar || got.What == "" {
						break
					}
					if got.Top < got.Bar-0.5 {
						t.Errorf("Shift+Tab %d: %q lies at %.0f–%.0f px, under the top bar that ends at %.0f px", i+1, got.What, got.Top, got.Bottom, got.Bar)
					}
				}
			})
		}
	}
}
