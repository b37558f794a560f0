package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Backup settings and the last result live in the meta bucket under
// these keys (store/doc.go).
var (
	keyBackupRetention = []byte("backup/retentionDays")
	keyBackupLast      = []byte("backup/last")
)

// DefaultRetentionDays is how long scheduled backups are kept until an
// owner sets another figure.
const DefaultRetentionDays = 30

// BackupResult is the outcome of the latest backup the box made on its
// own (nightly, before an update) or was asked for.
type BackupResult struct {
	// At is when it ended, epoch ms.
	At int64 `json:"at"`
	// OK is false when it failed or was skipped.
	OK bool `json:"ok"`
	// Reason says what asked for it: "nightly", "update", "manual".
	Reason string `json:"reason"`
	// Name is the file written (base name), empty on failure.
	Name string `json:"name,omitempty"`
	// Storage is where it went: "card" or "usb".
	Storage string `json:"storage,omitempty"`
	// Bytes is the size of the ZIP.
	Bytes int64 `json:"bytes,omitempty"`
	// Error is a short reason for a failure, fit for the console.
	Error string `json:"error,omitempty"`
}

// BackupState is what the store keeps of backups.
type BackupState struct {
	// RetentionDays: 0 means scheduled backups are off, else 14 to 3650.
	RetentionDays int
	// Last is the latest result; nil before the first backup.
	Last *BackupResult
	// LastOK is the latest successful one; nil before it.
	LastOK *BackupResult
}

var keyBackupLastOK = []byte("backup/lastOK")

// Backups holds the backup state record: the retention and the backups made
// (the snapshot and dump themselves are the Store's). It is a view of the
// Store it came from, as cheap to copy as a pointer; its methods are safe
// for concurrent use.
type Backups struct{ s *Store }

// Backups returns the backup state record.
func (s *Store) Backups() Backups { return Backups{s} }

// State reads the backup settings and results.
func (bk Backups) State(ctx context.Context) (BackupState, error) {
	st := BackupState{RetentionDays: DefaultRetentionDays}
	err := bk.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bMeta)
		if v := b.Get(keyBackupRetention); v != nil {
			if err := json.Unmarshal(v, &st.RetentionDays); err != nil {
				return fmt.Errorf("decoding retention: %w", err)
			}
		}
		for key, dst := range map[string]**BackupResult{string(keyBackupLast): &st.Last, string(keyBackupLastOK): &st.LastOK} {
			var r BackupResult
			if err := getJSON(b, []byte(key), &r); err == nil {
				*dst = &r
			} else if !errors.Is(err, ErrNotFound) {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("reading backup state: %w", err)
	}
	return st, nil
}

// SetRetention stores the retention in days (the caller checks the
// range).
func (bk Backups) SetRetention(ctx context.Context, days int) error {
	err := bk.s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bMeta), keyBackupRetention, days)
	})
	if err != nil {
		return fmt.Errorf("storing backup retention: %w", err)
	}
	return nil
}

// Record stores the result of a backup and enqueues jobs (the
// backup.failed notice) in the same transaction.
func (bk Backups) Record(ctx context.Context, r BackupResult, jobs ...JobSpec) error {
	err := bk.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bMeta)
		if err := putJSON(b, keyBackupLast, r); err != nil {
			return err
		}
		if r.OK {
			if err := putJSON(b, keyBackupLastOK, r); err != nil {
				return err
			}
		}
		_, err := bk.s.Jobs().enqueue(tx, jobs)
		return err
	})
	if err != nil {
		return fmt.Errorf("recording backup result: %w", err)
	}
	return nil
}

// SnapshotFile is one media file of a snapshot.
type SnapshotFile struct {
	// Name is the media name, "<eventID>/<file>".
	Name string
	// Path is where to read it: a hard link made at the snapshot's
	// instant, or the media file itself where links are refused.
	Path string
	// Size in bytes.
	Size int64
}

// MediaSnapshot holds the media files of a snapshot until Close.
type MediaSnapshot struct {
	// Files in name order.
	Files []SnapshotFile
	dir   string
}

// Close removes the snapshot's links; the media files stay.
func (m *MediaSnapshot) Close() error {
	if m == nil || m.dir == "" {
		return nil
	}
	if err := os.RemoveAll(m.dir); err != nil {
		return fmt.Errorf("removing snapshot links: %w", err)
	}
	return nil
}

