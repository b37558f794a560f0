package storage_test

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"eventbox/daemon/storage"
	"eventbox/daemon/web"
	"eventbox/store"
)

// TestGuardTripsAndReopensWithAMargin walks the free space of a faked
// card down and up: the guard trips below the margin, stays low until the
// space is back above the margin and an eighth, keeps its state when
// statfs fails, queues one storage.low notice per trip (and nudges the
// notice kind), and refuses uploads with 507 without calling the handler
// while low.
func TestGuardTripsAndReopensWithAMargin(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const margin = 800
	var free atomic.Int64
	var fail atomic.Bool
	var nudged []string
	g := storage.New(storage.Config{Dir: "/card", Margin: margin, Logger: slog.New(slog.DiscardHandler), Store: st,
		Nudge: func(kind string) { nudged = append(nudged, kind) },
		Free: func(string) (int64, error) {
			if fail.Load() {
				return 0, errors.New("statfs failed")
			}
			return free.Load(), nil
		}})
	upload := g.Uploads(func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusCreated)
		return nil
	})
	for _, step := range []struct {
		free    int64
		fail    bool
		low     bool
		notices int
	}{
		{free: 10_000, low: false, notices: 0},
		{free: margin, low: false, notices: 0},
		{free: margin - 1, low: true, notices: 1},
		{free: margin + margin/8 - 1, low: true, notices: 1}, // not yet back
		{fail: true, low: true, notices: 1},                  // statfs fails: still low
		{free: margin + margin/8, low: false, notices: 1},
		{free: margin + 50, low: false, notices: 1}, // back, and no flapping
		{free: 10, low: true, notices: 2},           // a second trip, a second notice
	} {
		free.Store(step.free)
		fail.Store(step.fail)
		got := g.Check(ctx)
		if got.Low != step.low || got.Margin != margin || (!step.fail && got.Free != step.free) {
			t.Errorf("free %d (statfs failing %v): %+v; want low %v", step.free, step.fail, got, step.low)
		}
		rec := httptest.NewRecorder()
		err := upload(rec, httptest.NewRequest("POST", "/api/e/x/photos", nil))
		if step.low && !errors.Is(err, web.ErrInsufficientStorage) {
			t.Errorf("free %d: an upload got %v; want insufficient_storage", step.free, err)
		}
		if !step.low && (err != nil || rec.Code != http.StatusCreated) {
			t.Errorf("free %d: an upload got %v, %d; want it taken", step.free, err, rec.Code)
		}
		page, err := st.Jobs().List(ctx, store.JobFilter{Kind: store.NoticeJobKind, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Jobs) != step.notices || len(nudged) != step.notices {
			t.Errorf("free %d: %d notices queued, %d nudges; want %d", step.free, len(page.Jobs), len(nudged), step.notices)
		}
	}
	free.Store(margin + 300)
	if room := g.Room(ctx); room != 300 {
		t.Errorf("Room = %d; want 300", room)
	}
}

// TestDefaultMargin: two of the largest uploads and the database's growth.
func TestDefaultMargin(t *testing.T) {
	for _, tc := range []struct {
		upload, video int
		want          int64
	}{
		{25, 200, 464 << 20},
		{300, 200, 664 << 20},
	} {
		if got := storage.DefaultMargin(tc.upload, tc.video); got != tc.want {
			t.Errorf("DefaultMargin(%d, %d) = %d MiB; want %d MiB", tc.upload, tc.video, got>>20, tc.want>>20)
		}
	}
}
