package store

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// Share is a gallery link: read access to an event's visible photos (and,
// when the hosts share it, the guestbook) for whoever holds its token.
//
// Unlike session and invitation tokens, the token itself is kept in the
// record: the hosts list their links again and copy the url from the
// console. Looking a link up goes through the hash of the token
// (shares_by_token), so a lookup never compares the secret itself. Whoever
// can read the database can read the token, but such a reader also holds
// every photo the link shows (docs/decisions.md, "Gallery links").
type Share struct {
	ID      string `json:"id"`
	EventID string `json:"eventId"`
	Token   string `json:"token"`
	Label   string `json:"label"`
	// PasswordHash is the bcrypt hash of the link's password; "" = open.
	PasswordHash string `json:"passwordHash,omitempty"`
	// Password is the link's password when the box made it (the link
	// made when the event ends, "make a password for me"), kept so that
	// the hosts can give it to the guests again; "" for a password the
	// hosts typed, which is kept as its hash alone
	// (docs/decisions/gallery.md, "The end's gallery password").
	Password      string `json:"password,omitempty"`
	AllowDownload bool   `json:"allowDownload"`
	FavoritesOnly bool   `json:"favoritesOnly"`
	ExpiresAt     int64  `json:"expiresAt"` // epoch ms; 0 = never
	CreatedAt     int64  `json:"createdAt"` // epoch ms
}

// MaxShares is how many gallery links one event may have.
const MaxShares = 100

// ExpiredAt reports whether the link has expired at the time (epoch ms).
func (sh Share) ExpiredAt(ms int64) bool { return sh.ExpiresAt != 0 && ms >= sh.ExpiresAt }

func shareKey(eventID, shareID string) []byte { return []byte(eventID + shareID) }

// Shares holds the gallery links of the events. It is a view of the Store
// it came from, as cheap to copy as a pointer; its methods are safe for
// concurrent use.
type Shares struct{ s *Store }

// Shares returns the gallery links of the events.
func (s *Store) Shares() Shares { return Shares{s} }

// Create stores a new gallery link of an event, assigning ID, Token
// (NewToken) and CreatedAt; ErrTooMany past MaxShares, ErrNotFound when
// the event does not exist.
func (sr Shares) Create(ctx context.Context, sh *Share) error {
	sh.ID = NewID()
	sh.Token = NewToken()
	sh.CreatedAt = sr.s.nowMs()
	err := sr.s.db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(bEvents).Get([]byte(sh.EventID)) == nil {
			return ErrNotFound
		}
		b := tx.Bucket(bShares)
		if countPrefix(b, []byte(sh.EventID), MaxShares) >= MaxShares {
			return ErrTooMany
		}
		key := shareKey(sh.EventID, sh.ID)
		if err := tx.Bucket(bShareByToken).Put([]byte(HashToken(sh.Token)), key); err != nil {
			return err
		}
		return putJSON(b, key, sh)
	})
	if err != nil {
		return fmt.Errorf("creating gallery link: %w", err)
	}
	return nil
}

// ByToken returns the gallery link with the token, expired or not
// (the caller decides with ExpiredAt); ErrNotFound for an unknown or
// revoked token.
func (sr Shares) ByToken(ctx context.Context, token string) (Share, error) {
	var sh Share
	err := sr.s.db.View(func(tx *bolt.Tx) error {
		key := tx.Bucket(bShareByToken).Get([]byte(HashToken(token)))
		if key == nil {
			return ErrNotFound
		}
		return getJSON(tx.Bucket(bShares), key, &sh)
	})
	if err != nil {
		return Share{}, fmt.Errorf("finding gallery link: %w", err)
	}
	return sh, nil
}

// Get returns a gallery link of an event; a link of another event is
// ErrNotFound.
func (sr Shares) Get(ctx context.Context, eventID, shareID string) (Share, error) {
	var sh Share
	err := sr.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bShares), shareKey(eventID, shareID), &sh)
	})
	if err != nil {
		return Share{}, fmt.Errorf("reading gallery link: %w", err)
	}
	return sh, nil
}

// List lists an event's gallery links, newest first, expired ones
// included.
func (sr Shares) List(ctx context.Context, eventID string) ([]Share, error) {
	var out []Share
	err := sr.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bShares)
		prefix := []byte(eventID)
		c := b.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
			var sh Share
			if err := getJSON(b, k, &sh); err != nil {
				return err
			}
			out = append(out, sh)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing gallery links: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].CreatedAt > out[j].CreatedAt })
	return out, nil
}

// Delete revokes a gallery link: the record and its token entry go,
// so the token answers ErrNotFound from then on.
func (sr Shares) Delete(ctx context.Context, eventID, shareID string) error {
	err := sr.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bShares)
		var sh Share
		if err := getJSON(b, shareKey(eventID, shareID), &sh); err != nil {
			return err
		}
		if err := tx.Bucket(bShareByToken).Delete([]byte(HashToken(sh.Token))); err != nil {
			return err
		}
		return b.Delete(shareKey(eventID, shareID))
	})
	if err != nil {
		return fmt.Errorf("revoking gallery link: %w", err)
	}
	return nil
}

// deleteEventShares removes every gallery link of an event with its token
// entries.
func deleteEventShares(tx *bolt.Tx, eventID string) error {
	b := tx.Bucket(bShares)
	prefix := []byte(eventID)
	var tokens [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		var sh Share
		if err := getJSON(b, k, &sh); err != nil {
			return err
		}
		tokens = append(tokens, []byte(HashToken(sh.Token)))
	}
	for _, t := range tokens {
		if err := tx.Bucket(bShareByToken).Delete(t); err != nil {
			return err
		}
	}
	return deletePrefix(b, prefix)
}
