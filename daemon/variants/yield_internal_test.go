package variants

import (
	"bytes"
	"context"
	"image"
	"image/jpeg"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/store"
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
				v, _ := newTestMaker(t, st, 1)
				if _, err := st.Photos().Add(ctx, p, 0, v.Jobs(p)...); err != nil {
					t.Fatal(err)
				}
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
