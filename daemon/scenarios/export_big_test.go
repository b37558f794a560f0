package scenarios_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
	"golang.org/x/net/webdav"

	"eventbox/daemon"
	"eventbox/store"
)

// The 2 GB cloud export check. It is skipped by go test unless asked for:
//
//	EVENTBOX_EXPORT_2GB=1 go test -run 'TestExport2GB$' -v ./daemon/scenarios/
//
// (EVENTBOX_EXPORT_2GB=dense writes real bytes instead of sparse files.)
// The daemon runs in a child process (this test binary, with its job
// runner), so its peak RSS (VmHWM) is the exporter's alone. This process
// is the WebDAV server: golang.org/x/net/webdav over a temp dir, except
// that a PUT body is counted and dropped and a sparse file of its size
// stands for it, so the check needs no 2 GB of disk. It prints the time,
// the throughput and the daemon's peak RSS, and fails when the peak grew
// by more than 32 MiB during the export.
const (
	bigExportEnv   = "EVENTBOX_EXPORT_2GB"
	bigExportServe = "EVENTBOX_EXPORT_SERVE_DIR"
	bigExportLimit = 32 << 10 // KiB
)

func TestExport2GB(t *testing.T) {
	mode := os.Getenv(bigExportEnv)
	if mode == "" {
		t.Skip("set " + bigExportEnv + "=1 (sparse) or =dense to export a 2 GB event over WebDAV and report time and peak RSS")
	}
	dir := t.TempDir()
	eventID := fillBigEvent(t, dir, mode == "dense")

	davDir := t.TempDir()
	var received atomic.Int64
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(davDir), LockSystem: webdav.NewMemLS()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPut {
			dav.ServeHTTP(w, r)
			return
		}
		n, err := io.Copy(io.Discard, r.Body)
		received.Add(n)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f, err := os.Create(filepath.Join(davDir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/dav/"))))
		if err == nil {
			err = f.Truncate(n)
			f.Close()
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), bigServeTimeout)
	defer cancel()
	base, pid, stop := startTestServer(t, ctx, "TestExport2GBServer", bigExportServe+"="+dir)
	defer stop()

	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: time.Minute}
	call := func(method, path string, body any) map[string]any {
		t.Helper()
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(method, base+path, strings.NewReader(string(raw)))
		req.Header.Set("Origin", base)
		req.Header.Set("Content-Type", "application/json")
		res, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %v %v", method, path, res.StatusCode, out, err)
		}
		return out
	}
	call("POST", "/api/admin/login", map[string]any{"password": bigOwnerPass})
	call("PUT", "/api/admin/cloud", map[string]any{"url": srv.URL + "/dav/", "user": "u", "password": "p", "folder": "big"})
	baseline := vmKiB(t, pid, "VmHWM")

	start := time.Now()
	call("POST", "/api/admin/events/"+eventID+"/cloud", map[string]any{"scope": "visible"})
	var x map[string]any
	for {
		x = call("GET", "/api/admin/events/"+eventID+"/cloud", nil)["exports"].([]any)[0].(map[string]any)
		if x["status"] == "done" || x["status"] == "failed" {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	elapsed := time.Since(start)
	peak, rss := vmKiB(t, pid, "VmHWM"), vmKiB(t, pid, "VmRSS")
	if x["status"] != "done" || x["sent"] != float64(bigFiles+1) {
		t.Fatalf("export: %v", x)
	}
	mb := float64(received.Load()) / 1e6
	report := fmt.Sprintf("export of %d files, %.0f MB (%s files) over WebDAV: %.2f s, %.0f MB/s; daemon peak RSS (VmHWM) %.1f MiB "+
		"(%.1f MiB before the export, growth %.1f MiB), RSS after %.1f MiB",
		bigFiles, mb, map[bool]string{true: "dense", false: "sparse"}[mode == "dense"], elapsed.Seconds(),
		mb/elapsed.Seconds(), float64(peak)/1024, float64(baseline)/1024, float64(peak-baseline)/1024, float64(rss)/1024)
	t.Log(report)
	fmt.Println(report)
	if peak-baseline > bigExportLimit {
		t.Errorf("the daemon's peak RSS grew by %d KiB during the export, over %d KiB", peak-baseline, bigExportLimit)
	}
}

// TestExport2GBServer is the daemon half of TestExport2GB, run in a child
// process with its background jobs; on its own it is skipped.
func TestExport2GBServer(t *testing.T) {
	dir := os.Getenv(bigExportServe)
	if dir == "" {
		t.Skip("the daemon half of TestExport2GB")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := daemon.DefaultConfig()
	cfg.DataDir = dir
	cfg.AdminPassword = bigOwnerPass
	cfg.PasswordCost = bcrypt.MinCost
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	d, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		_ = d.Run(ctx)
		close(done)
	}()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("listening", ln.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	_ = srv.Close()
	cancel()
	<-done
}
