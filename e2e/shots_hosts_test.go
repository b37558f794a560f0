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
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestShotsHosts takes screenshots of the hosts' side (`make shots`): the
// console's events, photos (with the pending count and the tiles'
// buttons), share (wall links, signs, booth QR) and statistics screens at
// phone, laptop and venue-screen sizes in English and French; the wall at
// laptop and venue-screen sizes; and the signage PDFs as PNG pages.
func TestShotsHosts(t *testing.T) {
	t.Parallel()
	if *shotDir == "" {
		t.Skip("screenshots only: run with -shots DIR (make shots)")
	}
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.Moderation = "pre"
		e.AccessCode = "ROSE42"
		e.AccentColor = "#b0306a"
		e.WallStyle.Interval = 60
	})
	admin := newClient(t, box.URL)
	admin.signIn(t)
	var spot struct {
		Spot struct {
			ID string `json:"id"`
		} `json:"spot"`
	}
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/spots", map[string]string{"label": "Dance floor"}, &spot)
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/spots", map[string]string{"label": "Garden"}, nil)
	g := newClient(t, box.URL)
	g.json(t, "POST", "/api/e/"+ev.Slug+"/unlock", map[string]string{"code": "ROSE42"}, nil)
	g.json(t, "POST", "/api/e/"+ev.Slug+"/guest", map[string]string{"name": "Lucia"}, nil)
	var ids []string
	for i, size := range [][2]int{{960, 640}, {480, 720}, {500, 760}, {900, 600}} {
		var res struct {
			Photo struct {
				ID string `json:"id"`
			} `json:"photo"`
		}
		q := ""
		if i%2 == 0 {
			q = "?at=" + spot.Spot.ID
		}
		if st := g.upload(t, "/api/e/"+ev.Slug+"/photos"+q, "photo", writeJPEG(t, fmt.Sprintf("p%d.jpg", i), size[0], size[1]), &res); st != http.StatusCreated {
			t.Fatalf("uploading: %d", st)
		}
		ids = append(ids, res.Photo.ID)
	}
	for _, id := range ids {
		waitVariantsMade(t, box.Store, id)
	}
	// Two approved, two left for review; one approved text.
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/photos", map[string]any{"action": "approve", "ids": ids[:3]}, nil)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("text", "Congratulations, Anna & Marco! What a day.")
	_ = mw.Close()
	var msg struct {
		Message struct {
			ID string `json:"id"`
		} `json:"message"`
	}
	g.do(t, "POST", "/api/e/"+ev.Slug+"/messages", mw.FormDataContentType(), &buf, &msg)
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/messages", map[string]any{"action": "approve", "ids": []string{msg.Message.ID}}, nil)
	var wall struct {
		Wall struct {
			URL string `json:"url"`
		} `json:"wall"`
	}
	admin.json(t, "POST", "/api/admin/events/"+ev.ID+"/walls", map[string]string{"label": "Hall screen"}, &wall)

	sizes := []struct {
		name string
		w, h int
	}{{"phone", phoneWidth, phoneHeight}, {"laptop", 1366, 900}, {"screen", 1920, 1080}}
	for _, lang := range []string{"en-US", "fr-FR"} {
		for _, size := range sizes {
			name := func(page string) string { return fmt.Sprintf("%s-%s-%s", page, lang[:2], size.name) }
			t.Run(name("hosts"), func(t *testing.T) {
				a := newBrowserAt(t, lang, size.w, size.h)
				a.signIn(t, box.URL)
				a.shot(t, name("console-events"))
				a.do(t, "opening the photos tab",
					chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/photos"),
					chromedp.WaitVisible(chromedp.CSS(`#photos .tile`)))
				a.waitJS(t, "the pending count", `document.getElementById('tab-photos-count').textContent === '1'`)
				a.shot(t, name("console-photos"))
				a.do(t, "opening a photo large", click(`#photos .tile .act[title="`+map[string]string{"en": "View large", "fr": "Voir en grand"}[lang[:2]]+`"]`),
					chromedp.WaitVisible(chromedp.CSS(`.lightbox img`)))
				a.shotScreen(t, name("console-photo-large"))
				a.do(t, "opening the share tab",
					chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"),
					chromedp.WaitVisible(chromedp.CSS(`#walls li[data-wall]`)))
				a.shot(t, name("console-share"))
				a.do(t, "opening the statistics",
					chromedp.Navigate(box.URL+"/admin/stats?eventId="+ev.ID),
					chromedp.WaitVisible(chromedp.CSS(`#stats-chart`)))
				a.shot(t, name("console-stats"))
				if size.name == "phone" {
					return
				}
				w := newBrowserAt(t, lang, size.w, size.h)
				w.do(t, "opening the wall", chromedp.Navigate(wall.Wall.URL), chromedp.WaitVisible(chromedp.CSS(`.wall.v2 .scan`)))
				w.waitJS(t, "a photo on the wall", `!!document.querySelector('.slide.on img')`)
				w.do(t, "letting the slide fade in", chromedp.Sleep(1500*time.Millisecond))
				w.shotScreen(t, name("wall"))
				// The next slides: the other photos, then the guestbook text.
				for i := 1; i <= 4; i++ {
					w.eval(t, `(() => { document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight' })); return true; })()`, nil)
					w.do(t, "the next slide", chromedp.Sleep(1500*time.Millisecond))
					w.shotScreen(t, name(fmt.Sprintf("wall-%d", i)))
				}
			})
		}
	}
	t.Run("signage", func(t *testing.T) {
		for _, q := range []string{"kind=table&size=a6", "kind=table&size=a5", "kind=poster&size=a4", "kind=place", "kind=poster&size=a3&lang=fr"} {
			q += "&ssid=Anna%20%26%20Marco&wifiPassword=celebrate2026"
			res, err := admin.http.Get(box.URL + "/api/admin/events/" + ev.ID + "/signage?" + q)
			if err != nil {
				t.Fatal(err)
			}
			pdf, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("signage %s: %d %v", q, res.StatusCode, err)
			}
			name := "signage-" + strings.NewReplacer("kind=", "", "&size=", "-", "&lang=", "-", "&", "").Replace(strings.Split(q, "&ssid")[0])
			in := filepath.Join(t.TempDir(), "s.pdf")
			if err := os.WriteFile(in, pdf, 0o644); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			out, err := exec.CommandContext(ctx, "pdftoppm", "-r", "80", "-png", "-singlefile", in, filepath.Join(*shotDir, name)).CombinedOutput()
			cancel()
			if err != nil {
				t.Fatalf("pdftoppm: %v: %s", err, out)
			}
		}
	})
}
