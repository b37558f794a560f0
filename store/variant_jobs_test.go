package store_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"eventbox/store"
)

// variantLimits are the limits the daemon gives the variants kind.
var variantLimits = store.JobLimits{MaxFailures: store.VariantAttempts, MaxDeaths: store.VariantAttempts}

// variantJobs returns the unfinished (queued or running) variant jobs.
func variantJobs(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	jobs, err := st.Jobs().Unfinished(context.Background(), store.VariantJobKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

// oneJob returns the only unfinished variant job, failing unless there is
// exactly one.
func oneJob(t *testing.T, st *store.Store) store.Job {
	t.Helper()
	jobs := variantJobs(t, st)
	if len(jobs) != 1 {
		t.Fatalf("want one variant job, got %+v", jobs)
	}
	return jobs[0]
}

// claimVariants claims the photo's variant job as a request asking for
// its thumbnail would.
func claimVariants(t *testing.T, st *store.Store, id string) store.JobClaim {
	t.Helper()
	c, err := st.Jobs().ClaimByKey(context.Background(), store.VariantJobKind, id, variantLimits)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func failVariants(t *testing.T, st *store.Store, j store.Job, cause string, retryIn time.Duration) store.Job {
	t.Helper()
	got, err := st.Jobs().Finish(context.Background(), j.ID, j.Tries,
		store.JobEnd{Outcome: store.OutcomeError, Error: cause, RetryIn: retryIn}, variantLimits)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func newPhotoJob(t *testing.T, st *store.Store, n int) store.Photo {
	t.Helper()
	return addPhoto(t, st, store.Photo{EventID: store.NewID(), GuestID: store.NewID(), Status: store.StatusVisible,
		Fingerprint: fmt.Sprintf("%064x", n)}, 0).Photo
}

func TestVariantAttemptsPersistAcrossReopen(t *testing.T) {
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	p := newPhotoJob(t, st, 1)
	cl := claimVariants(t, st, p.ID)
	if !cl.Claimed || cl.Job.Tries != 1 || cl.Job.Status != store.JobRunning {
		t.Fatalf("first attempt: %+v", cl)
	}
	started := c.Now().UnixMilli()
	if j := failVariants(t, st, cl.Job, "decoding: corrupt image", time.Minute); j.Status != store.JobQueued {
		t.Fatalf("the first failure set the job aside: %+v", j)
	}
	retryAt := c.Now().Add(time.Minute).UnixMilli()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, c)
	defer st.Close()
	got := oneJob(t, st)
	if got.Key != p.ID || got.Tries != 1 || got.Failures != 1 || got.Deaths != 0 || got.Status != store.JobQueued ||
		got.LastError != "decoding: corrupt image" || got.DueAt != retryAt ||
		len(got.Attempts) != 1 || got.Attempts[0].Start != started || got.Attempts[0].Outcome != store.OutcomeError {
		t.Fatalf("after a reopen the job is %+v", got)
	}
	t.Run("it waits for its retry time", func(t *testing.T) {
		if cl := claimVariants(t, st, p.ID); cl.Claimed || !cl.Waiting || cl.Next != time.Minute {
			t.Fatalf("a claim before the retry time = %+v, want waiting a minute", cl)
		}
		if got := oneJob(t, st); got.Tries != 1 {
			t.Fatalf("a refused claim was counted: %+v", got)
		}
		c.Advance(time.Minute)
		if cl := claimVariants(t, st, p.ID); !cl.Claimed || cl.Job.Tries != 2 {
			t.Fatalf("a claim at the retry time: %+v", cl)
		}
	})
}

func TestVariantAttemptInFlightAtACrashCounts(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	p := newPhotoJob(t, st, 1)
	// Each start begins an attempt and "crashes": the store is closed
	// without the attempt ending, as when the process dies mid-decode.
	for i := 1; i <= store.VariantAttempts; i++ {
		cl := claimVariants(t, st, p.ID)
		if !cl.Claimed || cl.Job.Tries != i || cl.Job.Deaths != i-1 {
			t.Fatalf("start %d: %+v", i, cl)
		}
		if a := cl.Job.Attempts; i > 1 && (a[len(a)-2].Outcome != store.OutcomeDied || a[len(a)-2].Error == "") {
			t.Errorf("start %d: the interrupted attempt is not recorded as died: %+v", i, a)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		c.Advance(2 * time.Second)
		st = open(t, dir, c)
	}
	defer st.Close()
	cl := claimVariants(t, st, p.ID)
	if cl.Claimed || len(cl.SetAside) != 1 {
		t.Fatalf("claim after %d crashes = %+v, want the job set aside", store.VariantAttempts, cl)
	}
	if jobs := variantJobs(t, st); len(jobs) != 0 {
		t.Fatalf("a set-aside photo keeps its job: %+v", jobs)
	}
	if stored, _ := st.Photos().Get(ctx, p.ID); stored.Variants || !stored.VariantsFailed {
		t.Fatalf("the stored photo is not marked: %+v", stored)
	}
	if cl := claimVariants(t, st, p.ID); cl.Claimed || cl.Waiting || cl.Busy {
		t.Fatalf("a later claim = %+v, want nothing to claim", cl)
	}
}

func TestVariantAttemptOutcomes(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()

	t.Run("the last failed attempt sets the photo aside", func(t *testing.T) {
		p := newPhotoJob(t, st, 1)
		for i := 1; i <= store.VariantAttempts; i++ {
			cl := claimVariants(t, st, p.ID)
			if !cl.Claimed {
				t.Fatalf("attempt %d: %+v", i, cl)
			}
			j := failVariants(t, st, cl.Job, "corrupt", 0)
			if aside := j.Status == store.JobFailed; aside != (i == store.VariantAttempts) {
				t.Fatalf("failing attempt %d: set aside %v", i, aside)
			}
		}
		if got, _ := st.Photos().Get(ctx, p.ID); !got.VariantsFailed {
			t.Fatalf("photo = %+v", got)
		}
		t.Run("and a retry queues it again with all its attempts", func(t *testing.T) {
			queued, err := st.Photos().RetryVariants(ctx, p.EventID, []string{p.ID, store.NewID()})
			if err != nil || len(queued) != 1 {
				t.Fatalf("retry = %v, %v", queued, err)
			}
			if got, _ := st.Photos().Get(ctx, p.ID); got.VariantsFailed {
				t.Fatalf("photo still set aside: %+v", got)
			}
			cl := claimVariants(t, st, p.ID)
			if !cl.Claimed || cl.Job.Failures != 0 || cl.Job.Deaths != 0 {
				t.Fatalf("attempt after a retry: %+v", cl)
			}
			if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeOK}, variantLimits); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("a retry after the failed job was pruned queues a fresh one", func(t *testing.T) {
		p := newPhotoJob(t, st, 5)
		cl := claimVariants(t, st, p.ID)
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomePermanent, Error: "corrupt"}, variantLimits); err != nil {
			t.Fatal(err)
		}
		c.Advance(time.Hour)
		if _, err := st.Jobs().Prune(ctx, time.Minute, time.Minute); err != nil {
			t.Fatal(err)
		}
		if queued, err := st.Photos().RetryVariants(ctx, p.EventID, []string{p.ID}); err != nil || len(queued) != 1 {
			t.Fatalf("retry = %v, %v", queued, err)
		}
		if got, _ := st.Photos().Get(ctx, p.ID); got.VariantsFailed {
			t.Fatalf("photo still set aside: %+v", got)
		}
		if j := oneJob(t, st); j.Key != p.ID || j.Tries != 0 {
			t.Fatalf("job after the retry: %+v", j)
		}
		if _, err := st.Jobs().Cancel(ctx, store.VariantJobKind, p.ID); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a cancelled attempt does not count", func(t *testing.T) {
		p := newPhotoJob(t, st, 2)
		for range store.VariantAttempts + 2 {
			cl := claimVariants(t, st, p.ID)
			if !cl.Claimed {
				t.Fatalf("claim: %+v", cl)
			}
			if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeInterrupted}, variantLimits); err != nil {
				t.Fatal(err)
			}
		}
		if job := oneJob(t, st); job.Failures != 0 || job.Deaths != 0 || job.Status != store.JobQueued {
			t.Fatalf("job after cancelled attempts: %+v", job)
		}
		cl := claimVariants(t, st, p.ID)
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeOK}, variantLimits); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a photo whose variants exist has no attempt", func(t *testing.T) {
		p := addPhoto(t, st, store.Photo{EventID: store.NewID(), GuestID: store.NewID(), Status: store.StatusVisible,
			Fingerprint: fmt.Sprintf("%064x", 3), Variants: true}, 0).Photo
		if cl := claimVariants(t, st, p.ID); cl.Claimed || cl.Waiting || cl.Busy {
			t.Fatalf("claim on a done photo: %+v", cl)
		}
	})
	t.Run("a running attempt is not claimed twice", func(t *testing.T) {
		p := newPhotoJob(t, st, 6)
		cl := claimVariants(t, st, p.ID)
		if again := claimVariants(t, st, p.ID); again.Claimed || !again.Busy {
			t.Fatalf("second claim = %+v, want busy", again)
		}
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeOK}, variantLimits); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a deleted photo's job goes", func(t *testing.T) {
		queued, running := newPhotoJob(t, st, 4), newPhotoJob(t, st, 7)
		cl := claimVariants(t, st, running.ID)
		for _, p := range []store.Photo{queued, running} {
			if _, err := st.Photos().Delete(ctx, p.EventID, "", []string{p.ID}); err != nil {
				t.Fatal(err)
			}
		}
		// The attempt in flight finds its photo gone and ends.
		if err := st.Photos().SetVariantsMade(ctx, running.ID); err == nil {
			t.Fatal("recording a deleted photo's variants succeeded")
		}
		if _, err := st.Jobs().Finish(ctx, cl.Job.ID, cl.Job.Tries, store.JobEnd{Outcome: store.OutcomeOK}, variantLimits); err != nil {
			t.Fatal(err)
		}
		if jobs := variantJobs(t, st); len(jobs) != 0 {
			t.Fatalf("jobs left: %+v", jobs)
		}
		if cl := claimVariants(t, st, queued.ID); cl.Claimed || cl.Waiting || cl.Busy {
			t.Fatalf("claim on a deleted photo = %+v", cl)
		}
	})
}

