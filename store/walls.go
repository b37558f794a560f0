package store

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Wall is a wall link: the event's live wall for a screen at the venue,
// opened without signing in by whoever holds its token, until the hosts
// revoke it. It shows only what the event's visible photos and approved
// guestbook texts show, and the access code (the wall invites the room to
// join). Like a gallery link's, the token is kept in the record so that
// the console can list the link again; lookups go through its hash
// (walls_by_token) (docs/decisions.md, "Wall links").
type Wall struct {
	ID        string `json:"id"`
	EventID   string `json:"eventId"`
	Token     string `json:"token"`
	Label     string `json:"label"`
	CreatedAt int64  `json:"createdAt"` // epoch ms
}

// MaxWalls is how many wall links one event may have.
const MaxWalls = 20

var (
	bWalls       = []byte("walls")
	bWallByToken = []byte("walls_by_token")
)

// wallBuckets returns the wall link buckets, creating them in a writable
// transaction the first time; in a read-only one they are nil until the
// box's first wall link. They are made on demand rather than by a schema
// migration: a box that never shows a wall keeps the database it had
// (docs/decisions.md, "Wall links").
func wallBuckets(tx *bolt.Tx) (walls, byToken *bolt.Bucket, err error) {
	if !tx.Writable() {
		return tx.Bucket(bWalls), tx.Bucket(bWallByToken), nil
	}
	if walls, err = tx.CreateBucketIfNotExists(bWalls); err != nil {
		return nil, nil, fmt.Errorf("creating bucket %s: %w", bWalls, err)
	}
	if byToken, err = tx.CreateBucketIfNotExists(bWallByToken); err != nil {
		return nil, nil, fmt.Errorf("creating bucket %s: %w", bWallByToken, err)
	}
	return walls, byToken, nil
}

func wallKey(eventID, wallID string) []byte { return []byte(eventID + wallID) }

// Walls holds the wall links of the events. It is a view of the Store it
// came from, as cheap to copy as a pointer; its methods are safe for
// concurrent use.
type Walls struct{ s *Store }

// Walls returns the wall links of the events.
func (s *Store) Walls() Walls { return Walls{s} }

// Create stores a new wall link of an event, assigning ID, Token
// (NewToken) and CreatedAt; ErrTooMany past MaxWalls, ErrNotFound when
// the event does not exist.
func (wl Walls) Create(ctx context.Context, w *Wall) error {
	w.ID = NewID()
	w.Token = NewToken()
	w.CreatedAt = wl.s.nowMs()
	err := wl.s.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bEvents).Get([]byte(w.EventID)) == nil {
			return ErrNotFound
		}
		b, byToken, err := wallBuckets(tx)
		if err != nil {
			return err
		}
		if countPrefix(b, []byte(w.EventID), MaxWalls) >= MaxWalls {
			return ErrTooMany
		}
		key := wallKey(w.EventID, w.ID)
		if err := byToken.Put([]byte(HashToken(w.Token)), key); err != nil {
			return err
		}
		return putJSON(b, key, w)
	})
	if err != nil {
		return fmt.Errorf("creating wall link: %w", err)
	}
	return nil
}

// ByToken returns the wall link with the token; ErrNotFound for an
// unknown or revoked token.
func (wl Walls) ByToken(ctx context.Context, token string) (Wall, error) {
	var w Wall
	err := wl.s.db.View(func(tx *bolt.Tx) error {
		b, byToken, _ := wallBuckets(tx)
		if byToken == nil {
			return ErrNotFound
		}
		key := byToken.Get([]byte(HashToken(token)))
		if key == nil {
			return ErrNotFound
		}
		return getJSON(b, key, &w)
	})
	if err != nil {
		return Wall{}, fmt.Errorf("finding wall link: %w", err)
	}
	return w, nil
}

// List lists an event's wall links, newest first.
func (wl Walls) List(ctx context.Context, eventID string) ([]Wall, error) {
	var out []Wall
	err := wl.s.db.View(func(tx *bolt.Tx) error {
		b, _, _ := wallBuckets(tx)
		if b == nil {
			return nil
		}
		prefix := []byte(eventID)
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var w Wall
			if err := getJSON(b, k, &w); err != nil {
				return err
			}
			out = append(out, w)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing wall links: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt > out[j].CreatedAt })
	return out, nil
}

// Delete revokes a wall link: the record and its token entry go, so
// the token answers ErrNotFound from then on.
func (wl Walls) Delete(ctx context.Context, eventID, wallID string) error {
	err := wl.s.db.Update(func(tx *bolt.Tx) error {
		b, byToken, err := wallBuckets(tx)
		if err != nil {
			return err
		}
		var w Wall
		if err := getJSON(b, wallKey(eventID, wallID), &w); err != nil {
			return err
		}
		if err := byToken.Delete([]byte(HashToken(w.Token))); err != nil {
			return err
		}
		return b.Delete(wallKey(eventID, wallID))
	})
	if err != nil {
		return fmt.Errorf("revoking wall link: %w", err)
	}
	return nil
}

// deleteEventWalls removes every wall link of an event with its token
// entries.
func deleteEventWalls(tx *bolt.Tx, eventID string) error {
	b, byToken := tx.Bucket(bWalls), tx.Bucket(bWallByToken)
	if b == nil || byToken == nil {
		// No wall link was ever made on this box.
		return nil
	}
	prefix := []byte(eventID)
	var tokens [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		var w Wall
		if err := getJSON(b, k, &w); err != nil {
			return err
		}
		tokens = append(tokens, []byte(HashToken(w.Token)))
	}
	for _, t := range tokens {
		if err := byToken.Delete(t); err != nil {
			return err
		}
	}
	return deletePrefix(b, prefix)
}
