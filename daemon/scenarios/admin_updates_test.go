package scenarios_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/update"
)

// releaseHost is an httptest release server: a manifest signed with a
// test key, and the binaries it lists.
type releaseHost struct {
	srv      *httptest.Server
	key      ed25519.PrivateKey
	manifest atomic.Value // []byte
	binary   atomic.Value // []byte served as the binary
}

func newReleaseHost(t *testing.T) *releaseHost {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	rh := &releaseHost{key: key}
	rh.manifest.Store([]byte(nil))
	rh.binary.Store([]byte(nil))
	rh.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/release.json":
			w.Write(rh.manifest.Load().([]byte))
		case "/eventbox-new":
			w.Write(rh.binary.Load().([]byte))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(rh.srv.Close)
	return rh
}

// publish signs a manifest of version for arch describing body, and
// serves body as the binary.
func (rh *releaseHost) publish(t *testing.T, version, arch string, body []byte) {
	t.Helper()
	sum := sha256.Sum256(body)
	raw, _ := json.Marshal(update.Manifest{Version: version, Binaries: map[string]update.Binary{
		arch: {URL: "eventbox-new", Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:])},
	}})
	signed, err := update.Sign(rh.key, raw)
	if err != nil {
		t.Fatal(err)
	}
	rh.manifest.Store(signed)
	rh.binary.Store(body)
}

func fakeBinary(version string) []byte { return []byte("#!/bin/sh\necho eventbox " + version + "\n") }

// fakeBackups is the backup service until the real one is merged.
type fakeBackups struct {
	err   error
	calls atomic.Int32
	last  time.Time
}

func (f *fakeBackups) BackupNow(ctx context.Context, reason string) (string, error) {
	f.calls.Add(1)
	if f.err != nil {
		return "", f.err
	}
	return "eventbox-20260620-150000.zip", nil
}

func (f *fakeBackups) LastBackup() (time.Time, bool) { return f.last, !f.last.IsZero() }

func updatesHarness(t *testing.T, rh *releaseHost, b daemon.Backups, restart func()) *harness {
	t.Helper()
	return newHarness(t, func(c *daemon.Config) {
		c.UpdateURL = rh.srv.URL + "/release.json"
		c.UpdateKey = rh.key.Public().(ed25519.PublicKey)
		c.Version = "1.0.0"
		c.Backups = b
		c.Restart = restart
	})
}

// waitApplied polls the updates until no update job is unfinished.
func waitApplied(t *testing.T, c *client) response {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		r := c.do("GET", "/api/admin/updates", nil).expect(t, 200, "")
		if r.JSON["applying"] == nil {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("update still applying after 30 s: %s", r.Body)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestUpdateStatusWithoutAnUpdateURL(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *daemon.Config) { c.Version = "1.0.0" })
	c := h.owner()
	r := c.do("GET", "/api/admin/updates", nil).expect(t, 200, "")
	for field, want := range map[string]any{"current": "1.0.0", "latest": nil, "available": nil,
		"checkEnabled": false, "updater": "none", "applying": nil} {
		if r.JSON[field] != want {
			t.Errorf("%s = %v, want %v", field, r.JSON[field], want)
		}
	}
	if h, ok := r.JSON["history"].([]any); !ok || len(h) != 0 {
		t.Errorf("history = %v, want []", r.JSON["history"])
	}
	c.do("POST", "/api/admin/updates/check", nil).expect(t, 502, "update_unreachable")
	if r := c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0"}).expect(t, 400, "bad_request"); r.details()["version"] == nil {
		t.Errorf("details %v do not name version", r.details())
	}
}

