package gallery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"eventbox/daemon/api/gallery"
	"eventbox/daemon/cookie"
	"eventbox/daemon/passwords"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/internal/testclock"
	"eventbox/store"
)

const (
	origin    = "https://box.example"
	photoPage = 7
	budget    = 3
	window    = time.Minute
)

// harness is the gallery routes over a real store, as routes.go mounts
// them (without the admin gate: the handlers take the event it hands
// them).
type harness struct {
	t       *testing.T
	st      *store.Store
	clock   *testclock.Clock
	srv     *httptest.Server
	mu      sync.Mutex
	queries []store.PhotoQuery
}

// photoRecorder is the harness as the store's photos: it records each
// query and answers an empty page.
type photoRecorder harness

func (p *photoRecorder) List(_ context.Context, q store.PhotoQuery) (store.Page[store.Photo], error) {
	p.mu.Lock()
	p.queries = append(p.queries, q)
	p.mu.Unlock()
	return store.Page[store.Photo]{}, nil
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	c := testclock.New(time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC))
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{Now: c.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	codec, err := cookie.New(bytes.Repeat([]byte("k"), 32))
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, st: st, clock: c}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	g := gallery.New(gallery.Config{
		Store: st, Visitors: visitor.New(st, c.Now, codec), Logger: log, Now: c.Now,
		PasswordCost: 4, PhotoPage: photoPage, MessagePage: 5,
		Origin:   func(*http.Request) string { return origin },
		LinkPass: web.NewGuessGuard(budget, window, c.Now),
		Photos:   (*photoRecorder)(h),
		ServeLogo: func(w http.ResponseWriter, r *http.Request, e store.Event) error {
			_, err := io.WriteString(w, "logo of "+e.Name)
			return err
		},
	})
	rt := httprouter.New()
	handle := func(method, path string, fn web.HandlerFunc) {
		rt.Handler(method, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := fn(w, r); err != nil {
				web.WriteError(log, w, r, err)
			}
		}))
	}
	event := func(fn func(http.ResponseWriter, *http.Request, store.Event) error) web.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) error {
			e, err := st.Events().Get(r.Context(), web.Param(r, "id"))
			if err != nil {
				return err
			}
			return fn(w, r, e)
		}
	}
	handle("GET", "/api/admin/events/:id/shares", event(g.ListShares))
	handle("POST", "/api/admin/events/:id/shares", event(g.CreateShare))
	handle("DELETE", "/api/admin/events/:id/shares/:shareId", event(g.DeleteShare))
	handle("GET", "/api/g/:token", g.Gallery)
	handle("POST", "/api/g/:token/unlock", g.Unlock)
	handle("GET", "/api/g/:token/photos", g.Photos)
	handle("GET", "/api/g/:token/messages", g.Messages)
	handle("GET", "/api/g/:token/archive", g.Archive)
	handle("GET", "/api/g/:token/logo", g.Logo)
	h.srv = httptest.NewServer(rt)
	t.Cleanup(h.srv.Close)
	return h
}

// event stores an event, changed by edit first.
func (h *harness) event(edit func(e *store.Event)) store.Event {
	h.t.Helper()
	e := store.NewEvent("Ana & Ben")
	if edit != nil {
		edit(&e)
	}
	if err := h.st.Events().Create(context.Background(), &e); err != nil {
		h.t.Fatal(err)
	}
	return e
}

// share stores a gallery link with the password (hashed; "" for none).
func (h *harness) share(e store.Event, password string, edit func(sh *store.Share)) store.Share {
	h.t.Helper()
	sh := store.Share{EventID: e.ID}
	if password != "" {
		hash, err := passwords.Hash(password, 4)
		if err != nil {
			h.t.Fatal(err)
		}
		sh.PasswordHash = hash
	}
	if edit != nil {
		edit(&sh)
	}
	if err := h.st.Shares().Create(context.Background(), &sh); err != nil {
		h.t.Fatal(err)
	}
	return sh
}

// browser is one visitor's client, keeping its cookies.
type browser struct {
	h *harness
	c *http.Client
}

