package main

import (
	"bytes"
	"encoding/json"
	"image"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// eventboxBinary is the eventbox binary the black-box tests share, built
// once per test process and removed by TestMain.
var eventboxBinary = testtool.Binary{Pkg: "."}

// buildBinary answers the shared eventbox binary, building it on first
// use; tests must not change the file.
func buildBinary(t *testing.T) string {
	t.Helper()
	return eventboxBinary.Path(t)
}

func TestMain(m *testing.M) {
	code := m.Run()
	eventboxBinary.Remove()
	os.Exit(code)
}

type daemonProc struct {
	cmd    *exec.Cmd
	url    string
	dir    string
	stderr *testtool.SyncBuffer
	done   chan struct{} // closed when the process has exited
	err    error         // its exit error, once done is closed
}

// startDaemon runs `eventbox serve` configured only through the
// environment, as docs/design.md's "Configuration" says, and waits for
// /api/health; a daemon that exits first fails the test.
func startDaemon(t *testing.T, bin, dir string, env ...string) *daemonProc {
	t.Helper()
	p := startMayCrash(t, bin, dir, env...)
	select {
	case <-p.done:
		t.Fatalf("daemon exited before it was healthy (%v); log:\n%s", p.err, p.stderr.String())
	default:
	}
	return p
}

// browser is a black-box HTTP client with cookies, sending the page's
// Origin like a browser does.
type browser struct {
	t   *testing.T
	hc  *http.Client
	url string
}

func newBrowser(t *testing.T, url string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{t: t, hc: &http.Client{Jar: jar, Timeout: 30 * time.Second}, url: url}
}

func (b *browser) call(method, path, contentType string, body []byte) (int, http.Header, []byte) {
	b.t.Helper()
	if contentType != "" {
		return b.callWith(method, path, body, "Content-Type", contentType)
	}
	return b.callWith(method, path, body)
}

// callWith sends a request with the given header pairs.
func (b *browser) callWith(method, path string, body []byte, headers ...string) (int, http.Header, []byte) {
	b.t.Helper()
	req, err := http.NewRequest(method, b.url+path, bytes.NewReader(body))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Origin", b.url)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := b.hc.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, raw
}

// json sends a JSON body and decodes the JSON answer, failing the test
// unless the status is want.
func (b *browser) json(method, path string, body any, want int) map[string]any {
	b.t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	status, _, out := b.call(method, path, "application/json", raw)
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		b.t.Fatalf("%s %s: not JSON (%d): %s", method, path, status, out)
	}
	if status != want {
		b.t.Fatalf("%s %s = %d, want %d: %s", method, path, status, want, out)
	}
	return m
}

