package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"eventbox/store"
)

func newEvent(t *testing.T, st *store.Store, name string) store.Event {
	t.Helper()
	e := store.NewEvent(name)
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSharesAreFoundByTokenUntilRevoked(t *testing.T) {
	ctx := context.Background()
	c := newClock()
	st := open(t, t.TempDir(), c)
	defer st.Close()
	e := newEvent(t, st, "Party")
	first := store.Share{EventID: e.ID, Label: "Family", AllowDownload: true}
	if err := st.Shares().Create(ctx, &first); err != nil {
		t.Fatal(err)
	}
	c.Advance(time.Second)
	second := store.Share{EventID: e.ID, ExpiresAt: c.Now().Add(time.Hour).UnixMilli()}
	if err := st.Shares().Create(ctx, &second); err != nil {
		t.Fatal(err)
	}
	if len(first.Token) < 40 || first.Token == second.Token || !store.ValidID(first.ID) {
		t.Fatalf("tokens %q %q, id %q", first.Token, second.Token, first.ID)
	}
	got, err := st.Shares().ByToken(ctx, first.Token)
	if err != nil || got.ID != first.ID || got.Label != "Family" || !got.AllowDownload {
		t.Fatalf("by token = %+v, %v", got, err)
	}
	if _, err := st.Shares().ByToken(ctx, first.Token+"x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a wrong token = %v", err)
	}
	list, err := st.Shares().List(ctx, e.ID)
	if err != nil || len(list) != 2 || list[0].ID != second.ID || list[1].ID != first.ID {
		t.Fatalf("list = %+v, %v", list, err)
	}
	if !second.ExpiredAt(second.ExpiresAt) || second.ExpiredAt(second.ExpiresAt-1) || first.ExpiredAt(1<<62) {
		t.Fatal("ExpiredAt is wrong at the edge")
	}
	if err := st.Shares().Delete(ctx, store.NewID(), first.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoking through another event = %v", err)
	}
	if err := st.Shares().Delete(ctx, e.ID, first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Shares().ByToken(ctx, first.Token); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a revoked token = %v", err)
	}
	if list, _ := st.Shares().List(ctx, e.ID); len(list) != 1 {
		t.Fatalf("list after revoke = %+v", list)
	}
}

func TestSharesStopAtTheLimitAndGoWithTheEvent(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	e := newEvent(t, st, "Party")
	var last store.Share
	for i := 0; i < store.MaxShares; i++ {
		last = store.Share{EventID: e.ID}
		if err := st.Shares().Create(ctx, &last); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Shares().Create(ctx, &store.Share{EventID: e.ID}); !errors.Is(err, store.ErrTooMany) {
		t.Fatalf("link %d = %v", store.MaxShares+1, err)
	}
	if err := st.Shares().Create(ctx, &store.Share{EventID: store.NewID()}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a link of no event = %v", err)
	}
	if err := st.Events().Delete(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Shares().ByToken(ctx, last.Token); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a link survived its event: %v", err)
	}
}

func TestHourlyCountersFollowPhotosAndMessages(t *testing.T) {
	ctx := context.Background()
	c := &clock{t: time.Date(2026, 6, 20, 15, 59, 59, 0, time.UTC)}
	st := open(t, t.TempDir(), c)
	defer st.Close()
	e, other := newEvent(t, st, "Party"), newEvent(t, st, "Other")
	hour := func(h int) int64 { return time.Date(2026, 6, 20, h, 0, 0, 0, time.UTC).UnixMilli() }
	p1 := addPhoto(t, st, store.Photo{EventID: e.ID, Status: store.StatusVisible}, 0).Photo // 15:59:59
	c.Advance(2 * time.Second)                                                              // 16:00:01
	addPhoto(t, st, store.Photo{EventID: e.ID, Status: store.StatusHidden}, 0)
	addPhoto(t, st, store.Photo{EventID: other.ID, Status: store.StatusVisible}, 0)
	if _, err := st.Messages().Add(ctx, store.Message{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible}); err != nil {
		t.Fatal(err)
	}
	c.Advance(3 * time.Hour) // 19:00:01
	m, err := st.Messages().Add(ctx, store.Message{ID: store.NewID(), EventID: e.ID, Status: store.StatusVisible})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		events []string
		want   []store.HourCount
	}{
		{"one event's hours", []string{e.ID}, []store.HourCount{
			{Hour: hour(15), Photos: 1}, {Hour: hour(16), Photos: 1, Messages: 1}, {Hour: hour(19), Messages: 1}}},
		{"two events merged", []string{e.ID, other.ID}, []store.HourCount{
			{Hour: hour(15), Photos: 1}, {Hour: hour(16), Photos: 2, Messages: 1}, {Hour: hour(19), Messages: 1}}},
		{"no event", nil, []store.HourCount{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := st.Stats().Hourly(ctx, tt.events)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("hourly = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("deleting takes the count away from its hour", func(t *testing.T) {
		if _, err := st.Photos().Delete(ctx, e.ID, "", []string{p1.ID}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Messages().Delete(ctx, e.ID, "", []string{m.ID}); err != nil {
			t.Fatal(err)
		}
		got, _ := st.Stats().Hourly(ctx, []string{e.ID})
		want := []store.HourCount{{Hour: hour(16), Photos: 1, Messages: 1}}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("hourly = %v, want %v", got, want)
		}
	})
	t.Run("deleting the event clears its hours only", func(t *testing.T) {
		if err := st.Events().Delete(ctx, e.ID); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.Stats().Hourly(ctx, []string{e.ID}); len(got) != 0 {
			t.Fatalf("hours survived the event: %v", got)
		}
		if got, _ := st.Stats().Hourly(ctx, []string{other.ID}); len(got) != 1 || got[0].Photos != 1 {
			t.Fatalf("the other event's hours = %v", got)
		}
	})
}

func TestTopGuestsCountPhotosPerGuest(t *testing.T) {
	ctx := context.Background()
	st := open(t, t.TempDir(), newClock())
	defer st.Close()
	e := newEvent(t, st, "Party")
	var guests []store.Guest
	for _, name := range []string{"Ana", "Ben", "Cy"} {
		g := store.Guest{EventID: e.ID, Name: name}
		if err := st.Guests().Create(ctx, &g); err != nil {
			t.Fatal(err)
		}
		guests = append(guests, g)
	}
	n := 0
	add := func(g store.Guest, count int) {
		for i := 0; i < count; i++ {
			n++
			addPhoto(t, st, store.Photo{EventID: e.ID, GuestID: g.ID, Status: store.StatusVisible, Fingerprint: fmt.Sprintf("%064x", n)}, 0)
		}
	}
	add(guests[0], 2)
	add(guests[1], 5)
	add(guests[2], 1)
	addPhoto(t, st, store.Photo{EventID: e.ID, GuestName: "Photographer", Status: store.StatusVisible}, 0) // an import
	top, err := st.Stats().TopGuests(ctx, []string{e.ID}, 2)
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, g := range top {
		got += fmt.Sprintf("%s=%d ", g.Guest.Name, g.Photos)
	}
	if got != "Ben=5 Ana=2 " {
		t.Fatalf("top guests = %q", got)
	}
}
