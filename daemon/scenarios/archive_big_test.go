package scenarios_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/daemon"
	"eventbox/store"
)

// The 2 GB archive check. It is skipped by go test unless asked for:
//
//	EVENTBOX_ARCHIVE_2GB=1 go test -run 'TestArchive2GB$' -v ./daemon/scenarios/
//
// (EVENTBOX_ARCHIVE_2GB=dense writes real bytes instead of sparse files.)
// The daemon runs in a child process (this test binary, serving through
// the real router), so its peak RSS (VmHWM) is the server's alone; this
// process streams the archive to a discarding client, checks the ZIP's
// central directory and prints the time, the throughput and the server's
// peak RSS.
const (
	bigArchiveEnv   = "EVENTBOX_ARCHIVE_2GB"
	bigServeEnv     = "EVENTBOX_ARCHIVE_SERVE_DIR"
	bigFiles        = 200
	bigFileSize     = 10 << 20 // 200 × 10 MiB = 2.1 GB
	bigOwnerPass    = "archive-bench-password"
	bigTailKeep     = 256 << 10
	bigServeTimeout = 10 * time.Minute
)

// startTestServer runs this test binary again as a child process that
// runs only the test named server (a daemon serving a big event, so that
// its peak RSS is its own), with env added; the child prints "listening
// <addr>" when it serves. It answers the child's base URL, its pid and a stop that
// closes its stdin (the child's signal to stop) and waits for it.
func startTestServer(t *testing.T, ctx context.Context, server, env string) (base string, pid int, stop func()) {
	t.Helper()
	child := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+server+"$")
	child.Env = append(os.Environ(), env)
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	child.Stderr = os.Stderr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	stop = func() {
		stdin.Close()
		if err := child.Wait(); err != nil {
			t.Errorf("%s process: %v", server, err)
		}
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening ") {
		stop()
		t.Fatalf("%s did not start: %q %v", server, line, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	return "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening ")), child.Process.Pid, stop
}

func TestArchive2GB(t *testing.T) {
	mode := os.Getenv(bigArchiveEnv)
	if mode == "" {
		t.Skip("set " + bigArchiveEnv + "=1 (sparse) or =dense to stream a 2 GB archive and report time and peak RSS")
	}
	dir := t.TempDir()
	eventID := fillBigEvent(t, dir, mode == "dense")

	ctx, cancel := context.WithTimeout(context.Background(), bigServeTimeout)
	defer cancel()
	base, pid, stop := startTestServer(t, ctx, "TestArchive2GBServer", bigServeEnv+"="+dir)
	defer stop()

	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: bigServeTimeout}
	login, _ := http.NewRequest("POST", base+"/api/admin/login", strings.NewReader(`{"password":"`+bigOwnerPass+`"}`))
	login.Header.Set("Origin", base)
	login.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(login)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("login: %v %v", res, err)
	}
	res.Body.Close()
	baseline := vmKiB(t, pid, "VmHWM")

	start := time.Now()
	res, err = hc.Get(base + "/api/admin/events/" + eventID + "/archive")
	if err != nil {
		t.Fatal(err)
	}
	sink := &tailCounter{}
	_, err = io.Copy(sink, res.Body)
	res.Body.Close()
	elapsed := time.Since(start)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("archive: status %d, %v", res.StatusCode, err)
	}
	peak, rss := vmKiB(t, pid, "VmHWM"), vmKiB(t, pid, "VmRSS")

	names := checkCentralDirectory(t, sink)
	if len(names) != bigFiles {
		t.Fatalf("%d entries, want %d", len(names), bigFiles)
	}
	mb := float64(sink.n) / 1e6
	report := fmt.Sprintf("archive of %d files, %.0f MB (%s files): %.2f s, %.0f MB/s; server peak RSS (VmHWM) %.1f MiB "+
		"(%.1f MiB before the download), RSS after %.1f MiB",
		len(names), mb, map[bool]string{true: "dense", false: "sparse"}[mode == "dense"], elapsed.Seconds(),
		mb/elapsed.Seconds(), float64(peak)/1024, float64(baseline)/1024, float64(rss)/1024)
	t.Log(report)
	fmt.Println(report)
	if peak-baseline > 64<<10 {
		t.Errorf("the server's peak RSS grew by %d KiB while streaming: memory is not constant", peak-baseline)
	}
}

