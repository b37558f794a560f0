package e2e

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestFrontPage checks the box's front page: with one open event it goes
// straight there; with several it lists them by name and offers the code
// box, which takes a slug or the access code the hosts gave out and says
// beside the box when no event has the code.
func TestFrontPage(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	first := createEvent(t, box.Store, "Garden party", nil)

	b.do(t, "opening the front page with one open event",
		chromedp.Navigate(box.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#guest-name`)))
	b.waitText(t, "h1", "Garden party")

	second := createEvent(t, box.Store, "Rehearsal dinner", nil)
	b.do(t, "opening the front page with two open events",
		chromedp.Navigate(box.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#event-code`)))
	b.waitText(t, "main", "Hosts: sign in")
	b.waitText(t, "main", "Garden party") // the way back to the last event joined
	b.shot(t, "index")
	b.do(t, "typing the other event's code",
		chromedp.SendKeys(chromedp.CSS(`#event-code`), second.Slug),
		click(`form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#guest-name`)))
	b.waitText(t, "h1", "Rehearsal dinner")
	if first.Slug == second.Slug {
		t.Fatal("two events share a slug")
	}

	third := createEvent(t, box.Store, "Roses wedding", func(e *store.Event) { e.AccessCode = "roses" })
	b.do(t, "opening the front page with three open events",
		chromedp.Navigate(box.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`.event-list`)))
	for _, name := range []string{"Garden party", "Rehearsal dinner", "Roses wedding"} {
		b.waitText(t, ".event-list", name)
	}
	b.do(t, "typing a code no event has",
		chromedp.SendKeys(chromedp.CSS(`#event-code`), "tulips"),
		click(`form button[type=submit]`))
	b.waitText(t, "#event-code-error", "No event has this code")
	b.waitText(t, ".event-list", "Roses wedding") // still on the page, with the list
	b.eval(t, `document.querySelector('#event-code').value = ''`, nil)
	b.do(t, "typing the access code the hosts gave out",
		chromedp.SendKeys(chromedp.CSS(`#event-code`), "ROSES"),
		click(`form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#guest-name`)))
	b.waitText(t, "h1", third.Name)

	b.do(t, "opening an event that does not exist, then its way back",
		chromedp.Navigate(box.URL+"/e/nosuch"),
		chromedp.WaitVisible(chromedp.CSS(`main a[href="/"]`)),
		click(`main a[href="/"]`),
		chromedp.WaitVisible(chromedp.CSS(`.event-list`)))
}

// TestGallery opens a password-protected gallery link: a wrong password
// is refused, the right one shows the photo and the ZIP download.
func TestGallery(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Anna & Marco", nil)

	guest := newClient(t, box.URL)
	if st := guest.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	if st := guest.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", writeJPEG(t, "p.jpg", 800, 600), nil); st != http.StatusCreated {
		t.Fatalf("uploading: status %d", st)
	}
	var created struct {
		Share struct {
			URL   string `json:"url"`
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares",
		map[string]any{"password": "garden-gate", "label": "For the family", "allowDownload": true}, &created); st != http.StatusCreated {
		t.Fatalf("creating the gallery link: status %d", st)
	}

	b := newBrowser(t)
	b.do(t, "opening the gallery link",
		chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
		chromedp.WaitVisible(chromedp.CSS(`#gallery-password`)))
	b.do(t, "typing a wrong password",
		chromedp.SendKeys(chromedp.CSS(`#gallery-password`), "wrong"),
		click(`form button[type=submit]`))
	b.waitText(t, ".form-err", "Wrong password")
	b.shot(t, "gallery-password")
	b.do(t, "typing the password",
		fill(`#gallery-password`, "garden-gate"),
		click(`form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile`)),
		chromedp.WaitVisible(chromedp.CSS(`#download-all`)))
	b.waitText(t, "main", "For the family")
	b.shot(t, "gallery")
}

// TestGalleryGuestbook opens a gallery link without a password whose
// event shares its guestbook: the photos and the guests' messages show.
func TestGalleryGuestbook(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.GuestbookInGallery = true })
	guest := newClient(t, box.URL)
	if st := guest.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	if st := guest.json(t, "POST", "/api/e/"+ev.Slug+"/guest", map[string]string{"name": "Zia Carla"}, nil); st != http.StatusOK {
		t.Fatalf("naming: status %d", st)
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.WriteField("text", "Tanti auguri!"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := guest.do(t, "POST", "/api/e/"+ev.Slug+"/messages", w.FormDataContentType(), &buf, nil); st != http.StatusCreated {
		t.Fatalf("writing in the guestbook: status %d", st)
	}
	if st := guest.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", writeJPEG(t, "p.jpg", 800, 600), nil); st != http.StatusCreated {
		t.Fatalf("uploading: status %d", st)
	}
	var created struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"allowDownload": false}, &created); st != http.StatusCreated {
		t.Fatalf("creating the gallery link: status %d", st)
	}

	b := newBrowser(t)
	b.do(t, "opening the gallery link",
		chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
		chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile`)))
	var download bool
	b.eval(t, `!!document.querySelector('#download-all')`, &download)
	if download {
		t.Error("a link without downloads offers the ZIP")
	}
	b.do(t, "opening the guestbook",
		click(`#tab-guestbook`),
		chromedp.WaitVisible(chromedp.CSS(`#gallery-messages .msg`)))
	b.waitText(t, "#gallery-messages", "Tanti auguri!")
	b.waitText(t, "#gallery-messages", "Zia Carla")
	b.shot(t, "gallery-guestbook")
}
