package e2e

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/i18n"
	"eventbox/store"
)

// phoneCases are the phones and languages the guest page is checked in:
// 390 px (a common iPhone) and 360 px (the narrowest common Android), in
// English, French and Italian.
var phoneCases = []struct {
	lang, browserLang string
	width, height     int
}{
	{"en", "en-US", 390, 844}, {"en", "en-US", 360, 740},
	{"fr", "fr-FR", 390, 844}, {"fr", "fr-FR", 360, 740},
	{"it", "it-IT", 390, 844}, {"it", "it-IT", 360, 740},
}

// catalogue is one section of a language's strings, as the pages read it.
func catalogue(t *testing.T, lang, section string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "assets", "web", "locales", lang+".json"))
	if err != nil {
		t.Fatalf("reading the %s catalogue: %v", lang, err)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatalf("decoding the %s catalogue: %v", lang, err)
	}
	var out map[string]string
	if err := json.Unmarshal(all[section], &out); err != nil {
		t.Fatalf("decoding the %s section of the %s catalogue: %v", section, lang, err)
	}
	return out
}

// fillIn puts vars into a catalogue string's {placeholders}.
func fillIn(s string, vars map[string]any) string {
	for k, v := range vars {
		s = strings.ReplaceAll(s, "{"+k+"}", fmt.Sprint(v))
	}
	return s
}

// say is a catalogue text ("guest.allSentPhotos") in a language as the pages
// write it: its {name} blanks filled from vars, given as name, value
// pairs, and its plural blanks given the form of the value's plural
// category ("1 photo", "4 photos").
func say(t *testing.T, lang, key string, vars ...string) string {
	t.Helper()
	c, err := i18n.Load(os.DirFS(filepath.Join("..", "assets", "web", "locales")))
	if err != nil {
		t.Fatalf("reading the catalogue: %v", err)
	}
	if !c.Has(lang) {
		t.Fatalf("the catalogue has no %q", lang)
	}
	out := c.Lang(lang).Format(key, vars...)
	if out == key {
		t.Fatalf("the %s catalogue has no %q", lang, key)
	}
	return out
}

// phoneEvent is an event with three challenges, the gallery mail's
// address asked for and a description, as a guest's phone shows it.
func phoneEvent(t *testing.T, st *store.Store, lang string) store.Event {
	t.Helper()
	return createEvent(t, st, "Anna & Marco", func(e *store.Event) {
		e.AskGuestName = false
		e.CollectGuestEmails = true
		e.DefaultLocale = lang
		e.Description = "Share your photos of the day with us! The dance floor opens at ten, the cake comes at midnight."
		e.CaptureFilters.Enabled = []string{"bw", "warm"}
		e.Challenges = []store.Challenge{
			{ID: store.NewID(), Label: "A selfie with the couple"},
			{ID: store.NewID(), Label: "The best dance move"},
			{ID: store.NewID(), Label: "Grandma on the dance floor"},
		}
	})
}

