package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestLanguageShots photographs, in French and Italian at a phone and a
// laptop, the screens whose words were checked by eye: the console's event
// settings, photos (one for a challenge), guestbook and finish tabs, the
// gallery, the guest page, and the printed table card (through pdftoppm);
// run it with -shots DIR.
func TestLanguageShots(t *testing.T) {
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR")
	}
	box := startBox(t)
	chal := store.Challenge{ID: store.NewID(), Label: "Un selfie con gli sposi"}
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.Moderation = "pre"
		e.AccessCode = ""
		e.Challenges = []store.Challenge{chal}
	})
	ids := guestUploads(t, box, ev, "Lucia", 3)
	ids = append(ids, uploadForChallenge(t, box, ev, "Giorgio Bellandi-Santoro", chal.ID))
	admin := newClient(t, box.URL)
	admin.signIn(t)
	for _, id := range ids {
		waitVariantsMade(t, box.Store, id)
	}
	// One photo left waiting for review, the others in the gallery.
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "approve", "ids": ids[1:]}, nil)
	for _, text := range []string{"Auguri agli sposi!", "Félicitations, quelle belle fête !"} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		_ = mw.WriteField("text", text)
		_ = mw.Close()
		g := newClient(t, box.URL)
		g.json(t, "POST", "/api/e/"+ev.Slug+"/join", nil, nil)
		g.do(t, "POST", "/api/e/"+ev.Slug+"/messages", mw.FormDataContentType(), &buf, nil)
	}
	var share struct {
		Share struct {
			Token string `json:"token"`
		} `json:"share"`
	}
	if st := admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/shares", map[string]any{"allowDownload": true, "label": "Famiglia"}, &share); st != http.StatusCreated {
		t.Fatalf("creating the gallery link: status %d", st)
	}
	screens := map[string]bool{"event settings": true, "photos": true, "guestbook": true, "finish": true}
	for _, lang := range []string{"fr", "it"} {
		for _, sz := range []struct{ w, h int }{{390, 844}, {1366, 768}} {
			t.Run(fmt.Sprintf("%s %d", lang, sz.w), func(t *testing.T) {
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				for _, s := range consoleScreens(ev.ID) {
					if !screens[s.name] {
						continue
					}
					b.openScreen(t, box.URL, s)
					b.eval(t, `(scrollTo(0, 0), true)`, nil)
					b.shot(t, fmt.Sprintf("lang-%s-%d-console-%s", lang, sz.w, s.name))
				}
				g := newBrowserAt(t, lang, sz.w, sz.h)
				g.do(t, "opening the gallery", chromedp.Navigate(box.URL+"/g/"+share.Share.Token))
				g.settle(t, "#gallery-photos .tile")
				g.shot(t, fmt.Sprintf("lang-%s-%d-gallery", lang, sz.w))
				g.do(t, "opening the guest page", chromedp.Navigate(box.URL+"/e/"+ev.Slug))
				g.settle(t, "#take-photo")
				g.shot(t, fmt.Sprintf("lang-%s-%d-guest", lang, sz.w))
			})
		}
		t.Run(lang+" table card", func(t *testing.T) {
			testtool.Need(t, "pdftoppm")
			res, err := admin.http.Get(box.URL + "/api/admin/events/" + ev.ID + "/signage?kind=table&size=a6&lang=" + lang + "&ssid=Festa&wifiPassword=festa2026")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != http.StatusOK {
				t.Fatalf("the table card: status %d, %v", res.StatusCode, err)
			}
			in := filepath.Join(t.TempDir(), "card.pdf")
			if err := os.WriteFile(in, body, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			out := filepath.Join(*shotDir, "lang-"+lang+"-sign-table")
			if msg, err := exec.CommandContext(ctx, "pdftoppm", "-png", "-r", "110", "-singlefile", in, out).CombinedOutput(); err != nil {
				t.Fatalf("pdftoppm: %v: %s", err, msg)
			}
		})
	}
}
