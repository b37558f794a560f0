package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"
	"golang.org/x/net/webdav"

	"eventbox/store"
)

// TestConsoleCloud sets the cloud export up on the Cloud screen (a wrong
// password shows the server's words, the saved password never comes back),
// then ends an event with automatic export: the End card says an export is
// queued and follows it to the end, and the event's history shows it done.
func TestConsoleCloud(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(t.TempDir()), LockSystem: webdav.NewMemLS()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "ana" || p != "dav-secret" {
			w.Header().Set("WWW-Authenticate", `Basic realm="dav"`)
			http.Error(w, "Username or password was incorrect", http.StatusUnauthorized)
			return
		}
		dav.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ev := createEvent(t, box.Store, "Anna & Marco", func(e *store.Event) { e.AskGuestName = false })
	guestUploads(t, box, ev, "Lucia", 2)
	b := newBrowser(t)
	b.signIn(t, box.URL)
	run := func(name string, f func(t *testing.T)) {
		if !t.Run(name, f) {
			t.FailNow()
		}
	}
	yes := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](`(window.confirm = () => true, true)`)(ctx, tg)
		return err
	})

	run("a wrong password shows the server's own words", func(t *testing.T) {
		b.do(t, "testing a wrong password",
			chromedp.Navigate(box.URL+"/admin/settings/cloud"),
			fill(`input[name=url]`, srv.URL+"/dav/"),
			fill(`input[name=user]`, "ana"),
			fill(`input[name=password]`, "wrong"),
			click(`#cloud-test`))
		b.waitText(t, "#cloud-test-answer .banner.bad", "Username or password was incorrect")
		b.shot(t, "admin-cloud-test")
	})

	run("the settings are saved and the password never comes back", func(t *testing.T) {
		b.do(t, "saving the settings",
			fill(`input[name=password]`, "dav-secret"),
			click(`input[name=autoExport]`),
			click(`#cloud-test`))
		b.waitText(t, "#cloud-test-answer .banner.good", "The cloud answered")
		b.do(t, "saving", click(`form button[type=submit]`))
		b.waitJS(t, "the form drawn again with the password unchanged",
			`(() => { const p = document.querySelector('input[name=password]'); return p && p.value === '' && p.placeholder === 'Unchanged'; })()`)
		c, ok, err := box.Store.Cloud().Settings(context.Background())
		if err != nil || !ok || c.Password != "dav-secret" || !c.AutoExport {
			t.Fatalf("stored settings: %+v %v %v", c, ok, err)
		}
	})

	run("ending the event queues an export and shows its progress", func(t *testing.T) {
		b.do(t, "ending the event",
			chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"),
			chromedp.WaitVisible(chromedp.CSS(`main .card:nth-of-type(3) button.danger`)),
			yes,
			click(`main .card:nth-of-type(3) button.danger`))
		b.waitText(t, "main .card:nth-of-type(3) .banner", "Cloud export queued.")
		b.waitJS(t, "the export's progress reaches the end", `!!document.querySelector('.end-export .export[data-status=done] progress')`)
		b.waitText(t, ".end-export .export", "3 of 3 files")
		b.waitJS(t, "the event's export panel lists it too", `!!document.querySelector('[data-export-panel] table .export')`)
		b.shot(t, "admin-end-export")
	})

	run("the event's history lists the export, done", func(t *testing.T) {
		b.do(t, "opening the finish tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/finish"))
		b.waitJS(t, "a finished export in the history", `!!document.querySelector('table .export[data-status=done]')`)
		b.shot(t, "admin-cloud-history")
	})
}
