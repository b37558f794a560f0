package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// addMessages stores a pending and a visible guestbook message of ev.
func addMessages(t *testing.T, st *store.Store, ev store.Event) (pending, visible store.Message) {
	t.Helper()
	var err error
	pending, err = st.Messages().Add(context.Background(), store.Message{ID: store.NewID(), EventID: ev.ID,
		GuestName: "Lucia", Text: "So happy for you!", Status: "pending"})
	if err != nil {
		t.Fatal(err)
	}
	visible, err = st.Messages().Add(context.Background(), store.Message{ID: store.NewID(), EventID: ev.ID,
		GuestName: "Marc", Text: "What a party.", Status: "visible"})
	if err != nil {
		t.Fatal(err)
	}
	return pending, visible
}

// TestGuestbookApproveAndHideEachMessage: on a phone, each message in the
// console's guestbook has its own Approve (unless visible) and Hide
// (unless hidden), without ticking it first.
func TestGuestbookApproveAndHideEachMessage(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", nil)
	pending, visible := addMessages(t, box.Store, ev)
	status := func(id string) string {
		t.Helper()
		m, err := box.Store.Messages().Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		return m.Status
	}
	row := func(m store.Message) string { return `#messages .msg[data-id="` + m.ID + `"]` }
	b.signIn(t, box.URL)
	b.do(t, "opening the console's guestbook",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/guestbook"),
		chromedp.WaitVisible(chromedp.CSS(row(pending)+` button[data-action=approve]`)))
	b.waitJS(t, "a visible message has no Approve",
		`!document.querySelector('`+row(visible)+` button[data-action=approve]')`)
	b.do(t, "approving the pending one", click(row(pending)+` button[data-action=approve]`))
	b.waitJS(t, "it is approved", `!document.querySelector('`+row(pending)+` button[data-action=approve]') && !!document.querySelector('`+row(pending)+` button[data-action=hide]')`)
	if s := status(pending.ID); s != "visible" {
		t.Fatalf("after Approve the message is %s", s)
	}
	b.do(t, "hiding the other", click(row(visible)+` button[data-action=hide]`))
	b.waitJS(t, "it is hidden", `!document.querySelector('`+row(visible)+` button[data-action=hide]') && !!document.querySelector('`+row(visible)+` button[data-action=approve]')`)
	if s := status(visible.ID); s != "hidden" {
		t.Fatalf("after Hide the message is %s", s)
	}
	b.axeCheck(t, "console guestbook")
}