func phoneJPEG(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestBlackBox drives the real binary over HTTP only, the way the pages
// and a new user do: sign in with the generated password, create an event,
// join as a guest, upload, page, fetch every variant, delete; then stop it
// with SIGTERM and start it again on the same data.
func TestBlackBox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir)

	raw, err := os.ReadFile(filepath.Join(dir, "initial-password"))
	if err != nil {
		t.Fatalf("no initial-password file on a fresh DATA_DIR: %v", err)
	}
	password := strings.TrimSpace(string(raw))
	// The daemon logs the password before it answers; the line reaches
	// the test's buffer through the pipe's copying goroutine, which a
	// loaded machine may run a little after the health check's answer.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(d.stderr.String(), password) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := strings.Count(d.stderr.String(), password); n != 1 {
		t.Errorf("the generated password was logged %d times, want once", n)
	}
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": "wrong-password"}, 401)
	host.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	me := host.json("GET", "/api/admin/me", nil, 200)["account"].(map[string]any)
	if me["username"] != "admin" || me["role"] != "owner" {
		t.Fatalf("me = %v", me)
	}
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20"}, 201)["event"].(map[string]any)
	slug := ev["slug"].(string)
	host.json("PATCH", "/api/admin/events/"+ev["id"].(string), map[string]any{"accentColor": "#zzz"}, 400)

	// A DNS-rebinding page's requests name another host: the binary
	// serves the API only for its own names.
	for host, want := range map[string]int{"evil.example": http.StatusMisdirectedRequest, strings.TrimPrefix(d.url, "http://"): http.StatusOK} {
		req, _ := http.NewRequest("GET", d.url+"/api/e/"+slug, nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("Host %s: %d, want %d", host, res.StatusCode, want)
		}
	}

	guest := newBrowser(t, d.url)
	guest.json("GET", "/api/e/"+slug+"/photos", nil, 403)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)
	guest.json("POST", "/api/e/"+slug+"/guest", map[string]any{"name": "Zoé"}, 200)
	var ids []string
	for i := 0; i < 3; i++ {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
		fw.Write(phoneJPEG(t, 640+i, 480))
		mw.Close()
		status, _, out := guest.call("POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), buf.Bytes())
		if status != 201 {
			t.Fatalf("upload = %d %s", status, out)
		}
		var r map[string]any
		json.Unmarshal(out, &r)
		ids = append(ids, r["photo"].(map[string]any)["id"].(string))
	}
	list := guest.json("GET", "/api/e/"+slug+"/photos", nil, 200)
	if n := len(list["photos"].([]any)); n != 3 || list["nextCursor"] != nil {
		t.Fatalf("list = %v", list)
	}
	for _, v := range []string{"thumb", "display", "original"} {
		status, h, body := guest.call("GET", "/api/media/"+ids[0]+"?v="+v, "", nil)
		if status != 200 || h.Get("Content-Type") != "image/jpeg" || len(body) == 0 {
			t.Fatalf("%s = %d %q", v, status, h.Get("Content-Type"))
		}
	}
	guest.json("DELETE", "/api/e/"+slug+"/photos/"+ids[0], nil, 200)
	newBrowser(t, d.url).json("GET", "/api/media/"+ids[1]+"?v=thumb", nil, 404)

	t.Run("a second daemon on the same data fails fast and clearly", func(t *testing.T) {
		cmd := exec.Command(bin, "serve")
		cmd.Env = []string{"LISTEN_ADDR=127.0.0.1:0", "DATA_DIR=" + dir, "MDNS_NAME=off"}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err == nil || time.Since(start) > 5*time.Second || !strings.Contains(string(out), "already running") {
			t.Fatalf("second serve: %v after %v: %s", err, time.Since(start), out)
		}
	})
	t.Run("reset-password refuses while the daemon runs", func(t *testing.T) {
		cmd := exec.Command(bin, "reset-password")
		cmd.Env = []string{"DATA_DIR=" + dir}
		start := time.Now()
		out, err := cmd.CombinedOutput()
		if err == nil || time.Since(start) > 3*time.Second || !strings.Contains(string(out), "stop it first") {
			t.Fatalf("reset-password: %v after %v: %s", err, time.Since(start), out)
		}
	})

	// SIGTERM: HTTP first, then workers, then the store; exit 0.
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
		if d.err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", d.err, d.stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no exit within 20 s of SIGTERM")
	}

	t.Run("reset-password works once the daemon is stopped", func(t *testing.T) {
		cmd := exec.Command(bin, "reset-password", "ADMIN")
		cmd.Env = []string{"DATA_DIR=" + dir}
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "New password for ADMIN: ") {
			t.Fatalf("reset-password: %v: %s", err, out)
		}
		fields := strings.Fields(strings.SplitN(string(out), "\n", 2)[0])
		password = fields[len(fields)-1]
	})

	d2 := startDaemon(t, bin, dir, "ADMIN_PASSWORD=ignored-on-a-used-dir")
	again := newBrowser(t, d2.url)
	again.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	events := again.json("GET", "/api/admin/events", nil, 200)["events"].([]any)
	if len(events) != 1 || events[0].(map[string]any)["photos"] != float64(2) {
		t.Fatalf("after a restart: %v", events)
	}
}