// TestApplyingWithNothingAvailableNamesVersion: only the available
// version is accepted, so with nothing available (no UPDATE_URL, or a
// release host that never answered) apply is a 400 naming version; the
// 502 is for a version a check found available whose host is now down.
func TestApplyingWithNothingAvailableNamesVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		checkFirst bool // a check finds 1.1.0 before the host goes down
		url        bool // an UPDATE_URL is set
		version    string
		wantStatus int
		wantCode   string
	}{
		{name: "no UPDATE_URL", version: "1.1.0", wantStatus: 400, wantCode: "bad_request"},
		{name: "a host that never answered", url: true, version: "1.1.0", wantStatus: 400, wantCode: "bad_request"},
		{name: "another version than the one found, host down", url: true, checkFirst: true, version: "1.2.0", wantStatus: 400, wantCode: "bad_request"},
		{name: "the version found, host down", url: true, checkFirst: true, version: "1.1.0", wantStatus: 502, wantCode: "update_unreachable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rh := newReleaseHost(t)
			rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
			h := newHarness(t, func(c *daemon.Config) {
				if tc.url {
					c.UpdateURL = rh.srv.URL + "/release.json"
					c.UpdateKey = rh.key.Public().(ed25519.PublicKey)
				}
				c.Version = "1.0.0"
			})
			c := h.owner()
			if tc.checkFirst {
				c.do("POST", "/api/admin/updates/check", nil).expect(t, 200, "")
			}
			rh.srv.Close()
			r := c.do("POST", "/api/admin/updates/apply", map[string]any{"version": tc.version, "skipBackup": true}).expect(t, tc.wantStatus, tc.wantCode)
			if tc.wantStatus == 400 && r.details()["version"] == nil {
				t.Errorf("details %v do not name version", r.details())
			}
		})
	}
}

func TestUpdateCheck(t *testing.T) {
	t.Parallel()
	rh := newReleaseHost(t)
	h := updatesHarness(t, rh, nil, nil)
	c := h.owner()

	rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
	r := c.do("POST", "/api/admin/updates/check", nil).expect(t, 200, "")
	if r.JSON["available"] != "1.1.0" {
		t.Fatalf("check = %s", r.Body)
	}
	r = c.do("GET", "/api/admin/updates", nil).expect(t, 200, "")
	if r.JSON["latest"] != "1.1.0" || r.JSON["available"] != "1.1.0" || r.JSON["checkEnabled"] != true {
		t.Fatalf("status after the check = %s", r.Body)
	}

	t.Run("a release without this architecture is not available", func(t *testing.T) {
		other := "arm64"
		if update.Arch() == other {
			other = "amd64"
		}
		rh.publish(t, "1.2.0", other, fakeBinary("1.2.0"))
		r := c.do("POST", "/api/admin/updates/check", nil).expect(t, 200, "")
		if r.JSON["available"] != nil || r.JSON["latest"] != "1.2.0" {
			t.Fatalf("check = %s", r.Body)
		}
		c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.2.0", "skipBackup": true}).expect(t, 400, "bad_request")
	})
	t.Run("an unsigned manifest is refused", func(t *testing.T) {
		rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
		var env map[string]json.RawMessage
		json.Unmarshal(rh.manifest.Load().([]byte), &env)
		rh.manifest.Store([]byte(`{"manifest":` + string(env["manifest"]) + `}`))
		c.do("POST", "/api/admin/updates/check", nil).expect(t, 502, "update_invalid")
	})
	t.Run("a manifest signed by another key is refused", func(t *testing.T) {
		_, other, _ := ed25519.GenerateKey(rand.Reader)
		raw, _ := json.Marshal(update.Manifest{Version: "1.1.0", Binaries: map[string]update.Binary{}})
		signed, _ := update.Sign(other, raw)
		rh.manifest.Store(signed)
		c.do("POST", "/api/admin/updates/check", nil).expect(t, 502, "update_invalid")
	})
	t.Run("an unreachable release host answers 502", func(t *testing.T) {
		dead := httptest.NewServer(http.NotFoundHandler())
		dead.Close()
		h := newHarness(t, func(c *daemon.Config) { c.UpdateURL = dead.URL + "/release.json"; c.Version = "1.0.0" })
		h.owner().do("POST", "/api/admin/updates/check", nil).expect(t, 502, "update_unreachable")
	})
}

