package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestOneCardPerPlaceWaitsForPlaces: on the Share tab of an event with no
// places, "One card per place" is no download (the route would answer its
// refusal, which the browser saved as a file): it is a disabled button,
// described by a link that says to add places first and opens the Places
// tab, and the printer's menu cannot pick it either; the route keeps its
// refusal. Once a place is added the tab offers the cards as a PDF. In
// English, French, Italian and Spanish at phone, laptop and venue sizes
// (the quick cases: en and fr at laptop size). Each language has a box
// of its own: a dozen sign-ins from one address would meet the sign-in
// limit.
func TestOneCardPerPlaceWaitsForPlaces(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", nil)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	if code := admin.json(t, "GET", "/api/admin/events/"+ev.ID+"/signage?kind=place", nil, nil); code != http.StatusBadRequest {
		t.Errorf("the place cards of an event with no places: status %d; want the route's refusal, 400", code)
	}
	sizes := screenSizes()
	for _, lang := range []string{"en", "fr", "it", "es"} {
		if !swept(lang+"-laptop", "en-laptop", "fr-laptop") {
			continue
		}
		box := startBox(t)
		ev := createEvent(t, box.Store, "Anna & Marco", nil)
		con := catalogue(t, lang, "console")
		for _, sz := range sizes {
			name := lang + "-" + sz.name
			t.Run(name, func(t *testing.T) {
				if !swept(name, "en-laptop", "fr-laptop") {
					t.Skip("a sweep case: -sweep runs it")
				}
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
				b.settle(t, "#signage a[download]")
				b.waitText(t, "#sign-place-note", con["Add places first (the Places tab) for one card per place."])
				var got struct {
					Links                   []string
					Off, OffDisabled, Print bool
					Described               string
				}
				b.eval(t, `(() => {
					const off = document.getElementById('sign-place-off');
					const opt = document.querySelector('#signage select option[value="place:"]');
					return {
						links: [...document.querySelectorAll('#signage a[download]')].map((a) => a.dataset.kind + ':' + a.dataset.size),
						off: !!off && off.offsetParent !== null, offDisabled: !!off && off.disabled,
						print: !!opt && !opt.disabled,
						described: off ? off.getAttribute('aria-describedby') : '',
					};
				})()`, &got)
				if strings.Join(got.Links, " ") != "table:a6 table:a5 poster:a4 poster:a3" {
					t.Errorf("the Share tab offers the downloads %q with no places; want the four signs and no place cards", got.Links)
				}
				if !got.Off || !got.OffDisabled || got.Described != "sign-place-note" {
					t.Errorf("no disabled %q button described by the note (shown %v, disabled %v, described by %q)", con["One card per place"], got.Off, got.OffDisabled, got.Described)
				}
				if got.Print {
					t.Errorf("the printer's menu offers the place cards with no places")
				}
				b.do(t, "scrolling to the signs", chromedp.ScrollIntoView(chromedp.CSS(`#signage`)))
				b.shotScreen(t, "signs-no-places-"+name)
				if sz.name != "laptop" {
					return
				}
				b.axeCheck(t, "Share tab, no places "+name)
				b.do(t, "following the note", click(`#sign-place-note`))
				b.waitJS(t, "the Places tab", `location.pathname.endsWith('/places') && !!document.querySelector('#tab form')`)
			})
		}
	}
	t.Run("with a place", func(t *testing.T) {
		admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/spots", map[string]string{"label": "Giardino"}, nil)
		b := newBrowserAt(t, "en-US", 1366, 768)
		b.signIn(t, box.URL)
		b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
		b.settle(t, "#signage a[download]")
		var href string
		b.eval(t, `(document.querySelector('#signage a[data-kind=place]') || {}).href || ''`, &href)
		if href == "" {
			t.Fatalf("no place cards offered once the event has a place; the signs say %q", b.text(t, "#signage"))
		}
		var left struct{ Off, Note bool }
		b.eval(t, `({ off: !!document.getElementById('sign-place-off'), note: !document.getElementById('sign-place-note').closest('p').hidden })`, &left)
		if left.Off || left.Note {
			t.Errorf("once the event has a place, the disabled button stays %v, the note to add places shows %v", left.Off, left.Note)
		}
		res, err := admin.http.Get(href)
		if err != nil {
			t.Fatalf("GET %s: %v", href, err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "application/pdf" {
			t.Errorf("the place cards: status %d, %s; want a PDF", res.StatusCode, res.Header.Get("Content-Type"))
		}
	})
}
