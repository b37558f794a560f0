package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestHeartsInTheAlbumGalleryAndConsole: at a phone's size, in English,
// French and Italian, a guest hearts a photo of the shared album from its
// tile (a 44 px button beside the tile's own, reached with the keyboard),
// takes it back, sees the large view agree and take it back there too,
// then hearts it from the large view; a heart the box refuses comes back
// off with a message; a gallery visitor does the same from the gallery's
// tile and large view and puts the most loved first, and the hosts see
// the count on the console's tile and keep the most loved with the
// filter; axe finds nothing on each page.
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
	for _, lang := range []struct{ code, loved, heart, one, two string }{
		{"en-US", "Most loved", "Love this photo", "1 heart", "2 hearts"},
		{"fr-FR", "Les plus aimées", "J’aime cette photo", "1 cœur", "2 cœurs"},
		{"it-IT", "Le più amate", "Mi piace questa foto", "1 cuore", "2 cuori"},
	} {
		for _, size := range sizes {
			if !size.checked && *shotDir == "" || !swept(lang.code+"-"+size.name, "en-US-phone", "fr-FR-small-phone") {
				continue
			}
			t.Run(lang.code+"-"+size.name, func(t *testing.T) {
				t.Parallel()
				heartsFlow(t, heartWords{lang.code, lang.loved, lang.heart, lang.one, lang.two}, size.w, size.h, size.checked, size.name)
			})
		}
	}
}

// heartWords are what a language's pages say of hearts: the console's
// filter, the heart's name, and one and two hearts.
type heartWords struct{ lang, loved, heart, one, two string }

// heartIs is a JavaScript test that the heart button sel is pressed (or
// not) with text on it and the name label.
func heartIs(sel string, pressed bool, text, label string) string {
	return fmt.Sprintf(`(() => { const b = document.querySelector(%q); return !!b && b.getAttribute('aria-pressed') === %q && b.textContent === %q && b.getAttribute('aria-label') === %q; })()`,
		sel, fmt.Sprint(pressed), text, label)
}

func heartsFlow(t *testing.T, words heartWords, w, h int, checked bool, size string) {
	lang, lovedLabel, heartLabel := words.lang, words.loved, words.heart
	one, two := heartLabel+", "+words.one, heartLabel+", "+words.two
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
	// big reads the large view's heart.
	const big = `.lightbox #heart`
	// reachable checks the tile's heart is a 44 px target, the next stop
	// of the keyboard after the tile's own button.
	reachable := func(b *browser, grid string) {
		var got struct{ W, H float64 }
		b.eval(t, `(() => { const r = document.querySelector('`+tile(grid)+` > .tile-heart').getBoundingClientRect(); return { w: r.width, h: r.height }; })()`, &got)
		if got.W < 44 || got.H < 44 {
			t.Errorf("the tile's heart is %.0f×%.0f px; want at least 44×44", got.W, got.H)
		}
		b.eval(t, `document.querySelector('`+tile(grid)+` > .open').focus()`, nil)
		b.do(t, "moving on with the keyboard", chromedp.KeyEvent("\t"))
		b.waitJS(t, "the heart is the next stop", `document.activeElement === document.querySelector('`+tile(grid)+` > .tile-heart')`)
	}

	// fromTheTile hearts the loved photo from its tile in grid, takes the
	// heart back with the keyboard, hearts it again, then takes it back in
	// the large view, which agrees with the tile all along. off and on are
	// the heart's text and name either way; page names the page for axe,
	// name the screenshot.
	type heartState struct{ text, name string }
	fromTheTile := func(b *browser, grid, page, name string, off, on heartState) string {
		heart := tile(grid) + ` > .tile-heart`
		b.waitJS(t, "the tile's heart says what it does", heartIs(heart, false, off.text, off.name))
		b.do(t, "hearting it from its tile", click(heart))
		b.waitJS(t, "the tile's heart is pressed", heartIs(heart, true, on.text, on.name))
		axe(b, page+", a photo hearted from its tile")
		shot(b, name+"-tile")
		reachable(b, grid)
		b.do(t, "taking it back with the keyboard", chromedp.KeyEvent(" "))
		b.waitJS(t, "the tile's heart is off again", heartIs(heart, false, off.text, off.name))
		b.do(t, "hearting it from its tile again", click(heart))
		b.waitJS(t, "the tile's heart is pressed again", heartIs(heart, true, on.text, on.name))
		b.do(t, "opening the hearted photo", click(tile(grid)), chromedp.WaitVisible(chromedp.CSS(big)))
		b.waitJS(t, "the large view agrees", heartIs(big, true, on.text, on.name))
		b.do(t, "taking it back in the large view", click(big))
		b.waitJS(t, "the large view and the tile are off", heartIs(big, false, off.text, off.name)+` && `+heartIs(heart, false, off.text, off.name))
		b.do(t, "closing the large view", click(`.lightbox .bar button`), chromedp.WaitNotPresent(chromedp.CSS(`.lightbox`)))
		return heart
	}

	// The guest, in the shared album.
	g := newBrowserAt(t, lang, w, h)
	g.do(t, "opening the shared album",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#tab-all`)),
		click(`#tab-all`),
		chromedp.WaitVisible(chromedp.CSS(tile(`#all-photos`))))
	heart := fromTheTile(g, `#all-photos`, "shared album", "album", heartState{"♡", heartLabel}, heartState{"♥ 1", one})
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
	// A heart the box never hears of: the tile's heart goes back as it
	// was, and a message says why.
	g.block(t, "*://*:*/api/e/*/photos/*/heart")
	g.do(t, "taking it back without the box", click(heart))
	g.waitJS(t, "the heart comes back on with a message", `!!document.querySelector('.toast.bad') && `+heartIs(heart, true, "♥ 1", one))
	g.block(t)

	// A gallery visitor.
	v := newBrowserAt(t, lang, w, h)
	v.do(t, "opening the gallery",
		chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
		chromedp.WaitVisible(chromedp.CSS(tile(`#gallery-photos`))))
	fromTheTile(v, `#gallery-photos`, "gallery", "gallery", heartState{"♡ 1", one}, heartState{"♥ 2", two})
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