func TestUpdateApply(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		backups    *fakeBackups
		body       map[string]any
		wantStatus int
		wantCode   string
		wantField  string
	}{
		{name: "a version other than the available one is refused naming version",
			backups: &fakeBackups{}, body: map[string]any{"version": "1.0.5"}, wantStatus: 400, wantCode: "bad_request", wantField: "version"},
		{name: "no version is refused naming version",
			backups: &fakeBackups{}, body: map[string]any{}, wantStatus: 400, wantCode: "bad_request", wantField: "version"},
		{name: "a failed backup stops the update",
			backups: &fakeBackups{err: errors.New("disk full")}, body: map[string]any{"version": "1.1.0"}, wantStatus: 502, wantCode: "backup_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rh := newReleaseHost(t)
			rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
			var b daemon.Backups
			if tc.backups != nil {
				b = tc.backups
			}
			h := updatesHarness(t, rh, b, nil)
			c := h.owner()
			r := c.do("POST", "/api/admin/updates/apply", tc.body).expect(t, tc.wantStatus, tc.wantCode)
			if tc.wantField != "" && r.details()[tc.wantField] == nil {
				t.Errorf("details %v do not name %s", r.details(), tc.wantField)
			}
			r = c.do("GET", "/api/admin/updates", nil)
			if r.JSON["applying"] != nil || len(r.JSON["history"].([]any)) != 0 {
				t.Errorf("something started: %s", r.Body)
			}
			if _, err := os.Lstat(filepath.Join(h.cfg.DataDir, "update", "current")); err == nil {
				t.Error("a binary was swapped in")
			}
		})
	}
}

func TestUpdateApplyInstallsAfterABackupAndRestarts(t *testing.T) {
	t.Parallel()
	rh := newReleaseHost(t)
	rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
	backups := &fakeBackups{}
	var restarts atomic.Int32
	h := updatesHarness(t, rh, backups, func() { restarts.Add(1) })
	c := h.owner()
	if r := c.do("GET", "/api/admin/updates", nil); r.JSON["updater"] != "systemd" {
		t.Errorf("updater = %v with a restart", r.JSON["updater"])
	}
	r := c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0"}).expect(t, 202, "")
	if r.JSON["backup"] != "eventbox-20260620-150000.zip" || r.JSON["job"] == nil || backups.calls.Load() != 1 {
		t.Fatalf("apply = %s after %d backups", r.Body, backups.calls.Load())
	}
	r = waitApplied(t, c)
	hist := r.JSON["history"].([]any)
	if len(hist) != 1 {
		t.Fatalf("history = %v", hist)
	}
	a := hist[0].(map[string]any)
	if a["version"] != "1.1.0" || a["from"] != "1.0.0" || a["status"] != "installed" || a["at"] == nil {
		t.Errorf("attempt = %v", a)
	}
	if r.JSON["current"] != "1.0.0" {
		t.Errorf("current = %v before the restart", r.JSON["current"])
	}
	if restarts.Load() != 1 {
		t.Errorf("%d restarts, want 1", restarts.Load())
	}
	target, err := os.Readlink(filepath.Join(h.cfg.DataDir, "update", "current"))
	if err != nil || target != filepath.Join("bin", "eventbox-1.1.0") {
		t.Errorf("current -> %q, %v", target, err)
	}
	// Applying it again before the restart is refused, without a backup.
	r = c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0"}).expect(t, 409, "update_busy")
	if r.details()["version"] == nil || backups.calls.Load() != 1 {
		t.Errorf("second apply = %s after %d backups", r.Body, backups.calls.Load())
	}
}

func TestUpdateApplyRefusesATamperedDownload(t *testing.T) {
	t.Parallel()
	rh := newReleaseHost(t)
	rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
	rh.binary.Store([]byte(strings.Replace(string(fakeBinary("1.1.0")), "eventbox", "evilbox!", 1)))
	h := updatesHarness(t, rh, nil, func() { t.Error("restarted after a refused update") })
	c := h.owner()
	c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0", "skipBackup": true}).expect(t, 202, "")
	r := waitApplied(t, c)
	a := r.JSON["history"].([]any)[0].(map[string]any)
	if a["status"] != "failed" || !strings.Contains(a["error"].(string), "SHA-256") {
		t.Errorf("attempt = %v", a)
	}
	if _, err := os.Lstat(filepath.Join(h.cfg.DataDir, "update", "current")); err == nil {
		t.Error("a tampered binary was swapped in")
	}
	entries, _ := os.ReadDir(filepath.Join(h.cfg.DataDir, "update", "bin"))
	if len(entries) != 0 {
		t.Errorf("files left in bin/: %v", entries)
	}
}

