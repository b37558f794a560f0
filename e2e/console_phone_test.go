package e2e

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// phoneSizes are the two phones the console is checked on.
var phoneSizes = []struct{ w, h int }{{390, 844}, {360, 740}}

// consoleLangs are the languages the console is checked in.
var consoleLangs = []string{"en-GB", "fr-FR", "it-IT"}

// uploadForChallenge joins ev as a guest named name and uploads one photo
// for the challenge id; it returns the photo's id.
func uploadForChallenge(t *testing.T, box *box, ev store.Event, name, challenge string) string {
	t.Helper()
	g := newClient(t, box.URL)
	if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/guest", map[string]string{"name": name}, nil); st != http.StatusOK {
		t.Fatalf("naming the guest: status %d", st)
	}
	data, err := os.ReadFile(writeJPEG(t, name+"-challenge.jpg", 640, 480))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	w.WriteField("challenge", challenge) // fields before the file: the box streams the form
	part, err := w.CreateFormFile("photo", name+".jpg")
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	w.Close()
	var res struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	if st := g.do(t, "POST", "/api/e/"+ev.Slug+"/photos", w.FormDataContentType(), &buf, &res); st != http.StatusCreated {
		t.Fatalf("uploading: status %d", st)
	}
	return res.Photo.ID
}

// tabsToFirstTile presses Tab from a freshly loaded page until the focus
// is in the photo grid, pressing Enter once on a skip link if the focus is
// on one; it answers the presses (Tab and Enter) it took, or -1 after 60.
func (b *browser) tabsToFirstTile(t *testing.T) int {
	t.Helper()
	for n := 1; n <= 60; n++ {
		b.do(t, "pressing Tab", chromedp.KeyEvent("\t"))
		var where string
		b.eval(t, `(() => { const a = document.activeElement; if (!a) return ''; if (a.closest('#photos .tile')) return 'tile'; if (a.matches('a.skip')) return 'skip'; return ''; })()`, &where)
		switch where {
		case "tile":
			return n
		case "skip":
			b.do(t, "pressing Enter on the skip link", chromedp.KeyEvent("\r"))
			var in bool
			b.eval(t, `!!(document.activeElement && document.activeElement.closest('#photos .tile'))`, &in)
			if in {
				return n + 1
			}
			n++
		}
	}
	return -1
}

// TestModerationOnAPhone has a host moderate from a phone (390x844 and
// 360x740) in English, French and Italian: the first photos show on the
// first screen without scrolling, each waiting photo says who took it and
// for which challenge, the first Tab stop is a link that skips to the
// photos, and the filters stay one tap away.
func TestModerationOnAPhone(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	chal := store.Challenge{ID: store.NewID(), Label: "A selfie with the couple"}
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.Moderation = "pre"
		e.Challenges = []store.Challenge{chal}
	})
	guestUploads(t, box, ev, "Lucia", 3)
	uploadForChallenge(t, box, ev, "Giorgio", chal.ID)
	for _, lang := range consoleLangs {
		for _, sz := range phoneSizes {
			name := fmt.Sprintf("%s %dx%d", lang, sz.w, sz.h)
			if !swept(name, "fr-FR 360x740", "it-IT 390x844") {
				continue
			}
			t.Run(name, func(t *testing.T) {
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				b.do(t, "opening the photos",
					chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
					chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
				b.waitJS(t, "four photos", `document.querySelectorAll('#photos .tile').length === 4`)
				var first struct {
					Top, Bottom, Inner float64
				}
				b.eval(t, `(() => { const r = document.querySelector('#photos .tile').getBoundingClientRect(); return { top: r.top, bottom: r.bottom, inner: innerHeight }; })()`, &first)
				if first.Bottom > first.Inner {
					t.Errorf("the first photo is at y=%.0f..%.0f px, below the first screen (%.0f px high)", first.Top, first.Bottom, first.Inner)
				}
				var texts []string
				b.eval(t, `[...document.querySelectorAll('#photos .tile')].map((x) => x.innerText.replace(/\s+/g, ' '))`, &texts)
				var lucia, giorgio bool
				for _, s := range texts {
					lucia = lucia || strings.Contains(s, "Lucia")
					giorgio = giorgio || (strings.Contains(s, "Giorgio") && strings.Contains(s, chal.Label))
				}
				if !lucia || !giorgio {
					t.Errorf("the waiting tiles read %q; want the guests' names, and the challenge under Giorgio's", texts)
				}
				b.shotScreen(t, fmt.Sprintf("moderation-phone-%s-%d", lang[:2], sz.w))

				// The filters are one tap away and still work.
				var hiddenFilters bool
				b.eval(t, `(() => { const s = document.querySelector('select[name=status]'); return !s || s.getBoundingClientRect().height === 0; })()`, &hiddenFilters)
				if hiddenFilters {
					b.do(t, "opening the filters", click(`#filters-toggle`))
				}
				b.do(t, "showing the waiting photos", choose(`select[name=status]`, "pending"))
				b.waitJS(t, "four waiting photos", `document.querySelectorAll('#photos .tile .badge').length === 4`)

				b.do(t, "loading the photos again", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
				b.do(t, "focus on the page", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := chromedp.Evaluate[bool](`(document.activeElement && document.activeElement.blur && document.activeElement.blur(), true)`)(ctx, tg)
					return err
				}))
				var firstStop string
				b.do(t, "pressing Tab once", chromedp.KeyEvent("\t"))
				b.eval(t, `document.activeElement ? document.activeElement.outerHTML.slice(0, 120) : ''`, &firstStop)
				if !strings.Contains(firstStop, `class="skip"`) {
					t.Errorf("the first Tab stop is %s; want the link that skips to the photos", firstStop)
				}
				b.do(t, "loading the photos again", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
				n := b.tabsToFirstTile(t)
				t.Logf("%d key presses to the first photo", n)
				if n < 0 || n > 2 {
					t.Errorf("%d key presses to reach the first photo; want at most 2 (Tab to the skip link, Enter)", n)
				}
			})
		}
	}
}

