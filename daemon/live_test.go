package daemon_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
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
