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

// Webhooks holds the webhooks the box's notices go out to. It is a view of
// the Store it came from, as cheap to copy as a pointer; its methods are
// safe for concurrent use.
type Webhooks struct{ s *Store }

// Webhooks returns the webhooks the box's notices go out to.
func (s *Store) Webhooks() Webhooks { return Webhooks{s} }

// Add stores a new webhook, assigning its ID and times.
func (wh Webhooks) Add(ctx context.Context, w Webhook) (Webhook, error) {
	w.ID = NewID()
	w.CreatedAt = wh.s.nowMs()
	w.UpdatedAt = w.CreatedAt
	if err := wh.seal(&w); err != nil {
		return Webhook{}, fmt.Errorf("adding webhook: %w", err)
	}
	err := wh.s.db.Update(func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bWebhooks), []byte(w.ID), w)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("adding webhook: %w", err)
	}
	return w, nil
}

// Get returns the webhook with id, or ErrNotFound.
func (wh Webhooks) Get(ctx context.Context, id string) (Webhook, error) {
	var w Webhook
	err := wh.s.db.View(func(tx *bolt.Tx) error {
		return getJSON(tx.Bucket(bWebhooks), []byte(id), &w)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("reading webhook %s: %w", id, err)
	}
	wh.open(&w)
	return w, nil
}

// open opens w's url and secret.
func (wh Webhooks) open(w *Webhook) {
	var ok bool
	w.URL, ok = wh.s.Secrets().open(labelWebhookURL, w.URLSealed)
	w.URLLost = !ok
	w.Secret, ok = wh.s.Secrets().open(labelWebhookSecret, w.SecretSealed)
	w.SecretLost = !ok
}

// seal seals w's url and secret for storing.
func (wh Webhooks) seal(w *Webhook) error {
	if w.URL != "" {
		sealed, err := wh.s.Secrets().seal(labelWebhookURL, w.URL)
		if err != nil {
			return err
		}
		w.URLSealed, w.URLLost = sealed, false
	}
	switch {
	case w.Secret != "":
		sealed, err := wh.s.Secrets().seal(labelWebhookSecret, w.Secret)
		if err != nil {
			return err
		}
		w.SecretSealed, w.SecretLost = sealed, false
	case !w.SecretLost:
		w.SecretSealed = nil
	}
	return nil
}

// List returns every webhook, oldest first.
func (wh Webhooks) List(ctx context.Context) ([]Webhook, error) {
	out := []Webhook{}
	err := wh.s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bWebhooks).ForEach(func(k, v []byte) error {
			var w Webhook
			if err := json.Unmarshal(v, &w); err != nil {
				return fmt.Errorf("decoding webhook %s: %w", k, err)
			}
			wh.open(&w)
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

// Update applies fn to the stored webhook in one transaction; fn
// must not change ID or CreatedAt (they are restored). An error from fn
// aborts the update and is returned as is.
func (wh Webhooks) Update(ctx context.Context, id string, fn func(*Webhook) error) (Webhook, error) {
	var w Webhook
	err := wh.s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bWebhooks)
		if err := getJSON(b, []byte(id), &w); err != nil {
			return err
		}
		created := w.CreatedAt
		wh.open(&w)
		if err := fn(&w); err != nil {
			return err
		}
		w.ID, w.CreatedAt, w.UpdatedAt = id, created, wh.s.nowMs()
		if err := wh.seal(&w); err != nil {
			return err
		}
		return putJSON(b, []byte(id), w)
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("updating webhook %s: %w", id, err)
	}
	return w, nil
}

// Delete removes the webhook, or answers ErrNotFound. Its queued
// deliveries stay queued; their handler finds the webhook gone and sets
// them aside.
func (wh Webhooks) Delete(ctx context.Context, id string) error {
	err := wh.s.db.Update(func(tx *bolt.Tx) error {
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
// (Jobs.FanOut).
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

// ErrFannedOut: the job had already fanned out (Jobs.FanOut); nothing was
// enqueued again.
var ErrFannedOut = errors.New("job already fanned out")

// FanOut enqueues (or merges) specs for attempt try of job id and
// marks the job fanned out (its progress note FanOutNote), in one
// transaction, so that a job retried after a crash never fans out twice:
// the second call answers ErrFannedOut and changes nothing. It answers
// ErrJobLost when the attempt no longer holds the job.
func (js Jobs) FanOut(ctx context.Context, id uint64, try int, specs []FanOutSpec) error {
	err := js.s.db.Update(func(tx *bolt.Tx) error {
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
			if err := js.fanOutOne(tx, fs); err != nil {
				return err
			}
		}
		now := js.s.nowMs()
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
func (js Jobs) fanOutOne(tx *bolt.Tx, fs FanOutSpec) error {
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
				j.UpdatedAt = js.s.nowMs()
				return putJSON(tx.Bucket(bJobs), u64(j.ID), j)
			}
			sp.Key = fs.AltKey
		}
	}
	_, err := js.enqueue(tx, []JobSpec{sp})
	return err
}
