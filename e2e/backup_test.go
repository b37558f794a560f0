package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"eventbox/daemon"
	"eventbox/daemon/backupzip"
	"eventbox/store"
)

// TestConsoleBackup walks Settings → Backup: the figures and the download
// link, a retention out of range refused next to its field and a good one
// saved, the storage banner while the card is nearly full, and a restore
// that asks first and then leaves the box to restart over the backup.
func TestConsoleBackup(t *testing.T) {
	t.Parallel()
	var free atomic.Int64
	free.Store(10 << 30)
	box := startBox(t, func(c *daemon.Config) {
		c.StorageMargin = 100 << 20
		c.Statfs = func(string) (int64, error) { return free.Load(), nil }
	})
	createEvent(t, box.Store, "Anna & Marco", nil)
	zipPath := filepath.Join(t.TempDir(), "party.zip")
	f, err := os.Create(zipPath)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := backupzip.Write(context.Background(), box.Store, f, backupzip.WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	b := newBrowser(t)
	b.signIn(t, box.URL)
	run := func(name string, fn func(t *testing.T)) {
		if !t.Run(name, fn) {
			t.FailNow()
		}
	}
	run("the screen shows what a backup holds and offers the download", func(t *testing.T) {
		b.do(t, "opening Settings, Backup",
			chromedp.Navigate(box.URL+"/admin/settings/backup"),
			chromedp.WaitVisible(chromedp.CSS(`a[href="/api/admin/backup?download=1"]`)))
		b.waitText(t, "main", "A backup holds")
		b.waitText(t, "main", "No automatic backup yet")
		b.shot(t, "admin-backup")
	})
	run("a retention out of range is refused next to its field", func(t *testing.T) {
		b.do(t, "typing 13 days",
			fill(`.field[data-field=days] input`, "13"),
			click(`form.row button[type=submit]`))
		b.waitText(t, `.field[data-field=days] .err`, "14")
		b.do(t, "typing 60 days",
			fill(`.field[data-field=days] input`, "60"),
			click(`form.row button[type=submit]`))
		eventually(t, "the retention is stored", func() bool {
			s, err := box.Store.Backups().State(context.Background())
			return err == nil && s.RetentionDays == 60
		})
	})
	run("the hosts see a banner while the card is nearly full", func(t *testing.T) {
		free.Store(50 << 20)
		b.do(t, "opening the events",
			chromedp.Navigate(box.URL+"/admin"),
			chromedp.WaitVisible(chromedp.CSS(`#events`)))
		b.waitText(t, "#storage-banner", "nearly full")
		b.shot(t, "admin-storage-banner")
		free.Store(10 << 30)
	})
	run("a restore asks first, then the box restarts over the backup", func(t *testing.T) {
		b.do(t, "choosing the backup and saying yes",
			chromedp.Navigate(box.URL+"/admin/settings/backup"),
			chromedp.WaitVisible(chromedp.CSS(`input[type=file]`)),
			chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[bool](`(window.asked = '', window.confirm = (q) => { window.asked = q; return true; }, true)`)(ctx, tg)
				return err
			}),
			chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{zipPath}),
			click(`button.danger`))
		b.waitJS(t, "the question names what is replaced", `window.asked.includes('Replace EVERYTHING') && window.asked.includes('party.zip')`)
		eventually(t, "the swap is decided for the restart", func() bool { return store.RestorePending(box.Store.Dir()) })
	})
}

// TestRestoreSaysWhatAndWhen restores a backup on a phone, in English and
// French: once chosen, the screen says when the backup was made; the
// question before the restore names the backup's date and what the box
// holds now (its events); once the box took it, the screen says so, and
// after the restart the console says the restore is done.
func TestRestoreSaysWhatAndWhen(t *testing.T) {
	t.Parallel()
	made := time.Date(2025, time.March, 14, 15, 9, 0, 0, time.Local)
	for _, tc := range []struct{ lang, about, asked, events, done string }{
		{"en-GB", "Backup made on", "the backup of", "2 events", "Restore done"},
		{"fr-FR", "Sauvegarde faite le", "la sauvegarde du", "2 événements", "Restauration terminée"},
		{"it-IT", "Backup fatto il", "il backup del", "2 eventi", "Ripristino completato"},
	} {
		if !swept(tc.lang, "en-GB", "fr-FR") {
			continue
		}
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			r := &restartableBox{dir: t.TempDir()}
			r.start(t)
			t.Cleanup(func() { r.kill(t) })
			createEvent(t, r.Store, "Anna & Marco", nil)
			zipPath := filepath.Join(t.TempDir(), "party.zip")
			f, err := os.Create(zipPath)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := backupzip.Write(context.Background(), r.Store, f, backupzip.WriteOptions{Now: func() time.Time { return made }}); err != nil {
				t.Fatal(err)
			}
			f.Close()
			createEvent(t, r.Store, "Made after the backup", nil)

			b := newBrowserAt(t, tc.lang, 360, 740)
			b.signIn(t, r.URL)
			b.do(t, "choosing the backup",
				chromedp.Navigate(r.URL+"/admin/settings/backup"),
				chromedp.WaitVisible(chromedp.CSS(`#restore-file`)),
				chromedp.SetUploadFiles(chromedp.CSS(`#restore-file`), []string{zipPath}))
			b.waitText(t, "#restore-about", tc.about)
			b.waitText(t, "#restore-about", "2025")
			b.shot(t, "restore-chosen-"+tc.lang[:2])
			b.eval(t, `(window.asked = '', window.confirm = (q) => { window.asked = q; return true; }, true)`, nil)
			b.do(t, "restoring", click(`#restore-file ~ * button.danger, main button.danger`))
			b.waitJS(t, "the question was asked", `window.asked !== ''`)
			var asked string
			b.eval(t, `window.asked`, &asked)
			for _, want := range []string{tc.asked, "2025", "14", "party.zip", tc.events} {
				if !strings.Contains(asked, want) {
					t.Errorf("the question before the restore reads %q; want it to name %q", asked, want)
				}
			}
			b.waitJS(t, "the screen says the box took the backup", `!!document.querySelector('#restore-done .banner.good')`)
			b.shot(t, "restore-taken-"+tc.lang[:2])
			eventually(t, "the swap is decided for the restart", func() bool { return store.RestorePending(r.Store.Dir()) })
			r.kill(t)
			r.start(t)
			// The page reloads by itself once the box answers again.
			var said string
			eventually(t, "the console says the restore is done", func() bool {
				ctx, cancel := context.WithTimeout(b.ctx, time.Second)
				defer cancel()
				chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					var err error
					said, err = chromedp.Evaluate[string](`(document.querySelector('#restored') || {}).textContent || ''`)(ctx, tg)
					return err
				}))
				return strings.Contains(said, tc.done)
			})
			if !strings.Contains(said, "2025") {
				t.Errorf("after the restart the console says %q; want the backup's date", said)
			}
			b.shot(t, "restore-done-"+tc.lang[:2])
		})
	}
}
