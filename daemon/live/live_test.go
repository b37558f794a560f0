package live

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"eventbox/daemon/web"
	"eventbox/store"
)

// testStream is one subscription in a test, with whether the hub ended it.
type testStream struct {
	sub         Subscription
	unsubscribe func()
	ended       *bool
}

func subscribe(t *testing.T, h *Hub, eventID, tag, lastID string) (testStream, error) {
	t.Helper()
	ended := new(bool)
	sub, unsub, err := h.Subscribe(eventID, tag, lastID, func() { *ended = true })
	return testStream{sub: sub, unsubscribe: unsub, ended: ended}, err
}

func visiblePhoto(id string) *store.Photo {
	return &store.Photo{ID: id, EventID: "E1", Status: store.StatusVisible, Variants: true}
}

// The bounds of the open streams, in the order a box meets them: each
// row opens one more stream next to those of the rows before it.
func TestHubBounds(t *testing.T) {
	cfg := Config{MaxStreams: 5, ConsoleSlots: 3, MaxConsolesPerEvent: 2, MaxWallsPerEvent: 2, MaxPerWall: 1}
	h := NewHub(cfg)
	rows := []struct {
		name, event, tag string
		room             bool
	}{
		{"a console", "E1", "", true},
		{"a second console of the event", "E1", "", true},
		{"a third console of the event: past its consoles", "E1", "", false},
		{"a wall", "E1", "W1", true},
		{"a second screen of the same wall link: past its streams", "E1", "W1", false},
		{"another wall link of the event", "E1", "W2", true},
		{"a third wall of the event: past its walls", "E1", "W3", false},
		{"a wall of another event: past the walls' share of the box", "E2", "W4", false},
		{"a console of another event: the consoles' slots", "E2", "", true},
		{"one more console: past the box's streams", "E3", "", false},
	}
	for _, row := range rows {
		_, err := subscribe(t, h, row.event, row.tag, "")
		if got := err == nil; got != row.room {
			t.Errorf("%s: opened %v (%v), want %v", row.name, got, err, row.room)
		}
		if err != nil && !errors.Is(err, ErrNoRoom) {
			t.Errorf("%s: %v, want ErrNoRoom", row.name, err)
		}
	}
}

// A stream that ends frees its room, once, however often it is ended.
func TestHubUnsubscribeFreesRoom(t *testing.T) {
	h := NewHub(Config{MaxStreams: 1, ConsoleSlots: 1})
	s, err := subscribe(t, h, "E1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := subscribe(t, h, "E1", "", ""); err == nil {
		t.Fatal("a second stream opened past MaxStreams 1")
	}
	s.unsubscribe()
	s.unsubscribe()
	if _, err := subscribe(t, h, "E1", "", ""); err != nil {
		t.Fatalf("no room after the stream ended: %v", err)
	}
	if _, err := subscribe(t, h, "E1", "", ""); err == nil {
		t.Fatal("ending a stream twice freed two rooms")
	}
}

// A stream resumes from the backlog with the id of the last change it
// had, or resets when that change is no longer kept or of another run.
func TestHubResume(t *testing.T) {
	h := NewHub(Config{Boot: "run1", Backlog: 4})
	other := NewHub(Config{Boot: "run0"})
	for i := range 3 {
		h.Publish("E1", Change{Kind: PhotoAdded, ID: fmt.Sprint("P", i)})
		h.Publish("E2", Change{Kind: PhotoAdded, ID: fmt.Sprint("Q", i)})
	}
	// Seqs: E1 has 1, 3, 5; E2 has 2, 4, 6.
	rows := []struct {
		name   string
		lastID string
		missed []string
		reset  bool
	}{
		{"a fresh start", "", nil, false},
		{"from the start of the run", "run1-0", []string{"P0", "P1", "P2"}, false},
		{"after the first change", h.ChangeID(1), []string{"P1", "P2"}, false},
		{"after a change of another event", h.ChangeID(4), []string{"P2"}, false},
		{"up to date", h.Position(), nil, false},
		{"an id of an earlier run", other.ChangeID(1), nil, true},
		{"an id from the future", h.ChangeID(99), nil, true},
		{"a malformed id", "run1-x", nil, true},
	}
	for _, row := range rows {
		s, err := subscribe(t, h, "E1", "", row.lastID)
		if err != nil {
			t.Fatalf("%s: %v", row.name, err)
		}
		var got []string
		for _, c := range s.sub.Missed {
			got = append(got, c.ID)
		}
		if fmt.Sprint(got) != fmt.Sprint(row.missed) || s.sub.Reset != row.reset {
			t.Errorf("%s: missed %v reset %v, want %v reset %v", row.name, got, s.sub.Reset, row.missed, row.reset)
		}
		if s.sub.Now != h.ChangeID(6) {
			t.Errorf("%s: Now = %q, want %q", row.name, s.sub.Now, h.ChangeID(6))
		}
		s.unsubscribe()
	}
	// Past the backlog: the oldest changes of E1 are dropped.
	for i := 3; i < 6; i++ {
		h.Publish("E1", Change{Kind: PhotoAdded, ID: fmt.Sprint("P", i)})
	}
	s, _ := subscribe(t, h, "E1", "", h.ChangeID(1))
	if !s.sub.Reset || s.sub.Missed != nil {
		t.Errorf("resuming from a change past the backlog: reset %v missed %d, want a reset", s.sub.Reset, len(s.sub.Missed))
	}
	s.unsubscribe()
	s, _ = subscribe(t, h, "E1", "", h.ChangeID(5))
	if s.sub.Reset || len(s.sub.Missed) != 3 {
		t.Errorf("resuming from the oldest kept change: reset %v missed %d, want the 3 after it", s.sub.Reset, len(s.sub.Missed))
	}
}

