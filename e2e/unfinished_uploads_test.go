package e2e

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/store"
)

// joinAs joins the event as a new guest named name, as the guest's page
// does, and returns the guest's client.
func joinAs(t *testing.T, box *box, ev store.Event, name string) *client {
	t.Helper()
	g := newClient(t, box.URL)
	if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil); st != http.StatusOK {
		t.Fatalf("joining: status %d", st)
	}
	if st := g.json(t, "POST", "/api/e/"+ev.Slug+"/guest", map[string]string{"name": name}, nil); st != http.StatusOK {
		t.Fatalf("naming the guest: status %d", st)
	}
	return g
}

// tus sends a request of the resumable-upload protocol with the guest's
// cookies and the page's Origin; headers are name, value pairs. It
// returns the status and the Location header.
func (c *client) tus(t *testing.T, method, path string, body []byte, headers ...string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", c.base)
	req.Header.Set("Tus-Resumable", "1.0.0")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// tusStart announces a file of length bytes on the guest's resumable
// route and sends its first sent bytes, as a phone that then leaves the
// Wi-Fi does: an unfinished upload. meta is more Upload-Metadata (name,
// value pairs). It returns the upload's id.
func (c *client) tusStart(t *testing.T, slug, filename, filetype string, length, sent int, meta ...string) string {
	t.Helper()
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	md := "filename " + b64(filename) + ",filetype " + b64(filetype)
	for i := 0; i+1 < len(meta); i += 2 {
		md += "," + meta[i] + " " + b64(meta[i+1])
	}
	st, loc := c.tus(t, "POST", "/api/e/"+slug+"/uploads", nil,
		"Upload-Length", strconv.Itoa(length), "Upload-Metadata", md)
	if st != http.StatusCreated || loc == "" {
		t.Fatalf("announcing %s: status %d, Location %q", filename, st, loc)
	}
	if i := strings.Index(loc, "/api/"); i > 0 {
		loc = loc[i:]
	}
	if sent > 0 {
		chunk := bytes.Repeat([]byte{0xA5}, sent)
		if st, _ := c.tus(t, "PATCH", loc, chunk, "Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"); st != http.StatusNoContent {
			t.Fatalf("sending the first %d bytes of %s: status %d", sent, filename, st)
		}
	}
	return loc[strings.LastIndex(loc, "/")+1:]
}

// axeIfThere runs axeCheck when axe-core is there (make axe); without
// it the functional test still runs, and says what it did not check.
func (b *browser) axeIfThere(t *testing.T, page string) {
	t.Helper()
	if _, err := os.Stat(axePath); err != nil {
		t.Logf("%s: not checked with axe-core (run make axe)", page)
		return
	}
	b.axeCheck(t, page)
}

// unfinishedList is the owner's GET /api/admin/uploads.
type unfinishedList struct {
	Uploads []struct {
		ID       string `json:"id"`
		Filename string `json:"filename"`
	} `json:"uploads"`
	ReservedBytes int64 `json:"reservedBytes"`
}

// TestConsoleUnfinishedUploads: a guest announced a photo and sent a
// quarter of it. In English and French, on a phone, the owner follows the
// nearly-full banner's link to Settings → Backup, where the card of
// unfinished uploads shows the event, the guest, the file, its progress
// and the room it holds; the owner removes it after a question naming
// the file, and the card says no upload is waiting, as the box does.
func TestConsoleUnfinishedUploads(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, reserved string }{
		{"en-GB", "3 MB"},
		{"fr-FR", "3\u202fMo"},
	} {
		if !swept(tc.lang, "en-GB", "fr-FR") {
			continue
		}
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			var free atomic.Int64
			free.Store(10 << 30)
			box := startBox(t, func(c *daemon.Config) {
				c.StorageMargin = 100 << 20
				c.Statfs = func(string) (int64, error) { return free.Load(), nil }
			})
			ev := createEvent(t, box.Store, "Anna & Marco", nil)
			g := joinAs(t, box, ev, "Lucia")
			id := g.tusStart(t, ev.Slug, "IMG_0042.jpg", "image/jpeg", 4_000_000, 1_000_000)
			words := catalogue(t, tc.lang[:2], "console")
			say := func(key string) string {
				if words[key] == "" {
					t.Fatalf("the %s console catalogue has no %q", tc.lang[:2], key)
				}
				return words[key]
			}
			row := `#unfinished-uploads li[data-upload="` + id + `"]`

			b := newBrowserAt(t, tc.lang, phoneWidth, phoneHeight)
			b.signIn(t, box.URL)
			free.Store(50 << 20)
			b.do(t, "opening the events while the card is nearly full",
				chromedp.Navigate(box.URL+"/admin"),
				chromedp.WaitVisible(chromedp.CSS(`#events`)))
			b.waitJS(t, "the banner links to the unfinished uploads",
				`!!document.querySelector('#storage-banner:not([hidden]) a[href="/admin/settings/backup#unfinished-uploads"]')`)
			b.shot(t, "unfinished-uploads-banner-"+tc.lang[:2])
			b.do(t, "following the banner's link", click(`#storage-banner a[href$="#unfinished-uploads"]`))
			b.waitJS(t, "the upload is listed", fmt.Sprintf(`!!document.querySelector(%q)`, row))
			free.Store(10 << 30)
			b.waitText(t, "#unfinished-uploads h2", say("Unfinished uploads"))
			for _, want := range []string{"Anna & Marco", "Lucia", "IMG_0042.jpg"} {
				b.waitText(t, row, want)
			}
			var pct bool // 25% in English, 25 % in French (a narrow space)
			b.eval(t, fmt.Sprintf(`/\b25\s?%%/.test(document.querySelector(%q).textContent)`, row), &pct)
			if !pct {
				t.Errorf("the row does not say 25%%: %q", b.text(t, row))
			}
			var bar bool
			b.eval(t, fmt.Sprintf(`(() => { const p = document.querySelector(%q); return !!p && p.value === 1000000 && p.max === 4000000; })()`, row+" progress"), &bar)
			if !bar {
				t.Errorf("the row has no progress bar at 1,000,000 of 4,000,000 bytes")
			}
			b.waitText(t, "#unfinished-uploads", tc.reserved)
			b.shot(t, "unfinished-uploads-"+tc.lang[:2])
			b.axeIfThere(t, "the Backup screen with an unfinished upload")

			b.eval(t, `(window.asked = '', window.confirm = (q) => { window.asked = q; return true; }, true)`, nil)
			b.do(t, "removing the upload", click(row+` button.danger`))
			b.waitJS(t, "the upload is gone from the list", fmt.Sprintf(`!document.querySelector(%q)`, row))
			b.waitText(t, "#unfinished-uploads", say("No upload is waiting."))
			var asked string
			b.eval(t, `window.asked`, &asked)
			if !strings.Contains(asked, "IMG_0042.jpg") {
				t.Errorf("the question before the removal reads %q; want it to name the file", asked)
			}
			owner := newClient(t, box.URL)
			owner.signIn(t)
			var list unfinishedList
			if st := owner.json(t, "GET", "/api/admin/uploads", nil, &list); st != http.StatusOK {
				t.Fatalf("listing the unfinished uploads: status %d", st)
			}
			if len(list.Uploads) != 0 || list.ReservedBytes != 0 {
				t.Errorf("after the removal the box lists %+v", list)
			}
			b.shot(t, "unfinished-uploads-none-"+tc.lang[:2])
			b.axeIfThere(t, "the Backup screen with no unfinished upload")
		})
	}
}

