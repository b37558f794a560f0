package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// notifySocket plays systemd's side of $NOTIFY_SOCKET: it collects what
// the daemon sends.
type notifySocket struct {
	addr string
	msgs chan string
}

func newNotifySocket(t *testing.T) *notifySocket {
	t.Helper()
	addr := filepath.Join(t.TempDir(), "notify")
	l, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	n := &notifySocket{addr: addr, msgs: make(chan string, 256)}
	go func() {
		buf := make([]byte, 4096)
		for {
			k, err := l.Read(buf)
			if err != nil {
				return
			}
			for _, line := range strings.Split(string(buf[:k]), "\n") {
				n.msgs <- line
			}
		}
	}()
	return n
}

// await waits up to d for msg; other messages are dropped.
func (n *notifySocket) await(msg string, d time.Duration) bool {
	deadline := time.After(d)
	for {
		select {
		case m := <-n.msgs:
			if m == msg {
				return true
			}
		case <-deadline:
			return false
		}
	}
}

// superviseStart is one start by the stand-in service manager (the unit's
// Type=notify, TimeoutStartSec scaled down to startTimeout, WatchdogSec
// to watchdog): it starts `eventbox serve` with NOTIFY_SOCKET and
// WATCHDOG_USEC, and answers whether READY=1 came in time. When it did
// not, it kills the process as systemd does (SIGTERM, then SIGKILL).
func superviseStart(t *testing.T, n *notifySocket, bin, dir string, startTimeout, watchdog time.Duration, env ...string) (*daemonProc, bool) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LISTEN_ADDR=" + addr, "DATA_DIR=" + dir, "MDNS_NAME=off",
		"NOTIFY_SOCKET=" + n.addr, "WATCHDOG_USEC=" + strconv.FormatInt(watchdog.Microseconds(), 10)}, env...)
	var stderr testtool.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &daemonProc{cmd: cmd, url: "http://" + addr, dir: dir, stderr: &stderr, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-p.done
	})
	if n.await("READY=1", startTimeout) {
		return p, true
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-p.done
	}
	return p, false
}

// TestBlackBoxAHungUpdateIsStoppedAndRolledBack: under a stand-in for
// systemd (the test plays NOTIFY_SOCKET), the packaged binary says
// READY=1 and keeps the watchdog fed; a signed update whose serve hangs
// never says READY=1, so the start timeout kills it, and the next start
// puts the previous version back and is ready.
func TestBlackBoxAHungUpdateIsStoppedAndRolledBack(t *testing.T) {
	testtool.Long(t, "a hung update waited out and rolled back")
	t.Parallel()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	oldBin := buildVersion(t, t.TempDir(), "1.0.0", pub)
	if t.Failed() {
		t.FailNow()
	}
	site := t.TempDir()
	keyFile := filepath.Join(t.TempDir(), "release.key")
	os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(priv.Seed())+"\n"), 0o600)
	hung := filepath.Join(site, "eventbox-hung")
	os.WriteFile(hung, []byte("#!/bin/sh\ncase \"$1\" in version) echo eventbox 1.1.0 ;; *) exec sleep 600 ;; esac\n"), 0o755)
	sign := exec.Command(oldBin, "release-sign", "-key", keyFile, "-version", "1.1.0",
		"-out", filepath.Join(site, "release.json"), "amd64="+hung, "arm64="+hung)
	if out, err := sign.CombinedOutput(); err != nil {
		t.Fatalf("release-sign: %v\n%s", err, out)
	}
	host := httptest.NewServer(http.FileServer(http.Dir(site)))
	defer host.Close()

	const password = "watchdog-test-password"
	const startTimeout, watchdog = 15 * time.Second, 1500 * time.Millisecond
	dir := t.TempDir()
	env := []string{"ADMIN_PASSWORD=" + password, "UPDATE_URL=" + host.URL + "/release.json"}
	n := newNotifySocket(t)
	d, ready := superviseStart(t, n, oldBin, dir, startTimeout, watchdog, env...)
	if !ready {
		t.Fatalf("the packaged binary never said READY=1; log:\n%s", d.stderr.String())
	}
	if !n.await("WATCHDOG=1", 2*watchdog) {
		t.Fatalf("no WATCHDOG=1 within %s; log:\n%s", 2*watchdog, d.stderr.String())
	}
	owner := newBrowser(t, d.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	owner.json("POST", "/api/admin/updates/apply", map[string]any{"version": "1.1.0", "skipBackup": true}, 202)
	waitUpdate(t, owner, "installed")
	d.stop(t)

	// The restart execs the update, which hangs: no READY=1, killed.
	hungStart, ready := superviseStart(t, n, oldBin, dir, 5*time.Second, watchdog, env...)
	if ready {
		t.Fatalf("the hung update said READY=1; log:\n%s", hungStart.stderr.String())
	}
	// The service manager's next start: the previous binary is back.
	d2, ready := superviseStart(t, n, oldBin, dir, startTimeout, watchdog, env...)
	if !ready {
		t.Fatalf("the start after the kill never said READY=1; log:\n%s", d2.stderr.String())
	}
	owner = newBrowser(t, d2.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	st := owner.json("GET", "/api/admin/updates", nil, 200)
	a := st["history"].([]any)[0].(map[string]any)
	if st["current"] != "1.0.0" || a["status"] != "rolled_back" || a["version"] != "1.1.0" {
		t.Fatalf("after the kill: current %v, attempt %v", st["current"], a)
	}
	if _, err := os.Lstat(filepath.Join(dir, "update", "current")); err == nil {
		t.Error("update/current still set")
	}
	d2.stop(t)
}
