package scenarios_test

import (
	"bytes"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/store"
)

// TestRunningDaemonSweepsMedia: while the daemon runs, a file no record
// names (what a kill between a file's rename and its record's commit
// leaves) and a stale temp file go within one sweep period, without a
// restart; a file renamed in within the grace period and the temp file
// of an upload still being received stay. It runs in a testing/synctest
// bubble: the ten minutes pass on the bubble's clock.
func TestRunningDaemonSweepsMedia(t *testing.T) {
	synctest.Test(t, testRunningDaemonSweepsMedia)
}

func testRunningDaemonSweepsMedia(t *testing.T) {
	h := newBubbleHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "P"})
	slug, id := ev["slug"].(string), ev["id"].(string)
	g := h.guest(slug)
	u, _ := url.Parse(h.srv.URL)
	var cookie string
	for _, c := range g.hc.Jar.Cookies(u) {
		cookie += c.Name + "=" + c.Value + "; "
	}
	// An upload in flight: its first part received, the rest coming at
	// the slowest pace the box allows, its temp file open.
	ct, body := multipartBody(t, "photo", "a.jpg", bytes.Repeat([]byte{0xff}, 1<<20), nil)
	conn, err := h.dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/e/%s/photos HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nCookie: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		slug, u.Host, h.srv.URL, cookie, ct, len(body))
	sent := 64 << 10
	conn.Write(body[:sent])
	synctest.Wait()
	tmp := filepath.Join(h.cfg.DataDir, "tmp")
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Fatalf("%d temp files while the upload is being received, want 1", len(entries))
	}
	inFlight := filepath.Join(tmp, entries[0].Name())

	// The box's clock a year ahead of the files' real times: every
	// write, the upload's too, is older than the grace period, so only
	// being held open keeps the upload's temp file.
	h.clock.Advance(365 * 24 * time.Hour)
	old, now := h.clock.Now().Add(-time.Hour), h.clock.Now()
	media := filepath.Join(h.cfg.DataDir, "media", id)
	if err := os.MkdirAll(media, 0o750); err != nil {
		t.Fatal(err)
	}
	orphan := filepath.Join(media, store.NewID()+".orig")
	fresh := filepath.Join(media, store.NewID()+".orig")
	stale := filepath.Join(tmp, "up-left-behind")
	for p, at := range map[string]time.Time{orphan: old, fresh: now, stale: old, inFlight: old} {
		if p != inFlight {
			if err := os.WriteFile(p, []byte("x"), 0o640); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}

	// Ten minutes and a little, the body trickling in all along.
	for range 26 {
		time.Sleep(25 * time.Second)
		conn.Write(body[sent : sent+16<<10])
		sent += 16 << 10
	}
	synctest.Wait()
	for p, want := range map[string]bool{orphan: false, stale: false, fresh: true, inFlight: true} {
		if _, err := os.Stat(p); (err == nil) != want {
			t.Errorf("%s present %v after a sweep period; want %v", filepath.Base(p), err == nil, want)
		}
	}
}
