package variants

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/store"
)

// TestInterruptedJobsRunAloneAtStart: jobs whose attempt a crash cut
// short are run one at a time at the next start, so a photo that crashed
// the process does not take the photos decoded beside it down with it
// again. The first job's attempt is held in flight until the test lets it
// go; meanwhile the other interrupted job must not start, though workers
// are free. It runs in a testing/synctest bubble: synctest.Wait is "every
// worker has done all it would do", and the waits after it take fake time.
func TestInterruptedJobsRunAloneAtStart(t *testing.T) {
	synctest.Test(t, testInterruptedJobsRunAloneAtStart)
}

func testInterruptedJobsRunAloneAtStart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	event := store.NewID()
	blocking := store.Photo{ID: "aaaaaaaaaaaaaaaa", EventID: event, Status: store.StatusVisible, Format: "jpeg"}
	innocent := store.Photo{ID: "bbbbbbbbbbbbbbbb", EventID: event, Status: store.StatusVisible, Format: "jpeg"}
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Media().Write(innocent.OriginalName(), &jpg); err != nil {
		t.Fatal(err)
	}
	// The blocking photo's original does not decode: its attempt fails
	// once the test lets it go.
	if _, err := st.Media().Write(blocking.OriginalName(), strings.NewReader("not an image")); err != nil {
		t.Fatal(err)
	}
	lim := store.JobLimits{MaxFailures: store.VariantAttempts, MaxDeaths: store.VariantAttempts}
	for _, p := range []store.Photo{blocking, innocent} {
		if _, err := st.Photos().Add(ctx, p, 0, store.VariantJobSpec(p.ID)); err != nil {
			t.Fatal(err)
		}
		// Both were being decoded when the process died.
		if c, err := st.Jobs().ClaimByKey(ctx, store.VariantJobKind, p.ID, lim); err != nil || !c.Claimed {
			t.Fatalf("claiming %s: %+v, %v", p.ID, c, err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	st, err = store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	v, r := newTestMaker(t, st, 3)
	held := make(chan struct{})
	release := make(chan struct{})
	v.beforeOpen = func(ctx context.Context, id string) {
		if id != blocking.ID {
			return
		}
		close(held)
		select {
		case <-release:
		case <-ctx.Done():
		}
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		_ = r.Run(runCtx)
		close(done)
	}()
	defer func() {
		stop()
		<-done
	}()

	synctest.Wait()
	select {
	case <-held:
	default:
		t.Fatal("the first interrupted job did not start")
	}
	if p, _ := st.Photos().Get(ctx, innocent.ID); p.Variants {
		close(release)
		t.Fatal("another interrupted job ran while the first was still in flight")
	}
	close(release)
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if p, _ := st.Photos().Get(ctx, innocent.ID); p.Variants {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the innocent photo's variants were not made after the first job ended")
		}
	}
	// The photo is marked just before its attempt is recorded as ended.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		jobs := unfinishedVariantJobs(t, st)
		if len(jobs) == 1 && jobs[0].Key == blocking.ID && jobs[0].Tries == 2 && jobs[0].Status == store.JobQueued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("jobs after the start: %+v", jobs)
		}
	}
}