func (h *harness) browser() *browser {
	jar, err := cookiejar.New(nil)
	if err != nil {
		h.t.Fatal(err)
	}
	return &browser{h: h, c: &http.Client{Jar: jar}}
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
	return v
}

// errorCode is the { error } of an answer, and the keys of its details.
func (a answer) errorCode(t *testing.T) (string, []string) {
	t.Helper()
	var eb web.ErrorBody
	if err := json.Unmarshal(a.body, &eb); err != nil {
		t.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
	var keys []string
	for k := range eb.Details {
		keys = append(keys, k)
	}
	return eb.Error, keys
}

func (b *browser) do(method, path, body string) answer {
	b.h.t.Helper()
	req, err := http.NewRequest(method, b.h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		b.h.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := b.c.Do(req)
	if err != nil {
		b.h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		b.h.t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, raw}
}

func TestCreateShareValidates(t *testing.T) {
	h := newHarness(t)
	host := h.browser()
	long := strings.Repeat("é", 81)
	cases := []struct {
		name   string
		event  func(e *store.Event)
		body   string
		status int
		fields []string
		check  func(t *testing.T, sh store.Share, got map[string]any)
	}{
		{"an empty body makes an open link with the event's defaults", func(e *store.Event) {
			e.GalleryLinkDownload, e.GalleryLinkFavorites = true, true
		}, ``, 201, nil, func(t *testing.T, sh store.Share, got map[string]any) {
			if !sh.AllowDownload || !sh.FavoritesOnly || sh.PasswordHash != "" || sh.ExpiresAt != 0 || got["password"] != nil {
				t.Fatalf("stored %+v, answered %v", sh, got)
			}
		}},
		{"explicit settings win over the event's", func(e *store.Event) {
			e.GalleryLinkDownload, e.GalleryLinkFavorites = true, true
		}, `{"allowDownload":false,"favoritesOnly":false}`, 201, nil, func(t *testing.T, sh store.Share, _ map[string]any) {
			if sh.AllowDownload || sh.FavoritesOnly {
				t.Fatalf("stored %+v", sh)
			}
		}},
		{"null settings keep the event's", func(e *store.Event) { e.GalleryLinkDownload = true },
			`{"allowDownload":null,"label":null,"expiresInDays":null,"password":null}`, 201, nil,
			func(t *testing.T, sh store.Share, _ map[string]any) {
				if !sh.AllowDownload || sh.Label != "" || sh.PasswordHash != "" {
					t.Fatalf("stored %+v", sh)
				}
			}},
		{"the label's spaces are collapsed", nil, `{"label":"  Family \t and\n friends "}`, 201, nil,
			func(t *testing.T, sh store.Share, _ map[string]any) {
				if sh.Label != "Family and friends" {
					t.Fatalf("label %q", sh.Label)
				}
			}},
		{"an 80-character label is taken", nil, `{"label":"` + long[2:] + `"}`, 201, nil, nil},
		{"an 81-character label is refused", nil, `{"label":"` + long + `"}`, 400, []string{"label"}, nil},
		{"a label with a control is refused", nil, `{"label":"Fam\u0007ily"}`, 400, []string{"label"}, nil},
		{"a day's expiry counts from now", nil, `{"expiresInDays":1}`, 201, nil,
			func(t *testing.T, sh store.Share, got map[string]any) {
				want := h.clock.Now().Add(24 * time.Hour).UnixMilli()
				ans := got["share"].(map[string]any)
				if sh.ExpiresAt != want || ans["expiresAt"] != float64(want) || ans["expired"] != false {
					t.Fatalf("expires %d (answered %v), want %d", sh.ExpiresAt, ans["expiresAt"], want)
				}
			}},
		{"ten years is the longest expiry", nil, `{"expiresInDays":3650}`, 201, nil, nil},
		{"no expiry of 0 days", nil, `{"expiresInDays":0}`, 400, []string{"expiresInDays"}, nil},
		{"no expiry past ten years", nil, `{"expiresInDays":3651}`, 400, []string{"expiresInDays"}, nil},
		{"a typed password is stored hashed, never answered", nil, `{"password":"open sesame"}`, 201, nil,
			func(t *testing.T, sh store.Share, got map[string]any) {
				if !passwords.Check(sh.PasswordHash, "open sesame") || sh.Password != "" || got["password"] != nil || got["share"].(map[string]any)["hasPassword"] != true {
					t.Fatalf("stored %+v, answered %v", sh, got)
				}
			}},
		{"four characters of two bytes are a password", nil, `{"password":"éééé"}`, 201, nil, nil},
		{"72 bytes are a password", nil, `{"password":"` + strings.Repeat("p", 72) + `"}`, 201, nil, nil},
		{"73 bytes are not", nil, `{"password":"` + strings.Repeat("p", 73) + `"}`, 400, []string{"password"}, nil},
		{"three characters are not", nil, `{"password":"abc"}`, 400, []string{"password"}, nil},
		{"spaces are not", nil, `{"password":"      "}`, 400, []string{"password"}, nil},
		{"a number is not", nil, `{"password":1234}`, 400, []string{"password"}, nil},
		{"false makes an open link", nil, `{"password":false}`, 201, nil,
			func(t *testing.T, sh store.Share, _ map[string]any) {
				if sh.PasswordHash != "" {
					t.Fatalf("stored %+v", sh)
				}
			}},
		{"true makes a password, answered once and kept", nil, `{"password":true}`, 201, nil,
			func(t *testing.T, sh store.Share, got map[string]any) {
				p, _ := got["password"].(string)
				if p == "" || sh.Password != p || !passwords.Check(sh.PasswordHash, p) {
					t.Fatalf("stored %+v, answered %v", sh, got)
				}
			}},
		{"every bad field is named at once", nil, `{"label":"` + long + `","expiresInDays":-1,"password":"x"}`, 400,
			[]string{"expiresInDays", "label", "password"}, nil},
		{"an unknown field is refused", nil, `{"colour":"red"}`, 400, []string{"colour"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := h.event(c.event)
			a := host.do("POST", "/api/admin/events/"+e.ID+"/shares", c.body)
			if a.status != c.status {
				t.Fatalf("status %d %s, want %d", a.status, a.body, c.status)
			}
			stored, err := h.st.Shares().List(context.Background(), e.ID)
			if err != nil {
				t.Fatal(err)
			}
			if c.status != 201 {
				code, fields := a.errorCode(t)
				slices.Sort(fields)
				if code != "bad_request" || strings.Join(fields, ",") != strings.Join(c.fields, ",") {
					t.Fatalf("answer %s, want bad_request on %v", a.body, c.fields)
				}
				if len(stored) != 0 {
					t.Fatalf("a refused link was stored: %+v", stored)
				}
				return
			}
			got := a.json(t)
			sh := got["share"].(map[string]any)
			if len(stored) != 1 || sh["id"] != stored[0].ID || sh["url"] != origin+"/g/"+stored[0].Token {
				t.Fatalf("answered %v, stored %+v", sh, stored)
			}
			if c.check != nil {
				c.check(t, stored[0], got)
			}
		})
	}
}

func TestCreateShareStopsAtTheLimit(t *testing.T) {
	h := newHarness(t)
	e := h.event(nil)
	for range store.MaxShares {
		h.share(e, "", nil)
	}
	a := h.browser().do("POST", "/api/admin/events/"+e.ID+"/shares", `{}`)
	if code, fields := a.errorCode(t); a.status != 400 || code != "bad_request" || len(fields) != 1 || fields[0] != "shares" {
		t.Fatalf("link past the limit: %d %s", a.status, a.body)
	}
}

func TestListAndRevokeShares(t *testing.T) {
	h := newHarness(t)
	e := h.event(nil)
	other := h.event(nil)
	old := h.share(e, "secret", func(sh *store.Share) { sh.ExpiresAt = h.clock.Now().Add(time.Hour).UnixMilli() })
	h.clock.Advance(time.Minute)
	recent := h.share(e, "", func(sh *store.Share) { sh.Label = "Family" })
	h.share(other, "", nil)
	h.clock.Advance(time.Hour) // old has expired now
	host := h.browser()

	a := host.do("GET", "/api/admin/events/"+e.ID+"/shares", "")
	var list struct {
		Shares []struct {
			ID          string  `json:"id"`
			URL         string  `json:"url"`
			Label       *string `json:"label"`
			HasPassword bool    `json:"hasPassword"`
			Expired     bool    `json:"expired"`
		} `json:"shares"`
	}
	if err := json.Unmarshal(a.body, &list); err != nil || a.status != 200 {
		t.Fatalf("list: %d %s", a.status, a.body)
	}
	if len(list.Shares) != 2 || list.Shares[0].ID != recent.ID || list.Shares[1].ID != old.ID {
		t.Fatalf("list %s, want the event's two links newest first", a.body)
	}
	if s := list.Shares[1]; !s.Expired || !s.HasPassword || s.Label != nil || s.URL != origin+"/g/"+old.Token {
		t.Fatalf("expired link listed as %+v", s)
	}
	if s := list.Shares[0]; s.Expired || s.HasPassword || s.Label == nil || *s.Label != "Family" {
		t.Fatalf("live link listed as %+v", s)
	}
	if strings.Contains(string(a.body), "$2") {
		t.Fatalf("a password hash is listed: %s", a.body)
	}

	visitor := h.browser()
	if a := visitor.do("GET", "/api/g/"+recent.Token, ""); a.status != 200 {
		t.Fatalf("the link before it is revoked: %d %s", a.status, a.body)
	}
	cases := []struct {
		name, shareID string
		status        int
	}{
		{"an id of no form", "nope", 404},
		{"a link of another event", h.share(other, "", nil).ID, 404},
		{"the link", recent.ID, 200},
		{"the link again", recent.ID, 404},
	}
	for _, c := range cases {
		a := host.do("DELETE", "/api/admin/events/"+e.ID+"/shares/"+c.shareID, "")
		if a.status != c.status {
			t.Fatalf("%s: revoke %d %s, want %d", c.name, a.status, a.body, c.status)
		}
	}
	// A browser that had it loses it.
	for _, p := range []string{"", "/photos", "/logo", "/unlock"} {
		method := "GET"
		if p == "/unlock" {
			method = "POST"
		}
		if a := visitor.do(method, "/api/g/"+recent.Token+p, ""); a.status != 404 {
			t.Fatalf("%s after revoking: %d %s", p, a.status, a.body)
		}
	}
}

func TestAPasswordLinkOpensWithItsPassword(t *testing.T) {
	h := newHarness(t)
	e := h.event(func(e *store.Event) { e.GuestbookInGallery = true })
	sh := h.share(e, "open sesame", func(sh *store.Share) { sh.Label = "Family" })
	g := "/api/g/" + sh.Token
	b := h.browser()

	first := b.do("GET", g, "").json(t)
	share := first["share"].(map[string]any)
	if share["needsPassword"] != true || share["unlocked"] != false || share["label"] != "Family" {
		t.Fatalf("gallery before the password: %v", first)
	}
	if ev := first["event"].(map[string]any); ev["name"] != "Ana & Ben" || ev["guestbook"] != true {
		t.Fatalf("gallery's event: %v", ev)
	}
	steps := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"photos before the password", "GET", "/photos", "", 403, "forbidden"},
		{"messages before the password", "GET", "/messages", "", 403, "forbidden"},
		{"the logo needs no password", "GET", "/logo", "", 200, ""},
		{"a wrong password", "POST", "/unlock", `{"password":"guess 1"}`, 401, "invalid_code"},
		{"no password", "POST", "/unlock", `{}`, 401, "invalid_code"},
		{"a third wrong one", "POST", "/unlock", `{"password":"guess 3"}`, 401, "invalid_code"},
		// The link's budget is spent: this address is held, even with
		// the right password, until the window ends.
		{"the right one, too soon", "POST", "/unlock", `{"password":"open sesame"}`, 429, "rate_limited"},
	}
	for _, s := range steps {
		a := b.do(s.method, g+s.path, s.body)
		if a.status != s.status {
			t.Fatalf("%s: %d %s, want %d", s.name, a.status, a.body, s.status)
		}
		if s.code != "" {
			if code, _ := a.errorCode(t); code != s.code {
				t.Fatalf("%s: %s, want %s", s.name, a.body, s.code)
			}
		}
		if s.status == 429 && a.header.Get("Retry-After") != "60" {
			t.Fatalf("%s: Retry-After %q", s.name, a.header.Get("Retry-After"))
		}
	}
	// Once the window has passed, the right password opens it.
	h.clock.Advance(window)
	for _, s := range []struct {
		path, body string
		status     int
	}{
		{"/unlock", `{"password":"open sesame"}`, 200},
		{"/unlock", `{"password":"wrong, but unlocked already"}`, 200},
		{"/photos", "", 200},
		{"/messages", "", 200},
		{"", "", 200},
	} {
		method := "GET"
		if s.body != "" {
			method = "POST"
		}
		if a := b.do(method, g+s.path, s.body); a.status != s.status {
			t.Fatalf("%s after unlocking: %d %s", s.path, a.status, a.body)
		}
	}
	if share := b.do("GET", g, "").json(t)["share"].(map[string]any); share["unlocked"] != true {
		t.Fatalf("gallery after the password: %v", share)
	}
	// The unlock is this browser's: another still needs the password.
	if a := h.browser().do("GET", g+"/photos", ""); a.status != 403 {
		t.Fatalf("another browser's photos: %d %s", a.status, a.body)
	}
}

