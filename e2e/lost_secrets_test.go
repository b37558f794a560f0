package e2e

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/chromedp/chromedp"

	"eventbox/daemon/backupzip"
	"eventbox/store"
)

// restoredFromAnotherBox starts a box over the backup of another box that
// had its cloud export, its mail and a webhook (address and signing
// secret) set up, restored through the console's route and restarted, as
// a host does on a new card. A backup carries those secrets only sealed
// with the key of the box that made it: on this box none of them opens.
func restoredFromAnotherBox(t *testing.T) *restartableBox {
	t.Helper()
	ctx := context.Background()
	src := startBox(t)
	c := newClient(t, src.URL)
	c.signIn(t)
	if st := c.json(t, "PUT", "/api/admin/cloud", map[string]any{"url": "https://dav.example.org/remote.php/dav/files/ana/",
		"user": "ana", "password": "dav-old-secret", "folder": "Photos"}, nil); st != http.StatusOK {
		t.Fatalf("setting the cloud export up: %d", st)
	}
	if st := c.json(t, "POST", "/api/admin/webhooks", map[string]any{"name": "Ana's phone", "type": "ntfy",
		"url": "https://ntfy.example.org/T0KEN-old", "kinds": []string{"event.ended"}, "secret": "hook-old-secret"}, nil); st != http.StatusCreated {
		t.Fatalf("adding the webhook: %d", st)
	}
	if st := c.json(t, "PUT", "/api/admin/mail", map[string]any{"smtp": map[string]any{"host": "smtp.example.org", "port": 587,
		"username": "ana", "password": "smtp-old-secret", "from": "Photos <photos@example.org>", "security": "starttls"}}, nil); st != http.StatusOK {
		t.Fatalf("setting mail up: %d", st)
	}
	var zip bytes.Buffer
	if _, err := backupzip.Write(ctx, src.Store, &zip, backupzip.WriteOptions{}); err != nil {
		t.Fatal(err)
	}

	r := &restartableBox{dir: t.TempDir()}
	r.start(t)
	t.Cleanup(func() { r.kill(t) })
	dst := newClient(t, r.URL)
	dst.signIn(t)
	if st := dst.do(t, "POST", "/api/admin/backup/restore", "application/zip", &zip, nil); st != http.StatusOK {
		t.Fatalf("restoring the backup: %d", st)
	}
	eventually(t, "the swap is decided for the restart", func() bool { return store.RestorePending(r.Store.Dir()) })
	r.kill(t)
	r.start(t)
	return r
}

// lostFlags is what the box answers about the secrets a restore lost.
type lostFlags struct {
	cloud, mail bool
	hook        []string // the webhook's reenter
}

// lostSecrets asks the box's API which secrets must be entered again.
func lostSecrets(t *testing.T, c *client) lostFlags {
	t.Helper()
	var cloud struct {
		PasswordLost bool `json:"passwordLost"`
	}
	var mail struct {
		SMTP struct {
			PasswordLost bool `json:"passwordLost"`
		} `json:"smtp"`
	}
	var hooks struct {
		Webhooks []struct {
			Reenter []string `json:"reenter"`
		} `json:"webhooks"`
	}
	for path, out := range map[string]any{"/api/admin/cloud": &cloud, "/api/admin/mail": &mail, "/api/admin/webhooks": &hooks} {
		if st := c.json(t, "GET", path, nil, out); st != http.StatusOK {
			t.Fatalf("GET %s: %d", path, st)
		}
	}
	if len(hooks.Webhooks) != 1 {
		t.Fatalf("%d webhooks after the restore, want 1", len(hooks.Webhooks))
	}
	return lostFlags{cloud: cloud.PasswordLost, mail: mail.SMTP.PasswordLost, hook: hooks.Webhooks[0].Reenter}
}

