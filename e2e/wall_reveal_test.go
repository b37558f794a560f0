package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// wallLink makes a wall link of the event and returns its address.
func wallLink(t *testing.T, b *box, eventID string) string {
	t.Helper()
	w := store.Wall{EventID: eventID, Label: "Hall screen"}
	if err := b.Store.Walls().Create(context.Background(), &w); err != nil {
		t.Fatalf("making a wall link: %v", err)
	}
	return b.URL + "/wall/" + w.Token
}

// TestWallBeforeTheReveal: a wall whose album is revealed later says the
// photos are being collected and counts down to the reveal in the page's
// language, once a second without moving, names the event once, and keeps
// the scan card's words inside the card at a phone's, a laptop's, a venue
// screen's and a 4K screen's size; axe finds nothing.
func TestWallBeforeTheReveal(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	// The unit of days in each language, as Intl writes it in full.
	days := map[string]string{"en": "1 day", "fr": "1 jour", "it": "1 giorno"}
	sizes := []struct{ w, h int }{{390, 844}, {360, 740}, {1366, 768}, {1920, 1080}, {3840, 2160}}
	for _, lang := range []string{"en", "fr", "it"} {
		ev := createEvent(t, box.Store, "Garden party", func(e *store.Event) {
			e.DefaultLocale = lang
			e.AccessCode = "TULIP7"
			e.RevealAt = time.Now().Add(26 * time.Hour).UnixMilli()
		})
		link := wallLink(t, box, ev.ID)
		w := catalogue(t, lang, "wall")
		for _, sz := range sizes {
			name := fmt.Sprintf("%s-%dx%d", lang, sz.w, sz.h)
			if !swept(name, "fr-360x740", "en-3840x2160") {
				continue
			}
			t.Run(name, func(t *testing.T) {
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.do(t, "opening the wall", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`.wall.v2 .scan`)))
				b.waitJS(t, "the QR code loads", `(() => { const i = document.querySelector('.wall.v2 .scan img'); return i.complete && i.naturalWidth > 0; })()`)
				var outside []string
				b.eval(t, `(() => {
					const card = document.querySelector('.wall.v2 .scan');
					const c = card.getBoundingClientRect();
					const s = getComputedStyle(card);
					// The words keep at least 16 px from every edge of the card.
					const inner = { left: c.left + 16, right: c.right - 16, top: c.top + parseFloat(s.borderTopWidth) + 16, bottom: c.bottom - 16 };
					const out = [];
					if (c.right > innerWidth + 1 || c.bottom > innerHeight + 1 || c.left < -1) out.push('the card leaves the screen');
					if (card.querySelector('img').getBoundingClientRect().right > c.right) out.push('the QR code leaves the card');
					for (const e of card.querySelectorAll('.scan-words, .scan-words > *')) {
						const r = e.getBoundingClientRect();
						if (r.left < inner.left || r.right > inner.right || r.top < inner.top || r.bottom > inner.bottom) {
							out.push((e.className || e.tagName) + ' ' + [r.left, r.top, r.right, r.bottom].map(Math.round) + ' outside ' + [inner.left, inner.top, inner.right, inner.bottom].map(Math.round));
						}
						if (e.scrollWidth > e.clientWidth + 1 && e.tagName !== 'IMG') out.push((e.className || e.tagName) + ' overflows its box');
					}
					return out;
				})()`, &outside)
				if len(outside) > 0 {
					t.Errorf("the scan card's words leave the card at %dx%d: %v", sz.w, sz.h, outside)
				}
				b.waitJS(t, "the countdown", `!!document.querySelector('.slide.on .countdown') && /\d\d:\d\d:\d\d/.test(document.querySelector('.slide.on .countdown').textContent)`)
				// Intl joins a number and its unit with a no-break space.
				text := strings.ReplaceAll(b.text(t, ".slide.on .countdown"), "\u00a0", " ")
				want := strings.SplitN(w["revealIn"], "{time}", 2)[0]
				if w["revealIn"] == "" || !strings.Contains(text, strings.TrimSpace(want)) || !strings.Contains(text, days[lang]) ||
					!regexp.MustCompile(`\b(0[0-2]|1\d|2[0-3]):[0-5]\d:[0-5]\d\b`).MatchString(text) {
					t.Errorf("countdown %q; want %q with %q and hh:mm:ss", text, w["revealIn"], days[lang])
				}
				b.waitText(t, ".slide.on", w["revealCollecting"])
				if w["revealCollecting"] == "" {
					t.Errorf("no revealCollecting string in the %s catalogue", lang)
				}
				body := b.bodyText()
				if n := strings.Count(body, "Garden party"); n != 1 {
					t.Errorf("the event name shows %d times; want once (page: %q)", n, body)
				}
				if strings.Contains(body, w["empty"]) {
					t.Errorf("the wall says %q while the photos are held back", w["empty"])
				}
				// The countdown ticks each second and nothing moves when it does.
				var before, after []float64
				rects := `[...document.querySelectorAll('.slide.on .countdown, .slide.on .sub')].flatMap((e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })`
				b.eval(t, rects, &before)
				b.waitJS(t, "the countdown ticks", fmt.Sprintf(`document.querySelector('.slide.on .countdown').textContent.replace(/\u00a0/g, ' ') !== %q`, text))
				b.eval(t, rects, &after)
				if fmt.Sprint(before) != fmt.Sprint(after) {
					t.Errorf("the countdown moved as it ticked: %v then %v", before, after)
				}
				b.axeCheck(t, "wall before the reveal "+lang)
				b.shotScreen(t, fmt.Sprintf("wall-reveal-%s-%dx%d", lang, sz.w, sz.h))
			})
		}
	}
}
