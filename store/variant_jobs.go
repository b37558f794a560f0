package store

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// VariantJobKind is the job kind that makes a photo's thumb and display
// (daemon/variants); the job's Key is the photo id and it has no
// payload. Photos.Add enqueues it with the photo, deleting the photo
// cancels it, and a job set aside marks its photo VariantsFailed in the
// same commit (docs/decisions.md, "Variant jobs that keep failing").
const VariantJobKind = "variants"

// SharpenJobKind is the job kind that replaces a photo's rough thumb and
// display (Photo.VariantsRough) with sharp ones (daemon/variants); the
// job's Key is the photo id and it has no payload. SetVariantsRough
// queues it with the rough variants, and deleting the photo cancels it.
const SharpenJobKind = "sharpen"

// VariantAttempts is how many failed attempts, and separately how many
// attempts that died with the process (out of memory in a decoder, a
// power cut), a photo's variant job gets before it is set aside: the
// photo then keeps its original only.
const VariantAttempts = 3

// VariantJobSpec is the variant job of the photo id, for Photos.Add.
func VariantJobSpec(id string) JobSpec {
	return JobSpec{Kind: VariantJobKind, Key: id}
}

// variantsSetAside runs in the transaction that sets a variant job aside:
// its photo (if still there) is marked VariantsFailed, so pages stop
// waiting for a thumbnail that will not come.
func variantsSetAside(tx *bolt.Tx, j *Job) error {
	return editVariantPhoto(tx, j.Key, func(p *Photo) { p.Variants, p.VariantsFailed = false, true })
}

// variantsRequeued runs in the transaction that puts a set-aside variant
// job back in the queue (Jobs.Requeue): its photo is pending again.
func variantsRequeued(tx *bolt.Tx, j *Job) error {
	return editVariantPhoto(tx, j.Key, func(p *Photo) { p.VariantsFailed = false })
}

// editVariantPhoto applies edit to the photo id unless it is gone.
func editVariantPhoto(tx *bolt.Tx, id string, edit func(p *Photo)) error {
	var p Photo
	if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); errors.Is(err, ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	edit(&p)
	return putJSON(tx.Bucket(bPhotos), []byte(id), p)
}

// SetVariantsMade records that the thumb and display of photo id are on
// disk. It answers ErrNotFound when the photo was deleted meanwhile: the
// caller removes the files it made.
func (ps Photos) SetVariantsMade(ctx context.Context, id string) error {
	return ps.setVariants(id, false)
}

// SetVariantsRough records that photo id has rough variants on disk (the
// camera's preview as its thumb and display) and, in the same
// transaction, queues the job that makes the sharp ones: a power cut
// never leaves a rough photo with nothing to sharpen it. It answers
// ErrNotFound when the photo was deleted meanwhile.
func (ps Photos) SetVariantsRough(ctx context.Context, id string) error {
	return ps.setVariants(id, true)
}

// setVariants marks photo id's variants made, rough or sharp, and queues
// the sharpen job of rough ones.
func (ps Photos) setVariants(id string, rough bool) error {
	err := ps.s.db.Update(func(tx *bolt.Tx) error {
		var p Photo
		if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); err != nil {
			return err
		}
		p.Variants, p.VariantsFailed, p.VariantsRough = true, false, rough
		if err := putJSON(tx.Bucket(bPhotos), []byte(id), p); err != nil {
			return err
		}
		if !rough {
			return nil
		}
		_, err := ps.s.Jobs().enqueue(tx, []JobSpec{{Kind: SharpenJobKind, Key: id}})
		return err
	})
	if err != nil {
		return fmt.Errorf("recording the variants of %s: %w", id, err)
	}
	return nil
}