// TestConsoleAsksAgainForLostSecrets restores on a box the backup of
// another one that had its cloud export, mail and a webhook set up: the
// console's events page lists the three secrets the restore lost, each
// linking to its screen; each screen says which one was lost and takes it
// again; once it is typed and saved, the screen's notice and its line on
// the events page go, and the box's answer no longer flags it. In
// English and French (every language with -sweep).
func TestConsoleAsksAgainForLostSecrets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ lang, home, cloud, mail, hook string }{
		{"en-GB", "Lost in the restore", "The WebDAV password was lost in the restore", "The mail server's password was lost in the restore", "its address and its signing secret"},
		{"fr-FR", "Perdus lors de la restauration", "Le mot de passe WebDAV a été perdu lors de la restauration", "Le mot de passe du serveur d’e-mails a été perdu lors de la restauration", "son adresse et son secret de signature"},
		{"it-IT", "Persi nel ripristino", "La password WebDAV è andata persa nel ripristino", "La password del server di posta è andata persa nel ripristino", "il suo indirizzo e il suo segreto di firma"},
		{"es-ES", "Perdidos en la restauración", "La contraseña WebDAV se perdió en la restauración", "La contraseña del servidor de correo se perdió en la restauración", "su dirección y su secreto de firma"},
	} {
		if !swept(tc.lang, "en-GB", "fr-FR") {
			continue
		}
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			r := restoredFromAnotherBox(t)
			api := newClient(t, r.URL)
			api.signIn(t)
			if got := lostSecrets(t, api); !got.cloud || !got.mail || len(got.hook) != 2 {
				t.Fatalf("the box answers %+v after the restore; want the cloud and mail passwords and the webhook's url and secret lost", got)
			}
			b := newBrowserAt(t, tc.lang, phoneWidth, phoneHeight)
			b.signIn(t, r.URL)
			run := func(name string, f func(t *testing.T)) {
				if !t.Run(name, f) {
					t.FailNow()
				}
			}
			// lines are the links of the events page's notice.
			lines := func() []string {
				var hrefs []string
				b.eval(t, `[...document.querySelectorAll('#reenter-banner:not([hidden]) li a')].map((a) => a.getAttribute('href'))`, &hrefs)
				return hrefs
			}
			home := func(t *testing.T, want int) {
				t.Helper()
				b.do(t, "going back to the events", click(`header a.brand`), chromedp.WaitVisible(chromedp.CSS(`#events`)))
				b.waitJS(t, fmt.Sprintf("the notice lists %d secrets", want),
					fmt.Sprintf(`document.querySelectorAll('#reenter-banner:not([hidden]) li a').length === %d`, want))
			}

			run("the events page lists every lost secret with a link to its screen", func(t *testing.T) {
				b.waitText(t, "#reenter-banner:not([hidden])", tc.home)
				b.waitJS(t, "three lines", `document.querySelectorAll('#reenter-banner li a').length === 3`)
				got := fmt.Sprint(lines())
				if got != "[/admin/settings/cloud /admin/settings/mail /admin/settings/webhooks]" {
					t.Fatalf("the notice links to %s", got)
				}
				b.waitText(t, "#reenter-banner", "Ana's phone")
				b.shot(t, "lost-secrets-home-"+tc.lang[:2])
			})
			run("the cloud screen says the WebDAV password was lost and takes it again", func(t *testing.T) {
				b.do(t, "following the cloud line", click(`#reenter-banner a[href="/admin/settings/cloud"]`))
				b.waitText(t, "#cloud-lost", tc.cloud)
				var placeholder string
				b.eval(t, `document.querySelector('input[name=password]').placeholder`, &placeholder)
				if placeholder != "" {
					t.Errorf("the lost password's field reads %q as if a password were kept", placeholder)
				}
				b.shot(t, "lost-secrets-cloud-"+tc.lang[:2])
				b.do(t, "typing it again and saving",
					click(`#cloud-lost button`),
					chromedp.SendKeys(chromedp.CSS(`input[name=password]:focus`), "dav-new-secret"),
					click(`main form button[type=submit]`))
				b.waitJS(t, "the notice goes", `!!document.querySelector('#cloud-test') && !document.querySelector('#cloud-lost')`)
				if got := lostSecrets(t, api); got.cloud {
					t.Fatalf("the box still flags the cloud password: %+v", got)
				}
				if c, _, err := r.Store.Cloud().Settings(context.Background()); err != nil || c.Password != "dav-new-secret" {
					t.Fatalf("the stored cloud password is %q (%v)", c.Password, err)
				}
				home(t, 2)
			})
			run("the mail screen says the SMTP password was lost and takes it again", func(t *testing.T) {
				b.do(t, "following the mail line", click(`#reenter-banner a[href="/admin/settings/mail"]`))
				b.waitText(t, "#mail-lost", tc.mail)
				b.shot(t, "lost-secrets-mail-"+tc.lang[:2])
				b.do(t, "typing it again and saving",
					fill(`input[name="smtp.password"]`, "smtp-new-secret"),
					click(`#mail-form button[type=submit]`))
				b.waitJS(t, "the notice goes", `!!document.querySelector('#mail-form') && !document.querySelector('#mail-lost')`)
				if got := lostSecrets(t, api); got.mail {
					t.Fatalf("the box still flags the mail password: %+v", got)
				}
				home(t, 1)
			})
			run("the webhooks screen says what of the webhook was lost and takes it again", func(t *testing.T) {
				b.do(t, "following the webhook line", click(`#reenter-banner a[href="/admin/settings/webhooks"]`))
				b.waitText(t, "li[data-webhook] .lost", tc.hook)
				b.waitJS(t, "its form is open", `!!document.querySelector('li[data-webhook] details[open] input[name=url]')`)
				b.shot(t, "lost-secrets-webhooks-"+tc.lang[:2])
				b.do(t, "typing them again and saving",
					fill(`li[data-webhook] input[name=url]`, "https://ntfy.example.org/T0KEN-new"),
					fill(`li[data-webhook] input[name=secret]`, "hook-new-secret"),
					click(`li[data-webhook] form button[type=submit]`))
				b.waitJS(t, "the notice goes", `!!document.querySelector('li[data-webhook]') && !document.querySelector('li[data-webhook] .lost')`)
				if got := lostSecrets(t, api); len(got.hook) != 0 {
					t.Fatalf("the box still flags the webhook: %+v", got)
				}
				hooks, err := r.Store.Webhooks().List(context.Background())
				if err != nil || len(hooks) != 1 || hooks[0].URL != "https://ntfy.example.org/T0KEN-new" || hooks[0].Secret != "hook-new-secret" {
					t.Fatalf("stored webhooks %+v (%v)", hooks, err)
				}
			})
			run("once everything is entered again, the events page's notice is gone", func(t *testing.T) {
				b.do(t, "going back to the events", click(`header a.brand`), chromedp.WaitVisible(chromedp.CSS(`#events`)))
				b.waitJS(t, "the notice looked again and found nothing", `(document.querySelector('#reenter-banner') || {}).dataset?.lost === '0'`)
				if lines := lines(); len(lines) != 0 {
					t.Fatalf("the notice still shows %v", lines)
				}
			})
		})
	}
}

