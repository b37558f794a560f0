package daemon

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"log/slog"
	"testing"
	"time"

	"eventbox/store"
)

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
		{0, 15 * time.Minute},
	} {
		seen := map[time.Duration]bool{}
		for range 50 {
			d := retryDelay(tt.attempts)
			if d < tt.full/2 || d > tt.full {
				t.Fatalf("retryDelay(%d) = %v, want %v to %v", tt.attempts, d, tt.full/2, tt.full)
			}
			seen[d] = true
		}
		if len(seen) < 2 {
			t.Errorf("retryDelay(%d) has no jitter", tt.attempts)
		}
	}
}

// TestCancelledAttemptIsNotCounted: work cut short by a shutdown (its
// context cancelled) gives its attempt back, however often it happens.
func TestCancelledAttemptIsNotCounted(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	p := store.Photo{ID: store.NewID(), EventID: store.NewID(), Status: store.StatusVisible, Format: "jpeg"}
	if _, err := st.Media().Write(p.OriginalName(), bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if _, err := st.AddPhoto(ctx, p, 0); err != nil {
		t.Fatal(err)
	}
	v := newVariantMaker(st, 1, slog.New(slog.DiscardHandler), time.Now)
	stopped, cancel := context.WithCancel(ctx)
	cancel()
	for range store.VariantAttempts + 1 {
		if err := v.ensure(stopped, p.ID); err == nil {
			t.Fatal("an attempt with a cancelled context succeeded")
		}
	}
	jobs, err := st.VariantJobs(ctx)
	if err != nil || len(jobs) != 1 || jobs[0].Attempts != 0 || jobs[0].InFlight {
		t.Fatalf("jobs after cancelled attempts: %+v, %v", jobs, err)
	}
	if err := v.ensure(ctx, p.ID); err != nil {
		t.Fatalf("an attempt after the cancelled ones: %v", err)
	}
	if got, _ := st.Photo(ctx, p.ID); !got.Variants {
		t.Fatalf("photo after its attempt: %+v", got)
	}
}
