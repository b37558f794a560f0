package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// buildVersion compiles eventbox as version, trusting pub as its release
// key. It may run in its own goroutine: it reports with t.Errorf.
func buildVersion(t *testing.T, dir, version string, pub ed25519.PublicKey) string {
	t.Helper()
	bin := filepath.Join(dir, "eventbox-"+version)
	cmd := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X main.version="+version+" -X main.releaseKey="+base64.StdEncoding.EncodeToString(pub), ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("building eventbox %s: %v\n%s", version, err, out)
	}
	return bin
}

// stop ends the daemon with SIGTERM and waits for a clean exit.
func (p *daemonProc) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		if p.err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", p.err, p.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}
}

// TestBlackBoxUpdate applies a signed update served locally, as a host
// would from the console. The test process is no service manager, so
// updater is "none": the update is installed, and the host's restart is
// the test stopping the daemon and starting the same packaged binary
// again, which runs the installed update; `current` then names it, and
// the update confirms itself healthy. With systemd, the daemon's exit
// after the install and Restart=always do the same.
func TestBlackBoxUpdate(t *testing.T) {
	testtool.Long(t, "the real binary updated and restarted")
	t.Parallel()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	// Both links at once: they are most of this test's time.
	build := t.TempDir()
	var oldBin, newBin string
	var wg sync.WaitGroup
	wg.Go(func() { oldBin = buildVersion(t, build, "1.0.0", pub) })
	wg.Go(func() { newBin = buildVersion(t, build, "1.1.0", pub) })
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	t.Run("a release that dies at its start is rolled back at the next start", func(t *testing.T) {
		t.Parallel()
		testUpdateRollsBack(t, oldBin, priv)
	})

	// The release host: the manifest written by `eventbox release-sign`.
	site := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "release.key")
	os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(priv.Seed())+"\n"), 0o600)
	served := filepath.Join(site, "eventbox-linux-amd64")
	if raw, err := os.ReadFile(newBin); err != nil || os.WriteFile(served, raw, 0o755) != nil {
		t.Fatal("copying the new binary", err)
	}
	sign := exec.Command(oldBin, "release-sign", "-key", keyFile, "-version", "1.1.0",
		"-out", filepath.Join(site, "release.json"), "amd64="+served, "arm64="+served)
	if out, err := sign.CombinedOutput(); err != nil {
		t.Fatalf("release-sign: %v\n%s", err, out)
	}
	host := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer host.Close()

	const password = "update-test-password"
	dir := t.TempDir()
	env := []string{"ADMIN_PASSWORD=" + password, "UPDATE_URL=" + host.URL + "/release.json"}
	d := startDaemon(t, oldBin, dir, env...)
	owner := newBrowser(t, d.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	st := owner.json("GET", "/api/admin/updates", nil, 200)
	if st["current"] != "1.0.0" || st["updater"] != "none" || st["checkEnabled"] != true {
		t.Fatalf("updates before = %v", st)
	}
	if got := owner.json("POST", "/api/admin/updates/check", nil, 200); got["available"] != "1.1.0" {
		t.Fatalf("check = %v", got)
	}
	// The box backs itself up before the update.
	got := owner.json("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0"}, 202)
	if name, _ := got["backup"].(string); name == "" {
		t.Fatalf("apply = %v: no backup named", got)
	} else if _, err := os.Stat(filepath.Join(dir, "backups", name)); err != nil {
		t.Fatalf("the backup before the update is not kept: %v", err)
	}
	st = waitUpdate(t, owner, "installed")
	if st["current"] != "1.0.0" {
		t.Fatalf("current changed before the restart: %v", st)
	}

	d.stop(t)
	d2 := startDaemon(t, oldBin, dir, env...)
	owner = newBrowser(t, d2.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	st = waitUpdate(t, owner, "ok")
	if st["current"] != "1.1.0" {
		t.Fatalf("current after the restart = %v; log:\n%s", st["current"], d2.stderr.String())
	}
	d2.stop(t)
}

// waitUpdate polls the updates until the newest attempt has status.
func waitUpdate(t *testing.T, b *browser, status string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := b.json("GET", "/api/admin/updates", nil, 200)
		if h, _ := st["history"].([]any); len(h) > 0 {
			if a := h[0].(map[string]any); a["status"] == status {
				return st
			} else if a["status"] == "failed" || a["status"] == "rolled_back" {
				t.Fatalf("update %v", a)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s attempt within 30 s: %v", status, st)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// testUpdateRollsBack installs a signed release that names
// itself right but dies as soon as it is asked to serve. The start after
// the install runs it (and it dies); the next start puts the previous
// binary back, and the history says rolled_back.
func testUpdateRollsBack(t *testing.T, oldBin string, priv ed25519.PrivateKey) {
	site := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "release.key")
	os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(priv.Seed())+"\n"), 0o600)
	bad := filepath.Join(site, "eventbox-bad")
	os.WriteFile(bad, []byte("#!/bin/sh\ncase \"$1\" in version) echo eventbox 1.1.0 ;; *) echo broken >&2; exit 3 ;; esac\n"), 0o755)
	sign := exec.Command(oldBin, "release-sign", "-key", keyFile, "-version", "1.1.0",
		"-out", filepath.Join(site, "release.json"), "amd64="+bad, "arm64="+bad)
	if out, err := sign.CombinedOutput(); err != nil {
		t.Fatalf("release-sign: %v\n%s", err, out)
	}
	host := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer host.Close()

	const password = "rollback-test-password"
	dir := t.TempDir()
	env := []string{"ADMIN_PASSWORD=" + password, "UPDATE_URL=" + host.URL + "/release.json"}
	d := startDaemon(t, oldBin, dir, env...)
	owner := newBrowser(t, d.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	owner.json("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0", "skipBackup": true}, 202)
	waitUpdate(t, owner, "installed")
	d.stop(t)

	// The restart runs the release, which dies at once.
	crashed := startMayCrash(t, oldBin, dir, env...)
	select {
	case <-crashed.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("the broken release is serving; log:\n%s", crashed.stderr.String())
	}
	// The service manager's next start: the previous binary is back.
	d2 := startDaemon(t, oldBin, dir, env...)
	owner = newBrowser(t, d2.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	st := owner.json("GET", "/api/admin/updates", nil, 200)
	a := st["history"].([]any)[0].(map[string]any)
	if st["current"] != "1.0.0" || a["status"] != "rolled_back" || a["version"] != "1.1.0" {
		t.Fatalf("after the rollback: current %v, attempt %v", st["current"], a)
	}
	if _, err := os.Lstat(filepath.Join(dir, "update", "current")); err == nil {
		t.Error("update/current still set")
	}
	d2.stop(t)
}
