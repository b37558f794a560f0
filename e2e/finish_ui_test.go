package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// tabRowsJS answers, for every tab bar on the page, its label and the
// number of rows its tabs sit on, and whether the bar pokes out of the
// screen (a bar that scrolls keeps its own box within it).
const tabRowsJS = `[...document.querySelectorAll('.tabs')].filter((n) => n.offsetParent).map((n) => {
  const tops = new Set([...n.children].filter((c) => c.offsetParent).map((c) => Math.round(c.getBoundingClientRect().top)));
  const r = n.getBoundingClientRect();
  return (n.getAttribute('aria-label') || n.id || 'tabs') + ':' + tops.size + ':' + (r.right <= innerWidth + 1 && r.left >= -1 ? 'in' : 'out');
})`

// TestTabBarsStayOnOneRow opens every page with a tab bar (the guest
// page, the shared gallery, the console's top menu, an event's tabs and
// the settings' tabs) on a 360 px phone in each language: every bar keeps
// its tabs on one row, within the screen, as Google Photos and its peers
// do (a segmented control for a few tabs, a row that scrolls for many).
func TestTabBarsStayOnOneRow(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", nil)
	guestUploads(t, box, ev, "Lucia", 1)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	var created struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"label": "Family", "allowDownload": true}, &created); st != 201 {
		t.Fatalf("creating the gallery link: status %d", st)
	}
	for _, lang := range []string{"en-GB", "fr-FR", "it-IT", "es-ES"} {
		t.Run(lang, func(t *testing.T) {
			if !swept(lang, "it-IT") {
				t.Skip("make browsertest runs every language")
			}
			b := newBrowserAt(t, lang, 360, 740)
			check := func(page string) {
				t.Helper()
				var bars []string
				b.eval(t, tabRowsJS, &bars)
				if len(bars) == 0 {
					t.Errorf("%s: no tab bar on the page", page)
				}
				for _, bar := range bars {
					if !strings.HasSuffix(bar, ":1:in") {
						t.Errorf("%s at 360 px in %s: tab bar %s (label:rows:within the screen), want one row within the screen", page, lang, bar)
					}
				}
				b.shotScreen(t, fmt.Sprintf("tabs-%s-%s", page, lang[:2]))
			}
			b.do(t, "opening the guest page", chromedp.Navigate(box.URL+"/e/"+ev.Slug), chromedp.WaitVisible(chromedp.CSS(`#tabs button`)))
			check("guest")
			b.do(t, "opening the gallery", chromedp.Navigate(box.URL+"/g/"+created.Share.Token), chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile`)))
			if n := b.text(t, ".tabs"); n != "" {
				check("gallery")
			}
			b.signIn(t, box.URL)
			check("console")
			b.do(t, "opening the event", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"), chromedp.WaitVisible(chromedp.CSS(`#tab-photos`)))
			check("event")
			b.do(t, "opening the settings", chromedp.Navigate(box.URL+"/admin/settings"), chromedp.WaitVisible(chromedp.CSS(`main .tabs a`)))
			check("settings")
		})
	}
}

// focusRingJS answers, for the focused element, its outline's style and
// width and the contrast of its colour against the first opaque
// background behind the element (the page's when none is).
const focusRingJS = `(() => {
  let a = document.activeElement;
  if (!a || a === document.body) return null;
  // A file input is hidden inside its button (the label), which shows the
  // ring for it (:focus-within).
  const r0 = a.getBoundingClientRect();
  if (getComputedStyle(a).opacity === '0' || r0.width < 2 || r0.height < 2) a = a.closest('label, .filepick') || a;
  const rgb = (s) => {
    let m = s.match(/rgba?\(([^)]+)\)/), k = 1;
    if (!m) { m = s.match(/color\(srgb ([^)]+)\)/); k = 255; }
    if (!m) return null;
    const p = m[1].split(/[ ,\/]+/).map(Number);
    return { r: p[0] * k, g: p[1] * k, b: p[2] * k, a: p.length > 3 ? p[3] : 1 };
  };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const cs = getComputedStyle(a);
  let bg = null;
  for (let n = a.parentElement; n; n = n.parentElement) { const c = rgb(getComputedStyle(n).backgroundColor); if (c && c.a > 0.9) { bg = c; break; } }
  if (!bg) bg = rgb(getComputedStyle(document.body).backgroundColor) || { r: 255, g: 255, b: 255, a: 1 };
  const oc = rgb(cs.outlineColor);
  const [x, y] = oc ? [lum(oc), lum(bg)].sort((p, q) => q - p) : [0, 0];
  const name = a.id ? '#' + a.id : a.tagName.toLowerCase() + (a.className && typeof a.className === 'string' ? '.' + a.className.split(' ')[0] : '') + ' "' + (a.textContent || a.getAttribute('aria-label') || '').trim().slice(0, 24) + '"';
  return { name, style: cs.outlineStyle, width: cs.outlineWidth, alpha: oc ? oc.a : 0, ratio: oc ? (x + 0.05) / (y + 0.05) : 0, color: cs.outlineColor };
})()`

// focusRing is one focused element's ring, as focusRingJS reads it.
type focusRing struct {
	Name  string  `json:"name"`
	Style string  `json:"style"`
	Width string  `json:"width"`
	Alpha float64 `json:"alpha"`
	Ratio float64 `json:"ratio"`
	Color string  `json:"color"`
}

// TestFocusRingsStandOut tabs through the guest page and the console's
// screens: every control the keyboard reaches shows one ring style (a
// 3 px solid outline) whose colour has at least 3:1 against what is
// behind the control (WCAG 2.4.13 and 1.4.11), never the browser's own.
func TestFocusRingsStandOut(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.Moderation = "pre" })
	guestUploads(t, box, ev, "Lucia", 2)
	b := newBrowserAt(t, "en-GB", 1366, 900)
	walk := func(page string, presses int) {
		t.Helper()
		seen := map[string]bool{}
		for range presses {
			b.do(t, "pressing Tab", chromedp.KeyEvent("\t"))
			var r *focusRing
			b.eval(t, focusRingJS, &r)
			if r == nil || seen[r.Name] {
				continue
			}
			seen[r.Name] = true
			if r.Style != "solid" || r.Width != "3px" || r.Alpha < 1 || r.Ratio < 3 {
				t.Errorf("%s: %s has a focus ring %s %s %s (alpha %.2f) at %.2f:1 against its background; want 3px solid, opaque, at least 3:1", page, r.Name, r.Width, r.Style, r.Color, r.Alpha, r.Ratio)
			}
		}
		if len(seen) < 3 {
			t.Errorf("%s: the keyboard reached only %d controls", page, len(seen))
		}
	}
	b.do(t, "opening the guest page", chromedp.Navigate(box.URL+"/e/"+ev.Slug), chromedp.WaitVisible(chromedp.CSS(`#tabs button`)))
	walk("guest page", 25)
	b.signIn(t, box.URL)
	walk("console events", 15)
	b.do(t, "opening the event's photos", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"), chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
	walk("console photos", 30)
	b.do(t, "opening the event's settings", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"), chromedp.WaitVisible(chromedp.CSS(`form`)))
	walk("console event settings", 30)
}