// TestLostSecretsScreens opens, on a box restored from another box's
// backup, the screens that ask for the lost secrets again (the events
// page's notice, Cloud, Mail, Webhooks) at a phone, a laptop and a venue
// screen in English and French: none scrolls sideways, and axe-core finds
// no WCAG 2.1 A/AA violation on them. With -shots DIR each is saved as
// lost-secrets-<lang>-<width>-<screen>.png. Its quick case is the French
// phone.
func TestLostSecretsScreens(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(axePath); err != nil {
		t.Skipf("no axe-core (%v): run make axe", err)
	}
	r := restoredFromAnotherBox(t)
	screens := []consoleScreen{
		{"events", "/admin", "#reenter-banner:not([hidden]) li"},
		{"cloud", "/admin/settings/cloud", "#cloud-lost"},
		{"mail", "/admin/settings/mail", "#mail-lost"},
		{"webhooks", "/admin/settings/webhooks", "li[data-webhook] .lost"},
	}
	for _, lang := range []string{"en-GB", "fr-FR"} {
		for _, sz := range []struct{ w, h int }{{phoneWidth, phoneHeight}, {1366, 768}, {1920, 1080}} {
			name := fmt.Sprintf("%s %dx%d", lang, sz.w, sz.h)
			if !swept(name, "fr-FR 390x844") {
				continue
			}
			t.Run(name, func(t *testing.T) {
				b := newBrowserAt(t, lang, sz.w, sz.h)
				b.signIn(t, r.URL)
				for _, s := range screens {
					b.openScreen(t, r.URL, s)
					var w struct{ Scroll, Inner int }
					b.eval(t, `({ scroll: document.scrollingElement.scrollWidth, inner: innerWidth })`, &w)
					if w.Scroll > w.Inner {
						t.Errorf("%s scrolls sideways: %d px wide in a %d px window", s.name, w.Scroll, w.Inner)
					}
					for _, v := range b.axeViolations(t) {
						t.Errorf("%s: axe: %s", s.name, v)
					}
					// As a host finds it: the new webhook's form folded.
					b.eval(t, `(document.querySelectorAll('main details.section').forEach((d) => { d.open = false; }), scrollTo(0, 0), true)`, nil)
					b.shot(t, fmt.Sprintf("lost-secrets-%s-%d-%s", lang[:2], sz.w, s.name))
				}
			})
		}
	}
}
