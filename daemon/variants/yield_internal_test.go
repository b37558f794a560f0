package variants

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// A photo's variants asked for by a request (a guest's album asking for
// the thumb just after the upload) wait, as background jobs do, while
// uploads are being received and keep the CPU busy, at most maxYield: on
// one core the image work made at once took the CPU from the guests still
// sending. Uploads that wait for the network (phones on the hotspot)
// leave the CPU free: the variants are made at once. The bound counts
// from when the photo's job was queued: a photo that waited in a backlog
// (a party's peak) does not wait again, or the worker would make one
// photo a second at the very moment photos come fastest.
func TestAskedVariantsYieldToUploads(t *testing.T) {
	for _, tc := range []struct {
		name string
		// uploadFor is how long the upload goes on after the request;
		// cpuBusyFor how long of it its handler waits for a CPU.
		uploadFor  time.Duration
		cpuBusyFor time.Duration
		// queuedAgo is how long the photo's job waited before the
		// request.
		queuedAgo time.Duration
		// want is when the original is opened.
		want time.Duration
	}{
		{"upload ends first", 500 * time.Millisecond, time.Hour, 0, 500 * time.Millisecond},
		{"upload outlasts the bound", time.Hour, time.Hour, 0, maxYield},
		{"upload waits for the network", time.Hour, 0, 0, 2 * yieldTick},
		// Busy for half the bound, then free: made two looks later.
		{"CPU free after a while", time.Hour, maxYield / 2, 0, maxYield/2 + 2*yieldTick},
		{"queued a while ago", time.Hour, time.Hour, maxYield / 4, maxYield * 3 / 4},
		{"queued the bound ago", time.Hour, time.Hour, maxYield, 0},
		{"queued long ago", time.Hour, time.Hour, time.Minute, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				st, p, v := makerWithAPhoto(t)
				time.Sleep(tc.queuedAgo)
				start := time.Now()
				want := tc.want
				v.cpuWanted = func() bool { return time.Since(start) < tc.cpuBusyFor }
				var openedAt atomic.Int64
				v.beforeOpen = func(context.Context, string) { openedAt.Store(int64(time.Since(start))) }
				done := v.Receive()
				ended := time.AfterFunc(tc.uploadFor, done)
				defer ended.Stop()
				if err := v.Ensure(ctx, p.ID); err != nil {
					t.Fatalf("Ensure: %v", err)
				}
				if got := time.Duration(openedAt.Load()); got < want || got > want+100*time.Millisecond {
					t.Fatalf("original opened %v after the request, want %v (upload for %v)", got, want, tc.uploadFor)
				}
				if got, _ := st.Photos().Get(ctx, p.ID); !got.Variants {
					t.Fatalf("photo after Ensure: %+v", got)
				}
				if tc.uploadFor > maxYield {
					done()
				}
			})
		})
	}
}
