package e2e

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
)

// TestBooth sets up a booth device from its link and takes a photo with a
// key press: Chromium's fake camera stands in for the booth's. The photo
// goes up through the resumable route, as a guest's does.
func TestBooth(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Booth night", nil)
	var on struct {
		BoothKey string `json:"boothKey"`
		URL      string `json:"url"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/booth", map[string]any{}, &on); st != http.StatusOK {
		t.Fatalf("turning the booth on: status %d", st)
	}
	link := on.URL
	if i := strings.Index(link, "/e/"); i >= 0 {
		link = box.URL + link[i:] // the test server's address, whatever BASE_URL says
	} else {
		link = box.URL + "/e/" + ev.Slug + "?booth=" + on.BoothKey
	}

	b := newBrowser(t)
	b.do(t, "opening the booth link",
		chromedp.Navigate(link),
		chromedp.WaitVisible(chromedp.CSS(`#booth-start`)))
	b.do(t, "starting the booth",
		click(`#booth-start`),
		chromedp.WaitVisible(chromedp.CSS(`.booth video`)))
	b.waitJS(t, "the camera shows", `(() => { const v = document.querySelector('.booth video'); return v && v.videoWidth > 0; })()`)
	b.waitJS(t, "the booth listens", `!!document.querySelector('.booth[data-ready=true]')`)
	b.shot(t, "booth")
	b.do(t, "pressing a key", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: input.DispatchKeyEventTypeKeyDown, Key: " ", Code: "Space", Text: " "})
		return err
	}))
	b.waitText(t, "#booth-status", "Sent")
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 1 {
		t.Fatalf("the box holds %d photos; want 1", n)
	}
	// The booth sends as the guests' page does: resumably (tus), so a
	// booth at the edge of the hotspot resumes instead of starting over.
	var resumable int
	b.eval(t, fmt.Sprintf(`performance.getEntriesByType('resource').filter((e) => e.name.includes(%q)).length`, "/api/e/"+ev.Slug+"/uploads"), &resumable)
	if resumable == 0 {
		t.Errorf("the booth's photo did not go through the resumable route /api/e/%s/uploads", ev.Slug)
	}
}

// TestWall shows an event's visible photos on the live wall.
func TestWall(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Wall party", nil)
	guest := newClient(t, box.URL)
	if st := guest.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	if st := guest.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", writeJPEG(t, "w.jpg", 1600, 900), nil); st != http.StatusCreated {
		t.Fatalf("uploading: status %d", st)
	}

	// The wall opens from a wall link, without signing in.
	var wall struct {
		Wall struct {
			URL string `json:"url"`
		} `json:"wall"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/walls", map[string]any{}, &wall); st != http.StatusCreated {
		t.Fatalf("making a wall link: status %d", st)
	}
	b := newBrowser(t)
	b.do(t, "opening the wall", chromedp.Navigate(wall.Wall.URL))
	b.waitJS(t, "the photo shows", `(() => { const i = document.querySelector('.wall .slide img'); return i && i.naturalWidth === 1600; })()`)
	b.shot(t, "wall")
}
