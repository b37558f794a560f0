package e2e

import (
	"context"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestGuestUploads is a guest's evening: open the event link, give a
// name, take a photo for a challenge, see it in "my photos" and, with the
// album shared, in everyone's photos.
func TestGuestUploads(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.AccentColor = "#b03a5b"
		e.EventDate = "2026-06-20"
		e.Description = "Share your photos of the day with us!"
		e.Challenges = []store.Challenge{{ID: store.NewID(), Label: "A selfie with the couple"}, {ID: store.NewID(), Label: "The best dance move"}}
	})
	photo := writeJPEG(t, "party.jpg", 1200, 900)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	run("the event page asks the guest's name", func(t *testing.T) {
		b.do(t, "opening the event link",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#guest-name`)))
		b.waitText(t, "h1", "Anna & Marco")
		b.shot(t, "guest-name")
	})

	run("the guest gives a name and sees the camera button", func(t *testing.T) {
		b.do(t, "typing a name",
			chromedp.SendKeys(chromedp.CSS(`#guest-name`), "Lucia"),
			click(`form button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		b.waitText(t, "main", "Hello, Lucia!")
		b.shot(t, "guest-main")
	})

	run("a photo taken for a challenge is sent and shown in my photos", func(t *testing.T) {
		b.do(t, "picking a challenge and taking a photo",
			click(`.challenges button:nth-child(2)`),
			chromedp.WaitVisible(chromedp.CSS(`.challenges button:nth-child(2)[aria-pressed=true]`)),
			chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
		b.waitJS(t, "the photo appears in my photos", `document.querySelectorAll('#my-photos .tile').length === 1`)
		b.waitJS(t, "its thumbnail loads", `(() => { const i = document.querySelector('#my-photos .tile img'); return i && i.complete && i.naturalWidth > 0; })()`)
		b.shot(t, "guest-my-photos")
		photos := eventPhotos(t, box.Store, ev.ID)
		if len(photos) != 1 {
			t.Fatalf("the box holds %d photos; want 1", len(photos))
		}
		p := photos[0]
		if p.GuestName != "Lucia" || p.ChallengeID != ev.Challenges[0].ID || p.Width != 1200 || p.Height != 900 {
			t.Errorf("stored photo = name %q challenge %q %dx%d; want Lucia, %q, 1200x900", p.GuestName, p.ChallengeID, p.Width, p.Height, ev.Challenges[0].ID)
		}
	})

	run("a photo the box cannot make a thumb of yet shows the camera's preview", func(t *testing.T) {
		// Its variants fail once (damaged Huffman tables) and wait for a
		// retry: the tile shows the 160×120 preview from the photo's EXIF
		// block and keeps it while the thumb answers the placeholder.
		stuck := filepath.Join(t.TempDir(), "stuck.jpg")
		if err := os.WriteFile(stuck, imagingtest.PhoneJPEG(t, true), 0o600); err != nil {
			t.Fatal(err)
		}
		b.do(t, "taking a second photo", chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{stuck}))
		b.waitJS(t, "the photo appears in my photos", `document.querySelectorAll('#my-photos .tile').length === 2`)
		preview := `(() => { const i = document.querySelector('#my-photos .tile img'); return i && i.complete && i.naturalWidth === 160 && i.naturalHeight === 120 && i.src.includes('v=preview'); })()`
		b.waitJS(t, "its tile shows the camera's preview", preview)
		b.shot(t, "guest-preview")
		var loaded []int
		b.eval(t, `[...document.querySelectorAll('#my-photos .tile img')].map((i) => i.naturalWidth)`, &loaded)
		if len(loaded) != 2 || loaded[1] != 400 {
			t.Errorf("the tiles' widths are %v; want the preview's 160 and the first photo's thumb, 400", loaded)
		}
		b.do(t, "waiting for the thumb's answer", chromedp.Sleep(time.Second))
		b.waitJS(t, "the preview stays over the placeholder", preview)
	})

	run("everyone's photos include it", func(t *testing.T) {
		b.do(t, "opening everyone's photos",
			click(`#tab-all`),
			chromedp.WaitVisible(chromedp.CSS(`#all-photos .tile`)))
	})

	run("the lightbox shows the photo and offers its download", func(t *testing.T) {
		b.do(t, "opening the photo",
			click(`#all-photos .tile`),
			chromedp.WaitVisible(chromedp.CSS(`.lightbox .stage img`)))
		b.waitJS(t, "the display image loads", `(() => { const i = document.querySelector('.lightbox .stage img'); return i && i.complete && i.naturalWidth === 1200; })()`)
		b.waitText(t, ".lightbox", "by Lucia")
		b.shot(t, "guest-lightbox")
		b.do(t, "closing it", click(`.lightbox .bar button`), chromedp.WaitNotPresent(chromedp.CSS(`.lightbox`)))
	})

	run("a reload keeps the guest joined with the photo", func(t *testing.T) {
		b.do(t, "reloading",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#my-photos .tile`)))
		b.waitText(t, "main", "Hello, Lucia!")
	})
}

// TestGuestAccessCode checks that a private event asks for its code and
// shows the refusal of a wrong one.
func TestGuestAccessCode(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Private party", func(e *store.Event) {
		e.AccessCode = "tulip"
		e.AskGuestName = false
		e.DefaultLocale = "fr"
	})
	b.do(t, "opening the event link",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#code`)))
	b.waitText(t, "main", "Cet événement est privé")
	b.do(t, "typing a wrong code",
		chromedp.SendKeys(chromedp.CSS(`#code`), "rose"),
		click(`form button[type=submit]`))
	b.waitText(t, ".form-err", "Ce code n’est pas le bon")
	b.shot(t, "guest-code-wrong")
	b.do(t, "typing the right code",
		fill(`#code`, "tulip"),
		click(`form button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
	b.waitText(t, "#my-photos + .sentinel + p", "Les photos que vous envoyez")
}

// TestGuestQueueSurvivesOutage takes a photo while the box cannot be
// reached: the page says it will retry, a reload keeps the photo, and it
// is sent once the box answers again.
func TestGuestQueueSurvivesOutage(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Beach party", func(e *store.Event) { e.AskGuestName = false })
	photo := writeJPEG(t, "beach.jpg", 640, 480)

	b.do(t, "opening the event link",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
	b.block(t, "*://*:*/api/e/*/photos*", "*://*:*/api/e/*/uploads*")
	b.do(t, "taking a photo while uploads fail",
		chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
	b.waitText(t, "#queue-list", "Waiting for the Wi-Fi. Trying again in")
	b.shot(t, "guest-queue-retrying")
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 0 {
		t.Fatalf("the box holds %d photos while blocked; want 0", n)
	}
	var kept int
	b.eval(t, `new Promise((res) => { const r = indexedDB.open('eventbox-uploads', 1); r.onsuccess = () => { const q = r.result.transaction('items').objectStore('items').count(); q.onsuccess = () => { res(q.result); r.result.close(); }; }; })`, &kept)
	if kept != 1 {
		t.Fatalf("the phone keeps %d files for later; want 1", kept)
	}
	b.do(t, "reloading the page",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#queue-list li`)))
	b.block(t)
	b.waitJS(t, "the kept photo is sent and shown", `document.querySelectorAll('#my-photos .tile').length === 1`)
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 1 {
		t.Fatalf("the box holds %d photos; want 1", n)
	}
}

