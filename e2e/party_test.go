package e2e

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/store"
)

// writeNoiseJPEG writes a w×h JPEG of random pixels: it compresses
// badly, so a small picture makes a large file.
func writeNoiseJPEG(t *testing.T, name string, w, h int, seed uint64) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(rng.IntN(256)), uint8(rng.IntN(256)), uint8(rng.IntN(256)), 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 95}); err != nil {
		t.Fatalf("encoding jpeg: %v", err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatalf("writing %s: %v", path, err)
	}
	return path
}

// partyEvent is an event with every guest tab: my photos, everyone's and
// the guestbook.
func partyEvent(t *testing.T, st *store.Store, name string, edit func(*store.Event)) store.Event {
	t.Helper()
	return createEvent(t, st, name, func(e *store.Event) {
		e.AskGuestName = false
		e.AlbumShared = true
		e.GuestbookEnabled = true
		e.GuestbookVoice = true
		e.AllowVideos = true
		if edit != nil {
			edit(e)
		}
	})
}

// TestGuestTabsWholeInEveryLanguage: in French, Italian and Spanish, at a
// phone's width (390 px, and 360 px, the narrowest common Android
// screen), every tab of the guest page is on screen whole: none hidden
// behind the edge of a bar that scrolls without showing it.
func TestGuestTabsWholeInEveryLanguage(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", nil)
	// One browser for every case: the language is the one a guest picks
	// on the page (kept in localStorage), the width the viewport's.
	b := newBrowserAt(t, "fr-FR", phoneWidth, phoneHeight)
	b.do(t, "opening the event link", chromedp.Navigate(box.URL+"/e/"+ev.Slug), chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)))
	for _, tc := range []struct {
		lang  string
		width int
	}{{"fr", phoneWidth}, {"it", phoneWidth}, {"es", phoneWidth}, {"it", 360}, {"fr", 360}} {
		t.Run(fmt.Sprintf("%s at %dpx", tc.lang, tc.width), func(t *testing.T) {
			b.eval(t, fmt.Sprintf(`localStorage.setItem('eventbox.lang', %q)`, tc.lang), nil)
			b.do(t, "reloading at the width",
				chromedp.EmulateViewport(int64(tc.width), phoneHeight, chromedp.EmulateScale(2), chromedp.EmulateTouch),
				chromedp.Reload(),
				chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)))
			var lang string
			b.eval(t, `document.documentElement.lang`, &lang)
			if lang != tc.lang {
				t.Fatalf("the page speaks %q; want %q", lang, tc.lang)
			}
			var cut []string
			b.eval(t, `(() => {
				const nav = document.querySelector('#tabs');
				const out = [];
				if (nav.scrollWidth > nav.clientWidth + 1) out.push('the bar scrolls: ' + nav.scrollWidth + ' > ' + nav.clientWidth);
				for (const tab of nav.querySelectorAll('[role=tab]')) {
					const r = tab.getBoundingClientRect();
					if (r.left < 0 || r.right > innerWidth + 0.5 || tab.scrollWidth > tab.clientWidth + 1) out.push(tab.textContent + ' ' + r.left + '..' + r.right);
				}
				return out;
			})()`, &cut)
			if len(cut) > 0 {
				t.Errorf("tabs not whole at %dpx in %s: %v", tc.width, tc.lang, cut)
			}
			b.shotScreen(t, fmt.Sprintf("guest-tabs-%s-%d", tc.lang, tc.width))
		})
	}
}

// TestGuestRefusesOverLimitBeforeSending: a photo over MAX_UPLOAD_MB is
// refused on the phone, with the limit named, and never sent.
func TestGuestRefusesOverLimitBeforeSending(t *testing.T) {
	t.Parallel()
	box := startBoxWith(t, func(c *daemon.Config) { c.MaxUploadMB = 1 })
	proxy := newFaultyBox(t, box)
	ev := partyEvent(t, box.Store, "Big files", nil)
	big := writeNoiseJPEG(t, "IMG_0042.jpg", 1200, 1200, 1)
	if fi, err := os.Stat(big); err != nil || fi.Size() <= 1<<20 {
		t.Fatalf("the big photo is %v bytes (%v); want over 1 MB", fi.Size(), err)
	}
	b := newBrowser(t)
	b.do(t, "opening the event link",
		chromedp.Navigate(proxy.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
	b.do(t, "taking a photo over the limit",
		chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{big}))
	b.waitText(t, "#queue-list", "IMG_0042.jpg")
	b.waitText(t, "#queue-list", "Not sent: the file is too large (over 1 MB")
	b.shot(t, "guest-over-limit")
	if n := proxy.posts(); n != 0 {
		t.Errorf("the page sent %d uploads; want none", n)
	}
	if n := keptOnPhone(t, b); n != 0 {
		t.Errorf("the phone keeps %d files; want 0", n)
	}
	b.do(t, "choosing the big photo and a small one",
		chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), []string{big, writeJPEG(t, "small.jpg", 640, 480)}))
	b.waitJS(t, "the small photo is sent", `document.querySelectorAll('#my-photos .tile').length === 1`)
	b.waitText(t, "#queue-done", "Thank you!")
	b.waitText(t, "#queue-done", "1 photo sent to the hosts. 1 could not be sent")
	if n := proxy.posts(); n != 1 {
		t.Errorf("the page sent %d uploads; want 1, the small photo", n)
	}
}

