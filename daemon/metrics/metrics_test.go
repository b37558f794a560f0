package metrics_test

import (
	"log/slog"
	"testing"
	"time"

	"eventbox/daemon/metrics"
)

// A request costs no allocation once its route and code were seen: the
// middleware runs on every request of a Pi.
func TestRequestDoesNotAllocate(t *testing.T) {
	m, err := metrics.New(metrics.Config{DataDir: t.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	m.Request("/api/e/:slug/photos", 201, time.Millisecond)
	if n := testing.AllocsPerRun(1000, func() { m.Request("/api/e/:slug/photos", 201, time.Millisecond) }); n != 0 {
		t.Errorf("Request allocates %v times", n)
	}
}

// BenchmarkRequest is the cost the metrics add to one request.
func BenchmarkRequest(b *testing.B) {
	m, err := metrics.New(metrics.Config{DataDir: b.TempDir(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Request("/api/e/:slug/photos", 201, time.Millisecond)
		}
	})
}
