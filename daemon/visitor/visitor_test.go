package visitor_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"eventbox/daemon/cookie"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

type box struct {
	st  *store.Store
	now time.Time
	res *visitor.Resolver
}

func newBox(t *testing.T) *box {
	t.Helper()
	b := &box{now: time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return b.now }
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	codec, err := cookie.New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		t.Fatal(err)
	}
	b.st, b.res = st, visitor.New(st, clock, codec)
	return b
}

func (b *box) account(t *testing.T, role string, events ...string) (store.Account, string) {
	t.Helper()
	a := store.Account{Username: "u" + store.NewID()[:6], Role: role, Name: "U", EventIDs: events, PasswordHash: "x"}
	if err := b.st.Accounts().Create(context.Background(), &a); err != nil {
		t.Fatal(err)
	}
	token, err := b.st.Sessions().Create(context.Background(), a.ID, false)
	if err != nil {
		t.Fatal(err)
	}
	return a, token
}

// call runs h behind the gate with the session cookie token and the
// event id as the :id parameter, and answers the status.
func (b *box) call(gate func(web.HandlerFunc) web.HandlerFunc, token, eventID string, h web.HandlerFunc) int {
	req := httptest.NewRequest("GET", "/api/admin/events/"+eventID, nil)
	if token != "" {
		req.AddCookie(&http.Cookie{Name: visitor.AdminCookie, Value: token})
	}
	req = req.WithContext(context.WithValue(req.Context(), httprouter.ParamsKey, httprouter.Params{{Key: "id", Value: eventID}}))
	rec := httptest.NewRecorder()
	if err := gate(h)(rec, req); err != nil {
		return web.ToError(err).Status
	}
	return rec.Code
}

// TestGatesAndReach: the admin gate admits a live session only, the owner
// gate owners only, and AdminEvent answers 404 for an event outside an
// organizer's events, exactly as for one that does not exist.
func TestGatesAndReach(t *testing.T) {
	b := newBox(t)
	ctx := context.Background()
	mine := store.Event{Name: "Mine"}
	other := store.Event{Name: "Other"}
	for _, e := range []*store.Event{&mine, &other} {
		if err := b.st.Events().Create(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	_, owner := b.account(t, store.RoleOwner)
	_, organizer := b.account(t, store.RoleOrganizer, mine.ID)
	event := func(w http.ResponseWriter, r *http.Request) error {
		if _, err := b.res.AdminEvent(r); err != nil {
			return err
		}
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	for _, tc := range []struct {
		name    string
		gate    func(web.HandlerFunc) web.HandlerFunc
		token   string
		eventID string
		status  int
	}{
		{"no session", b.res.Admin, "", mine.ID, 401},
		{"unknown token", b.res.Admin, store.NewToken(), mine.ID, 401},
		{"owner, any event", b.res.Admin, owner, other.ID, 204},
		{"organizer, own event", b.res.Admin, organizer, mine.ID, 204},
		{"organizer, other event", b.res.Admin, organizer, other.ID, 404},
		{"organizer, no such event", b.res.Admin, organizer, store.NewID(), 404},
		{"organizer at an owner route", b.res.Owner, organizer, mine.ID, 403},
		{"owner at an owner route", b.res.Owner, owner, mine.ID, 204},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := b.call(tc.gate, tc.token, tc.eventID, event); got != tc.status {
				t.Fatalf("status %d, want %d", got, tc.status)
			}
		})
	}
	t.Run("a session unused past its lifetime is gone", func(t *testing.T) {
		b.now = b.now.Add(visitor.SessionLifetime + time.Minute)
		if got := b.call(b.res.Admin, owner, mine.ID, event); got != 401 {
			t.Fatalf("status %d, want 401", got)
		}
	})
}

// TestGuestPassRoundTrip: the events a browser joined come back from its
// cookie, and a cookie from another box's key is no pass at all.
func TestGuestPassRoundTrip(t *testing.T) {
	b := newBox(t)
	ctx := context.Background()
	e := store.Event{Name: "Party"}
	if err := b.st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	if err := b.res.PassGuest(rec, httptest.NewRequest("POST", "/", nil), e); err != nil {
		t.Fatal(err)
	}
	next := httptest.NewRequest("GET", "/", nil)
	for _, c := range rec.Result().Cookies() {
		next.AddCookie(c)
	}
	g, err := b.res.JoinedGuest(next, e)
	if err != nil || !store.ValidID(g.ID) {
		t.Fatalf("joined guest %+v, %v", g, err)
	}
	if v := b.res.Viewer(next, e.ID); v.Guests[e.ID] != g.ID {
		t.Fatalf("viewer guests %v, want %s", v.Guests, g.ID)
	}
	codec, _ := cookie.New(bytes.Repeat([]byte{8}, 32))
	stranger := visitor.New(b.st, func() time.Time { return b.now }, codec)
	if _, err := stranger.JoinedGuest(next, e); web.ToError(err).Status != 403 {
		t.Fatalf("another key's cookie: %v, want 403", err)
	}
}