func TestAnOpenLinkIsRememberedOnTheWay(t *testing.T) {
	h := newHarness(t)
	e := h.event(nil)
	sh := h.share(e, "", nil)
	b := h.browser()
	a := b.do("GET", "/api/g/"+sh.Token, "")
	if share := a.json(t)["share"].(map[string]any); share["needsPassword"] != false || share["unlocked"] != true {
		t.Fatalf("open link: %v", share)
	}
	if !strings.Contains(a.header.Get("Set-Cookie"), "gr_share=") {
		t.Fatalf("the open link is not remembered: %q", a.header.Get("Set-Cookie"))
	}
	// Unlock opens it with any body.
	if a := h.browser().do("POST", "/api/g/"+sh.Token+"/unlock", `{"password":"anything"}`); a.status != 200 {
		t.Fatalf("unlock of an open link: %d %s", a.status, a.body)
	}
	// The guestbook stays the hosts' to share.
	if a := b.do("GET", "/api/g/"+sh.Token+"/messages", ""); a.status != 403 {
		t.Fatalf("messages of a link whose event keeps its guestbook: %d %s", a.status, a.body)
	}
	// A link without downloads has no archive.
	if a := b.do("GET", "/api/g/"+sh.Token+"/archive", ""); a.status != 403 {
		t.Fatalf("archive of a link without downloads: %d %s", a.status, a.body)
	}
}

