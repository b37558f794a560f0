package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Challenge is a photo prompt of an event ("the best dance move").
type Challenge struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// WallStyle configures the live wall shown on a screen at the venue.
type WallStyle struct {
	Interval  int    `json:"interval"` // seconds per slide
	Layout    string `json:"layout"`   // single | grid
	ShowNames bool   `json:"showNames"`
	ShowQR    bool   `json:"showQr"`
}

// QRStyle configures the printed QR codes.
type QRStyle struct {
	Foreground string `json:"foreground"` // #rrggbb
	Background string `json:"background"` // #rrggbb
	Dots       string `json:"dots"`       // square | round
	Logo       bool   `json:"logo"`
}

// CaptureFilters lists the camera filters offered to guests.
type CaptureFilters struct {
	Enabled []string `json:"enabled"`
}

// Event is one party. Optional values are empty strings or zero when
// absent: EventDate, AccentColor, AccessCode, DefaultLocale ("" = none),
// UploadsCloseAt, RevealAt, EndedAt, LogoVersion (0 = none).
type Event struct {
	ID                          string         `json:"id"`
	Slug                        string         `json:"slug"`
	Name                        string         `json:"name"`
	Description                 string         `json:"description"`
	EventDate                   string         `json:"eventDate"`
	AccentColor                 string         `json:"accentColor"`
	AccessCode                  string         `json:"accessCode"`
	UploadsOpen                 bool           `json:"uploadsOpen"`
	UploadsCloseAt              int64          `json:"uploadsCloseAt"`
	Moderation                  string         `json:"moderation"`
	CaptureMode                 string         `json:"captureMode"`
	AskGuestName                bool           `json:"askGuestName"`
	MaxPhotosPerGuest           int            `json:"maxPhotosPerGuest"`
	DefaultLocale               string         `json:"defaultLocale"`
	CollectGuestEmails          bool           `json:"collectGuestEmails"`
	NotifyAdminSummary          bool           `json:"notifyAdminSummary"`
	EmailGuestsGallery          bool           `json:"emailGuestsGallery"`
	GalleryLinkDays             int            `json:"galleryLinkDays"`
	GalleryLinkDownload         bool           `json:"galleryLinkDownload"`
	GalleryMailIncludesPassword bool           `json:"galleryMailIncludesPassword"`
	GalleryLinkFavorites        bool           `json:"galleryLinkFavorites"`
	GuestbookEnabled            bool           `json:"guestbookEnabled"`
	GuestbookVoice              bool           `json:"guestbookVoice"`
	GuestbookInGallery          bool           `json:"guestbookInGallery"`
	Challenges                  []Challenge    `json:"challenges"`
	WallStyle                   WallStyle      `json:"wallStyle"`
	Frame                       string         `json:"frame"`
	CaptureFilters              CaptureFilters `json:"captureFilters"`
	AllowVideos                 bool           `json:"allowVideos"`
	QRStyle                     QRStyle        `json:"qrStyle"`
	AlbumShared                 bool           `json:"albumShared"`
	// RevealAt, epoch ms, keeps the shared album closed to guests until
	// then: before it each guest sees only their own photos. 0 = none.
	RevealAt    int64 `json:"revealAt"`
	CreatedAt   int64 `json:"createdAt"`
	EndedAt     int64 `json:"endedAt"`
	LogoVersion int64 `json:"logoVersion"`
	// BoothKeyHash is the HashToken of the booth device key; "" = booth off.
	BoothKeyHash string `json:"boothKeyHash,omitempty"`
	// EndShareID is the gallery link made when the event ended (Events.End);
	// "" = none. The guest page shows it once the event has ended.
	EndShareID string `json:"endShareId,omitempty"`
}

// EventCounts are an event's running totals, kept in the same transaction
// as the records they count.
type EventCounts struct {
	Photos   int   `json:"photos"` // photos and videos, every status
	Videos   int   `json:"videos"`
	Pending  int   `json:"pending"`
	Messages int   `json:"messages"`
	Guests   int   `json:"guests"` // joins (Guests.CountJoin) and booth devices, stored or not
	Bytes    int64 `json:"bytes"`  // originals and voice notes
}

// Events holds the events: their records, slugs, logos, running totals,
// duplication and end. It is a view of the Store it came from, as cheap to
// copy as a pointer; its methods are safe for concurrent use.
type Events struct{ s *Store }