// TestConsoleUnfinishedUploadsOwnersOnly: an organizer, who may not see
// the guests' unfinished uploads, finds no card of them and no link to
// them in the nearly-full banner, while the owner's shows both.
func TestConsoleUnfinishedUploadsOwnersOnly(t *testing.T) {
	t.Parallel()
	var free atomic.Int64
	free.Store(10 << 30)
	box := startBox(t, func(c *daemon.Config) {
		c.StorageMargin = 100 << 20
		c.Statfs = func(string) (int64, error) { return free.Load(), nil }
	})
	ev := createEvent(t, box.Store, "Anna & Marco", nil)
	joinAs(t, box, ev, "Lucia").tusStart(t, ev.Slug, "IMG_0042.jpg", "image/jpeg", 4_000_000, 1_000_000)
	free.Store(50 << 20)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	if st := admin.json(t, "POST", "/api/admin/accounts", map[string]any{"username": "planner", "password": "planner-password-1",
		"role": "organizer", "eventIds": []string{ev.ID}}, nil); st != http.StatusCreated && st != http.StatusOK {
		t.Fatalf("creating the organizer: status %d", st)
	}

	org := newBrowser(t)
	org.do(t, "signing the organizer in",
		chromedp.Navigate(box.URL+"/admin"),
		chromedp.WaitVisible(chromedp.CSS(`#sign-in input[type=password]`)),
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[name=username]`), "planner"),
		chromedp.SendKeys(chromedp.CSS(`#sign-in input[type=password]`), "planner-password-1"),
		click(`#sign-in button[type=submit]`),
		chromedp.WaitVisible(chromedp.CSS(`#events`)))
	org.waitJS(t, "the organizer sees the nearly-full banner", `!!document.querySelector('#storage-banner:not([hidden])')`)
	var link bool
	org.eval(t, `!!document.querySelector('#storage-banner a[href$="#unfinished-uploads"]')`, &link)
	if link {
		t.Error("the organizer's banner links to the unfinished uploads")
	}
	org.do(t, "opening Settings, Backup by its address", chromedp.Navigate(box.URL+"/admin/settings/backup"))
	org.waitJS(t, "the screen is drawn", `![...document.querySelectorAll('main p.muted')].some((p) => /^\S+…$/.test(p.textContent.trim())) && !!document.querySelector('main .banner.bad:not(#storage-banner)')`)
	var card bool
	org.eval(t, `!!document.querySelector('#unfinished-uploads:not([hidden])')`, &card)
	if card {
		t.Error("the organizer sees the card of unfinished uploads")
	}

	owner := newBrowser(t)
	owner.signIn(t, box.URL)
	owner.waitJS(t, "the owner's banner links to the unfinished uploads", `!!document.querySelector('#storage-banner:not([hidden]) a[href$="#unfinished-uploads"]')`)
	owner.do(t, "opening Settings, Backup", chromedp.Navigate(box.URL+"/admin/settings/backup"))
	owner.waitText(t, "#unfinished-uploads", "IMG_0042.jpg")
}

