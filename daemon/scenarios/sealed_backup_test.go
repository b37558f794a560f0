package scenarios_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBackupCarriesNoSecretInClear sets a cloud password, a mail
// password and a webhook's url and secret through the console, downloads
// a backup through its route, and finds none of them, nor the key that
// signs the guests' cookies, anywhere in the ZIP's bytes or its
// database's. Restored on the
// same box everything still opens; restored on another box the console
// says what must be entered again, and the test and deliveries say so
// instead of failing obscurely.
func TestBackupCarriesNoSecretInClear(t *testing.T) {
	t.Parallel()
	const (
		cloudPass  = "cloud-Pass-CLEAR-7f3a"
		smtpPass   = "smtp-Pass-CLEAR-3e19"
		hookURL    = "https://hooks.example.org/T0KEN-CLEAR-91bc"
		hookSecret = "hook-Secret-CLEAR-55d2"
	)
	src := newHarness(t)
	owner := src.owner()
	owner.do("PUT", "/api/admin/cloud", map[string]any{"url": "https://dav.example.org/dav/", "user": "ana",
		"password": cloudPass, "folder": "Photos"}).expect(t, 200, "")
	owner.do("POST", "/api/admin/webhooks", map[string]any{"name": "Phone", "type": "json", "url": hookURL,
		"kinds": []string{"event.ended"}, "secret": hookSecret}).expect(t, 201, "")
	owner.do("PUT", "/api/admin/mail", map[string]any{"smtp": map[string]any{"host": "smtp.example.org", "username": "ana",
		"password": smtpPass, "from": "photos@example.org"}}).expect(t, 200, "")
	cookieKey, err := os.ReadFile(filepath.Join(src.cfg.DataDir, "guest-cookie.key"))
	if err != nil || len(cookieKey) != 32 {
		t.Fatalf("the guest cookies' key beside secret.key: %d bytes, %v", len(cookieKey), err)
	}

	zipBytes := download(t, owner)
	var db []byte
	for _, e := range zipEntries(t, zipBytes) {
		if e.name == "eventbox.db" {
			db = e.data
		}
	}
	if len(db) == 0 {
		t.Fatal("no eventbox.db in the backup")
	}
	for _, tc := range []struct {
		name  string
		value []byte
	}{
		{"the cloud password", []byte(cloudPass)},
		{"the mail password", []byte(smtpPass)},
		{"the webhook's url", []byte(hookURL)},
		{"the webhook's url's token", []byte("T0KEN-CLEAR-91bc")},
		{"the webhook's secret", []byte(hookSecret)},
		{"the guest cookies' signing key", cookieKey},
	} {
		t.Run(tc.name+" is not in the backup", func(t *testing.T) {
			if bytes.Contains(db, tc.value) || bytes.Contains(zipBytes, tc.value) {
				t.Fatalf("%s is in the backup in clear", tc.name)
			}
		})
	}

	t.Run("restored on the same box, everything opens", func(t *testing.T) {
		restoreZip(owner, zipBytes).expect(t, 200, "")
		after := restart(t, src)
		o := after.owner()
		r := o.do("GET", "/api/admin/cloud", nil).expect(t, 200, "")
		if r.JSON["hasPassword"] != true || r.JSON["passwordLost"] != nil {
			t.Fatalf("cloud settings after the restore: %s", r.Body)
		}
		r = o.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "")
		if strings.Contains(string(r.Body), "reenter") || !strings.Contains(string(r.Body), `"hasSecret":true`) {
			t.Fatalf("webhooks after the restore: %s", r.Body)
		}
		r = o.do("GET", "/api/admin/mail", nil).expect(t, 200, "")
		if sm := r.JSON["smtp"].(map[string]any); sm["hasPassword"] != true || sm["passwordLost"] != nil {
			t.Fatalf("mail settings after the restore: %s", r.Body)
		}
		if c, _, _ := after.st.Cloud().Settings(t.Context()); c.Password != cloudPass {
			t.Fatalf("stored password %q after the restore", c.Password)
		}
	})

	t.Run("restored on another box, the console asks for them again", func(t *testing.T) {
		dst := newHarness(t)
		restoreZip(dst.owner(), zipBytes).expect(t, 200, "")
		after := restart(t, dst)
		o := after.owner()
		r := o.do("GET", "/api/admin/cloud", nil).expect(t, 200, "")
		if r.JSON["hasPassword"] != false || r.JSON["passwordLost"] != true || r.JSON["user"] != "ana" {
			t.Fatalf("cloud settings: %s", r.Body)
		}
		r = o.do("POST", "/api/admin/cloud/test", map[string]any{"url": "https://dav.example.org/dav/", "user": "ana",
			"folder": "Photos"}).expect(t, 200, "")
		if msg, _ := r.JSON["message"].(string); r.JSON["ok"] != false || !strings.Contains(msg, "enter it again") {
			t.Fatalf("cloud test: %s", r.Body)
		}
		r = o.do("GET", "/api/admin/webhooks", nil).expect(t, 200, "")
		hooks := r.JSON["webhooks"].([]any)
		hook := hooks[0].(map[string]any)
		if re, _ := hook["reenter"].([]any); len(re) != 2 || hook["hasSecret"] != false {
			t.Fatalf("webhook: %s", r.Body)
		}
		r = o.do("POST", "/api/admin/webhooks/"+hook["id"].(string)+"/test", nil).expect(t, 502, "webhook_failed")
		if !strings.Contains(string(r.Body), "enter them again") {
			t.Fatalf("webhook test: %s", r.Body)
		}
		r = o.do("GET", "/api/admin/mail", nil).expect(t, 200, "")
		if sm := r.JSON["smtp"].(map[string]any); sm["hasPassword"] != false || sm["passwordLost"] != true || sm["username"] != "ana" {
			t.Fatalf("mail settings: %s", r.Body)
		}
		// Entered again, the password is this box's.
		o.do("PUT", "/api/admin/cloud", map[string]any{"url": "https://dav.example.org/dav/", "user": "ana",
			"password": "new-pass", "folder": "Photos"}).expect(t, 200, "")
		if r := o.do("GET", "/api/admin/cloud", nil).expect(t, 200, ""); r.JSON["hasPassword"] != true || r.JSON["passwordLost"] != nil {
			t.Fatalf("after the password was entered again: %s", r.Body)
		}
		r = o.do("PUT", "/api/admin/mail", map[string]any{"smtp": map[string]any{"host": "smtp.example.org", "username": "ana",
			"password": "new-smtp-pass", "from": "photos@example.org"}}).expect(t, 200, "")
		if sm := r.JSON["smtp"].(map[string]any); sm["hasPassword"] != true || sm["passwordLost"] != nil {
			t.Fatalf("after the mail password was entered again: %s", r.Body)
		}
	})
}

