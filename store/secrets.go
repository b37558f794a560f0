package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"eventbox/secret"
)

// Labels bind each sealed value to its use (package secret).
const (
	labelCloudPassword = "eventbox webdav password"
	labelS3Secret      = "eventbox s3 secret key"
	labelWebhookURL    = "eventbox webhook url"
	labelWebhookSecret = "eventbox webhook secret"
)

// ErrNoKey: a secret was to be written by a store opened without the
// sealing key (Options.Unkeyed).
var ErrNoKey = errors.New("the store was opened without its sealing key")

// Secrets holds the sealing of the secrets records keep and the random keys
// kept beside the database. It is a view of the Store it came from, as
// cheap to copy as a pointer; its methods are safe for concurrent use.
type Secrets struct{ s *Store }

// Secrets returns the sealing of the secrets records keep and the random keys kept beside the database.
func (s *Store) Secrets() Secrets { return Secrets{s} }

// seal seals plain for label; nil for "".
func (sc Secrets) seal(label, plain string) ([]byte, error) {
	if plain == "" {
		return nil, nil
	}
	if sc.s.key == nil {
		return nil, ErrNoKey
	}
	b, err := secret.Seal(sc.s.key, label, plain)
	if err != nil {
		return nil, fmt.Errorf("sealing: %w", err)
	}
	return b, nil
}

// open opens what seal made, and reports false when sealed is not empty
// and does not open with this box's key (a database restored from another
// box): the value must be entered again.
func (sc Secrets) open(label string, sealed []byte) (string, bool) {
	if len(sealed) == 0 {
		return "", true
	}
	plain, err := secret.Open(sc.s.key, label, sealed)
	return plain, err == nil
}

// Key returns the named random key (for example the key that signs
// guest cookies), creating it on first use. It is kept in
// DATA_DIR/<name>.key (0600), beside secret.key, and not in the database,
// so a backup does not carry it.
func (sc Secrets) Key(ctx context.Context, name string, size int) ([]byte, error) {
	key, err := secret.LoadFile(filepath.Join(sc.s.dir, name+".key"), size)
	if err != nil {
		return nil, fmt.Errorf("reading secret %s: %w", name, err)
	}
	return key, nil
}

// sealStored runs at every keyed start: it seals the secrets an older
// database (or a restored backup of one) holds in clear (the WebDAV
// password, the webhooks' urls and secrets), and moves the keys an older
// database kept under meta "secret/<name>" to DATA_DIR/<name>.key (a file
// there already wins: it is this box's). It answers whether anything
// changed, in which case the clear values may still sit in the file's
// free pages until it is compacted.
func (sc Secrets) sealStored(ctx context.Context) (bool, error) {
	if sc.s.key == nil {
		return false, nil
	}
	changed := false
	err := sc.s.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bMeta)
		// Keys move out first: the file must be written before its
		// record goes.
		prefix := []byte("secret/")
		var moved [][]byte
		c := meta.Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) > len(prefix) && string(k[:len(prefix)]) == string(prefix); k, v = c.Next() {
			path := filepath.Join(sc.s.dir, string(k[len(prefix):])+".key")
			if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
				if err := secret.WriteFile(path, v); err != nil {
					return err
				}
			}
			moved = append(moved, append([]byte(nil), k...))
		}
		for _, k := range moved {
			if err := meta.Delete(k); err != nil {
				return err
			}
			changed = true
		}
		if raw := meta.Get(cloudKey); raw != nil {
			out, ok, err := sc.sealFields(raw, map[string]string{"password": labelCloudPassword})
			if err != nil {
				return fmt.Errorf("sealing the cloud password: %w", err)
			}
			if ok {
				if err := meta.Put(cloudKey, out); err != nil {
					return err
				}
				changed = true
			}
		}
		hooks := tx.Bucket(bWebhooks)
		if hooks == nil {
			return nil
		}
		updated := map[string][]byte{}
		err := hooks.ForEach(func(k, v []byte) error {
			out, ok, err := sc.sealFields(v, map[string]string{"url": labelWebhookURL, "secret": labelWebhookSecret})
			if err != nil {
				return fmt.Errorf("sealing webhook %s: %w", k, err)
			}
			if ok {
				updated[string(k)] = out
			}
			return nil
		})
		if err != nil {
			return err
		}
		for k, v := range updated {
			if err := hooks.Put([]byte(k), v); err != nil {
				return err
			}
			changed = true
		}
		if changed {
			return meta.Put(compactKey, []byte{1})
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("sealing the secrets kept in clear: %w", err)
	}
	if changed {
		sc.s.log.InfoContext(ctx, "secrets kept in clear are sealed")
	}
	return changed, nil
}

// compactKey in meta marks a database whose file may still hold clear
// secrets in its free pages: the next start rewrites the file.
var compactKey = []byte("secrets/compact")

// sealFields replaces each clear string field of the JSON record raw named
// in fields by "<field>Sealed", sealed with its label, and answers whether
// it changed anything.
func (sc Secrets) sealFields(raw []byte, fields map[string]string) ([]byte, bool, error) {
	var rec map[string]json.RawMessage
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, false, err
	}
	changed := false
	for field, label := range fields {
		v, ok := rec[field]
		if !ok {
			continue
		}
		var plain string
		if err := json.Unmarshal(v, &plain); err != nil {
			return nil, false, fmt.Errorf("field %s: %w", field, err)
		}
		delete(rec, field)
		changed = true
		if plain == "" {
			continue
		}
		sealed, err := sc.seal(label, plain)
		if err != nil {
			return nil, false, err
		}
		b, err := json.Marshal(sealed)
		if err != nil {
			return nil, false, err
		}
		rec[field+"Sealed"] = b
	}
	if !changed {
		return raw, false, nil
	}
	out, err := json.Marshal(rec)
	return out, true, err
}

// compactIfMarked rewrites the database file when compactKey is set, so
// the clear values Secrets.sealStored replaced no longer sit in its free pages
// (a backup copies the file's pages, free ones included).
func (s *Store) compactIfMarked(ctx context.Context, path string) error {
	marked := false
	if err := s.db.View(func(tx *bolt.Tx) error {
		marked = tx.Bucket(bMeta).Get(compactKey) != nil
		return nil
	}); err != nil || !marked {
		return err
	}
	tmp := path + ".compact"
	_ = os.Remove(tmp)
	dst, err := bolt.Open(tmp, 0o600, nil)
	if err != nil {
		return fmt.Errorf("compacting the database: %w", err)
	}
	if err := bolt.Compact(dst, s.db, 16<<20); err != nil {
		return errors.Join(fmt.Errorf("compacting the database: %w", err), dst.Close(), os.Remove(tmp))
	}
	if err := dst.Update(func(tx *bolt.Tx) error { return tx.Bucket(bMeta).Delete(compactKey) }); err != nil {
		return errors.Join(fmt.Errorf("compacting the database: %w", err), dst.Close(), os.Remove(tmp))
	}
	if err := dst.Close(); err != nil {
		return errors.Join(fmt.Errorf("compacting the database: %w", err), os.Remove(tmp))
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("compacting the database: %w", err)
	}
	renameErr := os.Rename(tmp, path)
	if renameErr == nil {
		renameErr = syncDir(dirOf(path))
	}
	db, err := openBolt(path, time.Second)
	if err != nil {
		return errors.Join(renameErr, err)
	}
	s.db = db
	if renameErr != nil {
		return fmt.Errorf("compacting the database: %w", renameErr)
	}
	s.log.InfoContext(ctx, "database rewritten without the clear secrets it held")
	return nil
}
