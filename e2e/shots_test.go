package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestShots takes screenshots of the main pages at a phone's, a laptop's
// and a venue screen's size, in English and French, into the -shots
// directory (`make shots`). Without -shots it is skipped: it checks only
// that each page opens, which the other tests cover.
func TestShots(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR (make shots)")
	}
	sizes := []struct {
		name string
		w, h int
	}{{"phone", phoneWidth, phoneHeight}, {"laptop", 1366, 900}, {"screen", 1920, 1080}}
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.Moderation = "pre" })
	guestUploads(t, box, ev, "Lucia", 3)
	photo := writeJPEG(t, "shot.jpg", 800, 600)
	for _, lang := range []string{"en-US", "fr-FR"} {
		for _, size := range sizes {
			name := func(page string) string { return fmt.Sprintf("%s-%s-%s", page, lang[:2], size.name) }
			t.Run(name("pages"), func(t *testing.T) {
				g := newBrowserAt(t, lang, size.w, size.h)
				g.do(t, "opening the event link",
					chromedp.Navigate(box.URL+"/e/"+ev.Slug),
					chromedp.WaitVisible(chromedp.CSS(`#guest-name`)))
				g.shot(t, name("guest-name"))
				g.do(t, "joining",
					chromedp.SendKeys(chromedp.CSS(`#guest-name`), "Lucia"),
					chromedp.Click(chromedp.CSS(`form button[type=submit]`)),
					chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
				g.block(t, "*://*:*/api/e/*/photos*")
				g.do(t, "taking a photo while the box is away",
					chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
				g.waitJS(t, "the queue shows the photo", `!!document.querySelector('#queue-list') && document.querySelector('#queue-list').textContent.length > 0`)
				g.shot(t, name("guest-queue"))

				a := newBrowserAt(t, lang, size.w, size.h)
				a.signIn(t, box.URL)
				a.do(t, "opening the photos tab",
					chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
					chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
				a.shot(t, name("admin-photos"))
				a.do(t, "opening the settings",
					chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"),
					chromedp.WaitVisible(chromedp.CSS(`form`)))
				a.shot(t, name("admin-settings"))
			})
		}
	}
}
