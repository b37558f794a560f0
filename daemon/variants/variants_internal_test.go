package variants

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"log/slog"
	"math/rand/v2"
	"testing"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/store"
)

// newTestMaker returns a variant maker over st with its runner, not
// running.
func newTestMaker(t *testing.T, st *store.Store, workers int) (*Maker, *jobs.Runner) {
	t.Helper()
	log := slog.New(slog.DiscardHandler)
	r, err := jobs.New(jobs.Config{Store: st, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	v := New(Config{Store: st, Workers: workers, Logger: log, Jobs: r})
	if err := r.Register(v.Kind(), v.SharpenKind()); err != nil {
		t.Fatal(err)
	}
	return v, r
}

// unfinishedVariantJobs returns the queued or running variant jobs.
func unfinishedVariantJobs(t *testing.T, st *store.Store) []store.Job {
	t.Helper()
	jobs, err := st.Jobs().Unfinished(context.Background(), store.VariantJobKind, 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func TestRetryDelayIsCappedAndJittered(t *testing.T) {
	for _, tt := range []struct {
		attempts int
		full     time.Duration
	}{
		{1, 30 * time.Second},
		{2, time.Minute},
		{3, 2 * time.Minute},
		{6, 15 * time.Minute},
		{40, 15 * time.Minute},
	} {
		seen := map[time.Duration]bool{}
		for range 50 {
			d := variantRetry.Delay(tt.attempts, rand.Float64())
			if d < tt.full/2 || d > tt.full {
				t.Fatalf("delay after failure %d = %v, want %v to %v", tt.attempts, d, tt.full/2, tt.full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("the delay after failure %d has no jitter", tt.attempts)
		}
	}
}

// TestCancelledAttemptIsNotCounted: work cut short by a shutdown (its
// context cancelled) gives its attempt back, however often it happens.
func TestCancelledAttemptIsNotCounted(t *testing.T) {
	ctx := context.Background()
	st, p, v := makerWithAPhoto(t)
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	for range store.VariantAttempts + 1 {
		if err := v.Ensure(stopped, p.ID); err == nil {
			t.Fatal("an attempt with a cancelled context succeeded")
		}
	}
	jobs := unfinishedVariantJobs(t, st)
	if len(jobs) != 1 || jobs[0].Failures != 0 || jobs[0].Deaths != 0 || jobs[0].Status != store.JobQueued {
		t.Fatalf("jobs after cancelled attempts: %+v", jobs)
	}
	for _, a := range jobs[0].Attempts {
		if a.Outcome != store.OutcomeInterrupted {
			t.Fatalf("a cancelled attempt is recorded as %s: %+v", a.Outcome, jobs[0].Attempts)
		}
	}
	if err := v.Ensure(ctx, p.ID); err != nil {
		t.Fatalf("an attempt after the cancelled ones: %v", err)
	}
	if got, _ := st.Photos().Get(ctx, p.ID); !got.Variants {
		t.Fatalf("photo after its attempt: %+v", got)
	}
}

// makerWithAPhoto opens a store in a temp folder holding one small
// visible JPEG, recorded with its variant jobs, and a Maker of one worker
// over it.
func makerWithAPhoto(t *testing.T) (*store.Store, store.Photo, *Maker) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	p := store.Photo{ID: store.NewID(), EventID: store.NewID(), Status: store.StatusVisible, Format: "jpeg"}
	if _, err := st.Media().Write(p.OriginalName(), bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	v, _ := newTestMaker(t, st, 1)
	if _, err := st.Photos().Add(ctx, p, 0, v.Jobs(p)...); err != nil {
		t.Fatal(err)
	}
	return st, p, v
}
