package cloudexport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"eventbox/store"
)

// ManifestName is the manifest's name in the event's folder: written last,
// so a folder with one holds a whole export.
const ManifestName = "manifest.json"

// Manifest is what an export sent (docs/many-boxes-one-bucket.md): a
// rental company's tools read it to pick events up.
type Manifest struct {
	// Version is the manifest's format, 1.
	Version int `json:"version"`
	// Box is the box's name in the keys (S3) or "" (WebDAV).
	Box   string        `json:"box,omitempty"`
	Event ManifestEvent `json:"event"`
	// Export is the export's id; Scope visible or favorites.
	Export string `json:"export"`
	Scope  string `json:"scope"`
	// At is when the manifest was written (RFC 3339, UTC).
	At string `json:"at"`
	// Files are the files sent, index.html among them, by their path in
	// the event's folder.
	Files []ManifestFile `json:"files"`
}

// ManifestEvent names the exported event.
type ManifestEvent struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Date is the event's date (YYYY-MM-DD) or "".
	Date string `json:"date,omitempty"`
}

// ManifestFile is one file of an export.
type ManifestFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SHA256 is the hex SHA-256 of the file's bytes; "" for a HEIC's JPEG
	// copy an earlier export sent, whose bytes the box does not keep.
	SHA256 string `json:"sha256,omitempty"`
}

// manifest writes manifest.json into the event's folder, last.
func (s *Exporter) manifest(ctx context.Context, remote target, folder string, e store.Event, x store.Export,
	items []exportItem, state exportState) error {
	m := Manifest{Version: 1, Event: ManifestEvent{ID: e.ID, Name: e.Name, Date: e.EventDate},
		Export: x.ID, Scope: x.Scope, At: s.now().UTC().Format(time.RFC3339), Files: []ManifestFile{}}
	if _, ok := remote.(s3Target); ok {
		settings, _, err := s.store.Cloud().Settings(ctx)
		if err != nil {
			return err
		}
		m.Box = s.boxName(settings)
	}
	for _, it := range items {
		f, ok := state.Files[it.path()]
		if !ok {
			continue // a file deleted since it was listed, or a HEIC without its copy
		}
		m.Files = append(m.Files, ManifestFile{Path: it.path(), Size: f.Size, SHA256: f.SHA256})
	}
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("writing the manifest: %w", err)
	}
	r := bytes.NewReader(append(raw, '\n'))
	_, err = remote.put(ctx, folder, ManifestName, r, r.Size())
	return err
}
