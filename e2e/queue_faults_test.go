package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// faultyBox is a proxy in front of a box that answers the next photo
// uploads from a script (a status and an error code each) instead of
// passing them on: a full card, a failing box, a refused file.
type faultyBox struct {
	URL   string
	mu    sync.Mutex
	next  []scripted
	faked int
	sent  int // uploads that reached the proxy
}

type scripted struct {
	status int
	code   string
}

func newFaultyBox(t *testing.T, box *box) *faultyBox {
	t.Helper()
	target, err := url.Parse(box.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	f := &faultyBox{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// An upload starts at the one-request route, or at the resumable
		// route's creation (where the box answers its refusals first).
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/api/e/") &&
			(strings.HasSuffix(r.URL.Path, "/photos") || strings.HasSuffix(r.URL.Path, "/uploads")) {
			f.mu.Lock()
			f.sent++
			var s *scripted
			if len(f.next) > 0 {
				s = &f.next[0]
				f.next = f.next[1:]
				f.faked++
			}
			f.mu.Unlock()
			if s != nil {
				_, _ = io.Copy(io.Discard, r.Body)
				body, _ := json.Marshal(map[string]string{"error": s.code})
				w.Header().Set("Content-Type", "application/json; charset=utf-8")
				w.WriteHeader(s.status)
				_, _ = w.Write(body)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	f.URL = srv.URL
	return f
}

// script queues answers for the next uploads.
func (f *faultyBox) script(answers ...scripted) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.next = append(f.next, answers...)
}

// answered is how many uploads got a scripted answer so far.
func (f *faultyBox) answered() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faked
}

// posts is how many uploads reached the proxy, scripted or passed on.
func (f *faultyBox) posts() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent
}

// keptOnPhone counts the files the page keeps in IndexedDB.
func keptOnPhone(t *testing.T, b *browser) int {
	t.Helper()
	var n int
	b.eval(t, `new Promise((res) => { const r = indexedDB.open('eventbox-uploads', 1); r.onsuccess = () => { const q = r.result.transaction('items').objectStore('items').count(); q.onsuccess = () => { res(q.result); r.result.close(); }; }; })`, &n)
	return n
}

// TestGuestQueueServerFaults: a full card (507), a failing box (503) and
// a dropped connection keep the photo on the phone and retry it; it
// reaches the box once the box takes it.
func TestGuestQueueServerFaults(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	proxy := newFaultyBox(t, box)
	ev := createEvent(t, box.Store, "Full card", func(e *store.Event) { e.AskGuestName = false })
	photo := writeJPEG(t, "full.jpg", 640, 480)

	b.do(t, "opening the event link",
		chromedp.Navigate(proxy.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
	proxy.script(scripted{507, "insufficient_storage"}, scripted{503, "unavailable"})
	b.do(t, "taking a photo while the box's card is full",
		chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
	b.waitText(t, "#queue-list", "The box is out of space. Your photo is kept here; trying again in")
	b.shot(t, "guest-queue-box-full")
	if n := keptOnPhone(t, b); n != 1 {
		t.Fatalf("after a 507 the phone keeps %d files; want 1", n)
	}
	wake := `window.dispatchEvent(new Event('online'))`
	b.eval(t, wake, nil)
	b.waitText(t, "#queue-list", "The box could not take it just now. Trying again in")
	if n := keptOnPhone(t, b); n != 1 {
		t.Fatalf("after a 503 the phone keeps %d files; want 1", n)
	}
	b.block(t, "*://*:*/api/e/*/photos*", "*://*:*/api/e/*/uploads*")
	b.eval(t, wake, nil)
	b.waitText(t, "#queue-list", "Waiting for the Wi-Fi. Trying again in")
	if n := keptOnPhone(t, b); n != 1 {
		t.Fatalf("after a network error the phone keeps %d files; want 1", n)
	}
	b.block(t)
	b.eval(t, wake, nil)
	b.waitJS(t, "the kept photo is sent and shown", `document.querySelectorAll('#my-photos .tile').length === 1`)
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 1 {
		t.Fatalf("the box holds %d photos; want 1", n)
	}
	if n := proxy.answered(); n != 2 {
		t.Fatalf("%d scripted answers were given; want 2", n)
	}
	eventually(t, "the sent photo is forgotten by the phone", func() bool { return keptOnPhone(t, b) == 0 })
}

// TestGuestQueueRefusals: a file the box says is at fault (413, 415) is
// dropped with the reason; any other refusal (a 400) keeps it on the
// phone until the guest tries again.
func TestGuestQueueRefusals(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	proxy := newFaultyBox(t, box)
	ev := createEvent(t, box.Store, "Refusals", func(e *store.Event) { e.AskGuestName = false })
	photo := writeJPEG(t, "refused.jpg", 640, 480)
	b.do(t, "opening the event link",
		chromedp.Navigate(proxy.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))

	for _, tt := range []struct {
		answer scripted
		text   string
	}{
		{scripted{413, "too_large"}, "Not sent: the file is too large"},
		{scripted{415, "invalid_image"}, "Not sent: the box cannot read this photo"},
	} {
		proxy.script(tt.answer)
		b.do(t, "taking a photo the box refuses with "+tt.answer.code,
			chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
		b.waitText(t, "#queue-list", tt.text)
		eventually(t, "the refused file is dropped from the phone", func() bool { return keptOnPhone(t, b) == 0 })
	}

	proxy.script(scripted{400, "bad_request"})
	b.do(t, "taking a photo the box answers 400",
		chromedp.SetUploadFiles(chromedp.CSS(`#take-photo input[type=file]`), []string{photo}))
	b.waitText(t, "#queue-list", "Not sent. It stays on this phone: try again or remove it.")
	b.shot(t, "guest-queue-held")
	if n := keptOnPhone(t, b); n != 1 {
		t.Fatalf("after a 400 the phone keeps %d files; want 1", n)
	}
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 0 {
		t.Fatalf("the box holds %d photos; want 0", n)
	}
	b.do(t, "trying the held photo again",
		click(`#queue-list li[data-state=held] button:not([aria-label])`))
	b.waitJS(t, "the held photo is sent and shown", `document.querySelectorAll('#my-photos .tile').length === 1`)
	if n := len(eventPhotos(t, box.Store, ev.ID)); n != 1 {
		t.Fatalf("the box holds %d photos; want 1", n)
	}
}

// TestGuestQueueSurvivesBoxRestart: the box is killed while the phone is
// sending a selection and started again on the same data: the page says
// "4 of 6 sent"-style progress and that it waits for the Wi-Fi, offers
// "retry now", and once the box is back every photo arrives exactly once.
func TestGuestQueueSurvivesBoxRestart(t *testing.T) {
	t.Parallel()
	r := &restartableBox{dir: t.TempDir()}
	r.start(t)
	t.Cleanup(func() { r.kill(t) })
	ev := createEvent(t, r.Store, "Power cut", func(e *store.Event) { e.AskGuestName = false })
	const n = 4
	var files []string
	for i := range n {
		files = append(files, writeNoiseJPEG(t, fmt.Sprintf("cut-%d.jpg", i), 400, 400, uint64(i+1)))
	}
	b := newBrowser(t)
	b.do(t, "opening the event link",
		chromedp.Navigate(r.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#pick-photos`)))
	// A slow hotspot: about a second for each photo.
	b.throttle(t, 150_000)
	b.do(t, "choosing the photos", chromedp.SetUploadFiles(chromedp.CSS(`#pick-photos input[type=file]`), files))
	st := r.Store
	eventually(t, "the first photo reaches the box", func() bool { return len(eventPhotos(t, st, ev.ID)) >= 1 })
	r.kill(t)
	b.waitText(t, "#queue-overall", "Waiting for the Wi-Fi: the rest goes up by itself once the box answers.")
	b.waitJS(t, "the overall line counts what was sent", `/^\d of 4 sent/.test(document.querySelector('#queue-overall').textContent)`)
	b.shot(t, "guest-queue-box-away")
	if kept := keptOnPhone(t, b); kept == 0 || kept == n {
		t.Fatalf("the phone keeps %d files after the box went away mid-queue; want some but not all of %d", kept, n)
	}
	b.throttle(t, -1)
	r.start(t)
	b.do(t, "tapping retry now", click(`#queue-retry`))
	b.waitText(t, "#queue-done", "Thank you!")
	b.waitJS(t, "all photos show once", fmt.Sprintf(`document.querySelectorAll('#my-photos .tile').length === %d`, n))
	photos := eventPhotos(t, r.Store, ev.ID)
	if len(photos) != n {
		t.Fatalf("the box holds %d photos after the restart; want %d, no duplicate", len(photos), n)
	}
	eventually(t, "the phone forgets the sent photos", func() bool { return keptOnPhone(t, b) == 0 })
}
