package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"eventbox/secret"
)

// Sentinel errors. The HTTP layer maps them to answers in one place.
var (
	// ErrNotFound: the record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: a unique value (username, slug) is taken.
	ErrConflict = errors.New("conflict")
	// ErrLocked: another process holds the database.
	ErrLocked = errors.New("database is in use by another eventbox process")
	// ErrNewerSchema: the database was written by a newer eventbox.
	ErrNewerSchema = errors.New("database was written by a newer eventbox")
)

// DBFile is the name of the bbolt file inside DATA_DIR.
const DBFile = "eventbox.db"

// Options configures Open.
type Options struct {
	// LockTimeout bounds the wait for the file lock held by another
	// process. Zero means one second.
	LockTimeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives store events; nil discards them.
	Logger *slog.Logger
	// MediaGrace is how old a media file no record names must be before
	// Open's sweep removes it (SweepMedia). Zero means DefaultMediaGrace.
	MediaGrace time.Duration
	// MediaSweepLater leaves the media area's walk to the caller: Open
	// clears the temp area but does not read every media file and record
	// (with 20,000 photos that walk was most of a start). The caller runs
	// SweepRunning soon after; the daemon does at once, in the background,
	// while it serves.
	MediaSweepLater bool
	// Unkeyed opens the store without the sealing key (secret.LoadKey of
	// dir), for a database that is only inspected (a restore being
	// staged): sealed values read as lost, clear ones are left for the
	// next keyed open to seal, and writing a secret fails.
	Unkeyed bool

	// restoreCrash stops a pending restore's swap at a named step, as a
	// power cut would (store tests only).
	restoreCrash func(step string) error
}

// Store holds every record of the product in one bbolt file and the media
// files beside it. It is safe for concurrent use.
type Store struct {
	db     *bolt.DB
	dir    string
	now    func() time.Time
	log    *slog.Logger
	media  *Media
	key    []byte // seals the secrets in records; nil when unkeyed
	closed chan struct{}
}

// Open opens (creating if needed) the store in dir: the database file, the
// media area and the temp area. It finishes interrupted deletions
// (EmptyTrash) and removes media files no record names, or quarantines
// them when too many would go at once (SweepMedia). It runs pending migrations and refuses a
// database from a newer schema. A second process gets ErrLocked within
// LockTimeout.
func Open(ctx context.Context, dir string, opts Options) (*Store, error) {
	if opts.LockTimeout == 0 {
		opts.LockTimeout = time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("creating data dir: %w", err)
	}
	path := filepath.Join(dir, DBFile)
	// A restore decided before the process stopped (the daemon restarts
	// itself after a restore, or a power cut came) is finished first. The
	// database's lock is taken before, so a second process fails as
	// usual, unless the cut came while the swap had moved the database
	// out (no file to lock, and no process can be using one).
	var db *bolt.DB
	if _, err := os.Stat(path); err == nil || !RestorePending(dir) {
		if db, err = openBolt(path, opts.LockTimeout); err != nil {
			return nil, err
		}
		if RestorePending(dir) || dirExists(restoreDir(dir)) {
			if err := db.Close(); err != nil {
				return nil, fmt.Errorf("closing %s before a restore: %w", path, err)
			}
			db = nil
		}
	}
	if db == nil {
		swapped, err := finishRestore(ctx, dir, opts.restoreCrash)
		if err != nil {
			return nil, fmt.Errorf("finishing a restore: %w", err)
		}
		if swapped {
			opts.Logger.InfoContext(ctx, "restored data swapped in")
		}
		if db, err = openBolt(path, opts.LockTimeout); err != nil {
			return nil, err
		}
	}
	media, err := openMedia(dir)
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	s := &Store{db: db, dir: dir, now: opts.Now, log: opts.Logger, media: media, closed: make(chan struct{})}
	if !opts.Unkeyed {
		if s.key, err = secret.LoadKey(dir); err != nil {
			return nil, errors.Join(err, db.Close())
		}
	}
	if err := s.migrate(ctx, path); err != nil {
		return nil, errors.Join(s.db.Close(), err)
	}
	if err := s.EmptyTrash(ctx); err != nil {
		s.log.WarnContext(ctx, "media trash not emptied", "error", err)
	}
	if n, err := s.Jobs().recoverRunning(ctx); err != nil {
		return nil, errors.Join(err, db.Close())
	} else if n > 0 {
		s.log.WarnContext(ctx, "jobs were running when the process stopped", "jobs", n)
	}

	if opts.MediaSweepLater {
		n, err := s.media.clearTemp()
		if err != nil {
			s.log.WarnContext(ctx, "temp area not cleared", "error", err)
		}
		s.log.InfoContext(ctx, "temp area cleared; the media area is reconciled in the background", "temp_cleared", n)
		return s, nil
	}
	if opts.MediaGrace == 0 {
		opts.MediaGrace = DefaultMediaGrace
	}
	res, err := s.SweepMedia(ctx, opts.MediaGrace)
	if err != nil {
		s.log.WarnContext(ctx, "media area not reconciled", "error", err)
	}
	s.log.InfoContext(ctx, "media area reconciled", "removed", res.Removed, "recent_kept", res.Recent, "temp_cleared", res.Temp,
		"quarantined", res.Quarantined)
	return s, nil
}

// openBolt opens the database file with a lock timeout.
func openBolt(path string, timeout time.Duration) (*bolt.DB, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: timeout})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return nil, fmt.Errorf("opening %s: %w", path, ErrLocked)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return db, nil
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// Close closes the database. Close is idempotent.
func (s *Store) Close() error {
	select {
	case <-s.closed:
		return nil
	default:
		close(s.closed)
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("closing db: %w", err)
	}
	return nil
}

// Dir is the data directory the store was opened in.
func (s *Store) Dir() string { return s.dir }

// Media is the store's media area on disk.
func (s *Store) Media() *Media { return s.media }

// Ping reads the database; it fails when the database cannot be read.
func (s *Store) Ping(ctx context.Context) error {
	return s.db.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bMeta) == nil {
			return errors.New("meta bucket missing")
		}
		return nil
	})
}

func (s *Store) nowMs() int64 { return s.now().UnixMilli() }

// getJSON decodes the value at key in b into v; ErrNotFound when absent.
func getJSON(b *bolt.Bucket, key []byte, v any) error {
	raw := b.Get(key)
	if raw == nil {
		return ErrNotFound
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("decoding %s/%s: %w", "record", key, err)
	}
	return nil
}

// putJSON encodes v as the value at key in b.
func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding record %s: %w", key, err)
	}
	return b.Put(key, raw)
}
