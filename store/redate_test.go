package store_test

import (
	"context"
	"testing"
	"time"

	"eventbox/store"
)

// TestRedateMovesWhatTheWrongClockDated: a box three days behind took
// photos, a message, a guest, a session and a job; once the clock is set
// and the records moved, they sort after a photo taken before the box
// started (which stays put), the indexes list them at their new times,
// the hourly counters moved with them and the job is due as it would have
// been.
func TestRedateMovesWhatTheWrongClockDated(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	real := c.Now()
	e := store.Event{Name: "party"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	c.Advance(-49 * time.Hour) // the last party, two days ago (real time)
	before, err := st.Photos().Add(ctx, store.Photo{EventID: e.ID, GuestID: "g0", Status: store.StatusVisible}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Power off; the box comes back three days behind.
	c.Advance(-23 * time.Hour)
	from := c.Now()
	var taken []string
	for range 3 {
		c.Advance(time.Minute)
		r, err := st.Photos().Add(ctx, store.Photo{EventID: e.ID, GuestID: "g1", Status: store.StatusVisible}, 0)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, r.Photo.ID)
	}
	g := store.Guest{EventID: e.ID, Name: "Ana"}
	if err := st.Guests().Create(ctx, &g); err != nil {
		t.Fatal(err)
	}
	m, err := st.Messages().Add(ctx, store.Message{ID: store.NewID(), EventID: e.ID, GuestID: g.ID, Text: "hi", Status: store.StatusVisible})
	if err != nil {
		t.Fatal(err)
	}
	token, err := st.Sessions().Create(ctx, "acct", false)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := st.Jobs().Enqueue(ctx, store.JobSpec{Kind: "test", RunAt: c.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	to := c.Now()
	offset := real.Sub(to)

	n, err := st.Redate(ctx, from, to, offset)
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(offset)
	if n.Photos != 3 || n.Messages != 1 || n.Guests != 1 || n.Sessions != 1 || n.Jobs != 1 {
		t.Errorf("moved %+v", n)
	}

	page, err := st.Photos().List(ctx, store.PhotoQuery{EventID: e.ID})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range page.Items {
		got = append(got, p.ID)
	}
	want := []string{taken[2], taken[1], taken[0], before.Photo.ID} // newest first
	if len(got) != len(want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("listed %v, want %v", got, want)
		}
	}
	if p := page.Items[0]; p.CreatedAt != real.UnixMilli() {
		t.Errorf("last photo at %v, want %v", time.UnixMilli(p.CreatedAt).UTC(), real)
	}
	if p, _ := st.Photos().Get(ctx, before.Photo.ID); p.CreatedAt != before.Photo.CreatedAt {
		t.Error("a photo from before the box started moved")
	}
	byGuest, err := st.Photos().List(ctx, store.PhotoQuery{EventID: e.ID, GuestID: "g1"})
	if err != nil || len(byGuest.Items) != 3 || byGuest.Items[0].CreatedAt != real.UnixMilli() {
		t.Errorf("the guest index: %+v, %v", byGuest.Items, err)
	}
	hours, err := st.Stats().Hourly(ctx, []string{e.ID})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hours {
		if h.Hour < before.Photo.CreatedAt-time.Hour.Milliseconds() {
			t.Errorf("an hour of the wrong clock is still counted: %+v", h)
		}
	}
	if msg, _ := st.Messages().Get(ctx, m.ID); msg.CreatedAt != m.CreatedAt+offset.Milliseconds() {
		t.Errorf("message at %d, want %d", msg.CreatedAt, m.CreatedAt+offset.Milliseconds())
	}
	if gg, _ := st.Guests().Get(ctx, e.ID, g.ID); gg.CreatedAt != g.CreatedAt+offset.Milliseconds() {
		t.Errorf("guest at %d", gg.CreatedAt)
	}
	if s, _ := st.Sessions().Get(ctx, token); s.LastUsedAt != real.UnixMilli() {
		t.Errorf("session last used %v, want %v", time.UnixMilli(s.LastUsedAt).UTC(), real)
	}
	// The job, due an hour after it was queued, is due an hour from now.
	cl, err := st.Jobs().Claim(ctx, "test", store.JobLimits{MaxFailures: 1})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Claimed || !cl.Waiting || cl.Next != time.Hour {
		t.Errorf("claim = %+v, want the job due in 1h", cl)
	}
	c.Advance(time.Hour)
	if cl, _ := st.Jobs().Claim(ctx, "test", store.JobLimits{MaxFailures: 1}); !cl.Claimed || cl.Job.ID != ids[0] {
		t.Errorf("claim after an hour = %+v", cl)
	}
}