// RetryVariants puts the variant job of each set-aside photo of the event
// among ids back in the queue, with all its attempts (Jobs.Requeue; a
// fresh job when the failed one was pruned), and answers the ids it
// queued. Other photos, ids of other events and unknown ids are skipped.
func (ps Photos) RetryVariants(ctx context.Context, eventID string, ids []string) ([]string, error) {
	var queued []string
	err := ps.s.db.Update(func(tx *bolt.Tx) error {
		queued = nil
		failed, err := failedVariantJobs(tx)
		if err != nil {
			return err
		}
		var retry []string
		if err := eachPhoto(tx, ids, func(p Photo) error {
			if p.EventID == eventID && p.VariantsFailed {
				retry = append(retry, p.ID)
			}
			return nil
		}); err != nil {
			return err
		}
		for _, id := range retry {
			if j, ok := failed[id]; ok && tx.Bucket(bJobByKey).Get(uniqueKey(VariantJobKind, id)) == nil {
				if err := ps.s.Jobs().requeue(tx, j); err != nil {
					return err
				}
			} else {
				if err := editVariantPhoto(tx, id, func(p *Photo) { p.VariantsFailed = false }); err != nil {
					return err
				}
				if _, err := ps.s.Jobs().enqueue(tx, []JobSpec{VariantJobSpec(id)}); err != nil {
					return err
				}
			}
			queued = append(queued, id)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("retrying variants: %w", err)
	}
	return queued, nil
}

// failedVariantJobs maps photo ids to their latest set-aside variant job.
// Failed jobs are few (set aside, pruned after a month), so this walks
// them all.
func failedVariantJobs(tx *bolt.Tx) (map[string]Job, error) {
	out := map[string]Job{}
	prefix := []byte{JobFailed.statusByte()}
	cur := tx.Bucket(bJobByStatus).Cursor()
	for k, _ := cur.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = cur.Next() {
		j, err := getJob(tx, binary.BigEndian.Uint64(k[1:]))
		if err != nil {
			return nil, err
		}
		if j.Kind == VariantJobKind {
			out[j.Key] = j // ids grow: the latest wins
		}
	}
	return out, nil
}

// legacyVariantJob is an entry of the variant_queue bucket that schema 4
// replaced by jobs of VariantJobKind. An empty value was a fresh job.
type legacyVariantJob struct {
	Attempts      int    `json:"attempts"`
	LastAttemptAt int64  `json:"lastAttemptAt,omitempty"`
	LastError     string `json:"lastError,omitempty"`
	NextAt        int64  `json:"nextAt,omitempty"`
	InFlight      bool   `json:"inFlight,omitempty"`
}

// migrateVariantQueue turns each variant_queue entry into a queued job of
// VariantJobKind and drops the bucket. A job keeps its attempts: the
// ended ones count as failures, and one still in flight (the process
// died in it) is written as running, so that Open's recovery, which runs
// after the migrations, records it as died. Its times come from the old
// entry and the photo, so the step needs no clock. Entries of photos that
// are gone or already have their variants are dropped.
func migrateVariantQueue(tx *bolt.Tx) error {
	queue := tx.Bucket(bVariantQueue)
	if queue == nil {
		return nil
	}
	type entry struct {
		id  string
		job legacyVariantJob
	}
	var entries []entry
	if err := queue.ForEach(func(k, v []byte) error {
		e := entry{id: string(k)}
		if len(v) > 0 {
			if err := json.Unmarshal(v, &e.job); err != nil {
				return fmt.Errorf("reading the variant job of %s: %w", k, err)
			}
		}
		entries = append(entries, e)
		return nil
	}); err != nil {
		return err
	}
	for _, e := range entries {
		var p Photo
		if err := getJSON(tx.Bucket(bPhotos), []byte(e.id), &p); errors.Is(err, ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		if p.Variants || p.VariantsFailed || tx.Bucket(bJobByKey).Get(uniqueKey(VariantJobKind, e.id)) != nil {
			continue
		}
		seq, err := tx.Bucket(bJobs).NextSequence()
		if err != nil {
			return err
		}
		old := e.job
		j := Job{ID: seq, Kind: VariantJobKind, Key: e.id, Payload: json.RawMessage("null"),
			Status: JobQueued, CreatedAt: p.CreatedAt, DueAt: max(old.NextAt, p.CreatedAt),
			UpdatedAt: max(old.LastAttemptAt, p.CreatedAt), Tries: old.Attempts,
			Failures: old.Attempts, LastError: old.LastError}
		if old.InFlight && old.Attempts > 0 {
			j.Failures--
			j.Status, j.DueAt = JobRunning, 0
			j.Attempts = []JobAttempt{{N: j.Tries, Start: old.LastAttemptAt, Outcome: OutcomeRunning}}
		}
		if err := putJob(tx, &j, nil); err != nil {
			return fmt.Errorf("queuing the variant job of %s: %w", e.id, err)
		}
	}
	if err := tx.DeleteBucket(bVariantQueue); err != nil {
		return fmt.Errorf("dropping %s: %w", bVariantQueue, err)
	}
	return nil
}