// TestUpdateApplyMakesTheBoxsOwnBackupFirst: with no other backup service
// given, the update's backup is a real one, kept with the box's backups.
func TestUpdateApplyMakesTheBoxsOwnBackupFirst(t *testing.T) {
	t.Parallel()
	rh := newReleaseHost(t)
	rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
	h := updatesHarness(t, rh, nil, nil)
	c := h.owner()
	r := c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0"}).expect(t, 202, "")
	name, _ := r.JSON["backup"].(string)
	if name == "" {
		t.Fatalf("apply = %s: no backup named", r.Body)
	}
	if _, err := os.Stat(filepath.Join(h.cfg.DataDir, "backups", name)); err != nil {
		t.Errorf("the backup %s is not kept: %v", name, err)
	}
}

// TestUpdateApplyDoesNotRetryARefusal: a release host that refuses the
// binary (404), or a binary that names another version, ends the apply at
// the first try with a message that reads clean, and the next apply is
// accepted at once; a 503 is worth a retry, so the job stays queued.
func TestUpdateApplyDoesNotRetryARefusal(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		status    int    // answered to the binary's download; 0: the binary
		binary    []byte // served with 200 when status is 0
		wantError string
		retried   bool
	}{
		{name: "a binary the host answers 404 for", status: http.StatusNotFound, wantError: "404 Not Found"},
		{name: "a binary the host answers 403 for", status: http.StatusForbidden, wantError: "403 Forbidden"},
		{name: "a binary that names another version", binary: fakeBinary("1.0.9"),
			wantError: `does not run here as eventbox 1.1.0: it answered "eventbox 1.0.9"`},
		{name: "a host that answers 503 is tried again", status: http.StatusServiceUnavailable, wantError: "503", retried: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rh := newReleaseHost(t)
			rh.publish(t, "1.1.0", update.Arch(), fakeBinary("1.1.0"))
			var downloads atomic.Int32
			host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/eventbox-new" {
					rh.srv.Config.Handler.ServeHTTP(w, r)
					return
				}
				downloads.Add(1)
				if tc.status != 0 {
					http.Error(w, "no", tc.status)
					return
				}
				w.Write(tc.binary)
			}))
			defer host.Close()
			if tc.binary != nil {
				rh.publish(t, "1.1.0", update.Arch(), tc.binary)
			}
			h := newHarness(t, func(c *daemon.Config) {
				c.UpdateURL = host.URL + "/release.json"
				c.UpdateKey = rh.key.Public().(ed25519.PublicKey)
				c.Version = "1.0.0"
				c.Restart = func() { t.Error("restarted after a refused update") }
			})
			c := h.owner()
			c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0", "skipBackup": true}).expect(t, 202, "")
			deadline := time.Now().Add(10 * time.Second)
			for downloads.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			var r response
			for {
				r = c.do("GET", "/api/admin/updates", nil).expect(t, 200, "")
				a, _ := r.JSON["applying"].(map[string]any)
				if a == nil || a["error"] != nil && a["error"] != "" || time.Now().After(deadline) {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			a, _ := r.JSON["applying"].(map[string]any)
			if tc.retried {
				if a == nil || !strings.Contains(a["error"].(string), tc.wantError) {
					t.Fatalf("a passing failure is not kept for a retry: %s", r.Body)
				}
				return
			}
			if a != nil {
				t.Fatalf("a refusal is kept for a retry: %s", r.Body)
			}
			if n := downloads.Load(); n != 1 {
				t.Errorf("%d downloads, want 1", n)
			}
			attempt := r.JSON["history"].([]any)[0].(map[string]any)
			msg, _ := attempt["error"].(string)
			if attempt["status"] != "failed" || !strings.Contains(msg, tc.wantError) || strings.Contains(msg, "%!") {
				t.Errorf("attempt = %v, want failed with %q and no formatting slip", attempt, tc.wantError)
			}
			// The next apply is not held up by the refused one.
			c.do("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0", "skipBackup": true}).expect(t, 202, "")
		})
	}
}
