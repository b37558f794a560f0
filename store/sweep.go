package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// DefaultMediaGrace is how old a media file no record names must be before
// SweepMedia removes it, when Options.MediaGrace is zero. A file is renamed
// into the media area a moment before the transaction that names it
// commits (TempFile.Commit, then AddPhoto, AddMessage or SetLogo); the
// grace keeps such a file, should anything be writing while the sweep
// runs, and leaves a file alone when the clock is unsure.
const DefaultMediaGrace = 2 * time.Minute

// SweepResult counts what SweepMedia did.
type SweepResult struct {
	// Removed is the number of media files no record named, removed.
	Removed int
	// Recent is the number of such files kept because they are younger than
	// the grace period (or dated in the future).
	Recent int
	// Temp is the number of temp files cleared from the temp area.
	Temp int
}

// SweepMedia reconciles the media area with the records: it removes every
// file under media/ that no record names and that was last written more
// than grace ago (by the store's clock), removes the folders of events that
// no longer exist once empty, and clears the temp area. A crash between a
// file's rename into media/<event>/ and the commit of its record leaves
// such a file; Open calls SweepMedia, so they go at the next start.
//
// Named are: a photo's original, its thumb and display, and a video's
// video (Photo.files); a message's voice note; an event's current logo.
// Only folders named like ids are looked into, and only plain files are
// removed.
func (s *Store) SweepMedia(ctx context.Context, grace time.Duration) (SweepResult, error) {
	var res SweepResult
	named, events, err := s.namedMedia()
	if err != nil {
		return res, err
	}
	dirs, err := s.media.EventDirs()
	if err != nil {
		return res, err
	}
	cutoff := s.now().Add(-grace)
	var errs []error
	for _, dir := range dirs {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		entries, err := os.ReadDir(filepath.Join(s.media.root, dir))
		if err != nil {
			errs = append(errs, fmt.Errorf("reading media of %s: %w", dir, err))
			continue
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || named[MediaName(dir, e.Name())] {
				continue
			}
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("reading media file %s/%s: %w", dir, e.Name(), err))
				continue
			}
			if info.ModTime().After(cutoff) {
				res.Recent++
				continue
			}
			p := filepath.Join(s.media.root, dir, e.Name())
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("removing unnamed media file: %w", err))
				continue
			}
			res.Removed++
		}
		if !events[dir] {
			// The folder of a deleted event: gone once empty (a recent
			// file keeps it).
			_ = os.Remove(filepath.Join(s.media.root, dir))
		}
	}
	n, err := s.media.clearTemp()
	res.Temp = n
	errs = append(errs, err)
	return res, errors.Join(errs...)
}

// namedMedia reads the media names the records point at, and the ids of
// the events.
func (s *Store) namedMedia() (map[string]bool, map[string]bool, error) {
	named, events := map[string]bool{}, map[string]bool{}
	err := s.db.View(func(tx *bolt.Tx) error {
		err := tx.Bucket(bEvents).ForEach(func(k, v []byte) error {
			var e Event
			if err := json.Unmarshal(v, &e); err != nil {
				return fmt.Errorf("decoding event %s: %w", k, err)
			}
			events[e.ID] = true
			if name := e.LogoName(); name != "" {
				named[name] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		err = tx.Bucket(bPhotos).ForEach(func(k, v []byte) error {
			var p Photo
			if err := json.Unmarshal(v, &p); err != nil {
				return fmt.Errorf("decoding photo %s: %w", k, err)
			}
			for _, name := range p.files() {
				named[name] = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		return tx.Bucket(bMessages).ForEach(func(k, v []byte) error {
			var m Message
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("decoding message %s: %w", k, err)
			}
			if m.HasAudio() {
				named[m.AudioName()] = true
			}
			return nil
		})
	})
	if err != nil {
		return nil, nil, fmt.Errorf("reading the media names of the records: %w", err)
	}
	return named, events, nil
}
