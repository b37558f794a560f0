package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// VariantAttempts is how many attempts a photo's variant job gets. An
// attempt counts from the moment it begins, so one the process died in
// (out of memory, a decoder crash, a power cut) counts like one that
// failed. Once a job has used them all it is set aside: the photo keeps
// its original only (docs/decisions.md, "Variant jobs that keep failing").
const VariantAttempts = 3

var (
	// ErrVariantsSetAside: the photo's variants are not tried any more;
	// only its original exists.
	ErrVariantsSetAside = errors.New("variants set aside")
	// ErrVariantJobNotDue: the job waits for its retry time (NextAt).
	ErrVariantJobNotDue = errors.New("variant job not due yet")
)

// interruptedAttempt is the LastError of an attempt that began and never
// ended: the process died during it.
const interruptedAttempt = "interrupted: the process stopped during the attempt"

// VariantJob is a photo's queued variant job and the record of its
// attempts.
type VariantJob struct {
	PhotoID string `json:"-"`
	// Attempts counts the attempts begun, the one in flight included.
	Attempts int `json:"attempts"`
	// LastAttemptAt is when the last attempt began, epoch ms; 0: never.
	LastAttemptAt int64 `json:"lastAttemptAt,omitempty"`
	// LastError says why the last attempt failed, "" if none has.
	LastError string `json:"lastError,omitempty"`
	// NextAt is the earliest time of the next attempt, epoch ms; 0: now.
	NextAt int64 `json:"nextAt,omitempty"`
	// InFlight: an attempt began and has not ended. Seen by the next
	// attempt, it means the process died during it.
	InFlight bool `json:"inFlight,omitempty"`
}

// getVariantJob reads a photo's job; ok is false when it has none. Jobs queued
// before attempts were recorded have an empty value: a fresh job.
func getVariantJob(tx *bolt.Tx, id string) (VariantJob, bool, error) {
	job := VariantJob{PhotoID: id}
	k, v := tx.Bucket(bVariantQueue).Cursor().Seek([]byte(id))
	if k == nil || !bytes.Equal(k, []byte(id)) {
		return job, false, nil
	}
	if len(v) > 0 {
		if err := getJSON(tx.Bucket(bVariantQueue), k, &job); err != nil {
			return job, false, err
		}
	}
	return job, true, nil
}

// putVariantJob writes a photo's variant job.
func putVariantJob(tx *bolt.Tx, job VariantJob) error {
	return putJSON(tx.Bucket(bVariantQueue), []byte(job.PhotoID), job)
}

// setAside drops the photo's job and marks its variants failed.
func setAside(tx *bolt.Tx, p Photo) error {
	if err := tx.Bucket(bVariantQueue).Delete([]byte(p.ID)); err != nil {
		return err
	}
	p.Variants, p.VariantsFailed = false, true
	return putJSON(tx.Bucket(bPhotos), []byte(p.ID), p)
}

// StartVariantAttempt records, in its own committed transaction, that an
// attempt at the photo's variants begins now, and returns the photo and
// its job as counted. Record it before the work, so an attempt the
// process dies in still counts. An attempt found still in flight was
// interrupted by a crash: it stays counted and LastError says so.
//
// It answers, without counting an attempt: the photo with Variants set
// when they exist already (any job is dropped); ErrNotFound when the
// photo is gone (its job is dropped); ErrVariantsSetAside when the photo
// was set aside already (with a zero job), or is now because its job used
// VariantAttempts (with that job); and ErrVariantJobNotDue, with the job,
// before the job's NextAt.
func (s *Store) StartVariantAttempt(ctx context.Context, id string) (Photo, VariantJob, error) {
	var (
		p       Photo
		job     VariantJob
		outcome error
	)
	// Most calls that answer "not now" change nothing: decide those in a
	// read, so that a page asking for a waiting photo's thumb again and
	// again costs no disk write.
	err := s.db.View(func(tx *bolt.Tx) error {
		if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); err != nil {
			return err
		}
		var queued bool
		var err error
		if job, queued, err = getVariantJob(tx, id); err != nil {
			return err
		}
		switch {
		case p.VariantsFailed && !queued:
			outcome = ErrVariantsSetAside
		case !p.Variants && !p.VariantsFailed && !job.InFlight && job.Attempts < VariantAttempts && job.NextAt > s.nowMs():
			outcome = ErrVariantJobNotDue
		}
		return nil
	})
	if err == nil && outcome != nil {
		if outcome == ErrVariantsSetAside {
			job = VariantJob{}
		}
		return p, job, fmt.Errorf("variants of %s: %w", id, outcome)
	}
	err = s.db.Update(func(tx *bolt.Tx) error {
		queue := tx.Bucket(bVariantQueue)
		if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); errors.Is(err, ErrNotFound) {
			outcome = ErrNotFound
			return queue.Delete([]byte(id))
		} else if err != nil {
			return err
		}
		if p.Variants {
			return queue.Delete([]byte(id))
		}
		if p.VariantsFailed {
			outcome = ErrVariantsSetAside
			return queue.Delete([]byte(id))
		}
		var err error
		if job, _, err = getVariantJob(tx, id); err != nil {
			return err
		}
		if job.InFlight {
			job.InFlight, job.LastError = false, interruptedAttempt
		}
		now := s.nowMs()
		switch {
		case job.Attempts >= VariantAttempts:
			outcome = ErrVariantsSetAside
			if err := setAside(tx, p); err != nil {
				return err
			}
			p.Variants, p.VariantsFailed = false, true
			return nil
		case job.NextAt > now:
			outcome = ErrVariantJobNotDue
			return putVariantJob(tx, job)
		}
		job.Attempts++
		job.LastAttemptAt, job.InFlight = now, true
		return putVariantJob(tx, job)
	})
	if err != nil {
		return Photo{}, VariantJob{}, fmt.Errorf("starting a variant attempt for %s: %w", id, err)
	}
	if outcome != nil {
		return p, job, fmt.Errorf("variants of %s: %w", id, outcome)
	}
	return p, job, nil
}

