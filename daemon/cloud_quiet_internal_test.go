package daemon

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/cloudexport"
)

// The export waits, over the real upload gate, while an upload is being
// received, and for the quiet period after the last one ended; with no
// upload since it last looked, it goes on at once.
func TestExportPausesWhileUploadsArrive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := newUploadGate(0, 0, 0)
		q := cloudexport.NewQuiet(gate.activity, 10*time.Second)
		ctx := context.Background()
		if err := q.Wait(ctx); err != nil {
			t.Fatal(err)
		}

		release, ok := gate.acquire(uploadKey{"addr:a", 8})
		if !ok {
			t.Fatal("gate refused")
		}
		done := make(chan time.Time, 1)
		go func() {
			_ = q.Wait(ctx)
			done <- time.Now()
		}()
		time.Sleep(time.Hour)
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("the export went on during an upload")
		default:
		}
		ended := time.Now()
		release()
		synctest.Wait()
		select {
		case <-done:
			t.Fatal("the export went on right after the upload, with no quiet period")
		default:
		}
		at := <-done
		if got := at.Sub(ended); got != 10*time.Second {
			t.Fatalf("went on %v after the upload ended, want 10s", got)
		}
		start := time.Now()
		if err := q.Wait(ctx); err != nil || time.Since(start) != 0 {
			t.Fatalf("with no upload since, waited %v (%v)", time.Since(start), err)
		}
	})
}
