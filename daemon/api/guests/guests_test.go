package guests

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"eventbox/probe"
	"eventbox/store"
)

// TestSlugOf reads the slug out of what a guest types or pastes on the
// front page.
func TestSlugOf(t *testing.T) {
	for _, tc := range []struct{ code, want string }{
		{"party", "party"},
		{"http://eventbox.local/e/party", "party"},
		{"https://box.example/e/party/", "party"},
		{"eventbox.local/e/party?join=1", "party"},
		{"http://eventbox.local/e/party#album", "party"},
		{"http://eventbox.local/e/", ""},
		{"ABCD-1234", "ABCD-1234"},
	} {
		if got := slugOf(tc.code); got != tc.want {
			t.Errorf("slugOf(%q) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

// TestParseOrder takes new (or nothing) and taken, and refuses anything
// else as a field error.
func TestParseOrder(t *testing.T) {
	for _, tc := range []struct {
		query     string
		taken, ok bool
	}{
		{"", false, true},
		{"?order=new", false, true},
		{"?order=taken", true, true},
		{"?order=Taken", false, false},
		{"?order=old", false, false},
	} {
		taken, err := ParseOrder(httptest.NewRequest("GET", "/api/e/x/photos"+tc.query, nil))
		if (err == nil) != tc.ok || taken != tc.taken {
			t.Errorf("ParseOrder(%q) = %v, %v; want taken %v, ok %v", tc.query, taken, err, tc.taken, tc.ok)
		}
	}
}

// TestAudioExt names a voice note's file after its container.
func TestAudioExt(t *testing.T) {
	for container, want := range map[string]string{
		probe.ContainerOgg: "ogg", probe.ContainerWebM: "webm", probe.ContainerMP3: "mp3", "mp4": "m4a",
	} {
		if got := audioExt(container); got != want {
			t.Errorf("audioExt(%q) = %q, want %q", container, got, want)
		}
	}
}

// TestListPhotosInTheOrderTaken lists a real store's photos by when they
// were taken (a photo without a capture time at its upload time, ties by
// upload), whole and without a cursor, and newest upload first, paged,
// otherwise.
func TestListPhotosInTheOrderTaken(t *testing.T) {
	ctx := context.Background()
	clock := time.UnixMilli(1_700_000_000_000)
	st, err := store.Open(ctx, t.TempDir(), store.Options{Now: func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := store.Event{Name: "Order", Slug: "order"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	base := clock.UnixMilli()
	// Uploaded in this order; taken at these times (0: unknown, so its
	// upload time, which is after every capture time below).
	takenAt := map[string]int64{"a": base - 5000, "b": 0, "c": base - 9000, "d": base - 5000}
	ids := map[string]string{}
	for _, name := range []string{"a", "b", "c", "d"} {
		p := store.Photo{ID: store.NewID(), EventID: e.ID, GuestID: "G1", Status: store.StatusVisible,
			Format: "jpeg", TakenAt: takenAt[name]}
		if _, err := st.Photos().Add(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
		ids[p.ID] = name
	}
	names := func(page store.Page[store.Photo]) []string {
		var out []string
		for _, p := range page.Items {
			out = append(out, ids[p.ID])
		}
		return out
	}
	q := store.PhotoQuery{EventID: e.ID, Limit: 2}
	for _, tc := range []struct {
		taken    bool
		want     []string
		wantNext bool
	}{
		{taken: true, want: []string{"c", "a", "d", "b"}},
		{taken: false, want: []string{"d", "c"}, wantNext: true},
	} {
		page, err := ListPhotos(ctx, st.Photos(), q, tc.taken)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(page); !slices.Equal(got, tc.want) || (page.Next != 0) != tc.wantNext {
			t.Errorf("taken=%v: %v (next %d), want %v (next: %v)", tc.taken, got, page.Next, tc.want, tc.wantNext)
		}
	}
}
