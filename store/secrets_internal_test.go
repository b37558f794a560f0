package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestSecretsKeptInClearAreSealedAtStart: a database written before the
// secrets were sealed (the WebDAV password, the webhooks' urls and secrets
// in clear, the guest cookies' key in meta) is sealed at the next start,
// the key moves to DATA_DIR/guest-cookie.key, and the file is rewritten so
// that none of them is left anywhere in its bytes, free pages included;
// unkeyed (a staged restore) nothing changes.
func TestSecretsKeptInClearAreSealedAtStart(t *testing.T) {
	ctx := context.Background()
	const (
		cloudPass  = "cloud-Pass-CLEAR-7f3a"
		hookURL    = "https://hooks.example.org/T0KEN-CLEAR-91bc"
		hookSecret = "hook-Secret-CLEAR-55d2"
	)
	cookieKey := bytes.Repeat([]byte("K3y!"), 8)
	dir := t.TempDir()
	st, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// The records as an older binary wrote them.
	err = st.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		if err := meta.Put(cloudKey, []byte(`{"url":"https://dav.example.org/","user":"ana","password":"`+cloudPass+`","folder":"Photos","autoExport":true}`)); err != nil {
			return err
		}
		if err := meta.Put([]byte("secret/guest-cookie"), cookieKey); err != nil {
			return err
		}
		return tx.Bucket(bWebhooks).Put([]byte("w1"), []byte(`{"id":"w1","name":"Phone","type":"json","url":"`+hookURL+
			`","kinds":["event.ended"],"secret":"`+hookSecret+`","enabled":true,"createdAt":1}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "guest-cookie.key")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	clear := [][]byte{[]byte(cloudPass), []byte(hookURL), []byte(hookSecret), cookieKey}

	t.Run("unkeyed, nothing changes", func(t *testing.T) {
		st, err := Open(ctx, dir, Options{Unkeyed: true})
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := st.Cloud().Settings(ctx)
		if err != nil || c.Password != "" {
			t.Fatalf("unkeyed cloud settings: %+v, %v", c, err)
		}
		if err := st.Cloud().PutSettings(ctx, CloudSettings{URL: "https://x/", Password: "p"}); err == nil {
			t.Fatal("an unkeyed store stored a password")
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, DBFile))
		if !bytes.Contains(b, []byte(cloudPass)) {
			t.Fatal("the unkeyed open sealed with no key")
		}
	})

	st, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := st.Cloud().Settings(ctx)
	if err != nil || c.Password != cloudPass || c.PasswordLost || c.User != "ana" || !c.AutoExport {
		t.Fatalf("cloud settings after the start: %+v, %v", c, err)
	}
	w, err := st.Webhooks().Get(ctx, "w1")
	if err != nil || w.URL != hookURL || w.Secret != hookSecret || w.URLLost || w.SecretLost {
		t.Fatalf("webhook after the start: %+v, %v", w, err)
	}
	key, err := st.Secrets().Key(ctx, "guest-cookie", 32)
	if err != nil || !bytes.Equal(key, cookieKey) {
		t.Fatalf("guest cookie key %q, %v; want the one the database held", key, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range clear {
		if bytes.Contains(b, v) {
			t.Errorf("%q is still in the database file", v)
		}
	}

	t.Run("another box's key opens nothing", func(t *testing.T) {
		other := t.TempDir()
		if err := os.WriteFile(filepath.Join(other, DBFile), b, 0o600); err != nil {
			t.Fatal(err)
		}
		st, err := Open(ctx, other, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		c, _, _ := st.Cloud().Settings(ctx)
		w, _ := st.Webhooks().Get(ctx, "w1")
		if c.Password != "" || !c.PasswordLost || w.URL != "" || !w.URLLost || !w.SecretLost {
			t.Fatalf("on another box: %+v %+v", c, w)
		}
		// An update that changes neither keeps them sealed as they were.
		w2, err := st.Webhooks().Update(ctx, "w1", func(w *Webhook) error { w.Name = "Renamed"; return nil })
		if err != nil || !bytes.Equal(w2.URLSealed, w.URLSealed) || !bytes.Equal(w2.SecretSealed, w.SecretSealed) {
			t.Fatalf("an update dropped the sealed values: %+v, %v", w2, err)
		}
	})
}
