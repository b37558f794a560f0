package daemon

import (
	"context"
	"slices"
	"testing"
	"time"

	"eventbox/daemon/access"
	"eventbox/store"
)

// TestStoreQueriesHoldWhatTheFilterHolds: the store query an access
// filter turns into (photoQuery, messageQuery) lists exactly the photos
// and messages the filter holds, for every combination of the filter's
// fields, over an event with a photo and a message in each status, of
// each sender, favourite or not.
func TestStoreQueriesHoldWhatTheFilterHolds(t *testing.T) {
	ctx := context.Background()
	clock := time.UnixMilli(1_700_000_000_000)
	st, err := store.Open(ctx, t.TempDir(), store.Options{Now: func() time.Time {
		clock = clock.Add(time.Millisecond)
		return clock
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := store.Event{Name: "Filters", Slug: "filters"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	var photos []store.Photo
	var msgs []store.Message
	for _, status := range []string{store.StatusVisible, store.StatusPending, store.StatusHidden} {
		for _, by := range []string{"G1", "G2", ""} {
			for _, fav := range []bool{false, true} {
				p := store.Photo{ID: store.NewID(), EventID: e.ID, GuestID: by, Status: status, Format: "jpeg"}
				if _, err := st.Photos().Add(ctx, p, 0); err != nil {
					t.Fatal(err)
				}
				if fav {
					if _, err := st.Photos().Update(ctx, e.ID, []string{p.ID}, func(p *store.Photo) bool { p.Favorite = true; return true }); err != nil {
						t.Fatal(err)
					}
				}
				if p, err = st.Photos().Get(ctx, p.ID); err != nil {
					t.Fatal(err)
				}
				photos = append(photos, p)
			}
			if by == "" {
				continue // messages all come from guests
			}
			m, err := st.Messages().Add(ctx, store.Message{ID: store.NewID(), EventID: e.ID, GuestID: by, Text: "hi", Status: status})
			if err != nil {
				t.Fatal(err)
			}
			msgs = append(msgs, m)
		}
	}
	n := 0
	for _, guest := range []string{"", "G1"} {
		for _, also := range []bool{false, true} {
			for _, visible := range []bool{false, true} {
				for _, fav := range []bool{false, true} {
					f := access.Filter{GuestID: guest, AlsoVisible: also, VisibleOnly: visible, FavoritesOnly: fav}
					q := access.PhotoQuery(e.ID, f)
					q.Limit = 1000
					page, err := st.Photos().List(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					var got, want []string
					for _, p := range page.Items {
						got = append(got, p.ID)
					}
					for _, p := range photos {
						if f.Holds(access.PhotoItem(p)) {
							want = append(want, p.ID)
						}
					}
					slices.Sort(got)
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Errorf("photos of %+v: the store lists %d, the filter holds %d", f, len(got), len(want))
					}
					n++
					if fav || also {
						continue // messages have no favourites, no merged list
					}
					mq := access.MessageQuery(e.ID, f)
					mq.Limit = 1000
					mpage, err := st.Messages().List(ctx, mq)
					if err != nil {
						t.Fatal(err)
					}
					got, want = nil, nil
					for _, m := range mpage.Items {
						got = append(got, m.ID)
					}
					for _, m := range msgs {
						if f.Holds(access.MessageItem(m)) {
							want = append(want, m.ID)
						}
					}
					slices.Sort(got)
					slices.Sort(want)
					if !slices.Equal(got, want) {
						t.Errorf("messages of %+v: the store lists %d, the filter holds %d", f, len(got), len(want))
					}
					n++
				}
			}
		}
	}
	t.Logf("%d filters over %d photos and %d messages", n, len(photos), len(msgs))
}