// Events returns the events.
func (s *Store) Events() Events { return Events{s} }

// Create stores a new event, assigning ID, a unique Slug and
// CreatedAt.
func (ev Events) Create(ctx context.Context, e *Event) error {
	e.ID = NewID()
	e.CreatedAt = ev.s.nowMs()
	err := ev.s.db.Update(func(tx *bolt.Tx) error {
		slug, err := freeSlug(tx)
		if err != nil {
			return err
		}
		e.Slug = slug
		if err := tx.Bucket(bEventBySlug).Put([]byte(slug), []byte(e.ID)); err != nil {
			return err
		}
		if err := tx.Bucket(bEventByTime).Put(join(timeKey(e.CreatedAt), []byte(e.ID)), nil); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bEvents), []byte(e.ID), e)
	})
	if err != nil {
		return fmt.Errorf("creating event: %w", err)
	}
	return nil
}

func freeSlug(tx *bolt.Tx) (string, error) {
	b := tx.Bucket(bEventBySlug)
	for range 64 {
		slug := NewSlug()
		if b.Get([]byte(slug)) == nil {
			return slug, nil
		}
	}
	return "", errors.New("no free slug after 64 tries")
}

// Get returns the event with the id.
func (ev Events) Get(ctx context.Context, id string) (Event, error) {
	var e Event
	err := ev.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bEvents), []byte(id), &e)
	})
	if err != nil {
		return Event{}, fmt.Errorf("reading event %s: %w", id, err)
	}
	return e, nil
}

// BySlug returns the event whose current slug is slug.
func (ev Events) BySlug(ctx context.Context, slug string) (Event, error) {
	var e Event
	err := ev.s.db.View(func(tx *bolt.Tx) error {
		id := tx.Bucket(bEventBySlug).Get([]byte(slug))
		if id == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bEvents), id, &e)
	})
	if err != nil {
		return Event{}, fmt.Errorf("reading event by slug: %w", err)
	}
	return e, nil
}

