package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"

	bolt "go.etcd.io/bbolt"
)

// Bucket names. store/doc.go describes the key layout of each.
var (
	bMeta          = []byte("meta")
	bAccounts      = []byte("accounts")
	bAccountByName = []byte("accounts_by_name")
	bSessions      = []byte("sessions")
	bSessionByAcct = []byte("sessions_by_account")
	bEvents        = []byte("events")
	bEventBySlug   = []byte("events_by_slug")
	bEventByTime   = []byte("events_by_created")
	bEventCounts   = []byte("event_counts")
	bGuests        = []byte("guests")
	bPhotos        = []byte("photos")
	bPhotoByEvent  = []byte("idx_photo_event")
	bPhotoByGuest  = []byte("idx_photo_guest")
	bPhotoByStatus = []byte("idx_photo_status")
	bPhotoFavorite = []byte("idx_photo_favorite")
	bPhotoByChal   = []byte("idx_photo_challenge")
	bPhotoBySpot   = []byte("idx_photo_spot")
	bPhotoByHash   = []byte("idx_photo_hash")
	bVariantQueue  = []byte("variant_queue") // until schema 4

	bContacts      = []byte("contacts")
	bMediaTrash    = []byte("media_trash")
	bSpots         = []byte("spots")
	bMessages      = []byte("messages")
	bMsgByEvent    = []byte("idx_message_event")
	bMsgByGuest    = []byte("idx_message_guest")
	bMsgByStatus   = []byte("idx_message_status")
	bShares        = []byte("shares")
	bShareByToken  = []byte("shares_by_token")
	bStatsHourly   = []byte("stats_hourly")
	bInvitations   = []byte("invitations")
	bInviteByToken = []byte("invitations_by_token")
)

var schemaKey = []byte("schema")

// migrations is the ordered list of schema changes. Entry i brings the
// database from version i to i+1; each runs in its own transaction with the
// version bump. Append only: never edit or reorder a released migration.
var migrations = []func(tx *bolt.Tx) error{
	// 1: the first layout.
	func(tx *bolt.Tx) error {
		for _, name := range [][]byte{
			bAccounts, bAccountByName, bSessions, bSessionByAcct,
			bEvents, bEventBySlug, bEventByTime, bEventCounts,
			bGuests, bPhotos, bPhotoByEvent, bPhotoByGuest, bPhotoByStatus,
			bPhotoFavorite, bPhotoByChal, bPhotoBySpot, bPhotoByHash,
			bVariantQueue, bContacts, bMediaTrash, bSpots,
			bMessages, bMsgByEvent, bMsgByGuest, bMsgByStatus,
			bShares, bShareByToken, bStatsHourly,
			bInvitations, bInviteByToken,
		} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %s: %w", name, err)
			}
		}
		return nil
	},
	// 2: the durable job queue (store/jobs.go).
	func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bJobs, bJobDue, bJobByKind, bJobByStatus, bJobByKey} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %s: %w", name, err)
			}
		}
		return nil
	},
	// 3: an event record lacks the key of a field added after it was
	// written, and would read the field's zero value. These are the
	// fields whose default is not their zero value, with the defaults of
	// the day (frozen here: NewEvent may change later, this may not). No
	// database written by a released binary lacks them yet; the step makes
	// absence mean the default from now on, and a later field whose
	// default is not zero appends a step like it with its own key.
	func(tx *bolt.Tx) error {
		return backfillEvents(tx, map[string]string{
			"uploadsOpen":         `true`,
			"moderation":          `"post"`,
			"captureMode":         `"both"`,
			"askGuestName":        `true`,
			"notifyAdminSummary":  `true`,
			"emailGuestsGallery":  `true`,
			"galleryLinkDays":     `30`,
			"galleryLinkDownload": `true`,
			"guestbookEnabled":    `true`,
			"guestbookVoice":      `true`,
			"challenges":          `[]`,
			"wallStyle":           `{"interval":8,"layout":"single","showNames":true,"showQr":true}`,
			"frame":               `"none"`,
			"captureFilters":      `{"enabled":[]}`,
			"allowVideos":         `true`,
			"qrStyle":             `{"foreground":"#000000","background":"#ffffff","dots":"square","logo":false}`,
			"albumShared":         `true`,
		})
	},
	// 4: the variant_queue bucket's jobs move onto the job queue as
	// "variants" jobs, and the bucket goes (variant_jobs.go).
	migrateVariantQueue,
	// 5: the owners' webhooks (webhooks.go).
	func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bWebhooks); err != nil {
			return fmt.Errorf("creating bucket %s: %w", bWebhooks, err)
		}
		return nil
	},
	// 6: the cloud exports (cloud.go).
	func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(bExports); err != nil {
			return fmt.Errorf("creating bucket %s: %w", bExports, err)
		}
		return nil
	},
	// 7: the hearts of photos and the most-loved index (hearts.go). No
	// photo has a heart yet, so both start empty.
	func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bHearts, bPhotoLoved} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("creating bucket %s: %w", name, err)
			}
		}
		return nil
	},
}