// TestVariantQueueMigratesToJobs writes a database in the shape of
// schema 3, with its variant_queue bucket (a fresh job, one that failed
// once and waits for its retry, one whose attempt the process died in,
// and the entry of a deleted photo), and opens it with this binary.
func TestVariantQueueMigratesToJobs(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	var photos []store.Photo
	for i := range 3 {
		// Added as a schema-3 binary would: the job goes in the old
		// bucket below, not in the job queue.
		res, err := st.Photos().Add(ctx, store.Photo{EventID: store.NewID(), GuestID: store.NewID(),
			Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", i)}, 0)
		if err != nil {
			t.Fatal(err)
		}
		photos = append(photos, res.Photo)
		c.Advance(time.Second)
	}
	fresh, waiting, died := photos[0], photos[1], photos[2]
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	lastAttempt, nextAt := c.Now().Add(-time.Minute).UnixMilli(), c.Now().Add(time.Minute).UnixMilli()
	path := filepath.Join(dir, store.DBFile)
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		q, err := tx.CreateBucket([]byte("variant_queue"))
		if err != nil {
			return err
		}
		entry := func(v map[string]any) []byte {
			b, _ := json.Marshal(v)
			return b
		}
		for id, v := range map[string][]byte{
			fresh.ID:      nil,
			waiting.ID:    entry(map[string]any{"attempts": 1, "lastAttemptAt": lastAttempt, "lastError": "corrupt", "nextAt": nextAt}),
			died.ID:       entry(map[string]any{"attempts": 2, "lastAttemptAt": lastAttempt, "lastError": "corrupt", "inFlight": true}),
			store.NewID(): nil, // a photo deleted since
		} {
			if err := q.Put([]byte(id), v); err != nil {
				return err
			}
		}
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), binary.BigEndian.AppendUint64(nil, 3))
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	st = open(t, dir, c)
	defer st.Close()
	byKey := map[string]store.Job{}
	for _, j := range variantJobs(t, st) {
		byKey[j.Key] = j
	}
	if len(byKey) != 3 {
		t.Fatalf("jobs after migrating: %+v", byKey)
	}
	if j := byKey[fresh.ID]; j.Status != store.JobQueued || j.Tries != 0 || j.DueAt != fresh.CreatedAt {
		t.Errorf("fresh job = %+v", j)
	}
	if j := byKey[waiting.ID]; j.Status != store.JobQueued || j.Tries != 1 || j.Failures != 1 || j.Deaths != 0 ||
		j.DueAt != nextAt || j.LastError != "corrupt" {
		t.Errorf("waiting job = %+v", j)
	}
	// The attempt in flight is found by Open's recovery, after the
	// migration: it died with the process.
	if j := byKey[died.ID]; j.Status != store.JobQueued || j.Tries != 2 || j.Failures != 1 || j.Deaths != 1 ||
		len(j.Attempts) != 1 || j.Attempts[0].Outcome != store.OutcomeDied || j.Attempts[0].Start != lastAttempt {
		t.Errorf("interrupted job = %+v", j)
	}
	if cl := claimVariants(t, st, fresh.ID); !cl.Claimed {
		t.Errorf("the fresh job cannot be claimed: %+v", cl)
	}
	err = func() error {
		db, err := bolt.Open(path+".schema-3.bak", 0o600, &bolt.Options{ReadOnly: true})
		if err != nil {
			return err
		}
		defer db.Close()
		return db.View(func(tx *bolt.Tx) error {
			if tx.Bucket([]byte("variant_queue")) == nil {
				return fmt.Errorf("the copy before migrating lacks the old bucket")
			}
			return nil
		})
	}()
	if err != nil {
		t.Error(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_ = db.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("variant_queue")) != nil {
			t.Error("the variant_queue bucket is still there")
		}
		return nil
	})
}
