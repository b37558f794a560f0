package store

import (
	"context"
	"fmt"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"
)

// RedateCounts tells how many records Redate moved, by kind.
type RedateCounts struct {
	Photos, Messages, Guests, Events, Jobs, Sessions, Invitations int
}

// span is the window of a wrong clock and how far to move what it dated.
type span struct{ from, to, off int64 }

func (s span) in(ms int64) bool { return ms >= s.from && ms <= s.to }

// shift moves *ms by the offset when it lies in the span.
func (s span) shift(ms *int64) bool {
	if *ms == 0 || !s.in(*ms) {
		return false
	}
	*ms += s.off
	return true
}

// Redate moves by offset every time the box wrote in [from, to] of a wrong
// clock, in one transaction: the records made while the clock was unsure
// (daemon/clock) come out as if it had been right. Photos and guestbook
// messages move with their time indexes and hourly counters, in time
// order, so the album keeps the order they were taken in (a clash within
// an event moves a record forward by 1 ms, as Photos.Add does); guests,
// events (and events_by_created), sessions (created or last used),
// invitations (with their expiry) and jobs (created, attempts, finished,
// and the due time of a job queued in the span, moved in idx_job_due)
// move their times. A time outside the span, such as a photo's EXIF
// TakenAt or a window a host typed, is left alone.
func (s *Store) Redate(ctx context.Context, from, to time.Time, offset time.Duration) (RedateCounts, error) {
	sp := span{from: from.UnixMilli(), to: to.UnixMilli(), off: offset.Milliseconds()}
	var n RedateCounts
	if sp.off == 0 || sp.to < sp.from {
		return n, nil
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		var err error
		if n.Photos, err = redatePhotos(tx, sp); err != nil {
			return fmt.Errorf("photos: %w", err)
		}
		if n.Messages, err = redateMessages(tx, sp); err != nil {
			return fmt.Errorf("messages: %w", err)
		}
		if n.Guests, err = redateEach(tx, bGuests, func(g *Guest) bool { return sp.shift(&g.CreatedAt) }); err != nil {
			return fmt.Errorf("guests: %w", err)
		}
		if n.Sessions, err = redateEach(tx, bSessions, func(ss *Session) bool {
			a, b := sp.shift(&ss.CreatedAt), sp.shift(&ss.LastUsedAt)
			return a || b
		}); err != nil {
			return fmt.Errorf("sessions: %w", err)
		}
		if n.Invitations, err = redateEach(tx, bInvitations, func(i *Invitation) bool {
			if !sp.in(i.CreatedAt) {
				return false
			}
			i.CreatedAt += sp.off
			i.ExpiresAt += sp.off // its lifetime was counted from the wrong time
			return true
		}); err != nil {
			return fmt.Errorf("invitations: %w", err)
		}
		if n.Events, err = redateEvents(tx, sp); err != nil {
			return fmt.Errorf("events: %w", err)
		}
		if n.Jobs, err = redateJobs(tx, sp); err != nil {
			return fmt.Errorf("jobs: %w", err)
		}
		return nil
	})
	if err != nil {
		return RedateCounts{}, fmt.Errorf("re-dating records: %w", err)
	}
	return n, nil
}