// TestBackupCarriesNoS3SecretInClear: an S3 bucket's secret key set
// through the console is nowhere in a backup's bytes; restored on another
// box, the console says it must be entered again, and the settings test
// says so instead of failing at the store.
func TestBackupCarriesNoS3SecretInClear(t *testing.T) {
	t.Parallel()
	const s3Secret = "s3-Secret-CLEAR-b4d1"
	settings := func(secret string) map[string]any {
		s3 := map[string]any{"endpoint": "https://s3.example.org", "bucket": "parties", "prefix": "rentals",
			"accessKey": "AK-box-07"}
		if secret != "" {
			s3["secret"] = secret
		}
		return map[string]any{"kind": "s3", "autoExport": true, "s3": s3}
	}
	src := newHarness(t)
	owner := src.owner()
	owner.do("PUT", "/api/admin/cloud", settings(s3Secret)).expect(t, 200, "")
	zipBytes := download(t, owner)
	for _, e := range zipEntries(t, zipBytes) {
		if bytes.Contains(e.data, []byte(s3Secret)) {
			t.Fatalf("the S3 secret is in the backup's %s in clear", e.name)
		}
	}
	if bytes.Contains(zipBytes, []byte(s3Secret)) {
		t.Fatal("the S3 secret is in the backup in clear")
	}

	dst := newHarness(t)
	restoreZip(dst.owner(), zipBytes).expect(t, 200, "")
	after := restart(t, dst)
	o := after.owner()
	r := o.do("GET", "/api/admin/cloud", nil).expect(t, 200, "")
	s3, _ := r.JSON["s3"].(map[string]any)
	if r.JSON["kind"] != "s3" || s3 == nil || s3["hasSecret"] != false || s3["secretLost"] != true || s3["accessKey"] != "AK-box-07" {
		t.Fatalf("cloud settings on another box: %s", r.Body)
	}
	r = o.do("POST", "/api/admin/cloud/test", settings("")).expect(t, 200, "")
	if msg, _ := r.JSON["message"].(string); r.JSON["ok"] != false || !strings.Contains(msg, "enter it again") {
		t.Fatalf("cloud test: %s", r.Body)
	}
	o.do("PUT", "/api/admin/cloud", settings("new-secret")).expect(t, 200, "")
	if r := o.do("GET", "/api/admin/cloud", nil).expect(t, 200, ""); !strings.Contains(string(r.Body), `"hasSecret":true`) || strings.Contains(string(r.Body), "secretLost") {
		t.Fatalf("after the secret was entered again: %s", r.Body)
	}
}
