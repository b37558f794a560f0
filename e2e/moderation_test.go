package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// guestUploads joins the event as a new guest named name and uploads n
// photos; it returns the photos' ids, newest last.
func guestUploads(t *testing.T, box *box, ev store.Event, name string, n int) []string {
	t.Helper()
	g := newClient(t, box.URL)
	if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	if name != "" {
		if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/guest", map[string]string{"name": name}, nil); st != http.StatusOK {
			t.Fatalf("naming the guest: status %d", st)
		}
	}
	var ids []string
	for i := range n {
		var res struct {
			Photo struct {
				ID string `json:"id"`
			} `json:"photo"`
		}
		path := writeJPEG(t, fmt.Sprintf("%s-%d.jpg", name, i), 640+8*i, 480)
		if st := g.upload(t, "/api/e/"+ev.Slug+"/photos", "photo", path, &res); st != http.StatusCreated {
			t.Fatalf("uploading: status %d", st)
		}
		ids = append(ids, res.Photo.ID)
	}
	return ids
}

// statuses maps each photo id of the event to its status ("*" appended
// when it is a favorite).
func statuses(t *testing.T, st *store.Store, eventID string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range eventPhotos(t, st, eventID) {
		s := p.Status
		if p.Favorite {
			s += "*"
		}
		out[p.ID] = s
	}
	return out
}

