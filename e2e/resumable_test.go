package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// countingProxy passes TCP connections to the box and counts the bytes
// the browser sends up. Its Wi-Fi can drop: every connection is cut and
// new ones are closed at once until it is back.
type countingProxy struct {
	ln   net.Listener
	up   atomic.Int64
	addr string

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]bool
}

// drop cuts every connection and refuses new ones until restore.
func (p *countingProxy) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *countingProxy) restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func newCountingProxy(t *testing.T, target string) *countingProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &countingProxy{ln: ln, addr: ln.Addr().String(), conns: map[net.Conn]bool{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.mu.Lock()
			down := p.down
			p.mu.Unlock()
			if down {
				c.Close()
				continue
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[s] = true, true
			p.mu.Unlock()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
			go func() { _, _ = io.Copy(countingWriter{s, &p.up}, c); s.Close() }()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return p
}

// countingWriter adds what it writes to n.
type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

// largeVideo makes a video of about 35 MB with ffmpeg (noise at a high
// quality: 8 s of 640x360) and returns its path and bytes.
func largeVideo(t *testing.T) (string, []byte) {
	t.Helper()
	testtool.Need(t, "ffmpeg", "ffmpeg")
	video := filepath.Join(t.TempDir(), "dance.mp4")
	if out, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "nullsrc=s=640x360:r=25,geq=random(1)*255:128:128",
		"-t", "8", "-c:v", "libx264", "-preset", "ultrafast", "-crf", "12", "-pix_fmt", "yuv420p", "-movflags", "+faststart", video).CombinedOutput(); err != nil {
		t.Fatalf("making the video: %v\n%s", err, out)
	}
	want, err := os.ReadFile(video)
	if err != nil {
		t.Fatal(err)
	}
	return video, want
}

// network sets the browser's network: offline, or online with an upload
// limit (bytes/s, -1 for none); navigator.onLine follows.
func (b *browser) network(t *testing.T, offline bool, upload float64) {
	t.Helper()
	b.taint()
	b.do(t, fmt.Sprintf("network offline=%v", offline), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		if _, err := cdp.Call(ctx, tg, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		if _, err := cdp.Call(ctx, tg, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{Offline: offline, UploadThroughput: upload, DownloadThroughput: -1}},
		}); err != nil {
			return err
		}
		_, err := cdp.Call(ctx, tg, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: offline, UploadThroughput: upload, DownloadThroughput: -1,
		})
		return err
	}))
}

// TestGuestVideoResumesAfterTheWiFiDrops: a guest sends a video of tens
// of MB from a 390 px phone; the Wi-Fi drops a third of the way in. The
// page says it waits for the Wi-Fi (in the page's language), keeps
// showing the bytes the box holds of the total, and once the network is
// back it goes on from where the box stopped: the video arrives whole,
// and the bytes sent stay well under twice its size. In English and
// French.
func TestGuestVideoResumesAfterTheWiFiDrops(t *testing.T) {
	video, want := largeVideo(t)
	size := int64(len(want))
	box := startBoxWith(t, func(c *daemon.Config) { c.MaxVideoMB = 100; c.MaxVideoSeconds = 60 })
	mb := regexp.MustCompile(`[1-9][0-9]*([.,][0-9])?[\s\x{a0}\x{202f}]?(MB|Mo)`)
	for _, pc := range []struct{ lang, browserLang string }{{"en", "en-US"}, {"fr", "fr-FR"}} {
		t.Run(pc.lang, func(t *testing.T) {
			g, ev, proxy, b := videoGuest(t, box, pc.lang, pc.browserLang)
			b.do(t, "opening the event link",
				chromedp.Navigate("http://"+proxy.addr+"/e/"+ev.Slug),
				chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
			// A hotspot's edge: 4 MB/s up, so the cut lands mid-file.
			b.network(t, false, 4e6)
			start := proxy.up.Load()
			b.do(t, "picking the video", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), []string{video}))
			eventually(t, "a third of the video is on its way", func() bool { return proxy.up.Load()-start > size/3 })
			// The Wi-Fi drops: the phone knows it is offline, and the
			// connection carrying the video is gone.
			b.network(t, true, -1)
			proxy.drop()
			atCut := proxy.up.Load() - start
			b.waitText(t, "#queue-list", g["queueOffline"])
			// The line over the list says the same: it waits for the
			// Wi-Fi, it has not failed.
			waiting := strings.SplitN(strings.SplitN(g["queueOffline"], ".", 2)[0], ":", 2)[0]
			b.waitText(t, "#queue-overall", waiting)
			bytesText := b.text(t, "#queue-bytes")
			if !mb.MatchString(bytesText) {
				t.Fatalf("during the cut the bytes line says %q; want the MB the box holds of the total", bytesText)
			}
			b.waitJS(t, "the bytes line is on screen", `(() => { const e = document.querySelector('#queue-bytes'); if (!e) return false; const r = e.getBoundingClientRect(); return r.width > 0 && r.bottom > 0 && r.top < innerHeight; })()`)
			b.eval(t, `document.querySelector('#queue').scrollIntoView({block: 'center'})`, nil)
			b.shotScreen(t, "guest-video-offline-"+pc.lang)
			t.Logf("cut after %.1f MB of %.1f MB; the page said %q, %q", float64(atCut)/1e6, float64(size)/1e6, g["queueOffline"], bytesText)

			proxy.restore()
			b.network(t, false, -1)
			waitAllSent(t, b, g)
			b.shotScreen(t, "guest-video-sent-"+pc.lang)
			sent := proxy.up.Load() - start
			ratio := float64(sent) / float64(size)
			t.Logf("%s: %.1f MB video, %.1f MB sent in all (%.3f× the file)", pc.lang, float64(size)/1e6, float64(sent)/1e6, ratio)
			if ratio > 1.2 {
				t.Fatalf("sent %.3f× the video: it started again after the cut instead of resuming", ratio)
			}
			checkOneVideo(t, box, ev.ID, want)
		})
	}
}

