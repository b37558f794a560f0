package photos

import (
	"context"
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"eventbox/daemon/web"
	"eventbox/store"
)

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
		{"?order=loved", false, false},
	} {
		taken, err := ParseOrder(httptest.NewRequest("GET", "/api/e/x/photos"+tc.query, nil))
		if (err == nil) != tc.ok || taken != tc.taken {
			t.Errorf("ParseOrder(%q) = %v, %v; want taken %v, ok %v", tc.query, taken, err, tc.taken, tc.ok)
		}
		var we *web.Error
		if !tc.ok && (!errors.As(err, &we) || we.Details["order"] != "must be new or taken") {
			t.Errorf("ParseOrder(%q): %v, want the field error of order", tc.query, err)
		}
	}
}

// openStore opens a store in a temp dir whose clock moves a second at
// each reading.
func openStore(t *testing.T) (*store.Store, func() time.Time) {
	t.Helper()
	clock := time.UnixMilli(1_700_000_000_000)
	now := func() time.Time {
		clock = clock.Add(time.Second)
		return clock
	}
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, now
}

// TestEventBySlug finds the event a :slug names, case aside, and answers
// 404 for none, an empty slug or one too long to be a slug.
func TestEventBySlug(t *testing.T) {
	st, _ := openStore(t)
	ctx := context.Background()
	e := store.Event{Name: "Party"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	// The store makes the slug, in lower case.
	if e.Slug == "" || e.Slug != strings.ToLower(e.Slug) {
		t.Fatalf("the store made the slug %q", e.Slug)
	}
	notFound := func(err error) bool {
		return errors.Is(err, store.ErrNotFound) || errors.Is(err, web.ErrNotFound)
	}
	for _, tc := range []struct {
		slug  string
		found bool
	}{
		{e.Slug, true},
		{strings.ToUpper(e.Slug), true},
		{strings.ToUpper(e.Slug[:1]) + e.Slug[1:], true},
		{e.Slug + "x", false},
		{"party", false},
		{"", false},
		{strings.Repeat("p", maxSlug+1), false},
	} {
		r := httptest.NewRequest("GET", "/api/e/x", nil)
		r = r.WithContext(context.WithValue(r.Context(), httprouter.ParamsKey, httprouter.Params{{Key: "slug", Value: tc.slug}}))
		got, err := EventBySlug(r, st.Events())
		switch {
		case tc.found && (err != nil || got.ID != e.ID):
			t.Errorf("EventBySlug(%q) = %q, %v; want the event %q", tc.slug, got.ID, err, e.ID)
		case !tc.found && !notFound(err):
			t.Errorf("EventBySlug(%q) = %q, %v; want not found", tc.slug, got.ID, err)
		case !tc.found && web.ToError(err).Status != 404:
			t.Errorf("EventBySlug(%q): %v answers %d, want 404", tc.slug, err, web.ToError(err).Status)
		}
	}
}

// TestChallengeOf keeps the id of a challenge of the event only.
func TestChallengeOf(t *testing.T) {
	e := store.Event{Challenges: []store.Challenge{{ID: "c1", Label: "First dance"}, {ID: "c2", Label: "Cake"}}}
	for id, want := range map[string]string{"c1": "c1", "c2": "c2", "c3": "", "": "", "C1": ""} {
		if got := ChallengeOf(e, id); got != want {
			t.Errorf("ChallengeOf(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestListPhotosInTheOrderTaken lists a real store's photos by when they
// were taken (a photo without a capture time at its upload time, ties by
// upload), whole and without a cursor, and newest upload first, paged,
// otherwise.
func TestListPhotosInTheOrderTaken(t *testing.T) {
	ctx := context.Background()
	st, now := openStore(t)
	e := store.Event{Name: "Order"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	base := now().UnixMilli()
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

// pages is a Lister of photos made up page by page: page i holds the
// photos uploaded at createdAt[i], each taken at the same time, with the
// next cursor until the last. It records the queries.
type pages struct {
	createdAt [][]int64
	asked     []store.PhotoQuery
}

func (p *pages) List(_ context.Context, q store.PhotoQuery) (store.Page[store.Photo], error) {
	p.asked = append(p.asked, q)
	i := len(p.asked) - 1
	if i >= len(p.createdAt) {
		return store.Page[store.Photo]{}, errors.New("asked past the last page")
	}
	var out store.Page[store.Photo]
	for _, at := range p.createdAt[i] {
		out.Items = append(out.Items, store.Photo{CreatedAt: at})
	}
	if i < len(p.createdAt)-1 {
		out.Next = int64(i + 1)
	}
	return out, nil
}

// TestListPhotosTakenReadsEveryPage follows the cursor to the end in
// pages of 500 from the start whatever q asked, and answers one page
// without a cursor; newest order asks once, with q as it is.
func TestListPhotosTakenReadsEveryPage(t *testing.T) {
	q := store.PhotoQuery{EventID: "E", Before: 99, Limit: 7}
	// Past maxTakenList photos, the newest uploads are kept and no page
	// after the one that reached it is asked.
	var many [][]int64
	var manyAsked []store.PhotoQuery
	var newest []int64
	for i := 0; i < maxTakenList/500+2; i++ {
		var page []int64
		for j := range 500 {
			page = append(page, int64(1_000_000-i*500-j))
		}
		many = append(many, page)
		if i <= maxTakenList/500-1 {
			newest = append(newest, page...)
			manyAsked = append(manyAsked, store.PhotoQuery{EventID: "E", Before: int64(i), Limit: 500})
		}
	}
	slices.Reverse(newest)
	for _, tc := range []struct {
		name      string
		taken     bool
		createdAt [][]int64
		want      []int64
		asked     []store.PhotoQuery
	}{
		{name: "newest first is one page of q", createdAt: [][]int64{{3, 2}}, want: []int64{3, 2},
			asked: []store.PhotoQuery{q}},
		{name: "taken reads every page", taken: true, createdAt: [][]int64{{30, 20}, {10}, {5}}, want: []int64{5, 10, 20, 30},
			asked: []store.PhotoQuery{{EventID: "E", Limit: 500}, {EventID: "E", Before: 1, Limit: 500}, {EventID: "E", Before: 2, Limit: 500}}},
		{name: "taken keeps the newest uploads of a long list", taken: true, createdAt: many, want: newest, asked: manyAsked},
		{name: "taken of nothing", taken: true, createdAt: [][]int64{nil}, want: nil,
			asked: []store.PhotoQuery{{EventID: "E", Limit: 500}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := &pages{createdAt: tc.createdAt}
			page, err := ListPhotos(context.Background(), l, q, tc.taken)
			if err != nil {
				t.Fatal(err)
			}
			var got []int64
			for _, p := range page.Items {
				got = append(got, p.CreatedAt)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			if tc.taken && page.Next != 0 {
				t.Errorf("a list in the order taken has the cursor %d", page.Next)
			}
			if !slices.Equal(l.asked, tc.asked) {
				t.Errorf("asked %+v, want %+v", l.asked, tc.asked)
			}
		})
	}
}
