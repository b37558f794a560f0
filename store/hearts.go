package store

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

var (
	bHearts     = []byte("hearts")
	bPhotoLoved = []byte("idx_photo_loved")
)

// lovedTimeBits is how many low bits of a LovedKey hold the photo's
// CreatedAt (epoch ms below 2^42: until the year 2109); the bits above
// hold its hearts, up to MaxLovedCount. The key stays below 2^53, so a
// page's cursor is a whole number in JSON and JavaScript alike.
const lovedTimeBits = 42

// MaxLovedCount is the largest count the most-loved order tells apart;
// photos past it rank as equals, newest first.
const MaxLovedCount = 1<<11 - 1

// LovedKey is a photo's place in the most-loved order (idx_photo_loved):
// its hearts, then its CreatedAt, in one number that sorts like the pair.
// It is the cursor of a PhotoQuery with Loved.
func LovedKey(p Photo) int64 {
	n := p.Hearts
	if n > MaxLovedCount {
		n = MaxLovedCount
	}
	return int64(n)<<lovedTimeBits | p.CreatedAt&(1<<lovedTimeBits-1)
}

// Hearter names who hearts a photo, one heart per name and photo: a
// party guest (GuestHearter) or a gallery visitor's browser
// (BrowserHearter).
type Hearter string

// GuestHearter is the hearter of a party guest of the event.
func GuestHearter(guestID string) Hearter { return Hearter("g" + guestID) }

// BrowserHearter is the hearter of a gallery visitor's browser, by the id
// its signed cookie holds.
func BrowserHearter(browserID string) Hearter { return Hearter("b" + browserID) }

// Valid reports whether h is a kind letter and an id.
func (h Hearter) Valid() bool {
	return len(h) == 1+IDLen && (h[0] == 'g' || h[0] == 'b') && ValidID(string(h[1:]))
}

// ErrNotVisible is returned when a heart is given to or taken from a
// photo that is not visible (pending or hidden): to a guest or a gallery
// visitor it does not exist.
var ErrNotVisible = errors.New("photo not visible")

// Hearts holds the hearts guests and gallery visitors give photos:
// hearts[photoID + hearter] = ts(when), with each photo's Hearts count
// and its idx_photo_loved entry kept in step in the same transaction. A
// photo's hearts go with it when it is deleted. It is a view of the Store
// it came from, as cheap to copy as a pointer; its methods are safe for
// concurrent use.
type Hearts struct{ s *Store }

// Hearts returns the hearts of the photos.
func (s *Store) Hearts() Hearts { return Hearts{s} }

// Set gives (on) or takes back (!on) h's heart on the visible photo id of
// the event, and returns the photo with its count after. Doing what is
// already done changes nothing: a second heart is still one, an undo
// without a heart is no error. ErrNotFound for an unknown photo or one of
// another event, ErrNotVisible for one that is not visible. changed
// reports whether anything was written.
func (hs Hearts) Set(ctx context.Context, eventID, photoID string, h Hearter, on bool) (p Photo, changed bool, err error) {
	if !h.Valid() || !ValidID(photoID) {
		return Photo{}, false, ErrNotFound
	}
	err = hs.s.db.Update(func(tx *bolt.Tx) error {
		if err := getJSON(tx.Bucket(bPhotos), []byte(photoID), &p); err != nil {
			return err
		}
		if p.EventID != eventID {
			return ErrNotFound
		}
		if p.Status != StatusVisible {
			return ErrNotVisible
		}
		hearts := tx.Bucket(bHearts)
		key := join([]byte(photoID), []byte(h))
		had := hearts.Get(key) != nil
		if had == on {
			return nil
		}
		before := p
		if on {
			p.Hearts++
			if err := hearts.Put(key, timeKey(hs.s.nowMs())); err != nil {
				return err
			}
		} else {
			p.Hearts--
			if err := hearts.Delete(key); err != nil {
				return err
			}
		}
		if err := removePhotoIndexes(tx, before); err != nil {
			return err
		}
		changed = true
		return putPhoto(tx, p)
	})
	if err != nil {
		return Photo{}, false, fmt.Errorf("setting a heart on photo %s: %w", photoID, err)
	}
	return p, changed, nil
}

// Given returns which of the photo ids h has hearted: one key lookup per
// id.
func (hs Hearts) Given(ctx context.Context, h Hearter, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	if !h.Valid() {
		return out, nil
	}
	err := hs.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bHearts)
		for _, id := range ids {
			if b.Get(join([]byte(id), []byte(h))) != nil {
				out[id] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading hearts: %w", err)
	}
	return out, nil
}

// Count returns how many hearts the photo has in the hearts bucket, by
// walking its keys: for tests and checks that the kept count is right.
func (hs Hearts) Count(ctx context.Context, photoID string) (int, error) {
	n := 0
	err := hs.s.db.View(func(tx *bolt.Tx) error {
		n = countPrefix(tx.Bucket(bHearts), []byte(photoID), int(^uint(0)>>1))
		return nil
	})
	return n, err
}