// List lists every event, newest first, from the creation-time index.
func (ev Events) List(ctx context.Context) ([]Event, error) {
	var out []Event
	err := ev.s.db.View(func(tx *bolt.Tx) error {
		events := tx.Bucket(bEvents)
		c := tx.Bucket(bEventByTime).Cursor()
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			var e Event
			if err := getJSON(events, k[8:], &e); err != nil {
				return err
			}
			out = append(out, e)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing events: %w", err)
	}
	return out, nil
}

// Update applies fn to the stored event in one transaction, and
// enqueues jobs (a notice of the change) in it when fn succeeds. fn must
// not change ID, Slug or CreatedAt (they are restored). An error from fn
// aborts the update and is returned as is.
func (ev Events) Update(ctx context.Context, id string, fn func(*Event) error, jobs ...JobSpec) (Event, error) {
	var e Event
	err := ev.s.db.Update(func(tx *bolt.Tx) error {
		events := tx.Bucket(bEvents)
		if err := getJSON(events, []byte(id), &e); err != nil {
			return err
		}
		slug, created := e.Slug, e.CreatedAt
		if err := fn(&e); err != nil {
			return err
		}
		e.ID, e.Slug, e.CreatedAt = id, slug, created
		if _, err := ev.s.Jobs().enqueue(tx, jobs); err != nil {
			return err
		}
		return putJSON(events, []byte(id), &e)
	})
	if err != nil {
		return Event{}, fmt.Errorf("updating event %s: %w", id, err)
	}
	return e, nil
}

// RotateSlug gives the event a new slug; the old one stops working at once.
// Guests stay joined: their cookie names the event id, not the slug.
func (ev Events) RotateSlug(ctx context.Context, id string) (Event, error) {
	var e Event
	err := ev.s.db.Update(func(tx *bolt.Tx) error {
		events := tx.Bucket(bEvents)
		if err := getJSON(events, []byte(id), &e); err != nil {
			return err
		}
		slug, err := freeSlug(tx)
		if err != nil {
			return err
		}
		bySlug := tx.Bucket(bEventBySlug)
		if err := bySlug.Delete([]byte(e.Slug)); err != nil {
			return err
		}
		if err := bySlug.Put([]byte(slug), []byte(id)); err != nil {
			return err
		}
		e.Slug = slug
		return putJSON(events, []byte(id), &e)
	})
	if err != nil {
		return Event{}, fmt.Errorf("rotating slug of event %s: %w", id, err)
	}
	return e, nil
}

// Counts returns the running totals of an event.
func (ev Events) Counts(ctx context.Context, eventID string) (EventCounts, error) {
	var c EventCounts
	err := ev.s.db.View(func(tx *bolt.Tx) error {
		err := getJSON(tx.Bucket(bEventCounts), []byte(eventID), &c)
		if errors.Is(err, ErrNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return EventCounts{}, fmt.Errorf("reading counts of event %s: %w", eventID, err)
	}
	return c, nil
}

func updateCounts(tx *bolt.Tx, eventID string, fn func(*EventCounts)) error {
	b := tx.Bucket(bEventCounts)
	var c EventCounts
	if err := getJSON(b, []byte(eventID), &c); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	fn(&c)
	return putJSON(b, []byte(eventID), c)
}

// Delete removes an event and every record that belongs to it
// (photos, guests, contacts, places, gallery links, hourly counters and
// their indexes) in one transaction, then its media folder. The folder is
// queued in the trash in the same transaction, so a power cut between the
// two is finished by EmptyTrash (and SweepMedia) at the next start.
func (ev Events) Delete(ctx context.Context, id string) error {
	err := ev.s.db.Update(func(tx *bolt.Tx) error {
		var e Event
		if err := getJSON(tx.Bucket(bEvents), []byte(id), &e); err != nil {
			return err
		}
		if err := tx.Bucket(bEventBySlug).Delete([]byte(e.Slug)); err != nil {
			return err
		}
		if err := tx.Bucket(bEventByTime).Delete(join(timeKey(e.CreatedAt), []byte(id))); err != nil {
			return err
		}
		if err := tx.Bucket(bEventCounts).Delete([]byte(id)); err != nil {
			return err
		}
		if err := deleteEventPhotos(tx, id); err != nil {
			return err
		}
		if err := deleteEventGuests(tx, id); err != nil {
			return err
		}
		if err := deleteEventSpots(tx, id); err != nil {
			return err
		}
		if err := deleteEventMessages(tx, id); err != nil {
			return err
		}
		if err := deleteEventWalls(tx, id); err != nil {
			return err
		}
		if err := deleteEventShares(tx, id); err != nil {
			return err
		}
		if err := deleteEventStats(tx, id); err != nil {
			return err
		}
		if err := deleteEventExports(tx, id); err != nil {
			return err
		}
		if err := deleteEventPrintLayout(tx, id); err != nil {
			return err
		}
		if err := forgetEvent(tx, id); err != nil {
			return err
		}
		// The folder goes after the commit; the trash entry makes sure it
		// goes even if the power is cut in between.
		if err := tx.Bucket(bMediaTrash).Put([]byte(id), nil); err != nil {
			return err
		}
		return tx.Bucket(bEvents).Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("deleting event %s: %w", id, err)
	}
	return ev.s.EmptyTrash(ctx)
}

// deletePrefix removes every key of b that starts with prefix.
func deletePrefix(b *bolt.Bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// EmptyTrash removes the media files and folders that deleted records
// left behind. Deletions queue their files in the trash bucket in the same
// transaction as the record, so a power cut between the commit and the
// removal is finished here (Open calls it too).
func (s *Store) EmptyTrash(ctx context.Context) error {
	var names []string
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bMediaTrash).ForEach(func(k, _ []byte) error {
			names = append(names, string(k))
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("reading media trash: %w", err)
	}
	var errs []error
	var done [][]byte
	for _, name := range names {
		var err error
		if ValidID(name) {
			err = s.media.RemoveEvent(name)
		} else {
			err = s.media.Remove(name)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		done = append(done, []byte(name))
	}
	if len(done) > 0 {
		err := s.db.Update(func(tx *bolt.Tx) error {
			for _, k := range done {
				if err := tx.Bucket(bMediaTrash).Delete(k); err != nil {
					return err
				}
			}
			return nil
		})
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func trash(tx *bolt.Tx, names ...string) error {
	for _, n := range names {
		if err := tx.Bucket(bMediaTrash).Put([]byte(n), nil); err != nil {
			return err
		}
	}
	return nil
}
