package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/internal/testtool"
	"eventbox/s3store/s3test"
	"eventbox/store"
)

// TestConsoleCloudS3Form is the Cloud screen's S3 form on a phone in each
// language the console speaks: choosing S3 shows its fields, labelled in
// the language; a wrong endpoint and bucket are said under their fields;
// the test against a real bucket (gofakes3) lists its three steps, passed;
// the settings are saved with the secret never shown again; axe finds
// nothing and nothing is wider than the phone. make test runs English;
// make browsertest every language.
func TestConsoleCloudS3Form(t *testing.T) {
	testtool.Quick(t)
	t.Parallel()
	for _, tc := range []struct{ lang, legend, steps string }{
		{"en-US", "Where the photos go", "Write a test object: passed"},
		{"fr-FR", "Où vont les photos", "Écrire un objet de test\u00a0: réussi"},
		{"it-IT", "Dove vanno le foto", "Scrivere un oggetto di prova: riuscito"},
		{"es-ES", "Adónde van las fotos", "Escribir un objeto de prueba: correcto"},
	} {
		if !swept(tc.lang, "en-US") {
			continue
		}
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			box := startBox(t)
			srv := s3test.Fake(t)
			b := newBrowserAt(t, tc.lang, phoneWidth, phoneHeight)
			b.signIn(t, box.URL)
			b.do(t, "choosing S3 on the Cloud screen",
				chromedp.Navigate(box.URL+"/admin/settings/cloud"),
				chromedp.WaitVisible(chromedp.CSS(`input[name=kind][value=s3]`)),
				click(`input[name=kind][value=s3]`),
				chromedp.WaitVisible(chromedp.CSS(`#cloud-s3 input[name="s3.endpoint"]`)))
			b.waitText(t, "fieldset legend", tc.legend)
			var hidden bool
			b.eval(t, `document.querySelector('#cloud-webdav').hidden`, &hidden)
			if !hidden {
				t.Error("the WebDAV fields still show with S3 chosen")
			}
			b.do(t, "saving a wrong endpoint and bucket",
				fill(`input[name="s3.endpoint"]`, "ftp://nowhere"),
				fill(`input[name="s3.bucket"]`, "No_Such"),
				fill(`input[name="s3.accessKey"]`, srv.AccessKey),
				fill(`input[name="s3.secret"]`, srv.Secret),
				click(`form button[type=submit]`))
			b.waitJS(t, "the endpoint's and the bucket's errors under their fields",
				`!!document.querySelector('.field[data-field="s3.endpoint"].invalid .err') && document.querySelector('.field[data-field="s3.endpoint"] .err').textContent !== '' && !!document.querySelector('.field[data-field="s3.bucket"].invalid')`)
			b.do(t, "testing the bucket",
				fill(`input[name="s3.endpoint"]`, srv.Endpoint),
				fill(`input[name="s3.bucket"]`, srv.Bucket),
				fill(`input[name="s3.prefix"]`, "rentals"),
				click(`input[name="s3.pathStyle"]`),
				click(`#cloud-test`))
			b.waitJS(t, "three steps passed", `document.querySelectorAll('#cloud-test-answer li[data-result=ok]').length === 3`)
			b.waitText(t, "#cloud-test-answer", tc.steps)
			if v := b.axeViolations(t); len(v) > 0 {
				t.Errorf("axe: %s", strings.Join(v, "; "))
			}
			var wide bool
			b.eval(t, `document.documentElement.scrollWidth > window.innerWidth`, &wide)
			if wide {
				t.Error("the form is wider than the phone")
			}
			b.shot(t, "admin-cloud-s3-"+tc.lang)
			b.do(t, "saving", click(`form button[type=submit]`))
			b.waitJS(t, "the form drawn again with the secret unchanged",
				`(() => { const p = document.querySelector('input[name="s3.secret"]'); return p && p.value === '' && p.placeholder !== '' && document.querySelector('input[name=kind][value=s3]').checked; })()`)
			c, ok, err := box.Store.Cloud().Settings(context.Background())
			if err != nil || !ok || c.Target() != store.CloudS3 || c.S3.Secret != srv.Secret || c.S3.Prefix != "rentals" || !c.S3.PathStyle {
				t.Fatalf("stored settings: %+v %+v %v %v", c, c.S3, ok, err)
			}
		})
	}
}
