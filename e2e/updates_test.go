package e2e

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/daemon/update"
)

// TestConsoleUpdates checks for a release from Settings → Updates,
// installs it (the box has no backup service: the console asks to go on
// without one), follows the download, and shows the result: on a box that
// cannot restart itself, installed for the next start.
func TestConsoleUpdates(t *testing.T) {
	t.Parallel()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	binary := []byte("#!/bin/sh\necho eventbox 1.1.0\n")
	sum := sha256.Sum256(binary)
	raw, _ := json.Marshal(update.Manifest{Version: "1.1.0", Binaries: map[string]update.Binary{
		update.Arch(): {URL: "eventbox-new", Size: int64(len(binary)), SHA256: hex.EncodeToString(sum[:])},
	}})
	manifest, err := update.Sign(key, raw)
	if err != nil {
		t.Fatal(err)
	}
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/release.json":
			w.Write(manifest)
		case "/eventbox-new":
			w.Write(binary)
		default:
			http.NotFound(w, r)
		}
	}))
	defer host.Close()
	box := startBox(t, func(c *daemon.Config) {
		c.UpdateURL = host.URL + "/release.json"
		c.UpdateKey = key.Public().(ed25519.PublicKey)
		c.Version = "1.0.0"
	})
	b := newBrowser(t)
	b.signIn(t, box.URL)
	clickButton := func(label string) string {
		return `(() => { const x = [...document.querySelectorAll('main button')].find((e) => e.textContent === ` +
			jsString(label) + ` && !e.disabled); if (x) x.click(); return !!x; })()`
	}
	b.do(t, "opening the updates", chromedp.Navigate(box.URL+"/admin/settings/updates"))
	b.waitText(t, "main", "Running 1.0.0.")
	b.waitJS(t, "checking", clickButton("Check now"))
	b.waitText(t, "main", "Newest release: 1.1.0")
	b.shot(t, "admin-updates")
	// Answer yes to both questions: install, and without a backup.
	b.eval(t, `window.confirm = () => true`, nil)
	b.waitJS(t, "installing", clickButton("Install 1.1.0"))
	b.waitText(t, "main", "1.1.0 is installed: it runs from the next start")
	b.waitText(t, "main table", "installed, waiting for the restart")
	var offered bool
	b.eval(t, `[...document.querySelectorAll('main button')].some((e) => e.textContent.startsWith('Install'))`, &offered)
	if offered {
		t.Error("the installed update is offered again")
	}
	b.shot(t, "admin-updates-installed")
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestUpdatesScreenExplainsItself opens Settings → Updates on a box with no
// update address, on a phone in English, French and Italian: the screen
// says in words how a new version reaches the box (not only that a
// setting is missing), and what each state of an update means.
func TestUpdatesScreenExplainsItself(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	for _, tc := range []struct{ lang, how, states string }{
		{"en-GB", "A new version reaches the box in one of two ways", "What the states mean"},
		{"fr-FR", "Une nouvelle version arrive sur la boîte de deux façons", "Ce que veulent dire les états"},
		{"it-IT", "Una nuova versione arriva sul box in due modi", "Cosa vogliono dire gli stati"},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			b := newBrowserAt(t, tc.lang, 360, 740)
			b.signIn(t, box.URL)
			b.do(t, "opening the updates", chromedp.Navigate(box.URL+"/admin/settings/updates"))
			b.waitText(t, "#updates-help", tc.how)
			b.waitText(t, "#updates-help", "UPDATE_URL")
			b.waitText(t, "#update-states summary", tc.states)
			var meanings int
			b.eval(t, `(document.querySelector('#update-states').open = true, document.querySelectorAll('#update-states dd').length)`, &meanings)
			if meanings != 5 {
				t.Errorf("%d states explained; want the 5 an update goes through", meanings)
			}
			b.shot(t, "updates-no-source-"+tc.lang[:2])
		})
	}
}