// shownBytes reads the first figure of a bytes line ("12 MB of 35 MB",
// "12 Mo sur 35 Mo", "0 byte of …") as bytes; ok is false when there is
// none.
func shownBytes(s string) (n float64, ok bool) {
	m := regexp.MustCompile(`([0-9]+(?:[.,][0-9]+)?)[\s\x{a0}\x{202f}]*(bytes?|octets?|B|kB|ko|MB|Mo|GB|Go)\b`).FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(strings.Replace(m[1], ",", ".", 1), 64)
	if err != nil {
		return 0, false
	}
	switch m[2] {
	case "kB", "ko":
		v *= 1e3
	case "MB", "Mo":
		v *= 1e6
	case "GB", "Go":
		v *= 1e9
	}
	return v, true
}

// TestGuestVideoResumesAfterAReload: a guest sends a video of tens of MB
// from a 390 px phone and the page is reloaded a third of the way in (a
// pull-to-refresh, the browser putting the tab back). From the first
// figure it shows after the reload, the queue counts from what the box
// already holds, not from 0; it goes on from there to the thank-you, the
// box holds the video once and whole, and the bytes sent stay well under
// twice its size. In English and French.
func TestGuestVideoResumesAfterAReload(t *testing.T) {
	video, want := largeVideo(t)
	size := int64(len(want))
	box := startBoxWith(t, func(c *daemon.Config) { c.MaxVideoMB = 100; c.MaxVideoSeconds = 60 })
	for _, pc := range []struct{ lang, browserLang string }{{"en", "en-US"}, {"fr", "fr-FR"}} {
		t.Run(pc.lang, func(t *testing.T) {
			g, ev, proxy, b := videoGuest(t, box, pc.lang, pc.browserLang)
			// Every text the bytes line takes is kept, from the first one
			// a page shows: a 0 that flashes before the box answers counts.
			b.do(t, "watching the bytes line", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `(() => {
					window.__bytesLine = [];
					const rec = () => {
						const e = document.getElementById('queue-bytes');
						const s = e ? e.textContent : null;
						if (s !== null && window.__bytesLine[window.__bytesLine.length - 1] !== s) window.__bytesLine.push(s);
					};
					new MutationObserver(rec).observe(document, { subtree: true, childList: true, characterData: true });
				})()`})
				return err
			}))
			b.do(t, "opening the event link",
				chromedp.Navigate("http://"+proxy.addr+"/e/"+ev.Slug),
				chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
			// A hotspot's edge: 4 MB/s up, so the reload lands mid-file.
			b.network(t, false, 4e6)
			start := proxy.up.Load()
			b.do(t, "picking the video", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), []string{video}))
			eventually(t, "a third of the video is on its way", func() bool { return proxy.up.Load()-start > size/3 })
			atReload := proxy.up.Load() - start
			b.do(t, "reloading the page mid-file", chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
			b.waitJS(t, "the bytes line is back", `window.__bytesLine.length > 0`)
			var lines []string
			b.eval(t, `window.__bytesLine`, &lines)
			first, ok := shownBytes(lines[0])
			t.Logf("%s: reloaded after %.1f MB of %.1f MB; the bytes line then said %q", pc.lang, float64(atReload)/1e6, float64(size)/1e6, lines)
			if !ok || first <= 0 {
				t.Fatalf("right after the reload the bytes line says %q; want the MB the box already holds, not 0", lines[0])
			}
			// The box holds what reached it, less what was in flight:
			// about a second at the hotspot's speed, and the figure's
			// rounding.
			if slack := 4e6 + 0.5e6; first < float64(atReload)-slack {
				t.Fatalf("right after the reload the bytes line says %q (%.1f MB); %.1f MB had gone before the reload", lines[0], first/1e6, float64(atReload)/1e6)
			}
			b.eval(t, `document.querySelector('#queue').scrollIntoView({block: 'center'})`, nil)
			b.shotScreen(t, "guest-video-reloaded-"+pc.lang)

			b.network(t, false, -1)
			waitAllSent(t, b, g)
			b.shotScreen(t, "guest-video-reloaded-sent-"+pc.lang)
			sent := proxy.up.Load() - start
			ratio := float64(sent) / float64(size)
			t.Logf("%s: %.1f MB video, %.1f MB sent in all (%.3f× the file)", pc.lang, float64(size)/1e6, float64(sent)/1e6, ratio)
			if ratio > 1.2 {
				t.Fatalf("sent %.3f× the video: it started again after the reload instead of resuming", ratio)
			}
			// Nor does it fall back to 0 once the box is asked again.
			b.eval(t, `window.__bytesLine`, &lines)
			for _, l := range lines {
				if n, ok := shownBytes(l); !ok || n < first-0.5e6 {
					t.Fatalf("after the reload the bytes line went %q: it fell back from %q", lines, lines[0])
				}
			}
			checkOneVideo(t, box, ev.ID, want)
		})
	}
}

