package store_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"eventbox/store"
)

// TestHeartsKeepTheirCountAndOrder: one heart per hearter and photo, the
// kept count matches the bucket, the most-loved list pages by count, and a
// hidden or deleted photo's hearts go with it.
func TestHeartsKeepTheirCountAndOrder(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	e := newEvent(t, st, "Party")
	var ids []string
	for range 4 {
		c.Advance(time.Second)
		res, err := st.Photos().Add(ctx, store.Photo{EventID: e.ID, Status: store.StatusVisible}, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Photo.ID)
	}
	ann, bob, browser := store.GuestHearter(store.NewID()), store.GuestHearter(store.NewID()), store.BrowserHearter(store.NewID())
	steps := []struct {
		photo int
		who   store.Hearter
		on    bool
		want  int
	}{
		{0, ann, true, 1},
		{0, ann, true, 1}, // again: still one
		{0, bob, true, 2},
		{0, browser, true, 3},
		{0, bob, false, 2}, // undo
		{0, bob, false, 2}, // undo again: nothing to undo
		{2, ann, true, 1},
		{3, ann, true, 1},
		{3, bob, true, 2},
		{3, browser, true, 3},
	}
	for i, s := range steps {
		p, _, err := st.Hearts().Set(ctx, e.ID, ids[s.photo], s.who, s.on)
		if err != nil || p.Hearts != s.want {
			t.Fatalf("step %d: hearts %d, %v; want %d", i, p.Hearts, err, s.want)
		}
		if n, _ := st.Hearts().Count(ctx, ids[s.photo]); n != s.want {
			t.Fatalf("step %d: the bucket holds %d hearts, the count says %d", i, n, s.want)
		}
	}
	// Most loved: photo 3 (3 hearts, newer) before photo 0 (2), then 2 (1).
	page, err := st.Photos().List(ctx, store.PhotoQuery{EventID: e.ID, Loved: true, Limit: 2})
	if err != nil || len(page.Items) != 2 || page.Items[0].ID != ids[3] || page.Items[1].ID != ids[0] || page.Next == 0 {
		t.Fatalf("most loved, first page = %+v, %v", page, err)
	}
	page, err = st.Photos().List(ctx, store.PhotoQuery{EventID: e.ID, Loved: true, Limit: 2, Before: page.Next})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != ids[2] || page.Next != 0 {
		t.Fatalf("most loved, second page = %+v, %v", page, err)
	}
	given, err := st.Hearts().Given(ctx, ann, ids)
	if err != nil || !given[ids[0]] || given[ids[1]] || !given[ids[2]] {
		t.Fatalf("ann's hearts = %v, %v", given, err)
	}
	// Hidden: its hearts go, and it takes no new one.
	if _, err := st.Photos().Update(ctx, e.ID, ids[3:4], func(p *store.Photo) bool { p.Status = store.StatusHidden; return true }); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Hearts().Count(ctx, ids[3]); n != 0 {
		t.Fatalf("a hidden photo keeps %d hearts", n)
	}
	if _, _, err := st.Hearts().Set(ctx, e.ID, ids[3], ann, true); !errors.Is(err, store.ErrNotVisible) {
		t.Fatalf("a heart on a hidden photo = %v", err)
	}
	if _, _, err := st.Hearts().Set(ctx, store.NewID(), ids[0], ann, true); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a heart through another event = %v", err)
	}
	// Deleted: its hearts go in the same transaction.
	if _, err := st.Photos().Delete(ctx, e.ID, "", ids[:1]); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Hearts().Count(ctx, ids[0]); n != 0 {
		t.Fatalf("a deleted photo leaves %d hearts", n)
	}
	page, err = st.Photos().List(ctx, store.PhotoQuery{EventID: e.ID, Loved: true})
	if err != nil || len(page.Items) != 1 || page.Items[0].ID != ids[2] {
		t.Fatalf("most loved after hide and delete = %+v, %v", page, err)
	}
	// A backup holds the hearts, and a store opened from it has them.
	restored := t.TempDir()
	snap, err := st.Snapshot(ctx, func(_ int64, db io.WriterTo) error {
		f, err := os.Create(filepath.Join(restored, "eventbox.db"))
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = db.WriteTo(f)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	snap.Close()
	back := open(t, restored, c)
	defer back.Close()
	if given, err := back.Hearts().Given(ctx, ann, ids[2:3]); err != nil || !given[ids[2]] {
		t.Fatalf("ann's heart after a restore = %v, %v", given, err)
	}
	if p, err := back.Photos().Get(ctx, ids[2]); err != nil || p.Hearts != 1 {
		t.Fatalf("the count after a restore = %d, %v", p.Hearts, err)
	}
}
