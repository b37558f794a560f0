package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	bolt "go.etcd.io/bbolt"
)

// bWebhooks holds the owners' webhooks (store/doc.go, "Webhooks").
var bWebhooks = []byte("webhooks")

// Webhook types: the message format a receiver gets.
const (
	WebhookNtfy    = "ntfy"
	WebhookDiscord = "discord"
	WebhookSlack   = "slack"
	WebhookJSON    = "json"
)

// Webhook is one receiver of notices. URL and Secret are secrets: they
// never leave the box in an answer (the daemon's DTO shows the URL as
// scheme and host), and the database holds them sealed with
// DATA_DIR/secret.key (package secret), which backups leave out.
type Webhook struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Type is one of the Webhook* types.
	Type string `json:"type"`
	// URL is opened when read and sealed when stored; an empty URL keeps
	// URLSealed.
	URL       string `json:"-"`
	URLSealed []byte `json:"urlSealed,omitempty"`
	// Kinds are the notice kinds (NoticeKinds) the webhook wants.
	Kinds []string `json:"kinds"`
	// Secret signs each delivery when not empty. It is opened when read
	// and sealed when stored; an empty Secret clears it unless SecretLost.
	Secret       string `json:"-"`
	SecretSealed []byte `json:"secretSealed,omitempty"`
	// URLLost and SecretLost report a value this box cannot open (the
	// database was restored from another box): it must be entered again.
	URLLost    bool `json:"-"`
	SecretLost bool `json:"-"`
	Enabled    bool `json:"enabled"`
	// CreatedAt and UpdatedAt are epoch ms.
	CreatedAt int64 `json:"createdAt"`
	UpdatedAt int64 `json:"updatedAt"`
}

// Wants reports whether w is enabled and subscribed to kind.
func (w Webhook) Wants(kind string) bool {
	if !w.Enabled {
		return false
	}
	for _, k := range w.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

// AddWebhook stores a new webhook, assigning its ID and times.
func (s *Store) AddWebhook(ctx context.Context, w Webhook) (Webhook, error) {
	w.ID = NewID()
	w.CreatedAt = s.nowMs()
	w.UpdatedAt = w.CreatedAt
	if err := s.sealWebhook(&w); err != nil {
		return Webhook{}, fmt.Errorf("adding webhook: %w", err)
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bWebhooks), []byte(w.ID), w)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("adding webhook: %w", err)
	}
	return w, nil
}

// Webhook returns the webhook with id, or ErrNotFound.
func (s *Store) Webhook(ctx context.Context, id string) (Webhook, error) {
	var w Webhook
	err := s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bWebhooks), []byte(id), &w)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("reading webhook %s: %w", id, err)
	}
	s.openWebhook(&w)
	return w, nil
}

// openWebhook opens w's url and secret.
func (s *Store) openWebhook(w *Webhook) {
	var ok bool
	w.URL, ok = s.open(labelWebhookURL, w.URLSealed)
	w.URLLost = !ok
	w.Secret, ok = s.open(labelWebhookSecret, w.SecretSealed)
	w.SecretLost = !ok
}

// sealWebhook seals w's url and secret for storing.
func (s *Store) sealWebhook(w *Webhook) error {
	if w.URL != "" {
		sealed, err := s.seal(labelWebhookURL, w.URL)
		if err != nil {
			return err
		}
		w.URLSealed, w.URLLost = sealed, false
	}
	switch {
	case w.Secret != "":
		sealed, err := s.seal(labelWebhookSecret, w.Secret)
		if err != nil {
			return err
		}
		w.SecretSealed, w.SecretLost = sealed, false
	case !w.SecretLost:
		w.SecretSealed = nil
	}
	return nil
}

