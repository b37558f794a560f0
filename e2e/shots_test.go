package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/store"
)

// TestShots takes screenshots of the main pages at a phone's, a laptop's
// and a venue screen's size, in English and French, and of the guests'
// side at a party (guest page, queue, guestbook, viewer, gallery, booth)
// at a phone's size, into the -shots directory (`make shots`). Without -shots it is skipped: it checks only
// that each page opens, which the other tests cover.
func TestShots(t *testing.T) {
	t.Parallel()
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR (make shots)")
	}
	sizes := []struct {
		name string
		w, h int
	}{{"phone", phoneWidth, phoneHeight}, {"laptop", 1366, 900}, {"screen", 1920, 1080}}
	// A small image limit, so the queue's screenshot shows a refusal.
	box := startBoxWith(t, func(c *daemon.Config) { c.MaxUploadMB = 2 })
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.Moderation = "pre" })
	guestUploads(t, box, ev, "Lucia", 3)
	photo := writeJPEG(t, "shot.jpg", 800, 600)
	party := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.CollectGuestEmails = true
		e.GuestbookInGallery = true
		e.MaxPhotosPerGuest = 3
		e.Challenges = []store.Challenge{{ID: store.NewID(), Label: "A selfie with the couple"}}
	})
	guestUploads(t, box, party, "Ana", 3)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	var share struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+party.ID+"/shares", map[string]any{"allowDownload": true, "label": "For the family"}, &share); st != 201 {
		t.Fatalf("creating the gallery link: status %d", st)
	}
	var booth struct {
		BoothKey string `json:"boothKey"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+party.ID+"/booth", map[string]any{}, &booth); st != 200 && st != 201 {
		t.Fatalf("turning the booth on: status %d", st)
	}
	big := writeNoiseJPEG(t, "IMG_0042.jpg", 1800, 1800, 7)
	for _, lang := range []string{"en-US", "fr-FR"} {
		// The guests' side at a party, at a phone's size: the page with its
		// queue (a file over the limit, a selection cut by the quota, the
		// thank-you), the guestbook, the viewer, the gallery and the booth.
		t.Run("party-"+lang[:2], func(t *testing.T) {
			name := func(page string) string { return fmt.Sprintf("%s-%s-phone", page, lang[:2]) }
			g := newBrowserAt(t, lang, phoneWidth, phoneHeight)
			g.do(t, "opening the event link", chromedp.Navigate(box.URL+"/e/"+party.Slug), chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
			g.shot(t, name("party-guest"))
			files := []string{big}
			for i := range 4 {
				files = append(files, writeJPEG(t, fmt.Sprintf("IMG_%04d.jpg", 100+i), 640+8*i, 480))
			}
			g.do(t, "choosing five photos, one too big", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files))
			g.waitJS(t, "the queue is done", `!!document.querySelector('#queue-done')`)
			g.shot(t, name("party-queue-done"))
			g.do(t, "opening the guestbook", click(`#tab-guestbook`), chromedp.WaitVisible(chromedp.CSS(`#gb-text`)))
			g.shot(t, name("party-guestbook"))
			g.do(t, "opening everyone's photos", click(`#tab-all`), chromedp.WaitVisible(chromedp.CSS(`#all-photos .tile`)),
				click(`#all-photos .tile`), chromedp.WaitVisible(chromedp.CSS(`.lightbox .stage img`)))
			g.shotScreen(t, name("party-viewer"))
			gl := newBrowserAt(t, lang, phoneWidth, phoneHeight)
			gl.do(t, "opening the gallery", chromedp.Navigate(box.URL+"/g/"+share.Share.Token), chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile`)))
			gl.shot(t, name("party-gallery"))
			bo := newBrowserAt(t, lang, phoneWidth, phoneHeight)
			bo.do(t, "opening the booth", chromedp.Navigate(box.URL+"/e/"+party.Slug+"?booth="+booth.BoothKey), chromedp.WaitVisible(chromedp.CSS(`#booth-start`)))
			bo.shotScreen(t, name("party-booth"))
		})
	}
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
					click(`form button[type=submit]`),
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