// TestConsoleUnfinishedUploadsShots photographs Settings → Backup with two
// unfinished uploads (a photo a quarter in, a video barely started, from
// two guests of two events) and with none, at a phone, a laptop and a
// venue screen, in English and French: the whole page, and the screen
// scrolled to the card. Run it with -shots DIR. None may scroll sideways.
func TestConsoleUnfinishedUploadsShots(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	t.Parallel()
	full := startBox(t)
	anna := createEvent(t, full.Store, "Anna & Marco", nil)
	sofia := createEvent(t, full.Store, "Sofia's 40th", nil)
	joinAs(t, full, anna, "Lucia").tusStart(t, anna.Slug, "IMG_20260614_221503.jpg", "image/jpeg", 4_800_000, 1_200_000)
	giorgio := joinAs(t, full, sofia, "Giorgio Bellandi-Santoro")
	cover, err := os.ReadFile(writeJPEG(t, "cover.jpg", 320, 180))
	if err != nil {
		t.Fatal(err)
	}
	poster := giorgio.tusStart(t, sofia.Slug, "cover.jpg", "image/jpeg", len(cover), 0, "kind", "poster")
	if st, _ := giorgio.tus(t, "PATCH", "/api/e/"+sofia.Slug+"/uploads/"+poster, cover, "Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"); st != http.StatusNoContent {
		t.Fatalf("sending the video's poster: status %d", st)
	}
	giorgio.tusStart(t, sofia.Slug, "VID_20260614_223010.mp4", "video/mp4", 48_000_000, 2_000_000, "poster", poster)
	empty := startBox(t)
	createEvent(t, empty.Store, "Anna & Marco", nil)
	for _, lang := range []string{"en-GB", "fr-FR"} {
		for _, sz := range []struct{ w, h int }{{390, 844}, {1366, 768}, {1920, 1080}} {
			for _, c := range []struct {
				name string
				box  *box
			}{{"two", full}, {"none", empty}} {
				t.Run(fmt.Sprintf("%s %d %s", lang, sz.w, c.name), func(t *testing.T) {
					b := newBrowserAt(t, lang, sz.w, sz.h)
					b.signIn(t, c.box.URL)
					b.do(t, "opening Settings, Backup", chromedp.Navigate(c.box.URL+"/admin/settings/backup#unfinished-uploads"))
					b.waitJS(t, "the card is drawn", `!!document.querySelector('#unfinished-uploads ul, #unfinished-none')`)
					var wide bool
					b.eval(t, `document.scrollingElement.scrollWidth > innerWidth`, &wide)
					if wide {
						t.Errorf("the Backup screen scrolls sideways at %d px", sz.w)
					}
					name := fmt.Sprintf("uploads-%s-%d-%s", lang[:2], sz.w, c.name)
					b.shotScreen(t, name+"-card")
					b.eval(t, `(scrollTo(0, 0), true)`, nil)
					b.shot(t, name)
				})
			}
		}
	}
}