// redateEach rewrites the records of bucket that fn changes.
func redateEach[T any](tx *bolt.Tx, bucket []byte, fn func(*T) bool) (int, error) {
	b := tx.Bucket(bucket)
	type change struct {
		k []byte
		v *T
	}
	var changed []change
	err := b.ForEach(func(k, _ []byte) error {
		v := new(T)
		if err := getJSON(b, k, v); err != nil {
			return err
		}
		if fn(v) {
			changed = append(changed, change{append([]byte(nil), k...), v})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, c := range changed {
		if err := putJSON(b, c.k, c.v); err != nil {
			return 0, err
		}
	}
	return len(changed), nil
}

// inSpan reads the records of bucket whose time lies in the span, in
// event then time order.
func inSpan[T any](tx *bolt.Tx, bucket []byte, sp span, at func(*T) (event string, ms int64)) ([]*T, error) {
	b := tx.Bucket(bucket)
	var out []*T
	err := b.ForEach(func(k, _ []byte) error {
		v := new(T)
		if err := getJSON(b, k, v); err != nil {
			return err
		}
		if _, ms := at(v); sp.in(ms) {
			out = append(out, v)
		}
		return nil
	})
	sort.SliceStable(out, func(i, j int) bool {
		ei, ti := at(out[i])
		ej, tj := at(out[j])
		if ei != ej {
			return ei < ej
		}
		return ti < tj
	})
	return out, err
}

// redatePhotos moves the photos in the span with their indexes and hourly
// counts: every old entry goes first, then each photo is put back at its
// new time, in time order, so no moved photo collides with another.
func redatePhotos(tx *bolt.Tx, sp span) (int, error) {
	photos, err := inSpan(tx, bPhotos, sp, func(p *Photo) (string, int64) { return p.EventID, p.CreatedAt })
	if err != nil {
		return 0, err
	}
	for _, p := range photos {
		if err := removePhotoIndexes(tx, *p); err != nil {
			return 0, err
		}
		if err := addHourly(tx, p.EventID, p.CreatedAt, -1, 0); err != nil {
			return 0, err
		}
	}
	byEvent := tx.Bucket(bPhotoByEvent)
	for _, p := range photos {
		p.CreatedAt += sp.off
		for byEvent.Get(join([]byte(p.EventID), timeKey(p.CreatedAt))) != nil {
			p.CreatedAt++
		}
		if err := putPhoto(tx, *p); err != nil {
			return 0, err
		}
		if err := addHourly(tx, p.EventID, p.CreatedAt, 1, 0); err != nil {
			return 0, err
		}
	}
	return len(photos), nil
}

// redateMessages is redatePhotos for the guestbook.
func redateMessages(tx *bolt.Tx, sp span) (int, error) {
	msgs, err := inSpan(tx, bMessages, sp, func(m *Message) (string, int64) { return m.EventID, m.CreatedAt })
	if err != nil {
		return 0, err
	}
	for _, m := range msgs {
		if err := removeMessageIndexes(tx, *m); err != nil {
			return 0, err
		}
		if err := addHourly(tx, m.EventID, m.CreatedAt, 0, -1); err != nil {
			return 0, err
		}
	}
	byEvent := tx.Bucket(bMsgByEvent)
	for _, m := range msgs {
		m.CreatedAt += sp.off
		for byEvent.Get(join([]byte(m.EventID), timeKey(m.CreatedAt))) != nil {
			m.CreatedAt++
		}
		if err := putMessage(tx, *m); err != nil {
			return 0, err
		}
		if err := addHourly(tx, m.EventID, m.CreatedAt, 0, 1); err != nil {
			return 0, err
		}
	}
	return len(msgs), nil
}

// redateEvents moves an event's creation (and its events_by_created
// entry) and its end when the wrong clock dated them.
func redateEvents(tx *bolt.Tx, sp span) (int, error) {
	type moved struct {
		e       *Event
		created int64 // the old CreatedAt
	}
	var all []moved
	n, err := redateEach(tx, bEvents, func(e *Event) bool {
		created := e.CreatedAt
		c, d := sp.shift(&e.CreatedAt), sp.shift(&e.EndedAt)
		if c {
			all = append(all, moved{e, created})
		}
		return c || d
	})
	if err != nil {
		return 0, err
	}
	byTime := tx.Bucket(bEventByTime)
	for _, m := range all {
		if err := byTime.Delete(join(timeKey(m.created), []byte(m.e.ID))); err != nil {
			return 0, err
		}
	}
	for _, m := range all {
		if err := byTime.Put(join(timeKey(m.e.CreatedAt), []byte(m.e.ID)), nil); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// redateJobs moves the times of the jobs the wrong clock wrote. A queued
// job last updated in the span had its due time counted from that clock
// too (its RunAt, a retry's backoff), so that moves with it.
func redateJobs(tx *bolt.Tx, sp span) (int, error) {
	b := tx.Bucket(bJobs)
	var changed []*Job
	var olds []*Job
	err := b.ForEach(func(k, _ []byte) error {
		var j Job
		if err := getJSON(b, k, &j); err != nil {
			return err
		}
		old := j
		moved := sp.shift(&j.CreatedAt)
		if j.Status == JobQueued && sp.in(j.UpdatedAt) && j.DueAt != 0 {
			j.DueAt += sp.off
			moved = true
		}
		if sp.shift(&j.UpdatedAt) {
			moved = true
		}
		if sp.shift(&j.FinishedAt) {
			moved = true
		}
		if len(j.Attempts) > 0 {
			j.Attempts = append([]JobAttempt(nil), j.Attempts...)
			for i := range j.Attempts {
				a, e := sp.shift(&j.Attempts[i].Start), sp.shift(&j.Attempts[i].End)
				moved = moved || a || e
			}
		}
		if j.Progress != nil {
			p := *j.Progress
			if sp.shift(&p.At) {
				j.Progress, moved = &p, true
			}
		}
		if moved {
			changed, olds = append(changed, &j), append(olds, &old)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for i, j := range changed {
		if err := putJob(tx, j, olds[i]); err != nil {
			return 0, err
		}
	}
	return len(changed), nil
}
