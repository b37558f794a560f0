package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHeartsInTheAlbumGalleryAndConsole: at a phone's size, in English
// and French, a guest hearts a photo of the shared album from its large
// view, a gallery visitor hearts it too and puts the most loved first,
// and the hosts see the count on the console's tile and keep the most
// loved with the filter; axe finds nothing on each page.
func TestHeartsInTheAlbumGalleryAndConsole(t *testing.T) {
	sizes := []struct {
		name string
		w, h int
		// checked runs the axe checks and every assertion; the other
		// sizes only take their screenshots, when asked for.
		checked bool
	}{
		{"phone", phoneWidth, phoneHeight, true},
		{"small-phone", 360, 740, true},
		{"laptop", 1366, 768, false},
		{"venue", 1920, 1080, false},
	}
	for _, lang := range []struct{ code, loved, heart string }{
		{"en-US", "Most loved", "Love this photo"},
		{"fr-FR", "Les plus aimées", "J’aime cette photo"},
		{"it-IT", "Le più amate", "Mi piace questa foto"},
	} {
		for _, size := range sizes {
			if !size.checked && *shotDir == "" || !swept(lang.code+"-"+size.name, "en-US-phone", "fr-FR-small-phone") {
				continue
			}
			t.Run(lang.code+"-"+size.name, func(t *testing.T) {
				t.Parallel()
				heartsFlow(t, lang.code, lang.loved, lang.heart, size.w, size.h, size.checked, size.name)
			})
		}
	}
}

func heartsFlow(t *testing.T, lang, lovedLabel, heartLabel string, w, h int, checked bool, size string) {
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", nil)
	ids := guestUploads(t, box, ev, "Ana", 3)
	loved := ids[1]
	admin := newClient(t, box.URL)
	admin.signIn(t)
	var created struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"allowDownload": true}, &created); st != http.StatusCreated {
		t.Fatalf("creating the gallery link: status %d", st)
	}
	shot := func(b *browser, name string) { b.shot(t, fmt.Sprintf("hearts-%s-%s-%s", name, lang, size)) }
	axe := func(b *browser, page string) {
		if checked {
			b.axeCheck(t, page)
		}
	}
	tile := func(grid string) string { return grid + ` .tile[data-id="` + loved + `"]` }

	// The guest, in the shared album.
	g := newBrowserAt(t, lang, w, h)
	g.do(t, "opening the shared album",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#tab-all`)),
		click(`#tab-all`),
		chromedp.WaitVisible(chromedp.CSS(tile(`#all-photos`))))
	g.do(t, "opening the photo", click(tile(`#all-photos`)), chromedp.WaitVisible(chromedp.CSS(`.lightbox #heart`)))
	g.waitJS(t, "the heart says what it does", fmt.Sprintf(`document.querySelector('#heart').getAttribute('aria-label') === %q`, heartLabel))
	g.do(t, "hearting it", click(`.lightbox #heart`))
	g.waitJS(t, "the heart is pressed with one", `document.querySelector('#heart').getAttribute('aria-pressed') === 'true' && document.querySelector('#heart').textContent === '♥ 1'`)
	axe(g, "shared album, a hearted photo")
	shot(g, "album-viewer")
	g.do(t, "closing it", click(`.lightbox .bar button`), chromedp.WaitNotPresent(chromedp.CSS(`.lightbox`)))
	g.waitJS(t, "the tile shows one heart", `(document.querySelector('#all-photos .tile[data-id="`+loved+`"] .hearts-badge') || {}).textContent === '♥ 1'`)
	axe(g, "shared album with a heart")
	shot(g, "album")

	// A gallery visitor.
	v := newBrowserAt(t, lang, w, h)
	v.do(t, "opening the gallery",
		chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
		chromedp.WaitVisible(chromedp.CSS(tile(`#gallery-photos`))))
	v.do(t, "opening the photo", click(tile(`#gallery-photos`)), chromedp.WaitVisible(chromedp.CSS(`.lightbox #heart`)))
	v.do(t, "hearting it", click(`.lightbox #heart`))
	v.waitJS(t, "the heart is pressed with two", `document.querySelector('#heart').getAttribute('aria-pressed') === 'true' && document.querySelector('#heart').textContent === '♥ 2'`)
	axe(v, "gallery, a hearted photo")
	shot(v, "gallery-viewer")
	v.do(t, "closing it", click(`.lightbox .bar button`), chromedp.WaitNotPresent(chromedp.CSS(`.lightbox`)))
	v.do(t, "putting the most loved first", click(`#loved-first`))
	v.waitJS(t, "the hearted photo comes first", `document.querySelector('#gallery-photos .tile').dataset.id === '`+loved+`'`)
	axe(v, "gallery, most loved first")
	shot(v, "gallery")

	// The hosts, in the console.
	c := newBrowserAt(t, lang, w, h)
	c.signIn(t, box.URL)
	c.do(t, "opening the photos",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
		chromedp.WaitVisible(chromedp.CSS(tile(`#photos`))))
	c.waitJS(t, "the tile counts two hearts", `(document.querySelector('#photos .tile[data-id="`+loved+`"] .hearts-badge') || {}).textContent === '♥ 2'`)
	if checked {
		var label string
		c.eval(t, `document.querySelector('#filter-loved').parentElement.textContent`, &label)
		if label != lovedLabel {
			t.Errorf("the filter reads %q; want %q", label, lovedLabel)
		}
	}
	// On a phone the filters are folded behind one button: a host opens it.
	var folded bool
	c.eval(t, `document.querySelector('#filter-loved').getBoundingClientRect().height === 0`, &folded)
	if folded {
		c.do(t, "opening the filters", click(`#filters-toggle`), chromedp.WaitVisible(chromedp.CSS(`#filter-loved`)))
	}
	c.do(t, "keeping the most loved", click(`#filter-loved`))
	c.waitJS(t, "only the hearted photo is left", `document.querySelectorAll('#photos .tile').length === 1 && document.querySelector('#photos .tile').dataset.id === '`+loved+`'`)
	axe(c, "console, most loved")
	shot(c, "console")
}
