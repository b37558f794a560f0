package e2e

import (
	"encoding/base64"
	"fmt"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestVoiceNoteFromTheBrowserShowsItsLength: a voice note as a browser's
// MediaRecorder writes it (WebM streamed to a pipe, with no Duration, so
// that the browser reads its length as Infinity) shows the length the box
// measured, on the guest page and in the console, not 0:00.
func TestVoiceNoteFromTheBrowserShowsItsLength(t *testing.T) {
	t.Parallel()
	testtool.Need(t, "ffmpeg", "ffmpeg")
	webm, err := exec.Command("ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=3.4",
		"-c:a", "libopus", "-b:a", "12k", "-ac", "1", "-f", "webm", "pipe:1").Output()
	if err != nil {
		t.Fatalf("making a streamed WebM: %v", err)
	}
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AskGuestName = false })
	b.do(t, "opening the guestbook",
		chromedp.Navigate(box.URL+"/e/"+ev.Slug),
		chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)),
		click(`#tab-guestbook`),
		chromedp.WaitVisible(chromedp.CSS(`#gb-text`)))
	// The page's recorder sends the clock's seconds with the blob; send
	// the same from the page, with the recorder's file.
	var status int
	b.eval(t, fmt.Sprintf(`(async () => {
		const bytes = Uint8Array.from(atob(%q), (c) => c.charCodeAt(0));
		const fd = new FormData();
		fd.append('text', 'Hello!');
		fd.append('seconds', '3');
		fd.append('audio', new Blob([bytes], { type: 'audio/webm;codecs=opus' }), 'voice.webm');
		const res = await fetch('/api/e/%s/messages', { method: 'POST', body: fd });
		return res.status;
	})()`, base64.StdEncoding.EncodeToString(webm), ev.Slug), &status)
	if status != 201 && status != 200 {
		t.Fatalf("posting the voice note: status %d", status)
	}
	b.do(t, "showing the guest's own messages again",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)),
		click(`#tab-guestbook`))
	b.waitText(t, "#gb-mine", "Hello!")
	b.waitJS(t, "the guest page shows the note's length", `document.querySelector('#gb-mine .voice-time')?.textContent === '0:03'`)
	b.shot(t, "guest-voice-note")

	b.signIn(t, box.URL)
	b.do(t, "opening the console's guestbook",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/guestbook"),
		chromedp.WaitVisible(chromedp.CSS(`#messages .msg`)))
	b.waitJS(t, "the console shows the note's length", `document.querySelector('#messages .voice-time')?.textContent === '0:03'`)
	b.shot(t, "admin-voice-note")
}
