package e2e

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// slowHotspot is a crowded venue hotspot as a phone meets it: 1.6 Mbit/s
// each way and 150 ms on every request.
var slowHotspot = network.Conditions{Latency: 150, DownloadThroughput: 200_000, UploadThroughput: 200_000}

// firstScreenBudget is how soon the event's name must be on a guest's
// first screen over slowHotspot, from the moment the link is opened.
const firstScreenBudget = 1200.0 // ms

// TestGuestSeesTheEventNameSoonOnASlowHotspot opens the link of an event
// behind an access code, as a guest's phone does on first visit (nothing
// cached) over slowHotspot, in English and in French: the code screen
// shows the event's name within firstScreenBudget. It logs when the name
// came and every request the page made before it, with when each started
// and ended, so a round trip added to the first screen shows. A timing on
// a shared machine says more about its load than about the page, so it
// runs when asked (EVENTBOX_FIRST_SCREEN=1, docs/performance.md), on a
// quiet machine.
func TestGuestSeesTheEventNameSoonOnASlowHotspot(t *testing.T) {
	if os.Getenv("EVENTBOX_FIRST_SCREEN") == "" {
		t.Skip("a timing: EVENTBOX_FIRST_SCREEN=1 runs it (docs/performance.md)")
	}
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AccessCode = "confetti" })
	for _, lang := range []string{"en-GB", "fr-FR"} {
		t.Run(lang, func(t *testing.T) {
			b := newBrowserAt(t, lang, phoneWidth, phoneHeight)
			b.taint()
			b.do(t, "a fresh phone on a slow hotspot", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
					return err
				}
				if _, err := cdp.Call(ctx, tg, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
					return err
				}
				c := slowHotspot
				if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
					MatchedNetworkConditions: []*network.Conditions{&c},
				}); err != nil {
					return err
				}
				_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
					const seen = () => {
						const h = document.querySelector('h1');
						if (window.__nameAt === undefined && h && h.textContent.includes(` + jsString(ev.Name) + `)) window.__nameAt = performance.now();
					};
					new MutationObserver(seen).observe(document, { subtree: true, childList: true, characterData: true });
				})()`})
				return err
			}))
			b.do(t, "opening the event link", chromedp.Navigate(box.URL+"/e/"+ev.Slug), chromedp.WaitVisible(chromedp.CSS(`#code`)))
			var at float64
			b.eval(t, `window.__nameAt`, &at)
			var reqs []string
			b.eval(t, `performance.getEntriesByType('resource').filter((e) => e.startTime < window.__nameAt)
				.map((e) => Math.round(e.startTime) + '–' + Math.round(e.responseEnd) + ' ms ' + new URL(e.name).pathname + ' (' + e.initiatorType + ')')`, &reqs)
			api := 0
			for _, r := range reqs {
				if strings.Contains(r, "/api/e/"+ev.Slug+" ") {
					api++
				}
			}
			if api != 1 {
				t.Errorf("%s: the event was asked for %d times before its name showed, want once (the preload taken)", lang, api)
			}
			t.Logf("%s: the event's name after %.0f ms (budget %.0f ms); before it:", lang, at, firstScreenBudget)
			for _, r := range reqs {
				t.Logf("  %s", r)
			}
			if at <= 0 || at > firstScreenBudget {
				t.Errorf("%s: the event's name came after %.0f ms over a 1.6 Mbit/s, 150 ms hotspot; want within %.0f ms", lang, at, firstScreenBudget)
			}
		})
	}
}
