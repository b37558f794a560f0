package scenarios_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// liveEvent is one frame of a live stream (console or wall).
type liveEvent struct {
	ID   string
	Name string
	Data map[string]any
}

// liveStream is an open live stream, read in the background.
type liveStream struct {
	Status int
	// Code is the error code of a refused stream.
	Code   string
	events chan liveEvent
}

// live opens the stream at path as this client, resuming from lastID
// when it is not "". The stream is closed when the test ends.
func (c *client) live(path, lastID string) *liveStream {
	t := c.h.t
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "GET", c.h.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := (&http.Client{Jar: c.hc.Jar}).Do(req)
	if err != nil {
		cancel()
		t.Fatalf("opening %s: %v", path, err)
	}
	s := &liveStream{Status: res.StatusCode, events: make(chan liveEvent, 256)}
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	if res.StatusCode != http.StatusOK {
		var refusal struct {
			Error string `json:"error"`
		}
		_ = json.NewDecoder(res.Body).Decode(&refusal)
		s.Code = refusal.Error
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		close(s.events)
		close(done)
		return s
	}
	go func() {
		defer close(done)
		defer close(s.events)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		var ev liveEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				ev.ID = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.Name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.Data); err != nil {
					t.Errorf("live event data is not JSON: %q", line)
				}
			case line == "":
				if ev.Name != "" || ev.ID != "" {
					s.events <- ev
				}
				ev = liveEvent{}
			}
		}
	}()
	return s
}

// until reads frames until one named name (with data id, when id is not
// "") arrives, and returns it with the last id seen; it fails the test
// after 5 s or when the stream ends.
func (s *liveStream) until(t *testing.T, name, id string) (liveEvent, string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	last := ""
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				t.Fatalf("stream ended before %s %s", name, id)
			}
			if ev.ID != "" {
				last = ev.ID
			}
			if ev.Name == name && (id == "" || ev.Data["id"] == id) {
				return ev, last
			}
		case <-deadline:
			t.Fatalf("no %s %s within 5 s", name, id)
		}
	}
}

// ended waits for the server to end the stream.
func (s *liveStream) ended(t *testing.T) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("stream still open after 5 s")
		}
	}
}

func TestConsoleLiveStream(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Live", "moderation": "pre"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	path := "/api/admin/events/" + id + "/live"

	st := owner.live(path, "")
	if st.Status != 200 {
		t.Fatalf("stream answered %d", st.Status)
	}
	counts, start := st.until(t, "counts", "")
	if counts.Data["pending"] != 0.0 {
		t.Fatalf("counts at start = %v", counts.Data)
	}
	if start == "" {
		t.Fatal("a fresh stream got no position to resume from")
	}

	guest := h.guest(slug)
	up := guest.upload(slug, photoJPEG(t, 64, 48, 1, false, 1), nil, "").expect(t, 201, "")
	pid := up.JSON["photo"].(map[string]any)["id"].(string)

	t.Run("a guest upload is pushed with the pending count", func(t *testing.T) {
		added, _ := st.until(t, "photo.added", pid)
		if added.Data["status"] != "pending" || added.Data["favorite"] != false {
			t.Fatalf("photo.added = %v", added.Data)
		}
		c, _ := st.until(t, "counts", "")
		if c.Data["pending"] != 1.0 {
			t.Fatalf("counts = %v", c.Data)
		}
	})
	t.Run("an approval elsewhere is pushed", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "approve", "ids": []string{pid}}).expect(t, 200, "")
		for {
			ch, _ := st.until(t, "photo.changed", pid)
			if ch.Data["status"] == "visible" {
				break
			}
		}
		c, _ := st.until(t, "counts", "")
		if c.Data["pending"] != 0.0 {
			t.Fatalf("counts = %v", c.Data)
		}
	})
	t.Run("a stream resumed with Last-Event-ID gets what it missed", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "favorite", "ids": []string{pid}}).expect(t, 200, "")
		again := owner.live(path, start)
		added, _ := again.until(t, "photo.added", pid)
		if added.Data["status"] != "pending" {
			t.Fatalf("replayed photo.added = %v", added.Data)
		}
		for {
			ch, _ := again.until(t, "photo.changed", pid)
			if ch.Data["favorite"] == true {
				break
			}
		}
	})
	t.Run("an id of an earlier run resets", func(t *testing.T) {
		again := owner.live(path, "0000-12")
		again.until(t, "reset", "")
	})
	t.Run("a guestbook message is pushed", func(t *testing.T) {
		ct, body := multipartBody(t, "", "", nil, map[string]string{"text": "Congratulations!"})
		m := guest.do("POST", "/api/e/"+slug+"/messages", body, "Content-Type", ct).expect(t, 201, "")
		mid := m.JSON["message"].(map[string]any)["id"].(string)
		got, _ := st.until(t, "message.added", mid)
		if got.Data["text"] != "Congratulations!" {
			t.Fatalf("message.added = %v", got.Data)
		}
	})
	t.Run("a deletion is pushed", func(t *testing.T) {
		owner.do("POST", "/api/admin/events/"+id+"/photos", map[string]any{"action": "delete", "ids": []string{pid}}).expect(t, 200, "")
		st.until(t, "photo.removed", pid)
	})
}