// TestGuestFilter takes a photo through the black-and-white filter the
// hosts offer: the box receives a grey photo.
func TestGuestFilter(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Film night", func(e *store.Event) {
		e.AskGuestName = false
		e.CaptureFilters.Enabled = []string{"bw", "sepia"}
	})
	photo := writeJPEG(t, "colour.jpg", 800, 600)
	b.do(t, "choosing black and white and taking a photo",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#filters button[data-filter=bw]`)),
		click(`#filters button[data-filter=bw]`),
		chromedp.WaitVisible(chromedp.CSS(`#filters button[data-filter=bw][aria-pressed=true]`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
	b.waitJS(t, "the photo appears in my photos", `document.querySelectorAll('#my-photos .tile').length === 1`)
	b.shot(t, "guest-filters")
	photos := eventPhotos(t, box.Store, ev.ID)
	if len(photos) != 1 {
		t.Fatalf("the box holds %d photos; want 1", len(photos))
	}
	admin := newClient(t, box.URL)
	admin.signIn(t)
	img := admin.image(t, "/api/media/"+photos[0].ID+"?v=original")
	if got := img.Bounds().Size(); got.X != 800 || got.Y != 600 {
		t.Errorf("the original is %v; want 800x600", got)
	}
	for _, pt := range []image.Point{{10, 10}, {790, 10}, {400, 300}, {10, 590}} {
		r, g, bl, _ := img.At(pt.X, pt.Y).RGBA()
		if spread := max(r, g, bl) - min(r, g, bl); spread > 0x0800 {
			t.Errorf("pixel %v is (%d,%d,%d); want grey", pt, r>>8, g>>8, bl>>8)
		}
	}
}

// TestGuestVideo sends a short WebM video: the page makes its poster
// frame and sends poster and video in one body; the video plays back.
func TestGuestVideo(t *testing.T) {
	t.Parallel()
	video, err := filepath.Abs("../probe/testdata/streamed.webm")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(video); err != nil {
		t.Fatalf("no test video: %v", err)
	}
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Dance floor", func(e *store.Event) { e.AskGuestName = false })
	b.do(t, "recording a video",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#record-video`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#record-video input[type=file]`), []string{video}))
	b.waitJS(t, "the video appears in my photos", `!!document.querySelector('#my-photos .tile .play')`)
	photos := eventPhotos(t, box.Store, ev.ID)
	if len(photos) != 1 || photos[0].Video == nil {
		t.Fatalf("stored = %+v; want one video", photos)
	}
	if photos[0].Width != 64 || photos[0].Height != 48 {
		t.Errorf("video is %dx%d (its poster's size); want 64x48", photos[0].Width, photos[0].Height)
	}
	b.do(t, "opening it",
		click(`#my-photos .tile`),
		chromedp.WaitVisible(chromedp.CSS(`.lightbox video`)))
	b.waitJS(t, "the video can play", `(() => { const v = document.querySelector('.lightbox video'); return v && v.readyState >= 1 && v.videoWidth === 64; })()`)
	b.shot(t, "guest-video")
}

// TestGuestRefusals covers the answers that stop the queue: uploads
// closed by the hosts while the page was open, and the per-guest limit.
func TestGuestRefusals(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	photo := writeJPEG(t, "p.jpg", 640, 480)

	t.Run("uploads closed while the page is open stop the queue with a message", func(t *testing.T) {
		ev := createEvent(t, box.Store, "Closing time", func(e *store.Event) { e.AskGuestName = false })
		b.do(t, "opening the event link",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		if _, err := box.Store.Events().Update(context.Background(), ev.ID, func(e *store.Event) error {
			e.UploadsOpen = false
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		b.do(t, "taking a photo", chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
		b.waitText(t, "#capture", "Uploads are closed.")
		b.waitText(t, "#queue-list", "Stopped: uploads are closed")
		b.shot(t, "guest-uploads-closed")
	})

	t.Run("the last photo allowed ends with the limit message", func(t *testing.T) {
		ev := createEvent(t, box.Store, "One each", func(e *store.Event) {
			e.AskGuestName = false
			e.MaxPhotosPerGuest = 1
		})
		b.do(t, "opening the event link",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		b.waitText(t, "#capture", "1 of 1 photos left.")
		b.do(t, "taking the one photo", chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
		b.waitJS(t, "the photo appears in my photos", `document.querySelectorAll('#my-photos .tile').length === 1`)
		b.waitText(t, "#capture", "You have reached the limit of photos")
	})
}

// TestGuestPlace opens the event from a place's QR code (?at=<spot>): the
// photo is tagged with that place.
func TestGuestPlace(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Garden party", func(e *store.Event) { e.AskGuestName = false })
	var created struct {
		Spot struct {
			ID string `json:"id"`
		} `json:"spot"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/spots", map[string]string{"label": "Table 4"}, &created); st != http.StatusCreated {
		t.Fatalf("creating a place: status %d", st)
	}
	b := newBrowser(t)
	b.do(t, "taking a photo at table 4",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug+"?at="+created.Spot.ID),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{writeJPEG(t, "t4.jpg", 640, 480)}))
	b.waitJS(t, "the photo appears in my photos", `document.querySelectorAll('#my-photos .tile').length === 1`)
	photos := eventPhotos(t, box.Store, ev.ID)
	if len(photos) != 1 || photos[0].SpotID != created.Spot.ID {
		t.Fatalf("stored = %+v; want one photo at place %s", photos, created.Spot.ID)
	}
}
