package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestQueueEndsOnTheThankYouAlone: a guest on a slow hotspot sends five
// photos and a video. From the moment the thank-you shows, the queue never
// shows it beside the "Sending" header, the progress line or a row of a
// file sent or on its way (a watcher of the page's changes records every
// state the queue goes through, not one look at the end), and the
// leave-the-Wi-Fi card stays under it. In English and French.
func TestQueueEndsOnTheThankYouAlone(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	video, err := filepath.Abs("../probe/testdata/streamed.webm")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{video}
	for i := range 5 {
		files = append(files, writeJPEG(t, fmt.Sprintf("p%d.jpg", i), 1600+i*10, 1200))
	}
	for _, lang := range []string{"en", "fr"} {
		t.Run(lang, func(t *testing.T) {
			g := catalogue(t, lang, "guest")
			ev := phoneEvent(t, box.Store, lang)
			b := newBrowserAt(t, lang, phoneWidth, phoneHeight)
			b.taint()
			b.do(t, "a phone on a slow hotspot, watching the queue", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
					return err
				}
				c := slowHotspot
				if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
					MatchedNetworkConditions: []*network.Conditions{&c},
				}); err != nil {
					return err
				}
				_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
					window.__mixed = [];
					const look = () => {
						const q = document.getElementById('queue');
						if (!q || !q.querySelector('#queue-done')) return;
						const extra = [
							...[...q.querySelectorAll('h2, h3')].filter((e) => e.textContent.includes(` + jsString(g["queueTitle"]) + `)).map(() => 'header'),
							...(q.querySelector('#queue-overall') ? ['progress line'] : []),
							...[...q.querySelectorAll('#queue-list li')].filter((l) => l.dataset.state !== 'failed').map((l) => 'row ' + l.dataset.state),
						];
						if (extra.length && window.__mixed.length < 20) window.__mixed.push(extra.join(', '));
					};
					new MutationObserver(look).observe(document, { subtree: true, childList: true, characterData: true, attributes: true });
				})()`})
				return err
			}))
			b.do(t, "sending five photos and a video",
				chromedp.Navigate(box.URL+"/e/"+ev.Slug),
				chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)),
				chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files))
			b.waitText(t, "#queue-done", say(t, lang, "guest.allSentBoth", "photos", "5", "videos", "1"))
			b.waitJS(t, "the six files in my photos", `document.querySelectorAll('#my-photos .tile').length === 6`)
			// The rows of files sent leave 2.5 s after each is in: past that.
			b.do(t, "waiting past the sent rows' time", chromedp.Sleep(3*1e9))
			var mixed []string
			b.eval(t, `window.__mixed`, &mixed)
			if len(mixed) > 0 {
				t.Errorf("the thank-you showed beside %q", mixed)
			}
			if b.text(t, "#leave-wifi") == "" {
				t.Errorf("no leave-the-Wi-Fi card under the thank-you")
			}
			b.do(t, "scrolling to the thank-you", chromedp.ScrollIntoView(chromedp.CSS(`#queue`)))
			b.shotScreen(t, "queue-end-"+lang)
		})
	}
}
