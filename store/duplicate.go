package store

import (
	"context"
	"errors"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Duplicate creates a new event named name from the event id, for the
// next party with the same setup, and returns it.
//
// Copied: every setting (access code, moderation, capture and mail
// options, gallery-link defaults, guestbook options, frame, filters, wall
// and QR styles), the challenges with their ids, the places (with new ids,
// in the same order) and the logo file. Not copied: photos, messages,
// guests, contacts, gallery links, the booth key, and the lifecycle of the
// source: the copy gets a new id and slug, createdAt now, endedAt 0,
// uploadsOpen true and uploadsCloseAt 0.
//
// The logo is copied before the transaction that creates the records; if
// that transaction fails, the copy's media folder is removed again.
func (ev Events) Duplicate(ctx context.Context, id, name string) (Event, error) {
	src, err := ev.Get(ctx, id)
	if err != nil {
		return Event{}, err
	}
	spots, err := ev.s.Spots().List(ctx, id)
	if err != nil {
		return Event{}, err
	}
	e := src
	e.ID = NewID()
	e.Name = name
	e.CreatedAt = ev.s.nowMs()
	e.EndedAt = 0
	e.UploadsOpen = true
	e.UploadsCloseAt = 0
	e.BoothKeyHash = ""
	e.Challenges = slices.Clone(src.Challenges)
	e.CaptureFilters.Enabled = slices.Clone(src.CaptureFilters.Enabled)
	if src.LogoVersion != 0 {
		if err := ev.copyMedia(src.LogoName(), e.LogoName()); errors.Is(err, ErrNotFound) {
			ev.s.log.WarnContext(ctx, "logo file missing, duplicate has no logo", "event", id)
			e.LogoVersion = 0
		} else if err != nil {
			return Event{}, fmt.Errorf("duplicating event %s: %w", id, err)
		}
	}
	err = ev.s.db.Update(func(tx *bolt.Tx) error {
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
		for i, sp := range spots {
			// Places keep their order: createdAt is the copy's time plus
			// the place's rank in milliseconds.
			cp := Spot{ID: NewID(), EventID: e.ID, Label: sp.Label, CreatedAt: e.CreatedAt + int64(i)}
			if err := putJSON(tx.Bucket(bSpots), spotKey(cp.EventID, cp.ID), cp); err != nil {
				return err
			}
		}
		return putJSON(tx.Bucket(bEvents), []byte(e.ID), &e)
	})
	if err != nil {
		if rmErr := ev.s.media.RemoveEvent(e.ID); rmErr != nil {
			ev.s.log.WarnContext(ctx, "removing the files of a failed duplicate", "error", rmErr)
		}
		return Event{}, fmt.Errorf("duplicating event %s: %w", id, err)
	}
	return e, nil
}

// copyMedia copies one media file to another name, atomically.
func (ev Events) copyMedia(from, to string) error {
	f, err := ev.s.media.Open(from)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := ev.s.media.Write(to, f); err != nil {
		return err
	}
	return nil
}
