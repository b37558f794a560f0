package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// Message is a guestbook entry: text, a voice note, or both.
type Message struct {
	ID        string  `json:"id"`
	EventID   string  `json:"eventId"`
	GuestID   string  `json:"guestId"`
	GuestName string  `json:"guestName"`
	Text      string  `json:"text"`
	Seconds   float64 `json:"seconds"` // voice note length, 0 without one
	Status    string  `json:"status"`  // visible | pending | hidden
	CreatedAt int64   `json:"createdAt"`
	// AudioMIME and AudioExt describe the voice note ("" = none).
	AudioMIME string `json:"audioMime,omitempty"`
	AudioExt  string `json:"audioExt,omitempty"`
	AudioSize int64  `json:"audioSize,omitempty"`
}

// HasAudio reports whether the message carries a voice note.
func (m Message) HasAudio() bool { return m.AudioMIME != "" }

// AudioName is the media name of the voice note.
func (m Message) AudioName() string { return MediaName(m.EventID, m.ID+".audio") }

func messageIndexKeys(m Message) map[string][]byte {
	ev, ts := []byte(m.EventID), timeKey(m.CreatedAt)
	return map[string][]byte{
		string(bMsgByEvent):  join(ev, ts),
		string(bMsgByGuest):  join(ev, []byte(m.GuestID), ts),
		string(bMsgByStatus): join(ev, statusByte(m.Status), ts),
	}
}

func putMessage(tx *bolt.Tx, m Message) error {
	for bucket, key := range messageIndexKeys(m) {
		if err := tx.Bucket([]byte(bucket)).Put(key, []byte(m.ID)); err != nil {
			return err
		}
	}
	return putJSON(tx.Bucket(bMessages), []byte(m.ID), m)
}

func removeMessageIndexes(tx *bolt.Tx, m Message) error {
	for bucket, key := range messageIndexKeys(m) {
		if err := tx.Bucket([]byte(bucket)).Delete(key); err != nil {
			return err
		}
	}
	return nil
}

// Messages holds the guestbook's messages. It is a view of the Store it
// came from, as cheap to copy as a pointer; its methods are safe for
// concurrent use.
type Messages struct{ s *Store }

// Messages returns the guestbook's messages.
func (s *Store) Messages() Messages { return Messages{s} }

// Add stores a message (its voice note, if any, already on disk
// under m.AudioName()), assigning CreatedAt unique within the event's
// guestbook, and enqueues jobs (its notice) in the same transaction.
// m.ID must be set (the audio file is named by it).
func (ms Messages) Add(ctx context.Context, m Message, jobs ...JobSpec) (Message, error) {
	err := ms.s.db.Update(func(tx *bolt.Tx) error {
		m.CreatedAt = ms.s.nowMs()
		byEvent := tx.Bucket(bMsgByEvent)
		for byEvent.Get(join([]byte(m.EventID), timeKey(m.CreatedAt))) != nil {
			m.CreatedAt++
		}
		if err := putMessage(tx, m); err != nil {
			return err
		}
		if _, err := ms.s.Jobs().enqueue(tx, jobs); err != nil {
			return err
		}
		if err := addHourly(tx, m.EventID, m.CreatedAt, 0, 1); err != nil {
			return err
		}
		return updateCounts(tx, m.EventID, func(c *EventCounts) {
			c.Messages++
			c.Bytes += m.AudioSize
		})
	})
	if err != nil {
		return Message{}, fmt.Errorf("adding message: %w", err)
	}
	return m, nil
}

// Get returns the message with the id.
func (ms Messages) Get(ctx context.Context, id string) (Message, error) {
	var m Message
	err := ms.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bMessages), []byte(id), &m)
	})
	if err != nil {
		return Message{}, fmt.Errorf("reading message %s: %w", id, err)
	}
	return m, nil
}

// MessageQuery selects a page of an event's messages, newest first.
type MessageQuery struct {
	EventID string
	GuestID string // "" = every guest
	Status  string // "" = any
	Before  int64  // epoch ms; 0 = from the newest
	Limit   int    // page size; <= 0 means 50
}

