package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// liveBound is how soon a change must show on another screen.
const liveBound = 2 * time.Second

// waitSoon waits until expr is truthy and fails the test when that took
// longer than liveBound since start.
func (b *browser) waitSoon(t *testing.T, what, expr string, start time.Time) time.Duration {
	t.Helper()
	b.waitJS(t, what, expr)
	took := time.Since(start)
	if took > liveBound {
		t.Fatalf("%s took %v, want at most %v", what, took.Round(time.Millisecond), liveBound)
	}
	t.Logf("%s: %v", what, took.Round(time.Millisecond))
	return took
}

// TestLiveModerationAndWall has a host moderate on a laptop while a guest
// uploads from a phone (another browser): the photo shows in the open
// grid with the pending count within 2 s, is approved from its tile, and
// the venue screen's wall, opened by its link without signing in, shows
// it within 2 s of the approval; the revoked link is refused. It times the
// pages, so it does not run beside the other browser tests.
func TestLiveModerationAndWall(t *testing.T) {
	box := startBox(t)
	ev := createEvent(t, box.Store, "Garden party", func(e *store.Event) {
		e.Moderation = "pre"
		e.AccessCode = "TULIP7"
		e.AccentColor = "#b0306a"
		e.WallStyle.Interval = 30
	})
	host := newBrowserAt(t, "en-US", 1366, 900)
	host.signIn(t, box.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	run("the photos tab is open, with no photo and no count", func(t *testing.T) {
		host.do(t, "opening the photos tab",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
			chromedp.WaitVisible(chromedp.CSS(`#photo-keys`)))
		host.waitJS(t, "the stream is open and the count drawn", `document.getElementById('tab-photos-count').hidden === true && document.querySelector('#photos') !== null`)
		host.waitText(t, "#photo-keys", "approve")
	})

	guest := newBrowser(t)
	photo := writeJPEG(t, "garden.jpg", 640, 480)
	var pid string
	run("a guest's upload shows in the open grid within 2 s, with the pending count", func(t *testing.T) {
		guest.do(t, "joining with the access code",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#code`)))
		guest.do(t, "typing the code",
			chromedp.SendKeys(chromedp.CSS(`#code`), "TULIP7"),
			click(`form button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`#guest-name`)))
		guest.do(t, "giving a name",
			chromedp.SendKeys(chromedp.CSS(`#guest-name`), "Nina"),
			click(`form button[type=submit]`),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		guest.do(t, "taking a photo", chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
		guest.waitJS(t, "the upload is done", `document.querySelectorAll('#my-photos .tile').length === 1`)
		start := time.Now()
		host.waitSoon(t, "the photo in the host's grid", `document.querySelectorAll('#photos .tile .badge').length === 1`, start)
		host.waitSoon(t, "the pending count on the Photos tab", `document.getElementById('tab-photos-count').textContent === '1'`, start)
		photos := eventPhotos(t, box.Store, ev.ID)
		if len(photos) != 1 || photos[0].Status != store.StatusPending {
			t.Fatalf("photos = %+v", photos)
		}
		pid = photos[0].ID
		host.shot(t, "console-live-grid")
	})

	wall := newBrowserAt(t, "en-US", 1920, 1080)
	var wallURL string
	run("the host makes a wall link and the venue screen opens it without signing in", func(t *testing.T) {
		host.do(t, "making a wall link",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"),
			chromedp.WaitVisible(chromedp.CSS(`#make-wall`)),
			click(`#make-wall`),
			chromedp.WaitVisible(chromedp.CSS(`#walls li[data-wall] code`)))
		wallURL = host.text(t, "#walls li[data-wall] code")
		if !strings.HasPrefix(wallURL, box.URL+"/wall/") {
			t.Fatalf("wall url %q", wallURL)
		}
		wall.do(t, "opening the wall", chromedp.Navigate(wallURL), chromedp.WaitVisible(chromedp.CSS(`.wall.v2 .scan`)))
		wall.waitText(t, ".wall-head h1", "Garden party")
		wall.waitText(t, ".scan", "TULIP7")
		wall.waitJS(t, "the empty wall invites to take photos", `!!document.querySelector('.slide.on.empty')`)
	})

	run("approving from the tile takes it out of review and onto the wall within 2 s", func(t *testing.T) {
		host.do(t, "back to the photos",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
			chromedp.WaitVisible(chromedp.CSS(`#photos .tile[data-id="`+pid+`"] .act[data-action=approve]`)))
		start := time.Now()
		host.do(t, "approving from the tile", click(`#photos .tile[data-id="`+pid+`"] .act[data-action=approve]`))
		host.waitJS(t, "the badge goes", `!document.querySelector('#photos .tile .badge')`)
		host.waitJS(t, "the pending count goes", `document.getElementById('tab-photos-count').hidden === true`)
		wall.waitSoon(t, "the photo on the wall", `!!document.querySelector('.slide.on img[src*="`+pid+`"]')`, start)
		if got := eventPhotos(t, box.Store, ev.ID)[0].Status; got != store.StatusVisible {
			t.Fatalf("status after approval = %s", got)
		}
		wall.shotScreen(t, "wall-venue")
	})

	run("a new visible photo reaches the wall within 2 s", func(t *testing.T) {
		admin := newClient(t, box.URL)
		admin.signIn(t)
		g := newClient(t, box.URL)
		if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/unlock", map[string]string{"code": "TULIP7"}, nil); st != http.StatusOK {
			t.Fatalf("unlocking: %d", st)
		}
		var res struct {
			Photo struct {
				ID string `json:"id"`
			} `json:"photo"`
		}
		if st := g.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", writeJPEG(t, "portrait.jpg", 480, 720), &res); st != http.StatusCreated {
			t.Fatalf("uploading: %d", st)
		}
		waitVariantsMade(t, box.Store, res.Photo.ID)
		start := time.Now()
		if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "approve", "ids": []string{res.Photo.ID}}, nil); st != http.StatusOK {
			t.Fatalf("approving: %d", st)
		}
		wall.waitSoon(t, "the new photo on the wall", `!!document.querySelector('.slide.on img[src*="`+res.Photo.ID+`"]')`, start)
	})

	run("the wall keeps a bounded page over many slides", func(t *testing.T) {
		var before int
		wall.eval(t, `document.getElementsByTagName('*').length`, &before)
		for i := 0; i < 40; i++ {
			wall.eval(t, `(() => { document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })); return true; })()`, nil)
			wall.do(t, "the next slide", chromedp.Sleep(120*time.Millisecond))
		}
		wall.do(t, "the last fade", chromedp.Sleep(1200*time.Millisecond))
		var after, slides int
		wall.eval(t, `document.getElementsByTagName('*').length`, &after)
		wall.eval(t, `document.querySelector('.slides').children.length`, &slides)
		if slides > 2 || after > before+40 {
			t.Fatalf("after 40 slides: %d slides in the page (want ≤ 2), %d elements (%d before)", slides, after, before)
		}
	})

	run("a revoked wall link is refused", func(t *testing.T) {
		host.do(t, "revoking the wall link",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"),
			chromedp.WaitVisible(chromedp.CSS(`#walls li[data-wall] button.danger`)))
		var list struct {
			Walls []struct {
				ID string `json:"id"`
			} `json:"walls"`
		}
		admin := newClient(t, box.URL)
		admin.signIn(t)
		admin.json(t, "GET", "/api/admin/events/"+ev.ID+"/walls", nil, &list)
		if st := admin.json(t, "DELETE", "/api/admin/events/"+ev.ID+"/walls/"+list.Walls[0].ID, nil, nil); st != http.StatusOK {
			t.Fatalf("revoking: %d", st)
		}
		wall.waitText(t, "#app", "revoked")
		wall.do(t, "opening the link again", chromedp.Navigate(wallURL), chromedp.WaitVisible(chromedp.CSS(`.empty`)))
		wall.waitText(t, "#app", "revoked")
	})
}

// waitVariantsMade waits until the photo's thumb and display are made.
func waitVariantsMade(t *testing.T, st *store.Store, id string) {
	t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for time.Now().Before(deadline) {
		p, err := st.Photos().Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if p.Variants {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("variants of %s not made within %v", id, stepTimeout)
}
