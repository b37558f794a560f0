package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// User agents of the phones the leave-the-Wi-Fi block tells apart.
const (
	iPhoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"
	androidUA = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36"
)

// userAgent makes the browser's tab say it is another browser (its
// navigator.userAgent and its requests' header). The tab is not reused.
func (b *browser) userAgent(t *testing.T, ua string) {
	t.Helper()
	b.taint()
	b.do(t, "setting the user agent", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua})
		return err
	}))
}

// TestGuestLeavesTheWiFiOnceAllIsSent: a guest sends 2 photos and a
// video. Once all three are in, the queue shows the thank-you alone, with
// the count in photos and videos ("2 photos and 1 video"), no "Sending"
// header and no finished rows, and under it the block that says the guest
// may now leave the box's Wi-Fi, with the steps of their phone (an
// iPhone's, an Android's, both when the browser does not say) and that
// the QR code brings the page back; the album and the buttons to send
// more stay on the page. Picking another file hides the block until that
// file is in too. In English, French, Italian and Spanish at 390×844 (an
// iPhone's and an Android's browser) and at laptop and venue-screen sizes
// (the quick cases: en-iphone and fr-android at phone size).
func TestGuestLeavesTheWiFiOnceAllIsSent(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	video, err := filepath.Abs("../probe/testdata/streamed.webm")
	if err != nil {
		t.Fatal(err)
	}
	files := []string{writeJPEG(t, "cake.jpg", 480, 320), writeJPEG(t, "dance.jpg", 320, 480), video}
	more := writeJPEG(t, "toast.jpg", 400, 300)
	type platform struct{ name, ua string }
	iphone, android, other := platform{"iphone", iPhoneUA}, platform{"android", androidUA}, platform{"other", ""}
	type size struct {
		name   string
		w, h   int
		phones []platform
	}
	phone := size{"phone", 390, 844, []platform{iphone, android}}
	laptop := size{"laptop", 1366, 768, []platform{other}}
	venue := size{"venue", 1920, 1080, []platform{other}}
	langs := []struct {
		code, browser string
		sizes         []size
	}{
		{"en", "en-US", []size{phone, laptop, venue}},
		{"fr", "fr-FR", []size{phone, laptop, venue}},
		{"it", "it-IT", []size{phone, laptop, venue}},
		{"es", "es-ES", []size{phone, laptop, venue}},
	}
	for _, l := range langs {
		for _, sz := range l.sizes {
			for _, p := range sz.phones {
				name := l.code + "-" + p.name
				if sz.name != "phone" {
					name = l.code + "-" + sz.name
				}
				t.Run(name, func(t *testing.T) {
					if !swept(name, "en-iphone", "fr-android") {
						t.Skip("a sweep case: -sweep runs it")
					}
					g := catalogue(t, l.code, "guest")
					ev := phoneEvent(t, box.Store, l.code)
					// The fourth upload to start (a photo, the video's poster
					// and the video, then the next file) waits for let().
					held := newHeldBox(t, box, 4)
					b := newBrowserAt(t, l.browser, sz.w, sz.h)
					if p.ua != "" {
						b.userAgent(t, p.ua)
					}
					b.do(t, "opening the event link and sending 2 photos and a video",
						chromedp.Navigate(held.URL+"/e/"+ev.Slug),
						chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)),
						chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files))
					b.waitText(t, "#queue-done", g["allSentTitle"])
					b.waitText(t, "#queue-done", say(t, l.code, "guest.allSentBoth", "photos", "2", "videos", "1"))
					b.waitJS(t, "the three files are in my photos", `document.querySelectorAll('#my-photos .tile').length === 3`)

					var end struct {
						Header, Rows, Overall bool
						Leave, Position       string
						PickVisible           bool
					}
					b.eval(t, fmt.Sprintf(`(() => {
						const q = document.getElementById('queue');
						const leave = document.getElementById('leave-wifi');
						const pick = document.getElementById('pick-photos');
						const r = pick.getBoundingClientRect();
						return {
							header: [...q.querySelectorAll('h2, h3')].some((e) => e.textContent.includes(%q)),
							rows: !!q.querySelector('#queue-list li[data-state=sent], #queue-list li[data-state=uploading]'),
							overall: !!document.getElementById('queue-overall'),
							leave: leave ? leave.innerText : '',
							position: leave ? getComputedStyle(leave).position : '',
							pickVisible: r.width > 0 && r.height > 0 && getComputedStyle(pick).visibility === 'visible',
						};
					})()`, g["queueTitle"]), &end)
					if end.Header {
						t.Errorf("the end state still has the %q header", g["queueTitle"])
					}
					if end.Rows || end.Overall {
						t.Errorf("the end state still lists the files (finished rows %v, progress line %v)", end.Rows, end.Overall)
					}
					if end.Leave == "" {
						t.Fatalf("no leave-the-Wi-Fi block once all is sent; the queue says %q", b.text(t, "#queue"))
					}
					if end.Position == "fixed" || end.Position == "absolute" {
						t.Errorf("the leave-the-Wi-Fi block is %s: it must sit in the page, not over it", end.Position)
					}
					if !end.PickVisible {
						t.Errorf("the button to send more is hidden in the end state")
					}
					norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
					got := norm(end.Leave)
					for _, k := range []string{"leaveTitle", "leaveWhy", "leaveLater"} {
						if !strings.Contains(got, norm(g[k])) {
							t.Errorf("the leave-the-Wi-Fi block lacks %s %q; it says %q", k, g[k], got)
						}
					}
					wantIOS, wantAndroid := p.name != "android", p.name != "iphone"
					if strings.Contains(got, norm(g["leaveIphone"])) != wantIOS {
						t.Errorf("%s: the iPhone's steps shown = %v, want %v; the block says %q", p.name, !wantIOS, wantIOS, got)
					}
					if strings.Contains(got, norm(g["leaveAndroid"])) != wantAndroid {
						t.Errorf("%s: the Android steps shown = %v, want %v; the block says %q", p.name, !wantAndroid, wantAndroid, got)
					}
					if name == "en-iphone" || name == "fr-android" {
						b.axeCheck(t, "guest page, all sent "+name)
					}
					b.do(t, "scrolling to the thank-you", chromedp.ScrollIntoView(chromedp.CSS(`#queue`)))
					b.shotScreen(t, "leave-"+name)
					b.shot(t, "leave-"+name+"-page")

					b.do(t, "picking one more photo",
						chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), []string{more}))
					b.waitJS(t, "the leave-the-Wi-Fi block goes while a file waits", `!document.getElementById('leave-wifi') && !!document.querySelector('#queue-list li')`)
					// The held box's refusal must be in (the file waiting for its
					// retry) before the box lets it through and the page is woken:
					// a wake while the refusal is on its way finds nothing to retry.
					b.waitText(t, "#queue-list", strings.TrimSpace(strings.Split(g["queueRetryBox"], "{s}")[0]))
					held.let()
					b.eval(t, `window.dispatchEvent(new Event('online'))`, nil)
					b.waitText(t, "#queue-done", say(t, l.code, "guest.allSentPhotos", "n", "1"))
					b.waitJS(t, "the block comes back once that one is in", `!!document.getElementById('leave-wifi')`)
				})
			}
		}
	}
}