// Webhooks returns every webhook, oldest first.
func (s *Store) Webhooks(ctx context.Context) ([]Webhook, error) {
	out := []Webhook{}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bWebhooks).ForEach(func(k, v []byte) error {
			var w Webhook
			if err := json.Unmarshal(v, &w); err != nil {
				return fmt.Errorf("decoding webhook %s: %w", k, err)
			}
			s.openWebhook(&w)
			out = append(out, w)
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing webhooks: %w", err)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CreatedAt < out[j].CreatedAt })
	return out, nil
}

// UpdateWebhook applies fn to the stored webhook in one transaction; fn
// must not change ID or CreatedAt (they are restored). An error from fn
// aborts the update and is returned as is.
func (s *Store) UpdateWebhook(ctx context.Context, id string, fn func(*Webhook) error) (Webhook, error) {
	var w Webhook
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bWebhooks)
		if err := getJSON(b, []byte(id), &w); err != nil {
			return err
		}
		created := w.CreatedAt
		s.openWebhook(&w)
		if err := fn(&w); err != nil {
			return err
		}
		w.ID, w.CreatedAt, w.UpdatedAt = id, created, s.nowMs()
		if err := s.sealWebhook(&w); err != nil {
			return err
		}
		return putJSON(b, []byte(id), w)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("updating webhook %s: %w", id, err)
	}
	return w, nil
}

// DeleteWebhook removes the webhook, or answers ErrNotFound. Its queued
// deliveries stay queued; their handler finds the webhook gone and sets
// them aside.
func (s *Store) DeleteWebhook(ctx context.Context, id string) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bWebhooks)
		if b.Get([]byte(id)) == nil {
			return ErrNotFound
		}
		return b.Delete([]byte(id))
	})
	if err != nil {
		return fmt.Errorf("deleting webhook %s: %w", id, err)
	}
	return nil
}

// FanOutNote is the progress note that marks a job as fanned out
// (FanOutJob).
const FanOutNote = "fanned out"

// FanOutSpec is one job a fan-out enqueues. When Merge is set and an
// unfinished job of Spec's kind holds Spec.Key, is queued and has never
// been tried, its payload becomes Merge(its payload) instead: a burst of
// notices folds into one delivery. When that job cannot take the merge
// (it is running or was tried), Spec is enqueued under AltKey instead.
type FanOutSpec struct {
	Spec   JobSpec
	Merge  func(old json.RawMessage) (json.RawMessage, error)
	AltKey string
}

// ErrFannedOut: the job had already fanned out (FanOutJob); nothing was
// enqueued again.
var ErrFannedOut = errors.New("job already fanned out")

// FanOutJob enqueues (or merges) specs for attempt try of job id and
// marks the job fanned out (its progress note FanOutNote), in one
// transaction, so that a job retried after a crash never fans out twice:
// the second call answers ErrFannedOut and changes nothing. It answers
// ErrJobLost when the attempt no longer holds the job.
func (s *Store) FanOutJob(ctx context.Context, id uint64, try int, specs []FanOutSpec) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		j, err := getJob(tx, id)
		if errors.Is(err, ErrNotFound) {
			return ErrJobLost
		} else if err != nil {
			return err
		}
		if j.current(try) == nil {
			return ErrJobLost
		}
		if j.Progress != nil && j.Progress.Note == FanOutNote {
			return ErrFannedOut
		}
		for _, fs := range specs {
			if err := s.fanOutOne(tx, fs); err != nil {
				return err
			}
		}
		now := s.nowMs()
		j.Progress = &JobProgress{Done: int64(len(specs)), Total: int64(len(specs)), Note: FanOutNote, At: now}
		j.UpdatedAt = now
		return putJSON(tx.Bucket(bJobs), u64(j.ID), j)
	})
	if err != nil {
		return fmt.Errorf("fanning out job %d: %w", id, err)
	}
	return nil
}

// fanOutOne enqueues or merges one spec in tx.
func (s *Store) fanOutOne(tx *bolt.Tx, fs FanOutSpec) error {
	sp := fs.Spec
	if fs.Merge != nil && sp.Key != "" {
		if id := tx.Bucket(bJobByKey).Get(uniqueKey(sp.Kind, sp.Key)); id != nil {
			j, err := getJob(tx, binary.BigEndian.Uint64(id))
			if err != nil {
				return err
			}
			if j.Status == JobQueued && j.Tries == 0 {
				p, err := fs.Merge(j.Payload)
				if err != nil {
					return fmt.Errorf("merging into job %d: %w", j.ID, err)
				}
				if !json.Valid(p) {
					return fmt.Errorf("merging into job %d: payload is not JSON", j.ID)
				}
				j.Payload = bytes.Clone(p)
				j.UpdatedAt = s.nowMs()
				return putJSON(tx.Bucket(bJobs), u64(j.ID), j)
			}
			sp.Key = fs.AltKey
		}
	}
	_, err := s.enqueueJobs(tx, []JobSpec{sp})
	return err
}
