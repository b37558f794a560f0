package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestGuestbook has a guest leave a written message with a voice note
// (Chromium's fake microphone), then a host hides it in the console.
func TestGuestbook(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AskGuestName = false })
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}

	run("a guest sends a message with a voice note", func(t *testing.T) {
		b.do(t, "opening the guestbook",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#tab-guestbook`)),
			click(`#tab-guestbook`),
			chromedp.WaitVisible(chromedp.CSS(`#gb-text`)),
			chromedp.SendKeys(chromedp.CSS(`#gb-text`), "Congratulations to you both!"),
			click(`#gb-record`))
		b.waitText(t, "#panel", "Recording…")
		b.do(t, "recording for two seconds", chromedp.Sleep(2200*time.Millisecond))
		b.shot(t, "guest-guestbook-recording")
		b.do(t, "stopping and sending",
			click(`#panel form button.primary[type=button]`),
			chromedp.WaitVisible(chromedp.CSS(`#panel form audio`)),
			click(`#panel form button[type=submit]`))
		b.waitText(t, "#gb-mine", "Congratulations to you both!")
		b.waitJS(t, "the voice note is listed", `!!document.querySelector('#gb-mine audio')`)
		b.shot(t, "guest-guestbook")
	})

	run("the host sees it in the console and hides it", func(t *testing.T) {
		admin := newClient(t, box.URL)
		admin.signIn(t)
		var list struct {
			Messages []struct {
				Text     string   `json:"text"`
				HasAudio bool     `json:"hasAudio"`
				Seconds  *float64 `json:"seconds"`
			} `json:"messages"`
		}
		if st := admin.json(t, "GET", "/api/admin/events/"+ev.ID+"/messages", nil, &list); st != http.StatusOK {
			t.Fatalf("listing messages: status %d", st)
		}
		if len(list.Messages) != 1 || !list.Messages[0].HasAudio || list.Messages[0].Text != "Congratulations to you both!" {
			t.Fatalf("messages = %+v; want the one text with audio", list.Messages)
		}
		b.signIn(t, box.URL)
		b.do(t, "opening the guestbook tab",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/guestbook"),
			chromedp.WaitVisible(chromedp.CSS(`#messages .msg input[type=checkbox]`)),
			click(`#messages .msg input[type=checkbox]`),
			chromedp.WaitVisible(chromedp.CSS(`.actionbar`)))
		b.shot(t, "admin-guestbook")
		b.do(t, "hiding it", click(`.actionbar button:nth-of-type(2)`))
		// The pill says "hidden" in the console's language: its state is
		// the data attribute, whatever the words.
		b.waitJS(t, "the message shown hidden", `!!document.querySelector('#messages .msg [data-status=hidden]')`)
	})
}