// TestGuestQuotaCutSaysWhichFilesStay: three photos picked with two left
// of the quota: two are sent, and the page names the one that is not; with
// one photo a guest the French sentence is in the singular.
func TestGuestQuotaCutSaysWhichFilesStay(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Two each", func(e *store.Event) { e.MaxPhotosPerGuest = 2 })
	files := []string{writeJPEG(t, "first.jpg", 640, 480), writeJPEG(t, "second.jpg", 648, 480), writeJPEG(t, "third.jpg", 656, 480)}
	b := newBrowser(t)
	b.do(t, "opening the event link",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
	b.waitText(t, "#capture", "2 of 2 photos left.")
	b.do(t, "choosing three photos", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files))
	b.waitText(t, "#quota-cut", "The limit is 2 photos per guest, so only 2 of your selection will be sent.")
	b.waitText(t, "#quota-cut", "Not sent: third.jpg.")
	b.waitJS(t, "two photos are sent", `document.querySelectorAll('#my-photos .tile').length === 2`)
	b.waitText(t, "#queue-done", "2 photos sent")
	if s := b.text(t, "#queue-done"); strings.Contains(s, "could not be sent") {
		t.Errorf("the thank-you counts a refusal that did not happen: %q", s)
	}
	b.shot(t, "guest-quota-cut")
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 2 {
		t.Fatalf("the box holds %d photos; want 2", n)
	}
	if s := b.text(t, "#quota-cut"); strings.Contains(s, "first.jpg") || strings.Contains(s, "second.jpg") {
		t.Errorf("the cut names a file that was sent: %q", s)
	}

	// One photo a guest, in French: the sentence agrees with one.
	one := partyEvent(t, box.Store, "Une chacun", func(e *store.Event) { e.MaxPhotosPerGuest = 1 })
	fr := newBrowserAt(t, "fr", phoneWidth, phoneHeight)
	fr.do(t, "opening the event link in French",
		chromedp.Navigate(box.URL+"/e/"+one.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
	fr.do(t, "choosing two photos", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files[:2]))
	fr.waitText(t, "#quota-cut", "La limite est de 1 photo par invité\u00a0: seule 1 photo de votre sélection sera envoyée.")
	fr.waitText(t, "#quota-cut", "Non envoyée\u00a0: second.jpg.")
	fr.shot(t, "guest-quota-cut-one-fr")
}

// TestGuestPlainHTTPOffersCapture: on the box's plain http:// name (not a
// secure context, so no getUserMedia) the page offers the phone's own
// camera, video camera and recorder through <input capture>, and "Record
// a voice message" is still there.
func TestGuestPlainHTTPOffersCapture(t *testing.T) {
	t.Parallel()
	// The box's own name, as eventbox.local is on the hotspot; the test
	// browser resolves it to the test server.
	box := startBoxWith(t, func(c *daemon.Config) { c.OwnHosts = []string{"eventbox.test"} })
	ev := partyEvent(t, box.Store, "Garden", nil)
	u, err := url.Parse(box.URL)
	if err != nil {
		t.Fatal(err)
	}
	b := newBrowserFlags(t, "en-US", phoneWidth, phoneHeight, map[string]any{"host-resolver-rules": "MAP eventbox.test 127.0.0.1"})
	page := fmt.Sprintf("http://eventbox.test:%s/e/%s", u.Port(), ev.Slug)
	b.do(t, "opening the event on the box's plain http name",
		chromedp.Navigate(page),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
	var secure bool
	b.eval(t, `window.isSecureContext`, &secure)
	if secure {
		t.Fatalf("%s is a secure context; the test needs a plain http page", page)
	}
	for _, sel := range []string{`#take-photo input[type=file][capture][accept^="image/"]`, `#record-video input[type=file][capture][accept^="video/"]`} {
		var n int
		b.eval(t, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel), &n)
		if n != 1 {
			t.Errorf("%s: %d found; want 1", sel, n)
		}
	}
	b.do(t, "opening the guestbook", click(`#tab-guestbook`), chromedp.WaitVisible(chromedp.CSS(`#gb-record`)))
	b.waitText(t, "#gb-record", "Record a voice message")
	var n int
	b.eval(t, `document.querySelectorAll('#gb-record input[type=file][capture][accept^="audio/"]').length`, &n)
	if n != 1 {
		t.Errorf("the voice message button opens no recorder (%d capture inputs)", n)
	}
	b.shot(t, "guest-plain-http-guestbook")
}

// TestGuestbookClosedAfterTheEnd: after the event ends the guestbook says
// it is closed instead of offering a form whose Send can only fail; a
// form still open when the event ends says so on Send.
func TestGuestbookClosedAfterTheEnd(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Last dance", nil)
	b := newBrowser(t)
	b.do(t, "opening the guestbook",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)),
		click(`#tab-guestbook`),
		chromedp.WaitVisible(chromedp.CSS(`#gb-text`)))
	end(t, box, ev)
	b.do(t, "writing a message after the end",
		chromedp.SendKeys(chromedp.CSS(`#gb-text`), "What a night!"),
		click(`#panel form button[type=submit]`))
	b.waitText(t, "#gb-closed", "The guestbook is closed")
	b.do(t, "reloading", chromedp.Navigate(box.URL+"/e/"+ev.Slug), chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)),
		click(`#tab-guestbook`), chromedp.WaitVisible(chromedp.CSS(`#gb-closed`)))
	var forms int
	b.eval(t, `document.querySelectorAll('#panel form').length`, &forms)
	if forms != 0 {
		t.Errorf("the ended event's guestbook still shows %d forms", forms)
	}
}