func TestLiveStreamBounds(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	id := h.createEvent(owner, map[string]any{"name": "Busy"})["id"].(string)
	path := "/api/admin/events/" + id + "/live"
	for i := range 16 {
		if s := owner.live(path, ""); s.Status != 200 {
			t.Fatalf("stream %d answered %d", i+1, s.Status)
		}
	}
	if s := owner.live(path, ""); s.Status != http.StatusServiceUnavailable {
		t.Fatalf("17th stream of one event answered %d, want 503", s.Status)
	}
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	if s := owner.live("/api/admin/events/"+other+"/live", ""); s.Status != 200 {
		t.Fatalf("a stream of another event answered %d", s.Status)
	}
}

// TestLiveStreamSlots: walls cannot take the consoles' slots, and one wall
// link cannot take another's. A wall link has at most 4 streams, an
// event's walls 16, the box's walls 48 of its 64 streams; the other 16
// stay the consoles'. Before, 16 streams of one wall link filled the
// event (its console got 503) and 64 walls filled the box.
func TestLiveStreamSlots(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	screen := h.client() // one address, no session
	type event struct {
		id     string
		tokens []string
	}
	newEvent := func(name string, links int) event {
		ev := event{id: h.createEvent(owner, map[string]any{"name": name})["id"].(string)}
		for range links {
			r := owner.do("POST", "/api/admin/events/"+ev.id+"/walls", map[string]any{}).expect(t, 201, "")
			ev.tokens = append(ev.tokens, strings.TrimPrefix(r.JSON["wall"].(map[string]any)["url"].(string), h.srv.URL+"/wall/"))
		}
		return ev
	}
	wall := func(token string) *liveStream { return screen.live("/api/wall/"+token+"/live", "") }
	console := func(ev event) *liveStream { return owner.live("/api/admin/events/"+ev.id+"/live", "") }
	refused := func(t *testing.T, what string, s *liveStream) {
		t.Helper()
		if s.Status != http.StatusServiceUnavailable || s.Code != "unavailable" {
			t.Fatalf("%s answered %d %q, want 503 unavailable", what, s.Status, s.Code)
		}
	}
	opened := func(t *testing.T, what string, s *liveStream) {
		t.Helper()
		if s.Status != http.StatusOK {
			t.Fatalf("%s answered %d %q, want 200", what, s.Status, s.Code)
		}
	}
	events := []event{newEvent("One", 5), newEvent("Two", 4), newEvent("Three", 4)}
	late := newEvent("Late", 1)

	t.Run("a wall link opens at most 4 streams, and that leaves the others alone", func(t *testing.T) {
		first := events[0].tokens[0]
		for i := range 4 {
			opened(t, "wall stream "+strconv.Itoa(i+1)+" of one link", wall(first))
		}
		refused(t, "the 5th stream of one link", wall(first))
		opened(t, "a stream of another link of the event", wall(events[0].tokens[1]))
		opened(t, "the event's console", console(events[0]))
	})
	t.Run("an event's walls stop at 16, its consoles still open", func(t *testing.T) {
		// Links 1 and 2 have 4 and 1 open: 3 more on link 2, 4 each on
		// links 3 and 4 make 16.
		for i, tok := range []string{events[0].tokens[1], events[0].tokens[2], events[0].tokens[3]} {
			for j := range min(4, 3+i) {
				opened(t, "wall stream "+strconv.Itoa(j+1)+" of link "+strconv.Itoa(i+2), wall(tok))
			}
		}
		refused(t, "a 17th wall of one event", wall(events[0].tokens[4]))
		opened(t, "the event's console", console(events[0]))
	})
	t.Run("walls take at most 48 streams of the box, consoles the rest", func(t *testing.T) {
		for _, ev := range events[1:] {
			for _, tok := range ev.tokens {
				for i := range 4 {
					opened(t, "wall stream "+strconv.Itoa(i+1), wall(tok))
				}
			}
		}
		// 48 walls and 2 consoles are open.
		refused(t, "a wall of another event past the walls' share", wall(late.tokens[0]))
		for i := range 14 {
			opened(t, "console "+strconv.Itoa(i+3)+" with every wall slot taken", console(events[1+i%2]))
		}
		refused(t, "a console past the box's 64 streams", console(late))
	})
}