// TestGuestPageOnAPhone: at 360 and 390 px, in English, French and
// Italian, every challenge is on screen (none hidden in a sideways
// scroller), the gallery mail's address field spans its card, picking a
// photo brings the queue into view, and axe finds nothing.
func TestGuestPageOnAPhone(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	for _, pc := range phoneCases {
		t.Run(fmt.Sprintf("%s-%d", pc.lang, pc.width), func(t *testing.T) {
			ev := phoneEvent(t, box.Store, pc.lang)
			b := newBrowserAt(t, pc.browserLang, pc.width, pc.height)
			b.do(t, "opening the event link",
				chromedp.Navigate(box.URL+"/e/"+ev.Slug),
				chromedp.WaitVisible(chromedp.CSS(`#take-photo`)),
				chromedp.WaitVisible(chromedp.CSS(`#contact-email`)))
			var hidden []string
			b.eval(t, `(() => {
				const vw = document.documentElement.clientWidth;
				const out = [];
				for (const g of document.querySelectorAll('#capture .challenges')) {
					const box = g.getBoundingClientRect();
					if (g.scrollWidth > g.clientWidth + 1) out.push('the group scrolls sideways: ' + g.scrollWidth + ' > ' + g.clientWidth);
					for (const c of g.querySelectorAll('button')) {
						const r = c.getBoundingClientRect();
						if (r.left < box.left - 1 || r.right > box.right + 1 || r.right > vw) out.push(c.textContent + ' at ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + vw);
					}
				}
				return out;
			})()`, &hidden)
			if len(hidden) > 0 {
				t.Errorf("challenges not all on screen at %d px: %v", pc.width, hidden)
			}
			var field struct{ Input, Card float64 }
			b.eval(t, `(() => {
				const i = document.getElementById('contact-email');
				const card = i.closest('form');
				const s = getComputedStyle(card);
				return { input: i.getBoundingClientRect().width, card: card.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) };
			})()`, &field)
			if field.Input < field.Card-1 {
				t.Errorf("the e-mail field is %.0f px wide in a card of %.0f px; want the card's width", field.Input, field.Card)
			}
			b.axeCheck(t, "guest page "+pc.lang)
			b.shotScreen(t, fmt.Sprintf("guest-phone-%s-%d-top", pc.lang, pc.width))
			// Picked from the top of the page, as a thumb does: a file made in
			// the page, so that nothing but the page scrolls.
			b.eval(t, `window.scrollTo(0, 0); new Promise((res) => {
				const c = document.createElement('canvas');
				c.width = 320; c.height = 240;
				const g = c.getContext('2d');
				g.fillStyle = '#b03a5b'; g.fillRect(0, 0, 320, 240); g.fillStyle = '#fff'; g.fillRect(40, 40, 120, 90);
				c.toBlob((blob) => {
					const dt = new DataTransfer();
					dt.items.add(new File([blob], 'dance.jpg', { type: 'image/jpeg' }));
					const input = document.querySelector('#pick-photos input[type=file]');
					input.files = dt.files;
					input.dispatchEvent(new Event('change'));
					res(true);
				}, 'image/jpeg', 0.9);
			})`, nil)
			b.waitJS(t, "the queue scrolled into view", `(() => {
				const q = document.getElementById('queue');
				// The file's row, or the thank-you once it is in.
				const l = document.querySelector('#queue-list li') || document.getElementById('queue-done');
				if (!q || !l) return false;
				return q.getBoundingClientRect().top >= -1 && l.getBoundingClientRect().bottom <= innerHeight;
			})()`)
			b.shotScreen(t, fmt.Sprintf("guest-phone-%s-%d-queue", pc.lang, pc.width))
			b.shot(t, fmt.Sprintf("guest-phone-%s-%d", pc.lang, pc.width))
		})
	}
}

// heldBox is a proxy in front of a box that passes the first `pass`
// photo uploads on and answers the others 503 with a long Retry-After,
// until let() opens the way: a selection half sent when the page reloads.
// An upload is counted where it starts: a resumable upload's creation
// (POST …/uploads) or a one-request upload (POST …/photos). The pieces of
// a resumable upload (PATCH …/uploads/:id) go through only for uploads
// whose creation went through.
type heldBox struct {
	URL    string
	mu     sync.Mutex
	pass   int
	open   bool
	passed map[string]bool // the addresses of the resumable uploads let through
}

