package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
)

// TestPrintingWithoutCUPS: on a machine whose print server does not
// answer, the Printing screen says so in one sentence, what is missing and
// what to do, as the Network screen does without NetworkManager, with a
// button to try again: no stack of banners, no form for printers that
// cannot be listed, no red line repeated. In English, French, Italian and
// Spanish at phone, laptop and venue sizes (the quick cases: en and fr at
// laptop size). Each language has a box of its own: a dozen sign-ins from
// one address would meet the sign-in limit.
func TestPrintingWithoutCUPS(t *testing.T) {
	t.Parallel()
	sizes := screenSizes()
	for _, lang := range []string{"en", "fr", "it", "es"} {
		if !swept(lang+"-laptop", "en-laptop", "fr-laptop") {
			continue
		}
		bx := startBox(t, func(c *daemon.Config) { c.CUPS = filepath.Join(t.TempDir(), "no-cups.sock") })
		con := catalogue(t, lang, "console")
		sentence := con["Printing needs the CUPS print server, which does not answer on this machine: install and start CUPS (the cups package), then retry."]
		for _, sz := range sizes {
			name := lang + "-" + sz.name
			t.Run(name, func(t *testing.T) {
				if !swept(name, "en-laptop", "fr-laptop") {
					t.Skip("a sweep case: -sweep runs it")
				}
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, bx.URL)
				b.do(t, "opening the Printing screen", chromedp.Navigate(bx.URL+"/admin/settings/printing"))
				b.settle(t, "#printing-unavailable")
				b.waitText(t, "#printing-unavailable", sentence)
				var got struct {
					Banners, Forms, Sentences int
					Retry                     string
				}
				b.eval(t, `(() => {
					const main = document.querySelector('main') || document.body;
					return {
						banners: [...main.querySelectorAll('.banner')].filter((e) => e.getClientRects().length).length,
						forms: main.querySelectorAll('#printing-form, #printer-devices').length,
						sentences: main.innerText.split(`+jsString(strings.Fields(sentence)[0]+" ")+`).length - 1,
						retry: (document.getElementById('printing-again') || {}).textContent || '',
					};
				})()`, &got)
				if got.Banners != 0 || got.Forms != 0 {
					t.Errorf("without CUPS the screen shows %d banners and %d printer forms; want the one sentence alone", got.Banners, got.Forms)
				}
				if got.Sentences != 1 {
					t.Errorf("the sentence about CUPS shows %d times, want once", got.Sentences)
				}
				if got.Retry != con["Retry"] {
					t.Errorf("the button to try again says %q, want %q", got.Retry, con["Retry"])
				}
				b.shotScreen(t, "printing-no-cups-"+name)
				if sz.name == "laptop" {
					b.axeCheck(t, "Printing without CUPS "+name)
					b.do(t, "trying again", click(`#printing-again`))
					b.settle(t, "#printing-unavailable")
				}
			})
		}
	}
}
