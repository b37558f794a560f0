// Package backupzip writes and reads eventbox's backup ZIP, stages a restore,
// keeps the scheduled backups on the card or a USB drive, and prunes them
// (docs/decisions.md, "Backups and restore").
//
// # The ZIP
//
//	eventbox.db                    the database as of one read transaction (Tx.WriteTo)
//	media/<eventID>/<file>         every media file, as it was at that instant
//	manifest.json                  Manifest: version, createdAt, files, bytes, db, SHA-256 per file
//
// The manifest comes last because its checksums are computed while the
// files stream; readers find it through the ZIP's central directory. Media
// are stored (already compressed), the database is deflated. DATA_DIR's
// secret.key (which seals the SMTP password) and DATA_DIR/backups are not
// in a backup: a restored box asks for the SMTP password again.
package backupzip

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"time"

	"eventbox/store"
)

// FormatVersion is the version of the backup layout this binary writes and
// reads.
const FormatVersion = 1

// Names inside the ZIP.
const (
	ManifestName = "manifest.json"
	DBName       = store.DBFile
	mediaPrefix  = "media/"
)

// Manifest describes a backup ZIP.
type Manifest struct {
	// Version is the layout's FormatVersion.
	Version int `json:"version"`
	// App is the eventbox version that wrote it.
	App string `json:"app"`
	// CreatedAt is the snapshot's time, epoch ms.
	CreatedAt int64 `json:"createdAt"`
	// Files lists every file but the manifest, the database first.
	Files []File `json:"files"`
	// Bytes is the sum of the files' sizes.
	Bytes int64 `json:"bytes"`
	// DB is the database file, with its schema version.
	DB DB `json:"db"`
}

// File is one file of a backup.
type File struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// DB describes the database snapshot.
type DB struct {
	File
	Schema uint64 `json:"schema"`
}

// WriteOptions are the details a backup records.
type WriteOptions struct {
	// App is the running version.
	App string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Write streams a backup of st to w: the database snapshot, the media and
// the manifest. Nothing is staged on disk but hard links (store.Snapshot).
// After the first byte a failure leaves w with a broken ZIP; the caller
// aborts the connection or removes the file.
func Write(ctx context.Context, st *store.Store, w io.Writer, opts WriteOptions) (Manifest, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	schema, err := st.Schema(ctx)
	if err != nil {
		return Manifest{}, fmt.Errorf("reading schema: %w", err)
	}
	m := Manifest{Version: FormatVersion, App: opts.App, CreatedAt: opts.Now().UnixMilli()}
	zw := zip.NewWriter(w)
	modified := time.UnixMilli(m.CreatedAt)
	snap, err := st.Snapshot(ctx, func(size int64, db io.WriterTo) error {
		f, err := add(zw, DBName, zip.Deflate, modified, func(w io.Writer) (int64, error) { return db.WriteTo(w) })
		if err != nil {
			return err
		}
		m.DB = DB{File: f, Schema: schema}
		return nil
	})
	if err != nil {
		return m, err
	}
	defer snap.Close()
	m.Files = append(m.Files, m.DB.File)
	m.Bytes = m.DB.Bytes
	for _, sf := range snap.Files {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		f, err := add(zw, mediaPrefix+sf.Name, zip.Store, modified, func(w io.Writer) (int64, error) {
			return copyFile(w, sf.Path)
		})
		if err != nil {
			return m, err
		}
		m.Files = append(m.Files, f)
		m.Bytes += f.Bytes
	}
	raw, err := marshalManifest(m)
	if err != nil {
		return m, err
	}
	if _, err := add(zw, ManifestName, zip.Deflate, modified, func(w io.Writer) (int64, error) {
		n, err := w.Write(raw)
		return int64(n), err
	}); err != nil {
		return m, err
	}
	if err := zw.Close(); err != nil {
		return m, fmt.Errorf("finishing backup zip: %w", err)
	}
	return m, nil
}

// add writes one entry and answers its size and checksum.
func add(zw *zip.Writer, name string, method uint16, modified time.Time, write func(io.Writer) (int64, error)) (File, error) {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: modified})
	if err != nil {
		return File{}, fmt.Errorf("adding %s to the backup: %w", name, err)
	}
	h := sha256.New()
	n, err := write(io.MultiWriter(w, h))
	if err != nil {
		return File{}, fmt.Errorf("writing %s to the backup: %w", name, err)
	}
	return File{Name: name, Bytes: n, SHA256: sum(h)}, nil
}

func sum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// RefusedError is a backup that cannot be restored; File names the
// offending file of the ZIP (the ZIP itself is "backup.zip").
type RefusedError struct {
	File   string
	Reason string
}

func (e *RefusedError) Error() string { return fmt.Sprintf("backup refused: %s: %s", e.File, e.Reason) }

// ZipName stands for the ZIP itself in a RefusedError.
const ZipName = "backup.zip"

func refuse(file, format string, args ...any) error {
	return &RefusedError{File: file, Reason: fmt.Sprintf(format, args...)}
}

// IsRefused reports whether err refuses a backup, and which file.
func IsRefused(err error) (*RefusedError, bool) {
	var re *RefusedError
	ok := errors.As(err, &re)
	return re, ok
}
