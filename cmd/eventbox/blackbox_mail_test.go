package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/daemon/mail/mailtest"
)

// TestBlackBoxMail runs a party against the built binary with the mail
// server unreachable: the host sets mail up over HTTP, a guest leaves an
// address, the event ends, the daemon is stopped with the mails pending
// and started again, the server comes back, and each mail arrives once
// (by Message-ID), the sealed password opening after the restart.
// publicBase publishes the box at an address guests reach from home: only
// then does the guests' gallery mail carry the box's own link and go out
// without waiting for a cloud copy (docs/decisions/background.md, "The
// gallery mail's link").
const publicBase = "BASE_URL=https://photos.party.example"

func TestBlackBoxMail(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	sink := mailtest.Start(t, mailtest.None)
	bin := buildBinary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir, publicBase)
	raw, err := os.ReadFile(filepath.Join(dir, "initial-password"))
	if err != nil {
		t.Fatal(err)
	}
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": strings.TrimSpace(string(raw))}, 200)
	host.json("PUT", "/api/admin/mail", map[string]any{
		"smtp": map[string]any{"host": sink.Host, "port": sink.Port, "username": mailtest.Username, "password": mailtest.Password,
			"from": "box@party.example", "security": "none"},
		"adminEmail": "hosts@party.example",
	}, 200)
	if db, err := os.ReadFile(filepath.Join(dir, "eventbox.db")); err != nil || strings.Contains(string(db), mailtest.Password) {
		t.Fatalf("the database holds the SMTP password in clear (%v)", err)
	}
	sink.SetOffline(true)

	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Offline party", "collectGuestEmails": true}, 201)["event"].(map[string]any)
	slug, id := ev["slug"].(string), ev["id"].(string)
	guest := newBrowser(t, d.url)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)
	guest.json("POST", "/api/e/"+slug+"/contact", map[string]any{"email": "guest@example.com"}, 200)
	res := host.json("POST", "/api/admin/events/"+id+"/end", nil, 200)["result"].(map[string]any)
	if res["guestEmails"] != float64(1) || res["summaryQueued"] != true {
		t.Fatalf("end result %v", res)
	}

	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.done:
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}
	sink.SetOffline(false)
	d = startDaemon(t, bin, dir, publicBase)
	host = newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": strings.TrimSpace(string(raw))}, 200)
	if q := host.json("GET", "/api/admin/mail", nil, 200); q["smtp"].(map[string]any)["hasPassword"] != true {
		t.Fatalf("after a restart the password does not open: %v", q["smtp"])
	}
	// What was due goes at the start; retry sends what waits for a
	// later try. Either way each mail arrives once.
	retry := host.json("POST", "/api/admin/mail/retry", nil, 200)
	if retry["failed"] != float64(0) {
		t.Fatalf("retry %v", retry)
	}
	sink.Wait(t, 2, 30*time.Second)
	if q := host.json("GET", "/api/admin/mail", nil, 200)["queue"].(map[string]any); q["pending"] != float64(0) || q["failed"] != float64(0) {
		t.Fatalf("queue %v", q)
	}
	got := sink.Received()
	ids := map[string]int{}
	for _, rc := range got {
		ids[rc.MessageID()]++
	}
	if len(got) != 2 || len(ids) != 2 {
		t.Fatalf("%d mails with %d Message-IDs arrived, want the gallery mail and the summary once each", len(got), len(ids))
	}
	guest.url = d.url // a new port; cookies do not depend on it
	if r := guest.json("GET", "/api/e/"+slug, nil, 200)["guest"].(map[string]any)["gallery"].(map[string]any); r["mail"] != "sent" {
		t.Fatalf("the guest page says %v", r)
	}
}
