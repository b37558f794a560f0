package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/store"
)

// TestConsoleWebhooks walks the owner through the Webhooks screen: add a
// webhook, test it (the receiver's refusal shown as it said it), turn it
// off and on, and see a delivery listed as sent.
func TestConsoleWebhooks(t *testing.T) {
	t.Parallel()
	b := newBrowser(t)
	box := startBox(t)
	var status atomic.Int32
	status.Store(http.StatusOK)
	var got atomic.Int32
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Add(1)
		w.WriteHeader(int(status.Load()))
		fmt.Fprint(w, "receiver is ", status.Load())
	}))
	t.Cleanup(rc.Close)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	b.signIn(t, box.URL)
	b.do(t, "opening the webhooks",
		chromedp.Navigate(box.URL+"/admin/settings/webhooks"))
	b.waitText(t, ".card", "No webhook yet.")

	run("the owner adds a webhook", func(t *testing.T) {
		b.do(t, "filling the new webhook",
			click(`details.section summary`),
			fill(`details.section input[name=name]`, "My server"),
			choose(`details.section select[name=type]`, "json"),
			fill(`details.section input[name=url]`, rc.URL+"/hook/secret-token"),
			fill(`details.section input[name=secret]`, "a-signing-secret"),
			click(`details.section button[type=submit]`))
		b.waitText(t, "li[data-webhook]", "My server")
		if txt := b.text(t, "li[data-webhook] .small.muted"); txt == "" || strings.Contains(txt, "secret-token") {
			t.Fatalf("the list shows %q; want the address without its path", txt)
		}
	})
	run("a test shows the receiver's answer", func(t *testing.T) {
		b.do(t, "sending a test", click(`li[data-webhook] button.test`))
		b.waitText(t, "li[data-webhook] [role=status]", "The receiver took the test.")
		status.Store(http.StatusInternalServerError)
		b.do(t, "sending a test to a failing receiver", click(`li[data-webhook] button.test`))
		b.waitText(t, "li[data-webhook] [role=status]", "the receiver answered 500: receiver is 500")
		b.shot(t, "admin-webhooks-test-failed")
		status.Store(http.StatusOK)
	})
	run("the owner turns the webhook off and on", func(t *testing.T) {
		b.do(t, "disabling", click(`li[data-webhook] button.toggle`))
		b.waitText(t, "li[data-webhook] .spread", "off")
		hooks, err := box.Store.Webhooks().List(context.Background())
		if err != nil || len(hooks) != 1 || hooks[0].Enabled {
			t.Fatalf("stored webhooks %+v %v", hooks, err)
		}
		b.do(t, "enabling", click(`li[data-webhook] button.toggle`))
		b.waitText(t, "li[data-webhook] .pill.good", "on")
	})
	run("an ended event's delivery is listed as sent", func(t *testing.T) {
		c := newClient(t, box.URL)
		c.signIn(t)
		var created struct{ Event struct{ ID string } }
		if st := c.json(t, "POST", "/api/admin/events", map[string]any{"name": "Garden party"}, &created); st != http.StatusCreated {
			t.Fatalf("creating the event: %d", st)
		}
		if st := c.json(t, "POST", "/api/admin/events/"+created.Event.ID+"/end", nil, nil); st != http.StatusOK {
			t.Fatalf("ending the event: %d", st)
		}
		// Two tests and the delivery; then the box records it.
		eventually(t, "the receiver gets the delivery", func() bool { return got.Load() >= 3 })
		eventually(t, "the delivery is recorded as sent", func() bool {
			page, err := box.Store.Jobs().List(context.Background(), store.JobFilter{Kind: "webhook", Status: store.JobDone})
			return err == nil && len(page.Jobs) == 1
		})
		b.do(t, "refreshing the deliveries", click(`.card button.small:not(.test):not(.toggle):not(.danger)`))
		b.waitText(t, `table.deliveries tr[data-status=sent]`, "Event ended")
		b.shot(t, "admin-webhooks")
	})
}