func TestPhotosAskWhatTheLinkShows(t *testing.T) {
	h := newHarness(t)
	e := h.event(nil)
	all := h.share(e, "", nil)
	favs := h.share(e, "", func(sh *store.Share) { sh.FavoritesOnly = true })
	id := store.NewID()
	cases := []struct {
		name      string
		token     string
		query     string
		status    int
		favorites bool
		challenge string
		before    int64
	}{
		{"a link shows every visible photo", all.Token, "", 200, false, "", 0},
		{"favorites=1 keeps the favorites", all.Token, "?favorites=1", 200, true, "", 0},
		{"favorites=0 keeps them all", all.Token, "?favorites=0", 200, false, "", 0},
		{"a favorites-only link shows favorites", favs.Token, "?favorites=0", 200, true, "", 0},
		{"challenge= and before= narrow", all.Token, "?challenge=" + id + "&before=1700000000000", 200, false, id, 1700000000000},
		{"a bad challenge=", all.Token, "?challenge=x", 400, false, "", 0},
		{"a bad before=", all.Token, "?before=soon", 400, false, "", 0},
		{"an unknown link", strings.Repeat("a", 43), "", 404, false, "", 0},
		{"a token too long", strings.Repeat("a", web.MaxTokenLen+1), "", 404, false, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h.mu.Lock()
			h.queries = nil
			h.mu.Unlock()
			a := h.browser().do("GET", "/api/g/"+c.token+"/photos"+c.query, "")
			if a.status != c.status {
				t.Fatalf("%d %s, want %d", a.status, a.body, c.status)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if c.status != 200 {
				if len(h.queries) != 0 {
					t.Fatalf("photos listed for a refused request: %+v", h.queries)
				}
				return
			}
			if len(h.queries) != 1 {
				t.Fatalf("photo lists asked: %d", len(h.queries))
			}
			q := h.queries[0]
			if q.EventID != e.ID || q.Status != store.StatusVisible || q.GuestID != "" || q.Favorites != c.favorites || q.ChallengeID != c.challenge ||
				q.Before != c.before || q.Limit != photoPage {
				t.Fatalf("query %+v", q)
			}
		})
	}
}