// Snapshot takes a consistent copy of the store for a backup. Inside one
// read transaction it hard-links every media file into a private folder
// of the temp area (links take no room, and a file deleted afterwards
// stays readable through its link) and calls writeDB with the database
// as of that transaction (bolt's Tx.WriteTo) and its size. The media are
// then read from the returned snapshot, outside the transaction; Close it
// when done. A crash leaves the links in the temp area, which Open
// clears.
func (s *Store) Snapshot(ctx context.Context, writeDB func(size int64, db io.WriterTo) error) (*MediaSnapshot, error) {
	dir, err := os.MkdirTemp(s.media.tmp, "snap-")
	if err != nil {
		return nil, fmt.Errorf("creating snapshot folder: %w", err)
	}
	snap := &MediaSnapshot{dir: dir}
	err = s.db.View(func(tx *bolt.Tx) error {
		files, err := s.linkMedia(ctx, dir)
		if err != nil {
			return err
		}
		snap.Files = files
		return writeDB(tx.Size(), tx)
	})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("taking snapshot: %w", err), snap.Close())
	}
	return snap, nil
}

// linkMedia links every media file into dir.
func (s *Store) linkMedia(ctx context.Context, dir string) ([]SnapshotFile, error) {
	var files []SnapshotFile
	err := walkMedia(s.media.root, func(name, path string, size int64) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		f := SnapshotFile{Name: name, Path: path, Size: size}
		link := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(link), 0o750); err != nil {
			return fmt.Errorf("creating snapshot folder: %w", err)
		}
		if err := os.Link(path, link); err == nil {
			f.Path = link
		}
		files = append(files, f)
		return nil
	})
	return files, err
}

// walkMedia calls fn for each regular file of a media root laid out as
// <eventID>/<file>, in name order. A missing root is empty.
func walkMedia(root string, fn func(name, path string, size int64) error) error {
	events, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading media root: %w", err)
	}
	for _, ev := range events {
		if !ev.IsDir() || !ValidID(ev.Name()) {
			continue
		}
		dir := filepath.Join(root, ev.Name())
		entries, err := os.ReadDir(dir)
		if err != nil {
			return fmt.Errorf("reading media of %s: %w", ev.Name(), err)
		}
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, e := range entries {
			if !e.Type().IsRegular() || !validFileName(e.Name()) {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return fmt.Errorf("reading media file %s: %w", e.Name(), err)
			}
			if err := fn(MediaName(ev.Name(), e.Name()), filepath.Join(dir, e.Name()), info.Size()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Usage is what a backup of the store would hold now.
type Usage struct {
	// Files counts the media files; Bytes is their size plus the
	// database's.
	Files int
	Bytes int64
	// DBBytes is the database's size.
	DBBytes int64
}

// Usage measures the media area and the database.
func (s *Store) Usage(ctx context.Context) (Usage, error) {
	var u Usage
	err := s.db.View(func(tx *bolt.Tx) error {
		u.DBBytes = tx.Size()
		return nil
	})
	if err != nil {
		return u, fmt.Errorf("reading database size: %w", err)
	}
	u.Bytes = u.DBBytes
	err = walkMedia(s.media.root, func(_, _ string, size int64) error {
		u.Files++
		u.Bytes += size
		return ctx.Err()
	})
	return u, err
}

// Schema is the database's schema version, and Schemas the newest this
// binary knows.
func (s *Store) Schema(ctx context.Context) (uint64, error) {
	var v uint64
	err := s.db.View(func(tx *bolt.Tx) error {
		if raw := tx.Bucket(bMeta).Get(schemaKey); len(raw) == 8 {
			v = uint64FromBytes(raw)
		}
		return nil
	})
	return v, err
}

// Schemas is the newest schema version this binary knows.
func Schemas() uint64 { return uint64(len(migrations)) }

func uint64FromBytes(b []byte) uint64 {
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v
}

// Dump calls fn with every key and value of every bucket, in bucket and
// key order, inside one read transaction: tests compare a restored store
// with the original through it. key and value die with the call.
func (s *Store) Dump(ctx context.Context, fn func(bucket string, key, value []byte) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			return b.ForEach(func(k, v []byte) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				return fn(string(name), k, v)
			})
		})
	})
}