// end ends the event as the hosts' End button does.
func end(t *testing.T, box *box, ev store.Event) {
	t.Helper()
	admin := newClient(t, box.URL)
	admin.signIn(t)
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/end", nil, nil); st != 200 {
		t.Fatalf("ending the event: status %d", st)
	}
}

// TestGalleryKeepsake: a gallery link shows the event's logo, a cover,
// the hosts' favourites, every photo oldest first with a filter by guest,
// and a full-screen slideshow.
func TestGalleryKeepsake(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", nil)
	ana := guestUploads(t, box, ev, "Ana", 2)
	guestUploads(t, box, ev, "Ben", 1)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	if st := admin.upload(t, "/api/admin/events/"+ev.ID+"/logo", "logo", writeJPEG(t, "logo.jpg", 200, 120), nil); st != http.StatusOK {
		t.Fatalf("uploading the logo: status %d", st)
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "favorite", "ids": []string{ana[1]}}, nil); st != http.StatusOK {
		t.Fatalf("marking a favourite: status %d", st)
	}
	var created struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"allowDownload": true}, &created); st != http.StatusCreated {
		t.Fatalf("creating the gallery link: status %d", st)
	}
	b := newBrowser(t)
	b.do(t, "opening the gallery link",
		chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
		chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile`)))
	b.waitJS(t, "the logo and the cover show", `(() => { const l = document.querySelector('.hero .logo'), c = document.querySelector('.cover img');
		return l && l.complete && l.naturalWidth > 0 && c && c.complete && c.naturalWidth > 0; })()`)
	var favs []string
	b.eval(t, `[...document.querySelectorAll('#gallery-favorites .tile')].map((e) => e.dataset.id)`, &favs)
	if fmt.Sprint(favs) != fmt.Sprint([]string{ana[1]}) {
		t.Errorf("favourites = %v; want %v", favs, ana[1:])
	}
	var order []string
	b.eval(t, `[...document.querySelectorAll('#gallery-photos .tile')].map((e) => e.dataset.id)`, &order)
	if len(order) != 3 || order[0] != ana[0] || order[1] != ana[1] {
		t.Errorf("photos in order %v; want Ana's two first, as taken", order)
	}
	b.shot(t, "gallery-keepsake")
	b.do(t, "keeping Ben's photos", choose(`#filter-guest`, "Ben"))
	b.waitText(t, "#gallery-count", "1 photo")
	b.do(t, "starting the slideshow", click(`#slideshow-all`), chromedp.WaitVisible(chromedp.CSS(`.lightbox.show .stage img`)))
}

// TestGalleryOffersHEICAsJPEG: the viewer's Download of a HEIC photo is
// its JPEG display variant; a JPEG's is the original.
func TestGalleryOffersHEICAsJPEG(t *testing.T) {
	t.Parallel()
	heic, err := filepath.Abs("../imaging/testdata/quadrants.heic")
	if err != nil {
		t.Fatal(err)
	}
	box := startBox(t)
	ev := partyEvent(t, box.Store, "iPhones", nil)
	g := newClient(t, box.URL)
	if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	var res struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	if st := g.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", heic, &res); st != http.StatusCreated {
		t.Fatalf("uploading the HEIC: status %d", st)
	}
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
	b := newBrowser(t)
	b.do(t, "opening the HEIC photo in the gallery",
		chromedp.Navigate(box.URL+"/g/"+created.Share.Token),
		chromedp.WaitVisible(chromedp.CSS(`#gallery-photos .tile[data-id="`+res.Photo.ID+`"]`)),
		click(`#gallery-photos .tile[data-id="`+res.Photo.ID+`"]`),
		chromedp.WaitVisible(chromedp.CSS(`.lightbox a[download]`)))
	b.waitJS(t, "the download is the JPEG", `document.querySelector('.lightbox a[download]').href.includes('v=display')`)
}
