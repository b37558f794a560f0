package moderation_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/julienschmidt/httprouter"

	"eventbox/daemon/albums"
	"eventbox/daemon/api/moderation"
	"eventbox/daemon/archive"
	"eventbox/daemon/cookie"
	"eventbox/daemon/visitor"
	"eventbox/daemon/web"
	"eventbox/store"
)

const (
	photoPage   = 2
	messagePage = 2
)

// call is one notification the handlers sent through Config.
type call struct {
	kind    string // photos changed, photos removed, messages changed, messages removed
	eventID string
	ids     []string
	before  map[string]bool
}

// imported is one photo an import handed the upload path, with the
// quota and the credit's field it gave.
type imported struct {
	p           store.Photo
	quota       int
	creditField string
}

// harness is the moderation routes over a real store, mounted as the
// route table mounts them (without the admin gate: the handlers take the
// event it hands them), with Config's funcs recorded.
type harness struct {
	t       *testing.T
	st      *store.Store
	now     time.Time
	album   *albums.Maker
	srv     *httptest.Server
	mu      sync.Mutex
	calls   []call
	retries int
	imports []imported
	onWall  map[string]bool
	// askedTwice: the wall was asked about the same id twice in a call.
	askedTwice bool
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, now: time.Date(2026, 6, 20, 15, 0, 0, 0, time.UTC), onWall: map[string]bool{}}
	var tick int64
	now := func() time.Time {
		h.mu.Lock()
		defer h.mu.Unlock()
		tick++
		return h.now.Add(time.Duration(tick) * time.Second)
	}
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	h.st = st
	codec, err := cookie.New(bytes.Repeat([]byte("k"), 32))
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	h.album = albums.New(albums.Config{Store: st, Logger: log, Now: now})
	m := moderation.New(moderation.Config{
		Store: st, Visitors: visitor.New(st, now, codec), Logger: log, Now: now,
		PhotoPage: photoPage, MessagePage: messagePage,
		Archive:       archive.New(archive.Config{Store: st, Logger: log}),
		Album:         h.album,
		Live:          (*liveRecorder)(h),
		RetryVariants: func() { h.mu.Lock(); h.retries++; h.mu.Unlock() },
		Photos:        (*importRecorder)(h),
	})
	rt := httprouter.New()
	handle := func(method, path string, fn func(http.ResponseWriter, *http.Request, store.Event) error) {
		rt.Handler(method, path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			e, err := st.Events().Get(r.Context(), web.Param(r, "id"))
			if err == nil {
				err = fn(w, r, e)
			}
			if err != nil {
				web.WriteError(log, w, r, err)
			}
		}))
	}
	handle("GET", "/api/admin/events/:id/photos", m.Photos)
	handle("POST", "/api/admin/events/:id/photos", m.PhotoAction)
	handle("POST", "/api/admin/events/:id/photos/import", m.Import)
	handle("GET", "/api/admin/events/:id/archive", m.Archive)
	handle("GET", "/api/admin/events/:id/album", m.Album)
	handle("GET", "/api/admin/events/:id/messages", m.Messages)
	handle("POST", "/api/admin/events/:id/messages", m.ModerateMessages)
	handle("GET", "/api/admin/events/:id/messages/archive", m.MessageArchive)
	h.srv = httptest.NewServer(rt)
	t.Cleanup(h.srv.Close)
	return h
}

func (h *harness) event() store.Event {
	h.t.Helper()
	e := store.NewEvent("Ana & Ben")
	if err := h.st.Events().Create(context.Background(), &e); err != nil {
		h.t.Fatal(err)
	}
	return e
}