// TestPhotosInTheOrderAsked lists newest first, paged, by default and
// with order=new; the order taken whole from the start; the most loved,
// paged; and refuses any other order before listing.
func TestPhotosInTheOrderAsked(t *testing.T) {
	h := newHarness(t)
	e := h.event(nil)
	sh := h.share(e, "", nil)
	for _, c := range []struct {
		query  string
		status int
		// want is the one query asked, from the page asked for.
		want func(q store.PhotoQuery) store.PhotoQuery
	}{
		{"", 200, func(q store.PhotoQuery) store.PhotoQuery { return q }},
		{"?order=new", 200, func(q store.PhotoQuery) store.PhotoQuery { return q }},
		{"?order=taken", 200, func(q store.PhotoQuery) store.PhotoQuery { q.Before, q.Limit = 0, 500; return q }},
		{"?order=loved", 200, func(q store.PhotoQuery) store.PhotoQuery { q.Loved = true; return q }},
		{"?order=old", 400, nil},
		{"?order=Loved", 400, nil},
	} {
		t.Run(c.query, func(t *testing.T) {
			h.mu.Lock()
			h.queries = nil
			h.mu.Unlock()
			a := h.browser().do("GET", "/api/g/"+sh.Token+"/photos"+c.query+sep(c.query)+"before=1700000000000", "")
			if a.status != c.status {
				t.Fatalf("%d %s, want %d", a.status, a.body, c.status)
			}
			h.mu.Lock()
			defer h.mu.Unlock()
			if c.want == nil {
				if a.json(t)["error"] != "bad_request" || len(h.queries) != 0 {
					t.Fatalf("%s, with %d lists asked; want a bad request and none", a.body, len(h.queries))
				}
				return
			}
			want := c.want(store.PhotoQuery{EventID: e.ID, Status: store.StatusVisible, Before: 1700000000000, Limit: photoPage})
			if len(h.queries) != 1 || h.queries[0] != want {
				t.Fatalf("asked %+v, want %+v", h.queries, want)
			}
		})
	}
}

// sep is what joins another parameter to query.
func sep(query string) string {
	if query == "" {
		return "?"
	}
	return "&"
}

func TestAnExpiredLinkIsGone(t *testing.T) {
	h := newHarness(t)
	e := h.event(nil)
	expires := h.clock.Now().Add(time.Hour)
	sh := h.share(e, "", func(sh *store.Share) { sh.ExpiresAt = expires.UnixMilli() })
	cases := []struct {
		at     time.Duration // from the expiry
		status int
	}{
		{-time.Millisecond, 200},
		{0, 404},
		{time.Hour, 404},
	}
	for _, c := range cases {
		h.clock.Advance(expires.Add(c.at).Sub(h.clock.Now()))
		for _, p := range []string{"", "/photos", "/logo"} {
			if a := h.browser().do("GET", "/api/g/"+sh.Token+p, ""); a.status != c.status {
				t.Fatalf("%s at expiry%+v: %d %s, want %d", p, c.at, a.status, a.body, c.status)
			}
		}
		if a := h.browser().do("POST", "/api/g/"+sh.Token+"/unlock", `{}`); a.status != c.status {
			t.Fatalf("unlock at expiry%+v: %d %s, want %d", c.at, a.status, a.body, c.status)
		}
	}
}
