package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Spot is a tagged place of an event (the bar, the garden): its QR code
// sends guests to /e/<slug>?at=<spotID>, and their photos carry the spot.
type Spot struct {
	ID        string `json:"id"`
	EventID   string `json:"eventId"`
	Label     string `json:"label"`
	CreatedAt int64  `json:"createdAt"`
}

// MaxSpots is how many places one event may have.
const MaxSpots = 100

// ErrTooMany: a per-event limit is reached.
var ErrTooMany = errors.New("limit reached")

func spotKey(eventID, spotID string) []byte { return []byte(eventID + spotID) }

// Spots holds the places of an event that photos are tagged with. It is a
// view of the Store it came from, as cheap to copy as a pointer; its
// methods are safe for concurrent use.
type Spots struct{ s *Store }

// Spots returns the places of an event that photos are tagged with.
func (s *Store) Spots() Spots { return Spots{s} }

// Create adds a place to an event, assigning ID and CreatedAt;
// ErrTooMany past MaxSpots.
func (so Spots) Create(ctx context.Context, sp *Spot) error {
	sp.ID = NewID()
	sp.CreatedAt = so.s.nowMs()
	err := so.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSpots)
		if countPrefix(b, []byte(sp.EventID), MaxSpots) >= MaxSpots {
			return ErrTooMany
		}
		return putJSON(b, spotKey(sp.EventID, sp.ID), sp)
	})
	if err != nil {
		return fmt.Errorf("creating spot: %w", err)
	}
	return nil
}

// Get returns a place of an event; a place of another event is
// ErrNotFound.
func (so Spots) Get(ctx context.Context, eventID, spotID string) (Spot, error) {
	var sp Spot
	err := so.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bSpots), spotKey(eventID, spotID), &sp)
	})
	if err != nil {
		return Spot{}, fmt.Errorf("reading spot: %w", err)
	}
	return sp, nil
}

// List lists an event's places, oldest first.
func (so Spots) List(ctx context.Context, eventID string) ([]Spot, error) {
	var out []Spot
	err := so.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSpots)
		c := b.Cursor()
		for k, _ := c.Seek([]byte(eventID)); k != nil && len(k) == 2*IDLen && string(k[:IDLen]) == eventID; k, _ = c.Next() {
			var sp Spot
			if err := getJSON(b, k, &sp); err != nil {
				return err
			}
			out = append(out, sp)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing spots: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out, nil
}

// Rename changes a place's label.
func (so Spots) Rename(ctx context.Context, eventID, spotID, label string) (Spot, error) {
	var sp Spot
	err := so.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSpots)
		if err := getJSON(b, spotKey(eventID, spotID), &sp); err != nil {
			return err
		}
		sp.Label = label
		return putJSON(b, spotKey(eventID, spotID), sp)
	})
	if err != nil {
		return Spot{}, fmt.Errorf("renaming spot: %w", err)
	}
	return sp, nil
}

// PhotoCount counts the photos tagged with a place.
func (so Spots) PhotoCount(ctx context.Context, eventID, spotID string) (int, error) {
	n := 0
	err := so.s.db.View(func(tx *bolt.Tx) error {
		n = countPrefix(tx.Bucket(bPhotoBySpot), []byte(eventID+spotID), int(^uint(0)>>1))
		return nil
	})
	return n, err
}

// Delete removes a place; its photos stay, untagged, in the same
// transaction.
func (so Spots) Delete(ctx context.Context, eventID, spotID string) error {
	err := so.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bSpots)
		if b.Get(spotKey(eventID, spotID)) == nil {
			return ErrNotFound
		}
		prefix := []byte(eventID + spotID)
		var ids [][]byte
		c := tx.Bucket(bPhotoBySpot).Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) == len(prefix)+8 && string(k[:len(prefix)]) == string(prefix); k, v = c.Next() {
			ids = append(ids, append([]byte(nil), v...))
		}
		for _, id := range ids {
			var p Photo
			if err := getJSON(tx.Bucket(bPhotos), id, &p); err != nil {
				return err
			}
			if err := removePhotoIndexes(tx, p); err != nil {
				return err
			}
			p.SpotID = ""
			if err := putPhoto(tx, p); err != nil {
				return err
			}
		}
		return b.Delete(spotKey(eventID, spotID))
	})
	if err != nil {
		return fmt.Errorf("deleting spot: %w", err)
	}
	return nil
}

func deleteEventSpots(tx *bolt.Tx, eventID string) error {
	return deletePrefix(tx.Bucket(bSpots), []byte(eventID))
}