func newHeldBox(t *testing.T, b *box, pass int) *heldBox {
	t.Helper()
	target, err := url.Parse(b.URL)
	if err != nil {
		t.Fatal(err)
	}
	hb := &heldBox{pass: pass, passed: map[string]bool{}}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.ModifyResponse = func(res *http.Response) error {
		r := res.Request
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/uploads") && res.StatusCode == http.StatusCreated {
			loc, err := r.URL.Parse(res.Header.Get("Location"))
			if err != nil {
				return fmt.Errorf("reading the new upload's address: %w", err)
			}
			hb.mu.Lock()
			hb.passed[loc.Path] = true
			hb.mu.Unlock()
		}
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		starts := r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/e/") &&
			(strings.HasSuffix(r.URL.Path, "/photos") || strings.HasSuffix(r.URL.Path, "/uploads"))
		piece := r.Method == http.MethodPatch && strings.HasPrefix(r.URL.Path, "/api/e/") && strings.Contains(r.URL.Path, "/uploads/")
		if starts || piece {
			hb.mu.Lock()
			through := hb.open
			switch {
			case through:
			case starts && hb.pass > 0:
				hb.pass--
				through = true
			case piece:
				through = hb.passed[r.URL.Path]
			}
			hb.mu.Unlock()
			if !through {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.Header().Set("Retry-After", "3600")
				w.WriteHeader(http.StatusServiceUnavailable)
				_, _ = w.Write([]byte(`{"error":"unavailable","details":{}}`))
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	hb.URL = srv.URL
	return hb
}

func (hb *heldBox) let() {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	hb.open = true
}

// TestGuestQueueKeptAcrossReload: a guest picks 5 files for a challenge,
// one over the box's limit; 2 are sent, then the page reloads. The
// queue's count ("2 of 4 sent"), the refused file with its reason and the
// chosen challenge are still there, and once the rest is in the
// thank-you counts all 4, at 360 and 390 px in English, French and
// Italian.
func TestGuestQueueKeptAcrossReload(t *testing.T) {
	t.Parallel()
	box := startBoxWith(t, func(c *daemon.Config) { c.MaxUploadMB = 1 })
	big := filepath.Join(t.TempDir(), "huge.jpg")
	noise := make([]byte, 2<<20)
	if _, err := rand.Read(noise); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, noise, 0o644); err != nil {
		t.Fatal(err)
	}
	files := []string{big}
	for i := range 4 {
		files = append(files, writeJPEG(t, fmt.Sprintf("p%d.jpg", i), 320+16*i, 240))
	}
	for _, pc := range phoneCases {
		t.Run(fmt.Sprintf("%s-%d", pc.lang, pc.width), func(t *testing.T) {
			g := catalogue(t, pc.lang, "guest")
			ev := phoneEvent(t, box.Store, pc.lang)
			held := newHeldBox(t, box, 2)
			b := newBrowserAt(t, pc.browserLang, pc.width, pc.height)
			page := held.URL + "/e/" + ev.Slug
			b.do(t, "opening the event link",
				chromedp.Navigate(page),
				chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
			b.do(t, "choosing the second challenge and picking 5 files",
				click(`#capture .challenges button:nth-child(3)`),
				chromedp.WaitVisible(chromedp.CSS(`#capture .challenges button:nth-child(3)[aria-pressed=true]`)),
				chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files))
			count := fillIn(g["queueOverall"], map[string]any{"sent": 2, "total": 4})
			b.waitText(t, "#queue-overall", count)
			refused := fillIn(g["queueFailed"], map[string]any{"reason": fillIn(g["errTooLargeLimit"], map[string]any{"mb": 1})})
			b.waitText(t, "#queue-list li[data-state=failed]", refused)
			eventually(t, "two photos reach the box", func() bool { return len(eventPhotos(t, box.Store, ev.ID)) == 2 })

			b.do(t, "reloading mid-queue",
				chromedp.Reload(),
				chromedp.WaitVisible(chromedp.CSS(`#queue-list li`)))
			b.waitText(t, "#queue-overall", count)
			b.waitText(t, "#queue-list li[data-state=failed]", "huge.jpg")
			b.waitText(t, "#queue-list li[data-state=failed]", refused)
			b.waitJS(t, "the chosen challenge is still chosen",
				`(() => { const p = document.querySelector('#capture .challenges button[aria-pressed=true]'); return !!p && p.textContent === `+fmt.Sprintf("%q", ev.Challenges[1].Label)+`; })()`)
			b.shotScreen(t, fmt.Sprintf("guest-reload-%s-%d", pc.lang, pc.width))

			held.let()
			b.eval(t, `window.dispatchEvent(new Event('online'))`, nil)
			b.waitText(t, "#queue-done", say(t, pc.lang, "guest.allSentPhotos", "n", "4"))
			b.waitText(t, "#queue-done", say(t, pc.lang, "guest.someRefused", "n", "1"))
			photos := eventPhotos(t, box.Store, ev.ID)
			if len(photos) != 4 {
				t.Fatalf("the box holds %d photos; want 4", len(photos))
			}
			for _, p := range photos {
				if p.ChallengeID != ev.Challenges[1].ID {
					t.Errorf("photo %s has challenge %q; want %q", p.ID, p.ChallengeID, ev.Challenges[1].ID)
				}
			}
			b.axeCheck(t, "guest page after the reload "+pc.lang)
			b.shotScreen(t, fmt.Sprintf("guest-thanks-%s-%d", pc.lang, pc.width))
		})
	}
}