// videoGuest makes an event in lang that takes videos, a counting proxy
// in front of the box and a phone's browser in browserLang: the guest
// catalogue, the event, the proxy and the browser.
func videoGuest(t *testing.T, bx *box, lang, browserLang string) (map[string]string, store.Event, *countingProxy, *browser) {
	t.Helper()
	g := catalogue(t, lang, "guest")
	ev := createEvent(t, bx.Store, "Anna & Marco", func(e *store.Event) {
		e.AskGuestName = false
		e.AllowVideos = true
		e.DefaultLocale = lang
	})
	proxy := newCountingProxy(t, bx.URL[len("http://"):])
	return g, ev, proxy, newBrowserAt(t, browserLang, phoneWidth, phoneHeight)
}

// waitAllSent waits, up to a minute and a half, for the guest page's
// thank-you saying everything is in.
func waitAllSent(t *testing.T, b *browser, g map[string]string) {
	t.Helper()
	b.do(t, "waiting for the video to be in", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Poll[bool](fmt.Sprintf(`(() => { const e = document.querySelector('#queue-done'); return !!e && e.textContent.includes(%q); })()`,
			fillIn(g["allSentTitle"], nil)), chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(90*time.Second))(ctx, tg)
		return err
	}))
}

// checkOneVideo fails unless the event holds exactly one photo, a video
// byte for byte want.
func checkOneVideo(t *testing.T, bx *box, eventID string, want []byte) {
	t.Helper()
	photos := eventPhotos(t, bx.Store, eventID)
	if len(photos) != 1 || photos[0].Video == nil {
		t.Fatalf("the box holds %d photos (%+v); want the video once", len(photos), photos)
	}
	f, err := bx.Store.Media().Open(photos[0].VideoName())
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the stored video (%d bytes) is not the one sent (%d bytes)", len(got), len(want))
	}
}
