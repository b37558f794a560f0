package store

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// bPhoneSamples holds the samples of the phones on the hotspot, keyed by
// their time (8 bytes, big-endian epoch ms). The bucket is made on demand,
// as the walls' are: a box that never counts its phones keeps the
// database it had.
var bPhoneSamples = []byte("phone_samples")

// MaxPhoneSamples bounds the samples kept, whatever their age: a day of
// one a minute, and some.
const MaxPhoneSamples = 1600

// PhoneSample is one look at the hotspot: how many phones were on it, of
// about how many its radio holds, and how many idle ones the box let go.
type PhoneSample struct {
	// At is when, epoch ms.
	At int64 `json:"at"`
	// Phones is how many phones were associated.
	Phones int `json:"phones"`
	// Capacity is the radio's figure then; 0 when unknown.
	Capacity int `json:"capacity,omitempty"`
	// LetGo is how many idle phones the box disconnected then.
	LetGo int `json:"letGo,omitempty"`
}

// AddPhoneSample stores p and forgets the samples older than keepFrom
// (epoch ms), and the oldest past MaxPhoneSamples.
func (n Network) AddPhoneSample(ctx context.Context, p PhoneSample, keepFrom int64) error {
	err := n.s.db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bPhoneSamples)
		if err != nil {
			return fmt.Errorf("creating bucket %s: %w", bPhoneSamples, err)
		}
		if err := putJSON(b, sampleKey(p.At), p); err != nil {
			return err
		}
		var old [][]byte // past the cut-off, then the oldest past the bound
		kept := 0
		c := b.Cursor()
		for k, _ := c.Last(); k != nil; k, _ = c.Prev() {
			if len(k) == 8 && int64(binary.BigEndian.Uint64(k)) >= keepFrom && kept < MaxPhoneSamples {
				kept++
				continue
			}
			old = append(old, append([]byte(nil), k...))
		}
		// Deleted after the walk: bbolt forbids changing a bucket under
		// its cursor.
		for _, k := range old {
			if err := b.Delete(k); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storing a sample of the phones: %w", err)
	}
	return nil
}

// PhoneSamples answers the samples from since (epoch ms) on, oldest first.
func (n Network) PhoneSamples(ctx context.Context, since int64) ([]PhoneSample, error) {
	var out []PhoneSample
	err := n.s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bPhoneSamples)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek(sampleKey(since)); k != nil; k, v = c.Next() {
			var p PhoneSample
			if err := json.Unmarshal(v, &p); err != nil {
				return fmt.Errorf("reading the sample of %x: %w", k, err)
			}
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the samples of the phones: %w", err)
	}
	return out, nil
}

func sampleKey(ms int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(max(ms, 0))) }
