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
// commits (TempFile.Commit, then Photos.Add, Messages.Add or Events.SetLogo); the
// grace keeps such a file, should anything be writing while the sweep
// runs, and leaves a file alone when the clock is unsure.
const DefaultMediaGrace = 2 * time.Minute

// The sweep's bulk rule (docs/decisions.md, "Restore: what the box trusts
// and refuses"): unnamed files go one by one only while they are few. When
// more than QuarantineOver files would go at once, or more than
// QuarantineHandful files that are more than a twentieth of the media,
// the records rather than the files are likely wrong (a database restored
// from the wrong backup, a bug): the files are moved into
// DATA_DIR/quarantine/<time>/<event>/ instead, whole, for a host to look
// at.
const (
	QuarantineOver    = 20
	QuarantineHandful = 5
	// QuarantineDirName is the folder of DATA_DIR that holds quarantined
	// files. Nothing the box runs reads, counts or sweeps it.
	QuarantineDirName = "quarantine"
)

// SweepResult counts what a sweep did.
type SweepResult struct {
	// Removed is the number of media files no record named, removed.
	Removed int
	// Quarantined is the number of such files moved into Quarantine
	// instead, because too many would have gone at once.
	Quarantined int
	// Quarantine is the folder they were moved to, or "".
	Quarantine string
	// Recent is the number of such files kept because they are younger than
	// the grace period (or dated in the future).
	Recent int
	// Temp is the number of temp files cleared from the temp area.
	Temp int
}

// SweepMedia reconciles the media area with the records at start: it
// removes every file under media/ that no record names and that was last
// written more than grace ago (by the store's clock), removes the folders
// of events that no longer exist once empty, and clears the temp area. A
// crash between a file's rename into media/<event>/ and the commit of its
// record leaves such a file; Open calls SweepMedia, so they go at the
// next start. Too many at once are quarantined, not removed (the bulk
// rule above).
//
// Named are: a photo's original, its thumb and display, and a video's
// video (Photo.files); a message's voice note; an event's current logo.
// Only folders named like ids are looked into, and only plain files are
// removed.
func (s *Store) SweepMedia(ctx context.Context, grace time.Duration) (SweepResult, error) {
	res, err := s.sweepMedia(ctx, grace)
	n, terr := s.media.clearTemp()
	res.Temp = n
	return res, errors.Join(err, terr)
}

// SweepRunning is the sweep of a running daemon: SweepMedia's media part,
// and, in the temp area, only the files older than grace that no upload
// of this process has open. An upload in flight is never touched: its
// temp file is open, and its file renamed into media/ is younger than
// grace until its record commits.
func (s *Store) SweepRunning(ctx context.Context, grace time.Duration) (SweepResult, error) {
	res, err := s.sweepMedia(ctx, grace)
	n, terr := s.media.clearStaleTemp(s.now().Add(-grace))
	res.Temp = n
	return res, errors.Join(err, terr)
}

// sweepMedia removes or quarantines the unnamed media files older than
// grace. The files are listed before the records are read, so a file
// renamed into place while the sweep runs is not among them.
func (s *Store) sweepMedia(ctx context.Context, grace time.Duration) (SweepResult, error) {
	var res SweepResult
	dirs, err := s.media.EventDirs()
	if err != nil {
		return res, err
	}
	cutoff := s.now().Add(-grace)
	type candidate struct {
		dir, name string
		recent    bool
	}
	var listed []candidate
	var errs []error
	total := 0
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
			if !e.Type().IsRegular() {
				continue
			}
			total++
			info, err := e.Info()
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("reading media file %s/%s: %w", dir, e.Name(), err))
				continue
			}
			listed = append(listed, candidate{dir, e.Name(), info.ModTime().After(cutoff)})
		}
	}
	named, events, err := s.namedMedia()
	if err != nil {
		return res, errors.Join(append(errs, err)...)
	}
	var gone []candidate
	for _, c := range listed {
		switch {
		case named[MediaName(c.dir, c.name)]:
		case c.recent:
			res.Recent++
		default:
			gone = append(gone, c)
		}
	}
	bulk := len(gone) > QuarantineOver || (len(gone) > QuarantineHandful && len(gone)*20 > total)
	if bulk {
		res.Quarantine = filepath.Join(s.dir, QuarantineDirName, s.now().UTC().Format("20060102-150405.000"))
	}
	for _, c := range gone {
		p := filepath.Join(s.media.root, c.dir, c.name)
		if !bulk {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("removing unnamed media file: %w", err))
				continue
			}
			res.Removed++
			continue
		}
		to := filepath.Join(res.Quarantine, c.dir, c.name)
		if err := os.MkdirAll(filepath.Dir(to), 0o750); err != nil {
			errs = append(errs, fmt.Errorf("creating the quarantine folder: %w", err))
			break
		}
		if err := os.Rename(p, to); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("quarantining unnamed media file: %w", err))
			continue
		}
		res.Quarantined++
	}
	if res.Quarantined > 0 {
		if err := syncDir(res.Quarantine); err != nil {
			errs = append(errs, fmt.Errorf("syncing the quarantine folder: %w", err))
		}
		s.log.WarnContext(ctx, "media files no record names were quarantined, not removed: too many at once",
			"files", res.Quarantined, "media_files", total, "folder", res.Quarantine)
	}
	for _, dir := range dirs {
		if !events[dir] {
			// The folder of a deleted event: gone once empty (a recent
			// file keeps it).
			_ = os.Remove(filepath.Join(s.media.root, dir))
		}
	}
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
