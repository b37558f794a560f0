package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"eventbox/store"
)

// oneJob returns the only queued variant job, failing unless there is
// exactly one.
func oneJob(t *testing.T, st *store.Store) store.VariantJob {
	t.Helper()
	jobs, err := st.VariantJobs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 1 {
		t.Fatalf("want one variant job, got %+v", jobs)
	}
	return jobs[0]
}

func newPhotoJob(t *testing.T, st *store.Store, n int) store.Photo {
	t.Helper()
	return addPhoto(t, st, store.Photo{EventID: store.NewID(), GuestID: store.NewID(), Status: store.StatusVisible,
		Fingerprint: fmt.Sprintf("%064x", n)}, 0).Photo
}

func TestVariantAttemptsPersistAcrossReopen(t *testing.T) {
	ctx := context.Background()
	dir, c := t.TempDir(), newClock()
	st := open(t, dir, c)
	p := newPhotoJob(t, st, 1)
	if _, job, err := st.StartVariantAttempt(ctx, p.ID); err != nil || job.Attempts != 1 || !job.InFlight {
		t.Fatalf("first attempt: %+v, %v", job, err)
	}
	retryAt := c.Now().Add(time.Minute).UnixMilli()
	if aside, err := st.FailVariantAttempt(ctx, p.ID, "decoding: corrupt image", retryAt); err != nil || aside {
		t.Fatalf("failing the first attempt: set aside %v, %v", aside, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st = open(t, dir, c)
	defer st.Close()
	want := store.VariantJob{PhotoID: p.ID, Attempts: 1, LastAttemptAt: c.Now().UnixMilli(),
		LastError: "decoding: corrupt image", NextAt: retryAt}
	if got := oneJob(t, st); got != want {
		t.Fatalf("after a reopen the job is %+v, want %+v", got, want)
	}
	t.Run("it waits for its retry time", func(t *testing.T) {
		if _, _, err := st.StartVariantAttempt(ctx, p.ID); !errors.Is(err, store.ErrVariantJobNotDue) {
			t.Fatalf("an attempt before the retry time = %v, want ErrVariantJobNotDue", err)
		}
		if got := oneJob(t, st); got.Attempts != 1 {
			t.Fatalf("a refused attempt was counted: %+v", got)
		}
		c.Advance(time.Minute)
		if _, job, err := st.StartVariantAttempt(ctx, p.ID); err != nil || job.Attempts != 2 {
			t.Fatalf("an attempt at the retry time: %+v, %v", job, err)
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
		_, job, err := st.StartVariantAttempt(ctx, p.ID)
		if err != nil || job.Attempts != i {
			t.Fatalf("start %d: %+v, %v", i, job, err)
		}
		if i > 1 && job.LastError == "" {
			t.Errorf("start %d: the interrupted attempt left no error: %+v", i, job)
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
		c.Advance(2 * time.Second)
		st = open(t, dir, c)
	}
	defer st.Close()
	got, _, err := st.StartVariantAttempt(ctx, p.ID)
	if !errors.Is(err, store.ErrVariantsSetAside) {
		t.Fatalf("attempt after %d crashes = %v, want ErrVariantsSetAside", store.VariantAttempts, err)
	}
	if got.Variants || !got.VariantsFailed {
		t.Fatalf("set-aside photo = %+v", got)
	}
	if jobs, _ := st.VariantJobs(ctx); len(jobs) != 0 {
		t.Fatalf("a set-aside photo keeps its job: %+v", jobs)
	}
	if stored, _ := st.Photo(ctx, p.ID); !stored.VariantsFailed {
		t.Fatalf("the stored photo is not marked: %+v", stored)
	}
	if _, _, err := st.StartVariantAttempt(ctx, p.ID); !errors.Is(err, store.ErrVariantsSetAside) {
		t.Fatalf("a later attempt = %v, want ErrVariantsSetAside", err)
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
			if _, _, err := st.StartVariantAttempt(ctx, p.ID); err != nil {
				t.Fatalf("attempt %d: %v", i, err)
			}
			aside, err := st.FailVariantAttempt(ctx, p.ID, "corrupt", c.Now().UnixMilli())
			if err != nil || aside != (i == store.VariantAttempts) {
				t.Fatalf("failing attempt %d: set aside %v, %v", i, aside, err)
			}
		}
		if got, _ := st.Photo(ctx, p.ID); !got.VariantsFailed {
			t.Fatalf("photo = %+v", got)
		}
		t.Run("and a retry queues it again with all its attempts", func(t *testing.T) {
			queued, err := st.RetryVariants(ctx, p.EventID, []string{p.ID, store.NewID()})
			if err != nil || len(queued) != 1 {
				t.Fatalf("retry = %v, %v", queued, err)
			}
			if got, _ := st.Photo(ctx, p.ID); got.VariantsFailed {
				t.Fatalf("photo still set aside: %+v", got)
			}
			if _, job, err := st.StartVariantAttempt(ctx, p.ID); err != nil || job.Attempts != 1 {
				t.Fatalf("attempt after a retry: %+v, %v", job, err)
			}
			if err := st.FinishVariantJob(ctx, p.ID, true); err != nil {
				t.Fatal(err)
			}
		})
	})
	t.Run("a cancelled attempt does not count", func(t *testing.T) {
		p := newPhotoJob(t, st, 2)
		for range store.VariantAttempts + 2 {
			if _, _, err := st.StartVariantAttempt(ctx, p.ID); err != nil {
				t.Fatal(err)
			}
			if err := st.CancelVariantAttempt(ctx, p.ID); err != nil {
				t.Fatal(err)
			}
		}
		if job := oneJob(t, st); job.Attempts != 0 || job.InFlight {
			t.Fatalf("job after cancelled attempts: %+v", job)
		}
		if err := st.FinishVariantJob(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a photo whose variants exist has no attempt", func(t *testing.T) {
		p := newPhotoJob(t, st, 3)
		if err := st.FinishVariantJob(ctx, p.ID, true); err != nil {
			t.Fatal(err)
		}
		got, job, err := st.StartVariantAttempt(ctx, p.ID)
		if err != nil || !got.Variants || job.Attempts != 0 {
			t.Fatalf("attempt on a done photo: %+v %+v %v", got, job, err)
		}
	})
	t.Run("a deleted photo's job goes", func(t *testing.T) {
		p := newPhotoJob(t, st, 4)
		if _, _, err := st.StartVariantAttempt(ctx, p.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DeletePhotos(ctx, p.EventID, "", []string{p.ID}); err != nil {
			t.Fatal(err)
		}
		if jobs, _ := st.VariantJobs(ctx); len(jobs) != 0 {
			t.Fatalf("jobs left: %+v", jobs)
		}
		if aside, err := st.FailVariantAttempt(ctx, p.ID, "corrupt", 0); err != nil || aside {
			t.Fatalf("failing a deleted photo's attempt: %v, %v", aside, err)
		}
		if _, _, err := st.StartVariantAttempt(ctx, p.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("attempt on a deleted photo = %v, want ErrNotFound", err)
		}
		if jobs, _ := st.VariantJobs(ctx); len(jobs) != 0 {
			t.Fatalf("jobs back after the deleted photo's attempt: %+v", jobs)
		}
	})
}
