package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/daemon/mail/mailtest"
	"eventbox/daemon/outbox"
	"eventbox/store"
)

// TestConsoleMail walks a party run offline: a guest leaves an address,
// the host sets mail up from the console and sends a test, the event ends
// while the mail server cannot be reached, the guest page shows the
// gallery link with its mail waiting, and once the server is back the
// host retries and sees the queue drain; every mail arrives once.
func TestConsoleMail(t *testing.T) {
	t.Parallel()
	// The box wakes its outbox once the network has settled after its
	// start (and at every change): a wake after the server is back would
	// send the waiting mails before the host's Retry that this test is
	// about. Here the network never changes and settles after the test.
	// The box is published at a public BASE_URL: the guests' gallery mail
	// carries the box's own link and can go at once (a box known only on
	// its Wi-Fi keeps it back for the cloud export).
	box := startBox(t, func(c *daemon.Config) {
		c.NetChanges = outbox.NoChanges
		c.NetSettle = time.Hour
		c.BaseURL = "https://photos.party-box.example.org"
	})
	sink := mailtest.Start(t, mailtest.None)
	ev := createEvent(t, box.Store, "Garden party", func(e *store.Event) {
		e.AskGuestName = false
		e.CollectGuestEmails = true
	})
	b := newBrowser(t)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	yes := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)(ctx, tg)
		return err
	})

	run("a guest leaves an address", func(t *testing.T) {
		b.do(t, "opening the guest page",
			chromedp.Navigate(box.URL+"/e/"+ev.Slug),
			fill(`#contact-email`, "lucia@guest.example"),
			click(`#contact button[type=submit]`))
		b.waitText(t, "#contact", "lucia@guest.example")
	})

	b.signIn(t, box.URL)
	run("the host sets mail up and the test goes", func(t *testing.T) {
		b.do(t, "filling the mail settings",
			chromedp.Navigate(box.URL+"/admin/settings/mail"),
			fill(`#mail-form [name="smtp.host"]`, sink.Host),
			fill(`#mail-form [name="smtp.port"]`, fmt.Sprint(sink.Port)),
			fill(`#mail-form [name="smtp.from"]`, "Garden party <box@party.example>"),
			choose(`#mail-form [name="smtp.security"]`, "none"),
			fill(`#mail-form [name="adminEmail"]`, "hosts@party.example"),
			click(`#mail-form button[type=submit]`))
		b.waitJS(t, "the saved settings are shown", `(() => { const i = document.querySelector('#mail-form [name="smtp.host"]'); return i && i.value === '127.0.0.1' && !document.querySelector('#mail-form .banner'); })()`)
		b.do(t, "sending a test", click(`#mail-test`))
		b.waitText(t, ".toasts", "Test mail sent to hosts@party.example")
		sink.Wait(t, 1, stepTimeout)
		b.shot(t, "admin-mail")
	})

	sink.SetOffline(true)
	run("a test while the server is away shows why", func(t *testing.T) {
		b.do(t, "sending a test", click(`#mail-test`))
		b.waitText(t, "main .card:nth-of-type(2) .form-err", "127.0.0.1")
	})
	run("ending the event says what was queued", func(t *testing.T) {
		b.do(t, "ending the event",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"),
			chromedp.WaitVisible(chromedp.CSS(`main .card:nth-of-type(3) button.danger`)),
			yes,
			click(`main .card:nth-of-type(3) button.danger`))
		b.waitText(t, "#end-result", "1 guest email queued. Summary queued.")
		b.waitText(t, "#contacts", "lucia@guest.example")
		b.waitText(t, "#contact-mails", "0 of 1 sent, 1 waiting")
		b.shot(t, "admin-end-mails")
	})
	run("the guest page shows the link and the waiting mail", func(t *testing.T) {
		b.do(t, "opening the guest page", chromedp.Navigate(box.URL+"/e/"+ev.Slug))
		b.waitJS(t, "the gallery card", `!!document.querySelector('#gallery-ready [data-mail=pending]') && document.querySelector('#gallery-ready a').href.includes('/g/')`)
		b.shot(t, "guest-gallery-pending")
	})
	sink.SetOffline(false)
	run("back online, retry drains the queue", func(t *testing.T) {
		b.do(t, "retrying",
			chromedp.Navigate(box.URL+"/admin/settings/mail"),
			chromedp.WaitVisible(chromedp.CSS(`#mail-retry`)),
			click(`#mail-retry`))
		b.waitJS(t, "every mail is sent", `(() => { const l = [...document.querySelectorAll('#mail-queue li')]; return l.length === 2 && l.every((x) => x.dataset.status === 'sent'); })()`)
		b.waitText(t, "#mail-counts", "0 waiting, 0 failed.")
	})
	run("the guest page says the mail went", func(t *testing.T) {
		b.do(t, "opening the guest page", chromedp.Navigate(box.URL+"/e/"+ev.Slug))
		b.waitJS(t, "the mail is sent", `!!document.querySelector('#gallery-ready [data-mail=sent]')`)
	})
	got := sink.Received()
	ids := map[string]int{}
	for _, rc := range got {
		ids[rc.MessageID()]++
	}
	if len(got) != 3 || len(ids) != 3 {
		t.Fatalf("%d mails with %d Message-IDs arrived, want the test, the gallery mail and the summary once each", len(got), len(ids))
	}
}
