package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestConsoleFinish gives an event a logo, turns its booth on, then ends
// it: the console shows the gallery link made for the guests, and the
// guest page says the event is over but still shows the photos.
func TestConsoleFinish(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	admin := newClient(t, box.URL)
	admin.signIn(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AskGuestName = false })
	guestUploads(t, box, ev, "Lucia", 1)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	// The console asks before it ends an event or replaces a link; say yes.
	yes := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)(ctx, tg)
		return err
	})

	run("a logo is added and shown to guests", func(t *testing.T) {
		b.do(t, "adding a logo",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"),
			chromedp.WaitVisible(chromedp.CSS(`form.event-form`)),
			chromedp.SetUploadFiles(chromedp.CSS(`#tab input[type=file]`), []string{writeJPEG(t, "logo.jpg", 300, 120)}))
		b.waitJS(t, "the logo shows in the console", `(() => { const i = document.querySelector('#tab img[alt=Logo]'); return i && i.complete && i.naturalWidth > 0; })()`)
		b.do(t, "opening the guest page",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#take-photo`)))
		b.waitJS(t, "the logo shows to guests", `(() => { const i = document.querySelector('.hero img.logo'); return i && i.complete && i.naturalWidth > 0; })()`)
		b.shot(t, "guest-logo")
	})

	run("the booth is turned on and its link shown once", func(t *testing.T) {
		b.do(t, "turning the booth on",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"),
			chromedp.WaitVisible(chromedp.CSS(`#guest-url`)),
			yes,
			click(`#booth button.primary`))
		b.waitText(t, "#booth .banner", "?booth=")
		b.waitText(t, "#booth", "Booth on")
		b.waitJS(t, "the booth link's QR code shows", `(() => { const i = document.querySelector('#booth img.booth-qr'); return !!i && i.complete && i.naturalWidth > 0; })()`)
	})

	run("ending the event shows the gallery link it made", func(t *testing.T) {
		b.do(t, "ending the event",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"),
			chromedp.WaitVisible(chromedp.CSS(`main .card:nth-of-type(3) button.danger`)),
			yes,
			click(`main .card:nth-of-type(3) button.danger`))
		b.waitText(t, "main .card:nth-of-type(3) .banner", "The event has ended.")
		b.waitText(t, "main .card:nth-of-type(3) .banner", "/g/")
		b.waitText(t, "#event-head", "Ended")
		b.shot(t, "admin-finish")
		e, err := box.Store.Events().Get(context.Background(), ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		if e.EndedAt == 0 {
			t.Error("the stored event has no end time")
		}
	})

	run("the guest page says the event is over", func(t *testing.T) {
		b.do(t, "opening the guest page",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			chromedp.WaitVisible(chromedp.CSS(`#capture .banner`)))
		b.waitText(t, "#capture", "This event has ended.")
		b.do(t, "looking at everyone's photos",
			click(`#tab-all`),
			chromedp.WaitVisible(chromedp.CSS(`#all-photos .tile`)))
		b.shot(t, "guest-ended")
	})
}

// TestConsoleNewLinkAndCopy replaces an event's guest link, then
// duplicates its settings into a new event.
func TestConsoleNewLinkAndCopy(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AccentColor = "#b03a5b" })
	b := newBrowser(t)
	b.signIn(t, box.URL)
	// Answer the console's questions: yes, and the copy's name.
	answers := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, window.prompt = () => 'Anna & Marco, the party', true)`)(ctx, tg)
		return err
	})
	b.do(t, "making a new guest link",
		chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/settings"),
		chromedp.WaitVisible(chromedp.CSS(`form.event-form`)),
		answers,
		click(`main .card:last-child button:first-child`))
	var rotated store.Event
	eventually(t, "the slug changes", func() bool {
		e, err := box.Store.Events().Get(context.Background(), ev.ID)
		if err != nil {
			t.Fatal(err)
		}
		rotated = e
		return e.Slug != ev.Slug
	})
	b.waitText(t, "#event-head", "/e/"+rotated.Slug)

	b.do(t, "duplicating the settings", click(`main .card:last-child button:nth-child(2)`))
	b.waitText(t, "#event-head h1", "Anna & Marco, the party")
	events, err := box.Store.Events().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("%d events; want the original and its copy", len(events))
	}
	for _, e := range events {
		if e.AccentColor != "#b03a5b" {
			t.Errorf("event %q has accent %q; want the copied #b03a5b", e.Name, e.AccentColor)
		}
	}
}