func (h *harness) photo(e store.Event, edit func(p *store.Photo)) store.Photo {
	h.t.Helper()
	p := store.Photo{EventID: e.ID, GuestID: store.NewID(), Status: store.StatusVisible, Variants: true, Width: 4, Height: 3, Format: "jpeg"}
	if edit != nil {
		edit(&p)
	}
	res, err := h.st.Photos().Add(context.Background(), p, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	return res.Photo
}

func (h *harness) message(e store.Event, text, status string) store.Message {
	h.t.Helper()
	m, err := h.st.Messages().Add(context.Background(), store.Message{ID: store.NewID(), EventID: e.ID, GuestID: store.NewID(),
		GuestName: "Guest", Text: text, Status: status})
	if err != nil {
		h.t.Fatal(err)
	}
	return m
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (h *harness) do(method, path, body string) answer {
	h.t.Helper()
	req, err := http.NewRequest(method, h.srv.URL+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, raw}
}

// problem is the answer's error code and the fields its details name,
// sorted, "" for a success.
func (a answer) problem(t *testing.T) string {
	t.Helper()
	if a.status < 300 {
		return ""
	}
	var eb web.ErrorBody
	if err := json.Unmarshal(a.body, &eb); err != nil {
		t.Fatalf("answer %d %q: %v", a.status, a.body, err)
	}
	var keys []string
	for k := range eb.Details {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return eb.Error
	}
	return eb.Error + " " + strings.Join(keys, ",")
}

func (h *harness) takeCalls() []call {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.calls
	h.calls = nil
	return out
}

func body(action string, ids ...string) string {
	raw, _ := json.Marshal(map[string]any{"action": action, "ids": ids})
	return string(raw)
}

func TestPhotoActionsChangeOnlyWhatTheyShould(t *testing.T) {
	h := newHarness(t)
	e := h.event()
	other := h.event()
	pending := h.photo(e, func(p *store.Photo) { p.Status = store.StatusPending })
	visible := h.photo(e, func(p *store.Photo) { p.Favorite = true })
	hidden := h.photo(e, func(p *store.Photo) { p.Status = store.StatusHidden })
	failed := h.photo(e, func(p *store.Photo) { p.Variants, p.VariantsFailed = false, true })
	elsewhere := h.photo(other, func(p *store.Photo) { p.Status = store.StatusPending })
	h.onWall[visible.ID] = true
	unknown := store.NewID()

	type state struct {
		status   string
		favorite bool
	}
	steps := []struct {
		name     string
		body     string
		changed  int
		kind     string
		ids      []string
		want     map[string]state // photos checked after the step
		retries  int
		problem  string
		notified bool
	}{
		{"approve counts only what changes, once, in this event",
			body("approve", pending.ID, visible.ID, pending.ID, elsewhere.ID, unknown), 1, "photos changed", []string{pending.ID},
			map[string]state{pending.ID: {store.StatusVisible, false}, elsewhere.ID: {store.StatusPending, false}}, 0, "", true},
		{"hide", body("hide", visible.ID, hidden.ID), 1, "photos changed", []string{visible.ID},
			map[string]state{visible.ID: {store.StatusHidden, true}, hidden.ID: {store.StatusHidden, false}}, 0, "", true},
		{"favorite", body("favorite", hidden.ID, visible.ID), 1, "photos changed", []string{hidden.ID},
			map[string]state{hidden.ID: {store.StatusHidden, true}}, 0, "", true},
		{"unfavorite", body("unfavorite", hidden.ID, pending.ID), 1, "photos changed", []string{hidden.ID},
			map[string]state{hidden.ID: {store.StatusHidden, false}}, 0, "", true},
		{"retry gives set-aside photos their variants back and nudges the jobs",
			body("retry", failed.ID, pending.ID), 1, "photos changed", []string{failed.ID}, nil, 1, "", true},
		{"delete removes and says so", body("delete", visible.ID, elsewhere.ID), 1, "photos removed", []string{visible.ID}, nil, 1, "", true},
		{"an unknown action", body("publish", pending.ID), 0, "", nil, nil, 1, "bad_request action", false},
		{"no ids", body("approve"), 0, "", nil, nil, 1, "bad_request ids", false},
		{"both wrong", `{"action":"","ids":[]}`, 0, "", nil, nil, 1, "bad_request action,ids", false},
		{"too many ids", body("approve", slices.Repeat([]string{pending.ID}, 1001)...), 0, "", nil, nil, 1, "bad_request ids", false},
		{"an unknown field", `{"action":"approve","ids":["x"],"all":true}`, 0, "", nil, nil, 1, "bad_request all", false},
	}
	for _, s := range steps {
		a := h.do("POST", "/api/admin/events/"+e.ID+"/photos", s.body)
		if got := a.problem(t); got != s.problem {
			t.Fatalf("%s: %d %s, want %q", s.name, a.status, a.body, s.problem)
		}
		calls := h.takeCalls()
		if !s.notified {
			if len(calls) != 0 {
				t.Fatalf("%s: refused, yet notified %+v", s.name, calls)
			}
			continue
		}
		var got struct{ Changed int }
		if err := json.Unmarshal(a.body, &got); err != nil || got.Changed != s.changed {
			t.Fatalf("%s: answered %s, want changed %d", s.name, a.body, s.changed)
		}
		if len(calls) != 1 || calls[0].kind != s.kind || calls[0].eventID != e.ID || !slices.Equal(calls[0].ids, s.ids) {
			t.Fatalf("%s: notified %+v, want %s %v", s.name, calls, s.kind, s.ids)
		}
		// The wall's state of the asked ids, before the change, goes
		// with it.
		if c := calls[0]; strings.Contains(s.body, visible.ID) != c.before[visible.ID] || len(c.before) > 1 {
			t.Fatalf("%s: before %v", s.name, c.before)
		}
		for id, want := range s.want {
			p, err := h.st.Photos().Get(context.Background(), id)
			if err != nil || p.Status != want.status || p.Favorite != want.favorite {
				t.Fatalf("%s: photo %s is %s favorite=%v (%v), want %+v", s.name, id, p.Status, p.Favorite, err, want)
			}
		}
		h.mu.Lock()
		retries := h.retries
		h.mu.Unlock()
		if retries != s.retries {
			t.Fatalf("%s: variant jobs nudged %d times, want %d", s.name, retries, s.retries)
		}
	}
	if h.askedTwice {
		t.Fatal("an id listed twice was handled twice")
	}
	if p, err := h.st.Photos().Get(context.Background(), failed.ID); err != nil || p.VariantsFailed {
		t.Fatalf("retried photo: %+v, %v", p, err)
	}
	if _, err := h.st.Photos().Get(context.Background(), visible.ID); err == nil {
		t.Fatal("the deleted photo is still there")
	}
	if _, err := h.st.Photos().Get(context.Background(), elsewhere.ID); err != nil {
		t.Fatalf("another event's photo was deleted: %v", err)
	}
}

func TestPhotoListFilters(t *testing.T) {
	h := newHarness(t)
	e := h.event()
	a1 := h.photo(e, nil)
	p1 := h.photo(e, func(p *store.Photo) { p.Status = store.StatusPending })
	f1 := h.photo(e, func(p *store.Photo) { p.Favorite = true })
	x1 := h.photo(e, func(p *store.Photo) { p.Status = store.StatusHidden; p.Favorite = true })
	h.photo(h.event(), nil)
	cases := []struct {
		query   string
		ids     []string // newest first
		next    bool
		problem string
	}{
		{"", []string{x1.ID, f1.ID}, true, ""},
		{"?before=" + fmt.Sprint(f1.CreatedAt), []string{p1.ID, a1.ID}, false, ""},
		{"?status=pending", []string{p1.ID}, false, ""},
		{"?status=hidden", []string{x1.ID}, false, ""},
		{"?favorites=1", []string{x1.ID, f1.ID}, false, ""},
		{"?favorites=1&status=visible", []string{f1.ID}, false, ""},
		{"?favorites=0&status=visible", []string{f1.ID, a1.ID}, false, ""},
		{"?status=deleted", nil, false, "bad_request status"},
		{"?favorites=yes", nil, false, "bad_request favorites"},
		{"?challenge=../x", nil, false, "bad_request challenge"},
		// Every bad parameter is named at once.
		{"?status=all&favorites=2&spot=x&loved=maybe&before=later", nil, false, "bad_request before,favorites,loved,spot,status"},
	}
	for _, c := range cases {
		a := h.do("GET", "/api/admin/events/"+e.ID+"/photos"+c.query, "")
		if got := a.problem(t); got != c.problem {
			t.Fatalf("%s: %d %s, want %q", c.query, a.status, a.body, c.problem)
		}
		if c.problem != "" {
			continue
		}
		var page struct {
			Photos []struct {
				ID string `json:"id"`
			} `json:"photos"`
			NextCursor *int64 `json:"nextCursor"`
		}
		if err := json.Unmarshal(a.body, &page); err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, p := range page.Photos {
			ids = append(ids, p.ID)
		}
		if !slices.Equal(ids, c.ids) || (page.NextCursor != nil) != c.next {
			t.Fatalf("%s: %s, want %v (next %v)", c.query, a.body, c.ids, c.next)
		}
	}
}

func TestMessagesModeration(t *testing.T) {
	h := newHarness(t)
	e := h.event()
	pending := h.message(e, "pending", store.StatusPending)
	visible := h.message(e, "visible", store.StatusVisible)
	hidden := h.message(e, "hidden", store.StatusHidden)
	elsewhere := h.message(h.event(), "elsewhere", store.StatusPending)
	h.onWall[visible.ID] = true
	steps := []struct {
		name, body string
		changed    int
		kind       string
		ids        []string
		problem    string
	}{
		{"approve", body("approve", pending.ID, visible.ID, elsewhere.ID), 1, "messages changed", []string{pending.ID}, ""},
		{"hide", body("hide", visible.ID, hidden.ID), 1, "messages changed", []string{visible.ID}, ""},
		{"delete", body("delete", hidden.ID, elsewhere.ID, store.NewID()), 1, "messages removed", []string{hidden.ID}, ""},
		// Messages have no favorites nor variants.
		{"favorite", body("favorite", pending.ID), 0, "", nil, "bad_request action"},
		{"retry", body("retry", pending.ID), 0, "", nil, "bad_request action"},
		{"no ids", body("hide"), 0, "", nil, "bad_request ids"},
	}
	for _, s := range steps {
		a := h.do("POST", "/api/admin/events/"+e.ID+"/messages", s.body)
		if got := a.problem(t); got != s.problem {
			t.Fatalf("%s: %d %s, want %q", s.name, a.status, a.body, s.problem)
		}
		calls := h.takeCalls()
		if s.problem != "" {
			if len(calls) != 0 {
				t.Fatalf("%s: refused, yet notified %+v", s.name, calls)
			}
			continue
		}
		if !strings.Contains(string(a.body), fmt.Sprintf(`"changed":%d`, s.changed)) {
			t.Fatalf("%s: %s, want changed %d", s.name, a.body, s.changed)
		}
		if len(calls) != 1 || calls[0].kind != s.kind || !slices.Equal(calls[0].ids, s.ids) {
			t.Fatalf("%s: notified %+v", s.name, calls)
		}
	}
	if c := h.takeCalls(); len(c) != 0 {
		t.Fatalf("left over: %+v", c)
	}
	if m, err := h.st.Messages().Get(context.Background(), elsewhere.ID); err != nil || m.Status != store.StatusPending {
		t.Fatalf("another event's message: %+v, %v", m, err)
	}

	lists := []struct {
		query   string
		texts   []string
		problem string
	}{
		{"", []string{"visible", "pending"}, ""},
		{"?status=hidden", []string{"visible"}, ""},
		{"?status=visible", []string{"pending"}, ""},
		{"?status=pending", nil, ""},
		{"?status=deleted", nil, "bad_request status"},
		{"?before=x", nil, "bad_request before"},
	}
	for _, c := range lists {
		a := h.do("GET", "/api/admin/events/"+e.ID+"/messages"+c.query, "")
		if got := a.problem(t); got != c.problem {
			t.Fatalf("messages%s: %d %s, want %q", c.query, a.status, a.body, c.problem)
		}
		if c.problem != "" {
			continue
		}
		var page struct {
			Messages []struct{ Text string } `json:"messages"`
		}
		if err := json.Unmarshal(a.body, &page); err != nil {
			t.Fatal(err)
		}
		var texts []string
		for _, m := range page.Messages {
			texts = append(texts, m.Text)
		}
		if !slices.Equal(texts, c.texts) {
			t.Fatalf("messages%s: %v, want %v", c.query, texts, c.texts)
		}
	}
}

// TestMessageArchiveHoldsEveryMessage crosses the archive's 500-message
// page: every message, of any status, oldest first.
func TestMessageArchiveHoldsEveryMessage(t *testing.T) {
	h := newHarness(t)
	e := h.event()
	const n = 503
	statuses := []string{store.StatusVisible, store.StatusPending, store.StatusHidden}
	for i := range n {
		h.message(e, fmt.Sprintf("message %04d", i), statuses[i%3])
	}
	h.message(h.event(), "another event's", store.StatusVisible)
	a := h.do("GET", "/api/admin/events/"+e.ID+"/messages/archive", "")
	if a.status != 200 {
		t.Fatalf("archive: %d %s", a.status, a.body)
	}
	zr, err := zip.NewReader(bytes.NewReader(a.body), int64(len(a.body)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	txt, err := io.ReadAll(rc)
	_ = rc.Close()
	if err != nil || zr.File[0].Name != "guestbook.txt" {
		t.Fatalf("%s: %v", zr.File[0].Name, err)
	}
	last := -1
	for i := range n {
		at := bytes.Index(txt, fmt.Appendf(nil, "message %04d\r\n", i))
		if at <= last {
			t.Fatalf("message %d at %d, after %d: missing or out of order", i, at, last)
		}
		last = at
	}
	if bytes.Contains(txt, []byte("another event's")) {
		t.Fatal("another event's message is in the archive")
	}
}

func TestAlbumRequests(t *testing.T) {
	h := newHarness(t)
	e := h.event()
	empty := h.event()
	h.photo(e, func(p *store.Photo) { p.Favorite = false })
	onlyHidden := h.event()
	h.photo(onlyHidden, func(p *store.Photo) { p.Status = store.StatusHidden; p.Favorite = true })
	cases := []struct {
		name, event, query string
		problem            string
	}{
		{"layout 3", e.ID, "?layout=3", "bad_request layout"},
		{"an empty layout", e.ID, "?layout=", "bad_request layout"},
		{"scope all", e.ID, "?scope=all", "bad_request scope"},
		{"an empty scope", e.ID, "?scope=", "bad_request scope"},
		{"order random", e.ID, "?order=random", "bad_request order"},
		{"no photos", empty.ID, "", "not_found"},
		{"no favorites", e.ID, "?scope=favorites&layout=4", "not_found"},
		{"only hidden photos", onlyHidden.ID, "?order=loved", "not_found"},
	}
	for _, c := range cases {
		a := h.do("GET", "/api/admin/events/"+c.event+"/album"+c.query, "")
		if got := a.problem(t); got != c.problem {
			t.Fatalf("%s: %d %s, want %q", c.name, a.status, a.body, c.problem)
		}
	}
	// One album at a time: the next waits.
	done, ok := h.album.TryStart()
	if !ok {
		t.Fatal("the album slot is taken")
	}
	defer done()
	a := h.do("GET", "/api/admin/events/"+e.ID+"/album?layout=1&scope=visible&order=taken", "")
	if a.problem(t) != "rate_limited" || a.header.Get("Retry-After") != "30" {
		t.Fatalf("album while another is made: %d %s, Retry-After %q", a.status, a.body, a.header.Get("Retry-After"))
	}
}

func TestArchiveAndImport(t *testing.T) {
	h := newHarness(t)
	e := h.event()
	for _, q := range []string{"?all=2", "?favorites=yes"} {
		a := h.do("GET", "/api/admin/events/"+e.ID+"/archive"+q, "")
		if !strings.HasPrefix(a.problem(t), "bad_request") {
			t.Fatalf("archive%s: %d %s", q, a.status, a.body)
		}
	}
	if a := h.do("POST", "/api/admin/events/"+e.ID+"/photos/import", ""); a.status != 201 {
		t.Fatalf("import: %d %s", a.status, a.body)
	}
	// An import is the hosts': no guest, visible at once, no quota, and
	// its credit names it.
	want := imported{p: store.Photo{EventID: e.ID, Status: store.StatusVisible}, creditField: "credit"}
	if len(h.imports) != 1 || h.imports[0] != want {
		t.Fatalf("imported %+v", h.imports)
	}
}

// importRecorder is the harness as the upload path of an import: it
// records what it is handed and answers 201.
type importRecorder harness

func (i *importRecorder) ReceivePhoto(w http.ResponseWriter, r *http.Request, _ store.Event, p store.Photo, quota int, creditField string) error {
	i.mu.Lock()
	i.imports = append(i.imports, imported{p: p, quota: quota, creditField: creditField})
	i.mu.Unlock()
	return web.JSON(w, r, http.StatusCreated, web.OK)
}

// liveRecorder is the harness as the live publisher: it records each
// change and answers which items are on the wall from h.onWall, noting an
// id asked twice in one call.
type liveRecorder harness

func (l *liveRecorder) record(kind, eventID string, ids []string, before map[string]bool) {
	l.mu.Lock()
	l.calls = append(l.calls, call{kind, eventID, slices.Clone(ids), before})
	l.mu.Unlock()
}

func (l *liveRecorder) onWallOf(ids []string) map[string]bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := map[string]bool{}
	if len(slices.Compact(slices.Sorted(slices.Values(ids)))) != len(ids) {
		l.askedTwice = true
	}
	for _, id := range ids {
		if l.onWall[id] {
			out[id] = true
		}
	}
	return out
}

func (l *liveRecorder) PhotosOnWall(_ context.Context, ids []string) map[string]bool {
	return l.onWallOf(ids)
}

func (l *liveRecorder) MessagesOnWall(_ context.Context, ids []string) map[string]bool {
	return l.onWallOf(ids)
}

func (l *liveRecorder) PhotosChanged(_ context.Context, eventID string, ids []string, _ bool, before map[string]bool) {
	l.record("photos changed", eventID, ids, before)
}

func (l *liveRecorder) PhotosRemoved(eventID string, ids []string, before map[string]bool) {
	l.record("photos removed", eventID, ids, before)
}

func (l *liveRecorder) MessagesChanged(_ context.Context, eventID string, ids []string, _ bool, before map[string]bool) {
	l.record("messages changed", eventID, ids, before)
}

func (l *liveRecorder) MessagesRemoved(eventID string, ids []string, before map[string]bool) {
	l.record("messages removed", eventID, ids, before)
}