// List returns one page of messages from the most selective index.
func (ms Messages) List(ctx context.Context, q MessageQuery) (Page[Message], error) {
	if q.Limit <= 0 {
		q.Limit = 50
	}
	ev := []byte(q.EventID)
	bucket, prefix := bMsgByEvent, ev
	switch {
	case q.GuestID != "":
		bucket, prefix = bMsgByGuest, join(ev, []byte(q.GuestID))
	case q.Status != "":
		bucket, prefix = bMsgByStatus, join(ev, statusByte(q.Status))
	}
	var out []Message
	err := ms.s.db.View(func(tx *bolt.Tx) error {
		msgs := tx.Bucket(bMessages)
		return walkNewest(tx.Bucket(bucket), prefix, q.Before, func(id []byte) (bool, error) {
			var m Message
			if err := getJSON(msgs, id, &m); err != nil {
				return false, err
			}
			if q.Status == "" || m.Status == q.Status {
				out = append(out, m)
			}
			return len(out) <= q.Limit, nil
		})
	})
	if err != nil {
		return Page[Message]{}, fmt.Errorf("listing messages: %w", err)
	}
	page := Page[Message]{Items: out}
	if len(out) > q.Limit {
		page.Items = out[:q.Limit]
		page.Next = page.Items[q.Limit-1].CreatedAt
	}
	return page, nil
}

// SetStatus sets the status of the event's messages among ids and
// returns the ids it changed; ids of other events are skipped.
func (ms Messages) SetStatus(ctx context.Context, eventID string, ids []string, status string) ([]string, error) {
	var changed []string
	err := ms.s.db.Update(func(tx *bolt.Tx) error {
		for _, id := range ids {
			var m Message
			if err := getJSON(tx.Bucket(bMessages), []byte(id), &m); err != nil {
				if errors.Is(err, ErrNotFound) {
					continue
				}
				return err
			}
			if m.EventID != eventID || m.Status == status {
				continue
			}
			if err := removeMessageIndexes(tx, m); err != nil {
				return err
			}
			m.Status = status
			if err := putMessage(tx, m); err != nil {
				return err
			}
			changed = append(changed, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("moderating messages: %w", err)
	}
	return changed, nil
}

// Delete removes the event's messages among ids (with guestID set,
// only that guest's) and their voice notes, and returns the ids removed.
func (ms Messages) Delete(ctx context.Context, eventID, guestID string, ids []string) ([]string, error) {
	var removed []string
	err := ms.s.db.Update(func(tx *bolt.Tx) error {
		for _, id := range ids {
			var m Message
			if err := getJSON(tx.Bucket(bMessages), []byte(id), &m); err != nil {
				if errors.Is(err, ErrNotFound) {
					continue
				}
				return err
			}
			if m.EventID != eventID || guestID != "" && m.GuestID != guestID {
				continue
			}
			if err := removeMessageIndexes(tx, m); err != nil {
				return err
			}
			if m.HasAudio() {
				if err := trash(tx, m.AudioName()); err != nil {
					return err
				}
			}
			if err := addHourly(tx, eventID, m.CreatedAt, 0, -1); err != nil {
				return err
			}
			if err := updateCounts(tx, eventID, func(c *EventCounts) {
				c.Messages--
				c.Bytes -= m.AudioSize
			}); err != nil {
				return err
			}
			if err := tx.Bucket(bMessages).Delete([]byte(id)); err != nil {
				return err
			}
			removed = append(removed, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("deleting messages: %w", err)
	}
	if len(removed) > 0 {
		if err := ms.s.EmptyTrash(ctx); err != nil {
			ms.s.log.WarnContext(ctx, "voice notes not removed yet", "error", err)
		}
	}
	return removed, nil
}

// deleteEventMessages removes every message record and index of an event;
// the caller trashes the event's media folder.
func deleteEventMessages(tx *bolt.Tx, eventID string) error {
	ev := []byte(eventID)
	c := tx.Bucket(bMsgByEvent).Cursor()
	var ids [][]byte
	for k, v := c.Seek(ev); k != nil && bytes.HasPrefix(k, ev); k, v = c.Next() {
		ids = append(ids, append([]byte(nil), v...))
	}
	for _, id := range ids {
		if err := tx.Bucket(bMessages).Delete(id); err != nil {
			return err
		}
	}
	for _, b := range [][]byte{bMsgByEvent, bMsgByGuest, bMsgByStatus} {
		if err := deletePrefix(tx.Bucket(b), ev); err != nil {
			return err
		}
	}
	return nil
}
