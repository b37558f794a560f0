package e2e

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestSignsInTwoLanguages: for a mixed party the Share tab's sign menu
// offers the console's language with each other one ("Français +
// English"); picked, every sign's link asks for both (lang=fr,en) and the
// poster prints each fixed text in both. In English, French, Italian
// (it,en) and Spanish (es,fr) at phone, laptop and venue sizes (the quick
// cases: en and fr at laptop size); with -shots the A4 poster and the A6
// table cards of each pair are drawn as PNG pages too.
func TestSignsInTwoLanguages(t *testing.T) {
	t.Parallel()
	box := startBox(t)
	ev := partyEvent(t, box.Store, "Anna & Marco", func(e *store.Event) {
		e.DefaultLocale = ""
		e.AccessCode = "ROSE42"
	})
	admin := newClient(t, box.URL)
	admin.signIn(t)
	sizes := screenSizes()
	for _, c := range []struct{ lang, other, pair, label, first, second string }{
		{"en", "fr", "en,fr", "English + Français", "Scan to share your photos", "Scannez pour partager vos photos"},
		{"fr", "en", "fr,en", "Français + English", "Scannez pour partager vos photos", "Scan to share your photos"},
		{"it", "en", "it,en", "Italiano + English", "Inquadra per condividere le foto", "Scan to share your photos"},
		{"es", "fr", "es,fr", "Español + Français", "Escanea para compartir tus fotos", "Scannez pour partager vos photos"},
	} {
		for _, sz := range sizes {
			name := c.lang + "-" + sz.name
			t.Run(name, func(t *testing.T) {
				if !swept(name, "en-laptop", "fr-laptop") {
					t.Skip("a sweep case: -sweep runs it")
				}
				b := newBrowserAt(t, c.lang, sz.w, sz.h)
				b.signIn(t, box.URL)
				b.do(t, "opening the Share tab", chromedp.Navigate(box.URL+"/admin/events/"+ev.ID+"/share"))
				b.settle(t, "#signage a[download]")
				var label string
				b.eval(t, `(document.querySelector('#sign-lang option[value="`+c.pair+`"]') || {}).textContent || ''`, &label)
				if label != c.label {
					t.Fatalf("the sign menu's %s option reads %q, want %q", c.pair, label, c.label)
				}
				b.do(t, "picking both languages", choose(`#sign-lang`, c.pair))
				var hrefs []string
				b.eval(t, `[...document.querySelectorAll('#signage a[download]')].map((a) => a.getAttribute('href'))`, &hrefs)
				for _, h := range hrefs {
					u, err := url.Parse(h)
					if err != nil || u.Query().Get("lang") != c.pair {
						t.Errorf("the sign link %s does not ask for lang=%s", h, c.pair)
					}
				}
				b.do(t, "scrolling to the signs", chromedp.ScrollIntoView(chromedp.CSS(`#signage`)))
				b.shotScreen(t, "signs-two-langs-"+name)
				if sz.name != "laptop" {
					return
				}
				for _, h := range hrefs {
					if strings.Contains(h, "kind=table") && strings.Contains(h, "size=a6") {
						pdfShot(t, admin, h, "signs-two-langs-"+strings.Replace(c.pair, ",", "-", 1)+"-table-a6")
					}
					if !strings.Contains(h, "kind=poster") || !strings.Contains(h, "size=a4") {
						continue
					}
					pdfShot(t, admin, h, "signs-two-langs-"+strings.Replace(c.pair, ",", "-", 1)+"-poster-a4")
					txt := strings.Join(strings.Fields(strings.Join(pdfText(t, admin, h), " ")), " ")
					for _, s := range []string{c.first, c.second} {
						if !strings.Contains(txt, s) {
							t.Errorf("the A4 poster in %s lacks %q; it says %q", c.pair, s, txt)
						}
					}
				}
			})
		}
	}
}

// pdfShot draws the first page of the PDF at path as DIR/name.png when
// -shots is set, to look at a printed sign.
func pdfShot(t *testing.T, c *client, path, name string) {
	t.Helper()
	if *shotDir == "" {
		return
	}
	testtool.Need(t, "pdftoppm")
	// With a Wi-Fi step, as at a party without the box's own hotspot.
	path += "&ssid=Anna%20%26%20Marco&wifiPassword=celebrate2026"
	res, err := c.http.Get(c.base + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d, %v", path, res.StatusCode, err)
	}
	in := filepath.Join(t.TempDir(), "sign.pdf")
	if err := os.WriteFile(in, body, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "pdftoppm", "-png", "-r", "90", "-singlefile", in, filepath.Join(*shotDir, name)).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v: %s", err, out)
	}
}