// TestArchive2GBServer is the server half of TestArchive2GB, run in a
// child process; on its own it is skipped.
func TestArchive2GBServer(t *testing.T) {
	dir := os.Getenv(bigServeEnv)
	if dir == "" {
		t.Skip("the server half of TestArchive2GB")
	}
	ctx := context.Background()
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Println("listening", ln.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
	_ = srv.Close()
}

// fillBigEvent makes an event with bigFiles photos of bigFileSize bytes
// each (sparse files, or real bytes when dense) and returns its id.
func fillBigEvent(t *testing.T, dir string, dense bool) string {
	t.Helper()
	st, err := store.Open(context.Background(), dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := store.NewEvent("Two gigabytes")
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 1<<20)
	if dense {
		_, _ = rand.Read(block)
	}
	for i := 0; i < bigFiles; i++ {
		p := addSparsePhoto(t, st, dir, e.ID, bigFileSize)
		if !dense {
			continue
		}
		f, err := os.OpenFile(filepath.Join(dir, "media", e.ID, p.ID+".orig"), os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off < bigFileSize; off += len(block) {
			block[0] = byte(i) // no two files alike
			if _, err := f.Write(block); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return e.ID
}

// vmKiB reads a field (VmHWM, VmRSS) of /proc/<pid>/status, in KiB; the
// album and archive measurements use it.
func vmKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatalf("reading /proc/%d/status: %v", pid, err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// tailCounter counts what it is given and keeps the last bigTailKeep
// bytes, where a ZIP's central directory is.
type tailCounter struct {
	n    int64
	tail []byte
}

func (c *tailCounter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	c.tail = append(c.tail, p...)
	if over := len(c.tail) - bigTailKeep; over > 0 {
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
	return len(p), nil
}

// checkCentralDirectory reads the end record and the central directory
// from the archive's tail, checks that they add up to the bytes received
// and that every entry is stored whole under a unique name, and returns
// the names.
func checkCentralDirectory(t *testing.T, c *tailCounter) []string {
	t.Helper()
	le := binary.LittleEndian
	end := c.tail[len(c.tail)-22:]
	if le.Uint32(end) != 0x06054b50 {
		t.Fatal("no end of central directory record at the end")
	}
	count, size, offset := int(le.Uint16(end[10:])), int64(le.Uint32(end[12:])), int64(le.Uint32(end[16:]))
	if offset+size+22 != c.n {
		t.Fatalf("central directory at %d+%d does not end the %d bytes", offset, size, c.n)
	}
	dir := c.tail[len(c.tail)-22-int(size) : len(c.tail)-22]
	seen := map[string]bool{}
	var names []string
	for i := 0; i < count; i++ {
		if le.Uint32(dir) != 0x02014b50 {
			t.Fatalf("entry %d: bad central directory header", i)
		}
		method, compressed, plain := le.Uint16(dir[10:]), le.Uint32(dir[20:]), le.Uint32(dir[24:])
		nameLen, extraLen, commentLen := int(le.Uint16(dir[28:])), int(le.Uint16(dir[30:])), int(le.Uint16(dir[32:]))
		name := string(dir[46 : 46+nameLen])
		if method != 0 || compressed != bigFileSize || plain != bigFileSize {
			t.Fatalf("%s: method %d, sizes %d/%d", name, method, compressed, plain)
		}
		if seen[name] {
			t.Fatalf("%s twice", name)
		}
		seen[name] = true
		names = append(names, name)
		dir = dir[46+nameLen+extraLen+commentLen:]
	}
	return names
}