// consoleScreen is one screen of the console and what shows once it is
// drawn.
type consoleScreen struct{ name, path, ready string }

// consoleScreens are every screen of the console for an event id.
func consoleScreens(id string) []consoleScreen {
	ev := "/admin/events/" + id
	return []consoleScreen{
		{"events", "/admin", "#events"},
		{"new event", "/admin/events/new", "main form"},
		{"event settings", ev + "/settings", "#tab form"},
		{"photos", ev + "/photos", "#photos .tile"},
		{"guestbook", ev + "/guestbook", "#messages"},
		{"places", ev + "/places", "#tab form"},
		{"share", ev + "/share", "#gallery-links"},
		{"finish", ev + "/finish", "#tab h2"},
		{"stats", "/admin/stats", "main .card"},
		{"team", "/admin/team", "main details"},
		{"account", "/admin/account", "#about-link"},
		{"about", "/admin/about", "#about-version"},
		{"mail", "/admin/settings/mail", "#mail-form"},
		{"webhooks", "/admin/settings/webhooks", "main .card"},
		{"cloud", "/admin/settings/cloud", "#cloud-test"},
		{"network", "/admin/settings/network", "#net-unavailable, #hotspot-form"},
		{"backup and restore", "/admin/settings/backup", `a[href="/api/admin/backup?download=1"]`},
		{"updates", "/admin/settings/updates", "main .card h2"},
	}
}

// openScreen opens a console screen and waits until it is drawn and no
// part of it is still loading.
func (b *browser) openScreen(t *testing.T, base string, s consoleScreen) {
	t.Helper()
	// Inside the console, move as a host does, by its links (a page
	// load per screen keeps each event page's live stream open in the
	// browser's page cache until its six connections are used up).
	var inside bool
	b.eval(t, `location.pathname.startsWith('/admin') && !!document.querySelector('#app main')`, &inside)
	if inside {
		b.eval(t, fmt.Sprintf(`(document.querySelector('#app main').dataset.left = '', history.pushState(null, '', %q), dispatchEvent(new PopStateEvent('popstate')), true)`, s.path), nil)
	} else {
		b.do(t, "opening "+s.name, chromedp.Navigate(base+s.path))
	}
	b.waitJS(t, s.name+" is drawn", fmt.Sprintf(`!document.querySelector('main[data-left]') && !!document.querySelector(%q) && ![...document.querySelectorAll('main p.muted')].some((p) => /^\\S+…$/.test(p.textContent.trim()))`, s.ready))
	// Every folded section open: what is in them is checked too.
	b.eval(t, `(document.querySelectorAll('main details').forEach((d) => { d.open = true; }), new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(() => ok(true)))))`, nil)
}

// TestConsoleScreensOnAPhone opens every console screen at 360 and 390 px
// in English, French and Italian: none scrolls sideways, and axe-core
// finds no WCAG 2.1 A/AA violation on any of them.
func TestConsoleScreensOnAPhone(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(axePath); err != nil {
		t.Skipf("no axe-core (%v): run make axe", err)
	}
	box := startBox(t)
	chal := store.Challenge{ID: store.NewID(), Label: "A selfie with the couple"}
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.Moderation = "pre"
		e.Challenges = []store.Challenge{chal}
		e.CollectGuestEmails = true
	})
	guestUploads(t, box, ev, "Lucia", 2)
	uploadForChallenge(t, box, ev, "Giorgio", chal.ID)
	for _, lang := range consoleLangs {
		for _, sz := range phoneSizes {
			name := fmt.Sprintf("%s %dx%d", lang, sz.w, sz.h)
			if !swept(name, "fr-FR 360x740") {
				continue
			}
			t.Run(name, func(t *testing.T) {
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				wide, bad := 0, 0
				for _, s := range consoleScreens(ev.ID) {
					b.openScreen(t, box.URL, s)
					var w struct{ Scroll, Inner int }
					b.eval(t, `({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth })`, &w)
					if w.Scroll > w.Inner {
						wide++
						var culprit string
						b.eval(t, `(() => { const x = [...document.querySelectorAll('main *')].find((e) => e.getBoundingClientRect().right > innerWidth + 0.5); return x ? x.outerHTML.slice(0, 160) : ''; })()`, &culprit)
						t.Errorf("%s scrolls sideways: %d px wide in a %d px window (%s)", s.name, w.Scroll, w.Inner, culprit)
					}
					if sz.w == 360 {
						v := b.axeViolations(t)
						bad += len(v)
						for _, x := range v {
							t.Errorf("%s: axe: %s", s.name, x)
						}
					}
				}
				t.Logf("%d screens scroll sideways, %d axe violations", wide, bad)
			})
		}
	}
}
