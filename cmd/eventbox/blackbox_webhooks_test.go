package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestBlackBoxWebhookWaitsOutAnOfflineParty drives the built binary: a
// webhook whose receiver is down when the event ends, the box switched
// off, the receiver up, the box switched on at home: the delivery arrives
// once, signed, with the id of the attempt that failed.
func TestBlackBoxWebhookWaitsOutAnOfflineParty(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	const secret = "party-secret"
	var (
		mu    sync.Mutex
		up    bool
		tries []string // delivery ids, in order
		taken []string // delivery ids answered 2xx
		came  = make(chan struct{}, 10)
	)
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m := hmac.New(sha256.New, []byte(secret))
		m.Write([]byte(r.Header.Get("X-Eventbox-Timestamp") + "." + string(body)))
		if r.Header.Get("X-Eventbox-Signature") != "sha256="+hex.EncodeToString(m.Sum(nil)) {
			t.Errorf("bad signature on %s", body)
		}
		mu.Lock()
		id := r.Header.Get("X-Eventbox-Delivery")
		tries = append(tries, id)
		ok := up
		if ok {
			taken = append(taken, id)
		}
		mu.Unlock()
		if ok {
			w.WriteHeader(http.StatusNoContent)
		} else {
			http.Error(w, "down for the weekend", http.StatusServiceUnavailable)
		}
		came <- struct{}{}
	}))
	defer rc.Close()
	waitRequest := func(what string) {
		t.Helper()
		select {
		case <-came:
		case <-time.After(30 * time.Second):
			t.Fatalf("%s: no request within 30 s", what)
		}
	}

	bin := buildBinary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir)
	raw, err := os.ReadFile(filepath.Join(dir, "initial-password"))
	if err != nil {
		t.Fatal(err)
	}
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": strings.TrimSpace(string(raw))}, 200)
	host.json("POST", "/api/admin/webhooks", map[string]any{"name": "Server", "type": "json", "url": rc.URL + "/hook",
		"kinds": []string{"event.ended"}, "secret": secret}, 201)
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Garden party"}, 201)["event"].(map[string]any)
	host.json("POST", "/api/admin/events/"+ev["id"].(string)+"/end", nil, 200)
	waitRequest("the first attempt")

	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}
	mu.Lock()
	up = true
	mu.Unlock()

	startDaemon(t, bin, dir)
	waitRequest("the attempt after the restart")
	mu.Lock()
	defer mu.Unlock()
	if len(tries) != 2 || len(taken) != 1 || taken[0] != tries[0] || taken[0] == "" {
		t.Fatalf("tries %v, taken %v: want one failed try and one delivery with the same id", tries, taken)
	}
}