// backfillEvents adds to every event record each key of defaults (JSON
// name → JSON value) that the record lacks. Keys the record has, even with
// a zero value the host chose, are left alone. Only the records change;
// no index derives from these fields.
func backfillEvents(tx *bolt.Tx, defaults map[string]string) error {
	events := tx.Bucket(bEvents)
	updated := map[string][]byte{}
	err := events.ForEach(func(k, v []byte) error {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("reading event %s: %w", k, err)
		}
		changed := false
		for key, val := range defaults {
			if _, ok := rec[key]; !ok {
				rec[key] = json.RawMessage(val)
				changed = true
			}
		}
		if !changed {
			return nil
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return fmt.Errorf("writing event %s: %w", k, err)
		}
		updated[string(k)] = b
		return nil
	})
	if err != nil {
		return err
	}
	// Written after the walk: bbolt forbids changing a bucket while a
	// cursor walks it.
	for k, b := range updated {
		if err := events.Put([]byte(k), b); err != nil {
			return fmt.Errorf("writing event %s: %w", k, err)
		}
	}
	return nil
}

// SchemaVersion is the schema this binary writes.
func SchemaVersion() int { return len(migrations) }

func (s *Store) migrate(ctx context.Context, path string) error {
	var current uint64
	err := s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bMeta)
		if err != nil {
			return err
		}
		if v := b.Get(schemaKey); v != nil {
			current = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("reading schema version: %w", err)
	}
	target := uint64(len(migrations))
	if current > target {
		return fmt.Errorf("schema %d, this binary knows up to %d: %w", current, target, ErrNewerSchema)
	}
	if current < target {
		if err := s.migrateFrom(ctx, path, current); err != nil {
			return err
		}
	}
	// Not a numbered step: a database of any schema (a restored backup
	// included) may hold secrets in clear, and this binary seals them,
	// then rewrites the file so they do not linger in its free pages.
	// An older binary reads a sealed value as none set, which the hosts
	// can correct; it is not refused, so a rollback keeps the box up.
	if _, err := s.Secrets().sealStored(ctx); err != nil {
		return err
	}
	return s.compactIfMarked(ctx, path)
}

// migrateFrom runs the migrations from schema current to this binary's.
func (s *Store) migrateFrom(ctx context.Context, path string, current uint64) error {
	target := uint64(len(migrations))
	if current > 0 {
		backup := fmt.Sprintf("%s.schema-%d.bak", path, current)
		if err := s.copyTo(backup); err != nil {
			return fmt.Errorf("copying database before migrating: %w", err)
		}
		s.log.InfoContext(ctx, "database copied before migration", "copy", backup)
	}
	for v := current; v < target; v++ {
		err := s.db.Update(func(tx *bolt.Tx) error {
			if err := migrations[v](tx); err != nil {
				return err
			}
			return tx.Bucket(bMeta).Put(schemaKey, u64(v+1))
		})
		if err != nil {
			return fmt.Errorf("migrating to schema %d: %w", v+1, err)
		}
		s.log.InfoContext(ctx, "database migrated", "schema", v+1)
	}
	return nil
}

// copyTo writes a consistent snapshot of the database to path.
func (s *Store) copyTo(path string) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return writeFileAtomic(path, func(w io.Writer) error {
			_, err := tx.WriteTo(w)
			return err
		})
	})
}

// writeFileAtomic writes a file by temp file, fsync and rename, so that a
// power cut leaves either the old file or the new one.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(dirOf(path), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	ok = true
	return syncDir(dirOf(path))
}
