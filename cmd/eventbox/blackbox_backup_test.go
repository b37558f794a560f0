package main

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stopDaemon ends a daemon with SIGTERM and waits for it.
func stopDaemon(t *testing.T, d *daemonProc) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}
}

// boxContents is what a host finds on the box: the photos of the one
// event, its guestbook texts and the console's usernames.
func boxContents(t *testing.T, host *browser) (photos []string, texts []string, users []string) {
	t.Helper()
	events := host.json("GET", "/api/admin/events", nil, 200)["events"].([]any)
	if len(events) != 1 {
		t.Fatalf("%d events; want 1", len(events))
	}
	id := events[0].(map[string]any)["id"].(string)
	for _, p := range host.json("GET", "/api/admin/events/"+id+"/photos", nil, 200)["photos"].([]any) {
		pid := p.(map[string]any)["id"].(string)
		status, _, body := host.call("GET", "/api/media/"+pid+"?v=original", "", nil)
		if status != 200 || len(body) == 0 {
			t.Errorf("photo %s: %d, %d bytes", pid, status, len(body))
		}
		photos = append(photos, pid)
	}
	for _, m := range host.json("GET", "/api/admin/events/"+id+"/messages", nil, 200)["messages"].([]any) {
		texts = append(texts, m.(map[string]any)["text"].(string))
	}
	for _, a := range host.json("GET", "/api/admin/accounts", nil, 200)["accounts"].([]any) {
		users = append(users, a.(map[string]any)["username"].(string))
	}
	return photos, texts, users
}

// TestBlackBoxBackupAndRestore is a host's evening with the built binary:
// a party's photos, a message and a second account; `eventbox backup` and
// `restore` refuse while the daemon runs; the console's backup is
// downloaded; the box is wiped and the backup restored through the
// console (the daemon restarts itself over the restored data, and the
// owner stays signed in), then wiped again and restored from the command
// line. Every photo, message and account is found each time.
func TestBlackBoxBackupAndRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	const password = "a-long-party-password"
	d := startDaemon(t, bin, dir, "ADMIN_PASSWORD="+password)
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Ana & Ben"}, 201)["event"].(map[string]any)
	slug := ev["slug"].(string)
	host.json("POST", "/api/admin/accounts", map[string]any{"username": "planner", "role": "organizer", "eventIds": []string{ev["id"].(string)}}, 201)
	guest := newBrowser(t, d.url)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)
	for i := 0; i < 2; i++ {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
		fw.Write(phoneJPEG(t, 640+i, 480))
		mw.Close()
		if status, _, out := guest.call("POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), buf.Bytes()); status != 201 {
			t.Fatalf("upload = %d %s", status, out)
		}
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("text", "Félicitations !")
	mw.Close()
	if status, _, out := guest.call("POST", "/api/e/"+slug+"/messages", mw.FormDataContentType(), buf.Bytes()); status != 201 {
		t.Fatalf("message = %d %s", status, out)
	}
	wantPhotos, wantTexts, wantUsers := boxContents(t, host)
	if len(wantPhotos) != 2 || len(wantTexts) != 1 || len(wantUsers) != 2 {
		t.Fatalf("the box holds %v %v %v", wantPhotos, wantTexts, wantUsers)
	}
	same := func(t *testing.T, host *browser) {
		t.Helper()
		photos, texts, users := boxContents(t, host)
		if strings.Join(photos, ",") != strings.Join(wantPhotos, ",") || strings.Join(texts, ",") != strings.Join(wantTexts, ",") ||
			strings.Join(users, ",") != strings.Join(wantUsers, ",") {
			t.Fatalf("restored box holds %v %v %v; want %v %v %v", photos, texts, users, wantPhotos, wantTexts, wantUsers)
		}
	}

	for _, args := range [][]string{{"backup"}, {"restore", "nothing.zip"}} {
		t.Run(args[0]+" refuses while the daemon runs", func(t *testing.T) {
			cmd := exec.Command(bin, args...)
			cmd.Env = []string{"DATA_DIR=" + dir}
			start := time.Now()
			out, err := cmd.CombinedOutput()
			if err == nil || time.Since(start) > 3*time.Second || !strings.Contains(string(out), "daemon is running") {
				t.Fatalf("%s: %v after %v: %s", args[0], err, time.Since(start), out)
			}
		})
	}

	status, h, zipBytes := host.call("GET", "/api/admin/backup?download=1", "", nil)
	if status != 200 || h.Get("Content-Type") != "application/zip" {
		t.Fatalf("download = %d %q", status, h.Get("Content-Type"))
	}
	zipPath := filepath.Join(t.TempDir(), "party.zip")
	if err := os.WriteFile(zipPath, zipBytes, 0o600); err != nil {
		t.Fatal(err)
	}

	// Wipe the box: a fresh DATA_DIR, another first password.
	stopDaemon(t, d)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	d = startDaemon(t, bin, dir, "ADMIN_PASSWORD=fresh-box-password")
	host = newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": "fresh-box-password"}, 200)
	if events := host.json("GET", "/api/admin/events", nil, 200)["events"].([]any); len(events) != 0 {
		t.Fatalf("the wiped box has %d events", len(events))
	}
	status, _, out := host.call("POST", "/api/admin/backup/restore", "application/zip", zipBytes)
	if status != 200 || !strings.Contains(string(out), `"ok":true`) {
		t.Fatalf("restore = %d %s", status, out)
	}
	// The daemon restarts itself over the restored data; the same
	// process keeps the port.
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(d.url + "/api/admin/events")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 401 {
				break // the new daemon answers (this client has no cookie)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no restarted daemon within 20 s; log:\n%s", d.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	select {
	case <-d.done:
		t.Fatalf("the daemon exited instead of restarting: %v", d.err)
	default:
	}
	same(t, host) // signed in still: the backup has an owner named admin

	t.Run("restore from the command line with the daemon stopped", func(t *testing.T) {
		stopDaemon(t, d)
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bin, "restore", zipPath)
		cmd.Env = []string{"DATA_DIR=" + dir}
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Restored the backup") {
			t.Fatalf("restore: %v: %s", err, out)
		}
		cmd = exec.Command(bin, "backup", "--out", filepath.Join(dir, "..", "again.zip"))
		cmd.Env = []string{"DATA_DIR=" + dir}
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "Backup written to") {
			t.Fatalf("backup: %v: %s", err, out)
		}
		d := startDaemon(t, bin, dir)
		host := newBrowser(t, d.url)
		host.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
		same(t, host)
	})
}
