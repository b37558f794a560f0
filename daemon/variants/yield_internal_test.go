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
// uploads are being received, at most maxYield: on one core the image
// work made at once took the CPU from the guests still sending.
func TestAskedVariantsYieldToUploads(t *testing.T) {
	for _, tc := range []struct {
		name string
		// uploadFor is how long the upload goes on after the request.
		uploadFor time.Duration
		// want is when the original is opened.
		want time.Duration
	}{
		{"upload ends first", 500 * time.Millisecond, 500 * time.Millisecond},
		{"upload outlasts the bound", time.Hour, maxYield},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				st, p, v := makerWithAPhoto(t)
				start := time.Now()
				var openedAt atomic.Int64
				v.beforeOpen = func(context.Context, string) { openedAt.Store(int64(time.Since(start))) }
				done := v.Receive()
				ended := time.AfterFunc(tc.uploadFor, done)
				defer ended.Stop()
				if err := v.Ensure(ctx, p.ID); err != nil {
					t.Fatalf("Ensure: %v", err)
				}
				if got := time.Duration(openedAt.Load()); got < tc.want || got > tc.want+100*time.Millisecond {
					t.Fatalf("original opened %v after the request, want %v (upload for %v)", got, tc.want, tc.uploadFor)
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
