package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// HourMs is the width of one bucket of the hourly activity series.
const HourMs = int64(60 * 60 * 1000)

// HourCount is the activity of an hour: what was added in it and is still
// stored (a deleted photo leaves its hour).
type HourCount struct {
	Hour     int64 `json:"-"` // epoch ms of the hour's start (UTC hours)
	Photos   int   `json:"photos"`
	Messages int   `json:"messages"`
}

// addHourly moves the counters of the hour holding ms (epoch ms) of an
// event by photos and messages, in the caller's transaction. Whoever adds
// or removes a photo or a guestbook message calls it in the same
// transaction as the record, so the series never needs a scan of the
// records; an hour whose counters fall to zero is removed.
func addHourly(tx *bolt.Tx, eventID string, ms int64, photos, messages int) error {
	b := tx.Bucket(bStatsHourly)
	key := join([]byte(eventID), timeKey(ms-ms%HourMs))
	var c HourCount
	if err := getJSON(b, key, &c); err != nil && !errors.Is(err, ErrNotFound) {
		return err
	}
	c.Photos = max(c.Photos+photos, 0)
	c.Messages = max(c.Messages+messages, 0)
	if c.Photos == 0 && c.Messages == 0 {
		return b.Delete(key)
	}
	return putJSON(b, key, c)
}

// Stats reads the statistics' counters: activity by hour and the guests
// who sent the most. It is a view of the Store it came from, as cheap to
// copy as a pointer; its methods are safe for concurrent use.
type Stats struct{ s *Store }

// Stats returns the statistics' counters.
func (s *Store) Stats() Stats { return Stats{s} }

// Hourly returns the hours with activity of the events, merged, oldest
// first. It reads the hourly counters only (one entry per active hour and
// event), never the photos.
func (st Stats) Hourly(ctx context.Context, eventIDs []string) ([]HourCount, error) {
	byHour := map[int64]*HourCount{}
	err := st.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bStatsHourly)
		for _, id := range eventIDs {
			prefix := []byte(id)
			c := b.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				if len(k) != len(prefix)+8 {
					continue
				}
				var hc HourCount
				if err := getJSON(b, k, &hc); err != nil {
					return err
				}
				hour := keyTime(k, len(prefix))
				sum := byHour[hour]
				if sum == nil {
					sum = &HourCount{Hour: hour}
					byHour[hour] = sum
				}
				sum.Photos += hc.Photos
				sum.Messages += hc.Messages
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading hourly activity: %w", err)
	}
	out := make([]HourCount, 0, len(byHour))
	for _, hc := range byHour {
		out = append(out, *hc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Hour < out[j].Hour })
	return out, nil
}

// GuestCount is a guest and the number of photos (and videos) of theirs
// still stored.
type GuestCount struct {
	Guest  Guest
	Photos int
}

// TopGuests returns the n guests of the events with the most photos, most
// first (ties in id order, so the list is stable). It counts keys of the
// per-guest photo index without reading a photo record, then reads the n
// guests. Admin imports belong to no guest and are not counted.
func (st Stats) TopGuests(ctx context.Context, eventIDs []string, n int) ([]GuestCount, error) {
	var out []GuestCount
	err := st.s.db.View(func(tx *bolt.Tx) error {
		type key struct{ event, guest string }
		counts := map[key]int{}
		idx := tx.Bucket(bPhotoByGuest)
		for _, id := range eventIDs {
			prefix := []byte(id)
			c := idx.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				if len(k) != 2*IDLen+8 {
					continue
				}
				counts[key{id, string(k[IDLen : 2*IDLen])}]++
			}
		}
		keys := make([]key, 0, len(counts))
		for k := range counts {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			if a, b := counts[keys[i]], counts[keys[j]]; a != b {
				return a > b
			}
			return keys[i].event+keys[i].guest < keys[j].event+keys[j].guest
		})
		for _, k := range keys[:min(n, len(keys))] {
			var g Guest
			if err := getJSON(tx.Bucket(bGuests), guestKey(k.event, k.guest), &g); err != nil {
				if !errors.Is(err, ErrNotFound) {
					return err
				}
				g = Guest{ID: k.guest, EventID: k.event}
			}
			out = append(out, GuestCount{Guest: g, Photos: counts[k]})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("counting photos per guest: %w", err)
	}
	return out, nil
}

func deleteEventStats(tx *bolt.Tx, eventID string) error {
	return deletePrefix(tx.Bucket(bStatsHourly), []byte(eventID))
}
