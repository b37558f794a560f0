package s3store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/s3store"
)

// peakHeap samples the heap in use while fn runs and answers its peak
// growth over the start.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	base := m.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse > base && m.HeapInuse-base > peak.Load() {
				peak.Store(m.HeapInuse - base)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	fn()
	close(stop)
	wg.Wait()
	return peak.Load()
}

// TestHostileStoreStaysWithinTheMemoryBound: an endless listing (one
// answer that never ends, or pages that never end), a huge error body and
// a redirect each fail, saying so, and a PUT's answer whose body never
// ends is not read (minio-go drains a body it closes), with the box's
// memory grown by less than memBound and the server cut off well before
// it is done.
func TestHostileStoreStaysWithinTheMemoryBound(t *testing.T) {
	const memBound = 32 << 20
	key := func(i int) string {
		return fmt.Sprintf("<Contents><Key>boxes/box/party/IMG_%09d.jpg</Key><Size>1048576</Size><ETag>\"abc\"</ETag></Contents>", i)
	}
	for _, tc := range []struct {
		name  string
		serve func(w http.ResponseWriter, r *http.Request, written *atomic.Int64)
		call  func(b *s3store.Bucket) error
		want  string
	}{
		{"an endless listing answer", func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
			w.Header().Set("Content-Type", "application/xml")
			bw := bufio.NewWriterSize(w, 64<<10)
			fmt.Fprint(bw, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>x</NextContinuationToken>`)
			for i := 0; written.Load() < 1<<30; i++ {
				n, err := fmt.Fprint(bw, key(i))
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, func(b *s3store.Bucket) error {
			_, err := b.List(context.Background(), "boxes/box/party")
			return err
		}, "larger than 1 MiB"},
		{"listing pages that never end", func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
			page := 0
			fmt.Sscan(r.URL.Query().Get("continuation-token"), &page)
			var b strings.Builder
			fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><IsTruncated>true</IsTruncated><NextContinuationToken>%d</NextContinuationToken>`, page+1)
			for i := range 1000 {
				b.WriteString(key(page*1000 + i))
			}
			b.WriteString(`</ListBucketResult>`)
			n, _ := fmt.Fprint(w, b.String())
			written.Add(int64(n))
		}, func(b *s3store.Bucket) error {
			_, err := b.List(context.Background(), "boxes/box/party")
			return err
		}, "more than"},
		{"a huge error body", func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusInternalServerError)
			bw := bufio.NewWriterSize(w, 64<<10)
			fmt.Fprint(bw, `<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>`)
			chunk := strings.Repeat("x", 64<<10)
			for written.Load() < 1<<30 {
				n, err := bw.WriteString(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, func(b *s3store.Bucket) error {
			_, err := b.Put(context.Background(), "boxes/box/party/a.jpg", strings.NewReader("abc"), 3, "")
			return err
		}, "500"},
		{"a PUT's answer that never ends", func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
			w.Header().Set("ETag", `"900150983cd24fb0d6963f7d28e17f72"`)
			bw := bufio.NewWriterSize(w, 64<<10)
			chunk := strings.Repeat("x", 64<<10)
			for written.Load() < 1<<30 {
				n, err := bw.WriteString(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}, func(b *s3store.Bucket) error {
			_, err := b.Put(context.Background(), "boxes/box/party/a.jpg", strings.NewReader("abc"), 3, "")
			return err
		}, ""},
		{"a redirect", func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusTemporaryRedirect)
		}, func(b *s3store.Bucket) error {
			_, err := b.Get(context.Background(), "boxes/box/party/a.jpg", 1<<20)
			return err
		}, "a redirect to 169.254.169.254, which eventbox does not follow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var written atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { tc.serve(w, r, &written) }))
			defer srv.Close()
			b, err := s3store.New(s3store.Settings{Endpoint: srv.URL, Bucket: "parties", AccessKey: "a", Secret: "s", PathStyle: true},
				s3store.Config{Timeout: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			var callErr error
			grew := peakHeap(func() { callErr = tc.call(b) })
			t.Logf("heap grew by %.1f MiB at its peak; the server wrote %.1f MiB", float64(grew)/(1<<20), float64(written.Load())/(1<<20))
			if n := written.Load(); n > 16<<20 {
				t.Errorf("the server wrote %d MiB before the box stopped reading", n>>20)
			}
			if tc.want == "" {
				// The answer's head was whole: the put may count; its
				// endless body must not be read.
				return
			}
			var e *s3store.Error
			if callErr == nil || !errors.As(callErr, &e) || !strings.Contains(callErr.Error(), tc.want) {
				t.Fatalf("got %v, want an *s3store.Error with %q", callErr, tc.want)
			}
			if grew > memBound {
				t.Errorf("the heap grew by %d MiB, over the bound of %d MiB", grew>>20, memBound>>20)
			}
			if tc.name == "a redirect" && !e.Permanent() {
				t.Error("a redirect is retried")
			}
		})
	}
}