// FailVariantAttempt records that the attempt in flight failed with cause
// and may be tried again from retryAt (epoch ms). When the job has used
// its VariantAttempts it is set aside instead, and setAside is true. A
// job that is gone (the photo was deleted, or its variants were made
// meanwhile) is left alone.
func (s *Store) FailVariantAttempt(ctx context.Context, id, cause string, retryAt int64) (setAsideNow bool, err error) {
	err = s.db.Update(func(tx *bolt.Tx) error {
		job, ok, err := getVariantJob(tx, id)
		if err != nil || !ok {
			return err
		}
		var p Photo
		if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); errors.Is(err, ErrNotFound) {
			return tx.Bucket(bVariantQueue).Delete([]byte(id))
		} else if err != nil {
			return err
		}
		if job.Attempts >= VariantAttempts {
			setAsideNow = true
			return setAside(tx, p)
		}
		job.InFlight, job.LastError, job.NextAt = false, cause, retryAt
		return putVariantJob(tx, job)
	})
	if err != nil {
		return false, fmt.Errorf("recording a failed variant attempt for %s: %w", id, err)
	}
	return setAsideNow, nil
}

// CancelVariantAttempt takes back the attempt in flight without counting
// it: the work was cancelled (shutdown, a client that went away), which
// says nothing about the photo.
func (s *Store) CancelVariantAttempt(ctx context.Context, id string) error {
	err := s.db.Update(func(tx *bolt.Tx) error {
		job, ok, err := getVariantJob(tx, id)
		if err != nil || !ok || !job.InFlight {
			return err
		}
		job.Attempts--
		job.InFlight = false
		return putVariantJob(tx, job)
	})
	if err != nil {
		return fmt.Errorf("cancelling a variant attempt for %s: %w", id, err)
	}
	return nil
}

// FinishVariantJob drops a photo's variant job and records its outcome:
// made reports that thumb and display are on disk; false sets the photo
// aside at once. When the photo was deleted meanwhile it drops the job
// and answers ErrNotFound: the caller removes any files it made.
func (s *Store) FinishVariantJob(ctx context.Context, id string, made bool) error {
	gone := false
	err := s.db.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bVariantQueue).Delete([]byte(id)); err != nil {
			return err
		}
		var p Photo
		if err := getJSON(tx.Bucket(bPhotos), []byte(id), &p); errors.Is(err, ErrNotFound) {
			gone = true // commit the job's removal all the same
			return nil
		} else if err != nil {
			return err
		}
		p.Variants, p.VariantsFailed = made, !made
		return putJSON(tx.Bucket(bPhotos), []byte(id), p)
	})
	if err == nil && gone {
		err = ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("finishing the variant job of %s: %w", id, err)
	}
	return nil
}

// RetryVariants queues a fresh variant job, with all its attempts, for
// each set-aside photo of the event among ids, and returns the ids it
// queued. Other photos, ids of other events and unknown ids are skipped.
func (s *Store) RetryVariants(ctx context.Context, eventID string, ids []string) ([]string, error) {
	var queued []string
	err := s.db.Update(func(tx *bolt.Tx) error {
		return eachPhoto(tx, ids, func(p Photo) error {
			if p.EventID != eventID || !p.VariantsFailed {
				return nil
			}
			p.VariantsFailed = false
			if err := putJSON(tx.Bucket(bPhotos), []byte(p.ID), p); err != nil {
				return err
			}
			queued = append(queued, p.ID)
			return putVariantJob(tx, VariantJob{PhotoID: p.ID})
		})
	})
	if err != nil {
		return nil, fmt.Errorf("retrying variants: %w", err)
	}
	return queued, nil
}

// VariantJobs returns the queued variant jobs (new ones, ones waiting
// for a retry, and ones left by a restart or a power cut), in photo id
// order.
func (s *Store) VariantJobs(ctx context.Context) ([]VariantJob, error) {
	var jobs []VariantJob
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bVariantQueue).ForEach(func(k, _ []byte) error {
			job, _, err := getVariantJob(tx, string(k))
			jobs = append(jobs, job)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("listing variant jobs: %w", err)
	}
	return jobs, nil
}