// TestConsoleModeration has a host review photos uploaded under
// moderation "pre": filter the waiting ones, approve two, then mark one
// a favorite.
func TestConsoleModeration(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Review night", func(e *store.Event) { e.Moderation = "pre" })
	ids := guestUploads(t, box, ev, "Lucia", 3)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	run("the waiting photos are shown with their badge", func(t *testing.T) {
		b.do(t, "opening the photos tab",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos?status=pending"),
			chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
		b.waitJS(t, "three waiting photos", `document.querySelectorAll('#photos .tile .badge').length === 3`)
	})

	run("approving two leaves one waiting", func(t *testing.T) {
		b.do(t, "selecting two and approving",
			click(`#photos .tile[data-id="`+ids[0]+`"]`),
			click(`#photos .tile[data-id="`+ids[1]+`"]`),
			chromedp.WaitVisible(chromedp.CSS(`.actionbar`)))
		b.waitText(t, ".actionbar", "2 photos selected")
		b.shot(t, "admin-photos")
		b.do(t, "approving", click(`.actionbar button[data-action=approve]`))
		b.waitJS(t, "one photo left in the filter", `document.querySelectorAll('#photos .tile').length === 1`)
		got := statuses(t, box.Store, ev.ID)
		want := map[string]string{ids[0]: "visible", ids[1]: "visible", ids[2]: "pending"}
		for id, s := range want {
			if got[id] != s {
				t.Errorf("photo %s is %q; want %q", id, got[id], s)
			}
		}
	})

	run("imported photos are visible at once with their credit", func(t *testing.T) {
		b.do(t, "importing a photographer's photo",
			click(`#filters-toggle`), // on a phone the import is folded with the filters
			click(`details.section > summary`),
			chromedp.SendKeys(chromedp.CSS(`#import-credit`), "Studio Rossi"),
			chromedp.SetUploadFiles(chromedp.CSS(`#import-files`), []string{writeJPEG(t, "studio.jpg", 1000, 700)}))
		var imported store.Photo
		eventually(t, "the import is stored", func() bool {
			for _, p := range eventPhotos(t, box.Store, ev.ID) {
				if p.GuestID == "" {
					imported = p
					return true
				}
			}
			return false
		})
		// The grid reloads once the import is done: wait for it before going on.
		b.waitText(t, ".toasts", "1 photo imported")
		if imported.Status != "visible" || imported.GuestName != "Studio Rossi" {
			t.Errorf("imported photo is %q by %q; want visible by Studio Rossi", imported.Status, imported.GuestName)
		}
	})

	run("a favorite gets its star", func(t *testing.T) {
		b.do(t, "showing every photo",
			choose(`select[name=status]`, ""),
			chromedp.WaitVisible(chromedp.CSS(`#photos .tile[data-id="`+ids[0]+`"]`)),
			click(`#photos .tile[data-id="`+ids[0]+`"]`),
			click(`.actionbar button[data-action=favorite]`))
		b.waitJS(t, "the star shows", `!!document.querySelector('#photos .tile[data-id="`+ids[0]+`"] .star')`)
		if got := statuses(t, box.Store, ev.ID)[ids[0]]; got != "visible*" {
			t.Errorf("photo is %q; want a visible favorite", got)
		}
	})
}

// TestConsoleSharing walks the host through places, a gallery link with
// a made-up password (then opened as a visitor would) and the statistics.
func TestConsoleSharing(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Anna & Marco", nil)
	guestUploads(t, box, ev, "Lucia", 2)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	run("a place is added with its QR links", func(t *testing.T) {
		b.do(t, "adding a place",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/places"),
			chromedp.WaitVisible(chromedp.CSS(`input[name=label]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=label]`), "Table 4"),
			click(`form button[type=submit]`))
		b.waitText(t, "#tab .list", "Table 4")
		b.waitText(t, "#tab .list", "0 photos")
		b.shot(t, "admin-places")
	})

	var password string
	run("a gallery link with a made-up password is created and its password shown in the list", func(t *testing.T) {
		b.do(t, "opening the share tab",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"),
			chromedp.WaitVisible(chromedp.CSS(`#guest-url`)),
			chromedp.WaitReady(chromedp.CSS(`select[name=pwMode]`)),
			click(`details.section > summary`),
			chromedp.SendKeys(chromedp.CSS(`input[name=label]`), "For the family"),
			choose(`select[name=pwMode]`, "gen"),
			click(`details.section form button[type=submit]`))
		b.waitText(t, "#gallery-links .share-pw", "Password")
		password = b.text(t, "#gallery-links .share-pw strong")
		if len(password) < 10 {
			t.Fatalf("shown password %q; want a made-up one", password)
		}
		b.waitText(t, "#gallery-links", "For the family")
		b.waitText(t, "#gallery-links", "Password")
		b.shot(t, "admin-share")
	})

	run("the gallery link opens with that password", func(t *testing.T) {
		link := b.text(t, "#gallery-links li code")
		i := strings.Index(link, "/g/")
		if i < 0 {
			t.Fatalf("gallery link %q has no /g/", link)
		}
		b.do(t, "opening the gallery link",
			chromedp.Navigate(box.URL+link[i:]),
			chromedp.WaitVisible(chromedp.CSS(`#gallery-password`)),
			chromedp.SendKeys(chromedp.CSS(`#gallery-password`), password),
			click(`form button[type=submit]`))
		b.waitJS(t, "both photos show", `document.querySelectorAll('#gallery-photos .tile').length === 2`)
	})

	run("the statistics count the photos", func(t *testing.T) {
		b.do(t, "opening the statistics",
			chromedp.Navigate(box.URL+"/admin/stats"),
			chromedp.WaitVisible(chromedp.CSS(`main .card`)))
		b.waitJS(t, "the photo total shows", `[...document.querySelectorAll('main .card')].some((c) => c.innerText.replace(/\s+/g, ' ').trim() === '2 Photos')`)
		b.shot(t, "admin-stats")
	})
}

// TestConsoleModerationDropsStalePages changes the photo filter while the
// page of the previous filter is still on its way: that late page belongs
// to the old filter and must not be mixed into the new list (it used to
// be, and its end-of-list cursor stopped the new list from loading).
func TestConsoleModerationDropsStalePages(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Late pages", func(e *store.Event) { e.Moderation = "pre" })
	guestUploads(t, box, ev, "Lucia", 3)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	b.do(t, "opening the visible photos",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos?status=visible"))
	b.waitText(t, "body", "No photo here yet.")
	// Hold back every answer for the pending filter until the test lets
	// it go.
	b.eval(t, `(() => {
		const orig = window.fetch;
		window.fetch = (url, opts) => {
			const answer = orig(url, opts);
			if (!String(url).includes('status=pending')) return answer;
			return new Promise((resolve) => { window.__release = () => answer.then(resolve); });
		};
		return true;
	})()`, nil)
	b.do(t, "choosing the waiting photos", choose(`select[name=status]`, "pending"))
	b.waitJS(t, "the pending page was asked for", `typeof window.__release === 'function'`)
	b.do(t, "choosing all photos before that page arrived", choose(`select[name=status]`, ""))
	b.waitJS(t, "all three photos listed", `document.querySelectorAll('#photos .tile').length === 3`)
	var tiles int
	b.eval(t, `(async () => {
		await window.__release();
		for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 40));
		return document.querySelectorAll('#photos .tile').length;
	})()`, &tiles)
	if tiles != 3 {
		t.Errorf("%d tiles after the late page arrived; want the 3 of the new filter", tiles)
	}
}