// The hub marks a change Shown when an earlier change of this run put the
// item on the wall, and only then (or when its publisher says so).
func TestHubShown(t *testing.T) {
	h := NewHub(Config{})
	s, err := subscribe(t, h, "E1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	pending := visiblePhoto("P2")
	pending.Status = store.StatusPending
	noDisplay := visiblePhoto("P3")
	noDisplay.Variants = false
	steps := []struct {
		name  string
		c     Change
		shown bool
	}{
		{"a visible photo arrives", Change{Kind: PhotoAdded, ID: "P1", Photo: visiblePhoto("P1")}, false},
		{"it is removed", Change{Kind: PhotoRemoved, ID: "P1"}, true},
		{"it is removed again", Change{Kind: PhotoRemoved, ID: "P1"}, false},
		{"a pending photo arrives", Change{Kind: PhotoAdded, ID: "P2", Photo: pending}, false},
		{"it is removed", Change{Kind: PhotoRemoved, ID: "P2"}, false},
		{"a photo without its display", Change{Kind: PhotoAdded, ID: "P3", Photo: noDisplay}, false},
		{"its display is made", Change{Kind: PhotoChanged, ID: "P3", Photo: visiblePhoto("P3")}, false},
		{"it is hidden", Change{Kind: PhotoChanged, ID: "P3", Photo: pending}, true},
		{"a text on the wall before this run is removed", Change{Kind: MessageRemoved, ID: "M1", Shown: true}, true},
		{"an approved text", Change{Kind: MessageAdded, ID: "M2", Message: &store.Message{ID: "M2", Status: store.StatusVisible, Text: "hi"}}, false},
		{"the text is removed", Change{Kind: MessageRemoved, ID: "M2"}, true},
	}
	for _, st := range steps {
		h.Publish("E1", st.c)
		got := <-s.sub.Changes
		if got.Shown != st.shown {
			t.Errorf("%s: Shown %v, want %v", st.name, got.Shown, st.shown)
		}
	}
	// Forgetting the event forgets what was on its wall.
	h.Publish("E1", Change{Kind: PhotoAdded, ID: "P4", Photo: visiblePhoto("P4")})
	h.Forget("E1")
	s2, _ := subscribe(t, h, "E1", "", "")
	h.Publish("E1", Change{Kind: PhotoRemoved, ID: "P4"})
	if got := <-s2.sub.Changes; got.Shown {
		t.Error("a photo of a forgotten event is still marked shown")
	}
}

// Which streams the hub ends: one that falls behind, the tag of a revoked
// wall link, the streams of a forgotten event, and all of them on Close,
// after which none opens.
func TestHubEndsStreams(t *testing.T) {
	h := NewHub(Config{Queue: 2})
	slow, _ := subscribe(t, h, "E1", "", "")
	wall1, _ := subscribe(t, h, "E1", "W1", "")
	wall2, _ := subscribe(t, h, "E1", "W2", "")
	other, _ := subscribe(t, h, "E2", "", "")
	h.DropTag("E1", "W1")
	if !*wall1.ended || *wall2.ended || *slow.ended || *other.ended {
		t.Fatalf("DropTag W1 ended wall1 %v wall2 %v console %v other %v, want wall1 only", *wall1.ended, *wall2.ended, *slow.ended, *other.ended)
	}
	// wall2 reads; slow does not.
	for i := range 3 {
		h.Publish("E1", Change{Kind: PhotoAdded, ID: fmt.Sprint("P", i)})
		<-wall2.sub.Changes
	}
	if !*slow.ended || *wall2.ended {
		t.Fatalf("after 3 changes with a queue of 2: the stream behind ended %v, the reader ended %v", *slow.ended, *wall2.ended)
	}
	h.Forget("E2")
	if !*other.ended || *wall2.ended {
		t.Fatalf("Forget E2 ended E2's console %v, E1's wall %v", *other.ended, *wall2.ended)
	}
	h.Close()
	if !*wall2.ended {
		t.Fatal("Close left a stream open")
	}
	if _, err := subscribe(t, h, "E3", "", ""); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("Subscribe after Close = %v, want ErrNoRoom", err)
	}
	before := h.Position()
	h.Publish("E1", Change{Kind: PhotoAdded, ID: "late"})
	if h.Position() != before {
		t.Error("a closed hub still publishes")
	}
}

// Serve answers 503 unavailable past the hub's bounds, before a byte.
func TestServeRefusesPastTheBounds(t *testing.T) {
	h := NewHub(Config{MaxStreams: 1, ConsoleSlots: 1})
	if _, err := subscribe(t, h, "E1", "", ""); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/api/admin/events/E1/live", nil)
	err := Serve(w, r, h, slog.New(slog.DiscardHandler), Stream{EventID: "E1", Frame: consoleFrame})
	if !errors.Is(err, web.ErrUnavailable) {
		t.Errorf("Serve = %v, want unavailable", err)
	}
	if w.Body.Len() != 0 || len(w.Header()) != 0 {
		t.Errorf("Serve wrote %q (%v) before refusing", w.Body.String(), w.Header())
	}
}
