package e2e

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// axePath is axe-core's browser build, fetched by `make axe` (pinned and
// checked against its npm integrity; not committed).
const axePath = "testdata/axe/axe.min.js"

// axeViolation is one rule axe-core found broken, with where.
type axeViolation struct {
	ID    string   `json:"id"`
	Help  string   `json:"help"`
	Nodes []string `json:"nodes"`
}

// axeRun is the script that runs axe-core in the page and answers its
// violations (axe's result objects): the WCAG 2.1 A and AA rules, then the
// rules beyond them that a product page should still keep (headings in
// order, roles an element may take, a named dialog).
const axeRun = `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
	.then((a) => axe.run(document, { runOnly: { type: 'rule', values: ['heading-order', 'aria-allowed-role', 'aria-dialog-name'] }, resultTypes: ['violations'] })
		.then((b) => a.violations.concat(b.violations)))`

// axeCheck runs axe-core inside the page (axeRun) and fails the test for
// each violation.
func (b *browser) axeCheck(t *testing.T, page string) {
	t.Helper()
	src, err := os.ReadFile(axePath)
	if err != nil {
		testtool.Missing(t, fmt.Sprintf("no axe-core (%v): run make axe", err))
	}
	var loaded bool
	b.eval(t, string(src)+"\n;typeof axe === 'object'", &loaded)
	if !loaded {
		t.Fatalf("axe-core did not load")
	}
	var found []axeViolation
	b.eval(t, axeRun+`
		.then((vs) => vs.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ') + ': ' + n.failureSummary.replace(/\s+/g, ' ')) })))`, &found)
	for _, v := range found {
		t.Errorf("%s: %s (%s):\n\t%s", page, v.ID, v.Help, strings.Join(v.Nodes, "\n\t"))
	}
}

// TestAccessibility: axe-core finds no WCAG 2.1 A/AA violation on the
// guest page (capture, queue, photos, guestbook), the gallery and the
// booth page, at a phone's size.
func TestAccessibility(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	if _, err := os.Stat(axePath); err != nil {
		testtool.Missing(t, fmt.Sprintf("no axe-core (%v): run make axe", err))
	}
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.CollectGuestEmails = true
		e.GuestbookInGallery = true
		e.Description = "Share your photos of the day with us!"
		e.Challenges = []store.Challenge{{ID: store.NewID(), Label: "A selfie with the couple"}}
		e.CaptureFilters.Enabled = []string{"bw"}
		e.MaxPhotosPerGuest = 20
	})
	guestUploads(t, box, ev, "Lucia", 2)
	admin := newClient(t, box.URL)
	admin.signIn(t)

	t.Run("guest page", func(t *testing.T) {
		b := newBrowser(t)
		b.do(t, "opening the event link",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		b.do(t, "taking a photo", chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{writeJPEG(t, "mine.jpg", 640, 480)}))
		b.waitJS(t, "the photo shows", `document.querySelectorAll('#my-photos .tile img:not(.wait)').length === 1`)
		b.axeCheck(t, "guest page, my photos")
		b.do(t, "opening everyone's photos", click(`#tab-all`), chromedp.WaitVisible(chromedp.CSS(`#all-photos .tile`)))
		b.axeCheck(t, "guest page, everyone's photos")
		b.do(t, "opening a photo", click(`#all-photos .tile`), chromedp.WaitVisible(chromedp.CSS(`.lightbox`)))
		b.axeCheck(t, "guest page, photo viewer")
		b.do(t, "closing it", click(`.lightbox .bar button`), chromedp.WaitNotPresent(chromedp.CSS(`.lightbox`)))
		b.do(t, "opening the guestbook", click(`#tab-guestbook`), chromedp.WaitVisible(chromedp.CSS(`#gb-text`)))
		b.axeCheck(t, "guest page, guestbook")
	})

	t.Run("gallery", func(t *testing.T) {
		var created struct {
			Share struct {
				Token string `json:"token"`
			} `json:"share"`
		}
		if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"label": "For the family", "allowDownload": true}, &created); st != http.StatusCreated {
			t.Fatalf("creating the gallery link: status %d", st)
		}
		b := newBrowser(t)
		b.do(t, "opening the gallery link",
			chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
			chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile`)))
		b.axeCheck(t, "gallery")
	})

	t.Run("booth page", func(t *testing.T) {
		var on struct {
			URL      string `json:"url"`
			BoothKey string `json:"boothKey"`
		}
		if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/booth", map[string]any{}, &on); st != http.StatusOK && st != http.StatusCreated {
			t.Fatalf("turning the booth on: status %d", st)
		}
		b := newBrowser(t)
		b.do(t, "opening the booth link",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug+"?booth="+on.BoothKey),
			chromedp.WaitVisible(chromedp.CSS(`#booth-start`)))
		b.axeCheck(t, "booth page")
		b.do(t, "starting the booth", click(`#booth-start`), chromedp.WaitVisible(chromedp.CSS(`.booth video`)))
		b.axeCheck(t, "booth page, camera")
	})
}
