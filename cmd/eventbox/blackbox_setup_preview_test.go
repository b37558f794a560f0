package main

import (
	"strings"
	"testing"
	"time"
)

// TestSetupPreviewUnderMakeRun: with EVENTBOX_SETUP_PREVIEW (make
// run-setup) the binary outside the service opens the first-run setup
// page on a fresh data dir, takes a submission and only logs the network
// it chose; without it the page says the box has no setup page.
func TestSetupPreviewUnderMakeRun(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)

	plain := startDaemon(t, bin, t.TempDir())
	if st := newBrowser(t, plain.url).json("GET", "/api/setup", nil, 200); st["state"] != "closed" || st["reason"] != "off" {
		t.Fatalf("without the preview, /api/setup = %v, want closed (off)", st)
	}

	d := startDaemon(t, bin, t.TempDir(), SetupPreviewEnv+"=1")
	b := newBrowser(t, d.url)
	st := b.json("GET", "/api/setup", nil, 200)
	if st["state"] != "open" || len(st["timeZones"].([]any)) == 0 {
		t.Fatalf("with the preview, /api/setup = %.300v, want open with its lists", st)
	}
	done := b.json("POST", "/api/setup", map[string]any{"ownerName": "anna", "ownerPassword": "confetti and cake",
		"wifiName": "Anna & Marc", "wifiPassword": "a-long-password", "country": "FR", "timeZone": "Europe/Paris",
		"time": time.Now().UnixMilli()}, 200)
	if done["wifiName"] != "Anna & Marc" {
		t.Fatalf("setup answer %v", done)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(d.stderr.String(), "setup preview") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if log := d.stderr.String(); !strings.Contains(log, "setup preview") || strings.Contains(log, "a-long-password") {
		t.Fatalf("the log does not say the choices were only previewed, or shows the password:\n%s", log)
	}
	b.json("POST", "/api/admin/login", map[string]any{"username": "anna", "password": "confetti and cake"}, 200)
}
