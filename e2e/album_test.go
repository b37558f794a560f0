package e2e

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestGuestAlbumFavouritesAndFilters: at a phone's size, the guest page's
// shared album shows the hosts' favourites and keeps one guest's photos
// when the guest filter asks, as the gallery does.
func TestGuestAlbumFavouritesAndFilters(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", nil)
	ana := guestUploads(t, box, ev, "Ana", 2)
	ben := guestUploads(t, box, ev, "Ben", 1)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "favorite", "ids": []string{ben[0]}}, nil); st != http.StatusOK {
		t.Fatalf("marking a favourite: status %d", st)
	}
	b := newBrowserAt(t, "en-US", phoneWidth, phoneHeight)
	b.do(t, "opening the shared album",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#tab-all`)),
		click(`#tab-all`),
		chromedp.WaitVisible(chromedp.CSS(`#all-photos .tile`)))
	var favs []string
	b.eval(t, `[...document.querySelectorAll('#album-favorites .tile')].map((e) => e.dataset.id)`, &favs)
	if fmt.Sprint(favs) != fmt.Sprint(ben) {
		t.Errorf("favourites = %v; want %v", favs, ben)
	}
	b.waitText(t, "#album-favorites h2", "The hosts' favourites")
	b.shot(t, "guest-album")
	b.do(t, "keeping Ana's photos", choose(`#filter-guest`, "Ana"))
	b.waitText(t, "#album-count", "2 photos")
	var shown []string
	b.eval(t, `[...document.querySelectorAll('#all-photos .tile')].map((e) => e.dataset.id)`, &shown)
	if fmt.Sprint(shown) != fmt.Sprint(ana) {
		t.Errorf("Ana's photos shown = %v; want %v, as taken", shown, ana)
	}
}

// TestGuestAlbumCountsDownToRevealAt: an event that holds its album back
// until revealAt shows guests a countdown on the shared album's tab
// instead of the photos, in their language.
func TestGuestAlbumCountsDownToRevealAt(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.RevealAt = time.Now().Add(26 * time.Hour).UnixMilli()
	})
	guestUploads(t, box, ev, "Ana", 1)
	b := newBrowserAt(t, "fr-FR", phoneWidth, phoneHeight)
	b.do(t, "opening the shared album",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#tab-all`)),
		click(`#tab-all`),
		chromedp.WaitVisible(chromedp.CSS(`#album-reveal`)))
	b.waitText(t, "#album-reveal", "L'album s'ouvre dans")
	b.waitText(t, "#reveal-countdown", "1 jour ") // the page speaks French
	var tiles int
	b.eval(t, `document.querySelectorAll('#all-photos .tile').length`, &tiles)
	if tiles != 0 {
		t.Errorf("%d photos shown before revealAt", tiles)
	}
	b.shot(t, "guest-album-reveal")
}
