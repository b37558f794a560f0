package store

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Guest is a phone (or the booth device) that joined an event. The guest
// cookie carries the id, signed; everything a guest made is tied to it.
// A phone's record is stored only when it first does something (Guests.Keep);
// until then the cookie alone carries the id.
type Guest struct {
	ID      string `json:"id"`
	EventID string `json:"eventId"`
	Name    string `json:"name"`
	Booth   bool   `json:"booth,omitempty"`
	// BoothKeyHash is the key a booth device joined with; once the hosts
	// replace the event's key, this device is refused.
	BoothKeyHash string `json:"boothKeyHash,omitempty"`
	Email        string `json:"email,omitempty"` // contact for the gallery mail
	// Locale is the language of the guest page when the guest left
	// Email (en, fr, it, es; "" = unknown): the gallery mail's language.
	Locale string `json:"locale,omitempty"`
	// GalleryMailJob is the job of the gallery mail queued to Email when
	// the event ended (Events.End); 0 = none.
	GalleryMailJob uint64 `json:"galleryMailJob,omitempty"`
	CreatedAt      int64  `json:"createdAt"`
}

func guestKey(eventID, guestID string) []byte { return []byte(eventID + guestID) }

// Guests holds the guests of the events: their records, joins and the
// addresses they left. It is a view of the Store it came from, as cheap to
// copy as a pointer; its methods are safe for concurrent use.
type Guests struct{ s *Store }

// Guests returns the guests of the events.
func (s *Store) Guests() Guests { return Guests{s} }

// Create stores a new guest of an event, assigning ID and CreatedAt.
func (gs Guests) Create(ctx context.Context, g *Guest) error {
	g.ID = NewID()
	g.CreatedAt = gs.s.nowMs()
	err := gs.s.db.Update(func(tx *bolt.Tx) error {
		if err := putJSON(tx.Bucket(bGuests), guestKey(g.EventID, g.ID), g); err != nil {
			return err
		}
		return updateCounts(tx, g.EventID, func(c *EventCounts) { c.Guests++ })
	})
	if err != nil {
		return fmt.Errorf("creating guest: %w", err)
	}
	return nil
}

// CountJoin counts a guest that joined the event in its running totals
// (EventCounts.Guests) without storing a record: the record waits until
// the guest does something (Guests.Keep), so joins cost no storage.
func (gs Guests) CountJoin(ctx context.Context, eventID string) error {
	err := gs.s.db.Update(func(tx *bolt.Tx) error {
		return updateCounts(tx, eventID, func(c *EventCounts) { c.Guests++ })
	})
	if err != nil {
		return fmt.Errorf("counting a join: %w", err)
	}
	return nil
}

// Keep stores a guest that so far lived only in its browser's
// cookie (docs/decisions.md, "Guessing and lock-out"), under the id the
// cookie carries; Guests.CountJoin counted it when it joined. A guest stored
// already is returned as it is, so calling it on every write of a guest
// is safe.
func (gs Guests) Keep(ctx context.Context, g Guest) (Guest, error) {
	if !ValidID(g.ID) || !ValidID(g.EventID) {
		return Guest{}, fmt.Errorf("keeping guest %q: %w", g.ID, ErrNotFound)
	}
	key := guestKey(g.EventID, g.ID)
	err := gs.s.db.Update(func(tx *bolt.Tx) error {
		var stored Guest
		err := getJSON(tx.Bucket(bGuests), key, &stored)
		if err == nil {
			g = stored
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		g.CreatedAt = gs.s.nowMs()
		return putJSON(tx.Bucket(bGuests), key, g)
	})
	if err != nil {
		return Guest{}, fmt.Errorf("keeping guest: %w", err)
	}
	return g, nil
}

// Get returns a guest of an event.
func (gs Guests) Get(ctx context.Context, eventID, guestID string) (Guest, error) {
	var g Guest
	err := gs.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bGuests), guestKey(eventID, guestID), &g)
	})
	if err != nil {
		return Guest{}, fmt.Errorf("reading guest: %w", err)
	}
	return g, nil
}

// Update applies fn to a stored guest and keeps the contact index in
// step with its email.
func (gs Guests) Update(ctx context.Context, eventID, guestID string, fn func(*Guest)) (Guest, error) {
	var g Guest
	key := guestKey(eventID, guestID)
	err := gs.s.db.Update(func(tx *bolt.Tx) error {
		if err := getJSON(tx.Bucket(bGuests), key, &g); err != nil {
			return err
		}
		fn(&g)
		g.ID, g.EventID = guestID, eventID
		contacts := tx.Bucket(bContacts)
		if g.Email == "" {
			if err := contacts.Delete(key); err != nil {
				return err
			}
		} else if err := contacts.Put(key, []byte(g.Email)); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bGuests), key, g)
	})
	if err != nil {
		return Guest{}, fmt.Errorf("updating guest: %w", err)
	}
	return g, nil
}

// Contacts returns the email addresses guests of an event left, keyed by
// guest id.
func (gs Guests) Contacts(ctx context.Context, eventID string) (map[string]string, error) {
	out := map[string]string{}
	err := gs.s.db.View(func(tx *bolt.Tx) error {
		prefix := []byte(eventID)
		c := tx.Bucket(bContacts).Cursor()
		for k, v := c.Seek(prefix); k != nil && len(k) == 2*IDLen && string(k[:IDLen]) == eventID; k, v = c.Next() {
			out[string(k[IDLen:])] = string(v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing contacts: %w", err)
	}
	return out, nil
}

func deleteEventGuests(tx *bolt.Tx, eventID string) error {
	if err := deletePrefix(tx.Bucket(bGuests), []byte(eventID)); err != nil {
		return err
	}
	return deletePrefix(tx.Bucket(bContacts), []byte(eventID))
}
