package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// crashMarker and crashExit are daemon/variants/crashtest_on.go's marker and exit
// status: a binary built with the eventbox_crashtest tag exits with
// crashExit when it starts decoding an original that holds crashMarker,
// the way a decoder that runs a Pi out of memory takes the process down.
const (
	crashMarker = "eventbox-crash-test: exit while decoding"
	crashExit   = 86
)

// crashingJPEG is a valid JPEG that carries crashMarker in a comment
// segment.
func crashingJPEG(t *testing.T) []byte {
	jpg := phoneJPEG(t, 320, 240)
	com := []byte{0xFF, 0xFE}
	com = binary.BigEndian.AppendUint16(com, uint16(2+len(crashMarker)))
	com = append(com, crashMarker...)
	return append(append(append([]byte{}, jpg[:2]...), com...), jpg[2:]...)
}

// startMayCrash runs `eventbox serve` and waits until it answers
// /api/health or exits, whichever comes first.
func startMayCrash(t *testing.T, bin, dir string, env ...string) *daemonProc {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "LISTEN_ADDR=" + addr, "DATA_DIR=" + dir, "MDNS_NAME=off"}, env...)
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
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.done:
			return p
		default:
		}
		if res, err := http.Get(p.url + "/api/health"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return p
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon neither healthy nor gone within 30 s; log:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// crashed reports whether the process exited with the crash hook's
// status, waiting up to wait for it.
func (p *daemonProc) crashed(t *testing.T, wait time.Duration) bool {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(wait):
		return false
	}
	var exit *exec.ExitError
	if !errors.As(p.err, &exit) || exit.ExitCode() != crashExit {
		t.Fatalf("the daemon stopped with %v, not the crash hook; log:\n%s", p.err, p.stderr.String())
	}
	return true
}

// TestCrashLoopEndsAfterThreeStarts: a photo whose decode kills the
// process is tried at each start until it has been tried three times,
// then set aside, and the daemon stays up, as it must under systemd's
// Restart=always on a Pi that an out-of-memory decode takes down.
func TestCrashLoopEndsAfterThreeStarts(t *testing.T) {
	testtool.Long(t, "the real binary failing its start three times")
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := filepath.Join(t.TempDir(), "eventbox")
	build := exec.Command("go", "build", "-tags", "eventbox_crashtest", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building eventbox: %v\n%s", err, out)
	}
	const password = "correct-horse-battery"
	dir := t.TempDir()
	env := "ADMIN_PASSWORD=" + password

	d := startMayCrash(t, bin, dir, env)
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": password}, 200)
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Crash"}, 201)["event"].(map[string]any)
	eventID, slug := ev["id"].(string), ev["slug"].(string)
	guest := newBrowser(t, d.url)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
	original := crashingJPEG(t)
	fw.Write(original)
	mw.Close()
	req, _ := http.NewRequest("POST", d.url+"/api/e/"+slug+"/photos", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", d.url)
	if res, err := guest.hc.Do(req); err == nil {
		// The answer may be cut off by the crash; the photo is stored
		// before the job runs either way.
		res.Body.Close()
	}
	if !d.crashed(t, 30*time.Second) {
		t.Fatalf("the marked photo did not crash the daemon; log:\n%s", d.stderr.String())
	}

	crashes := 1
	for start := 2; ; start++ {
		if start > 8 {
			t.Fatalf("still crashing after %d starts", start-1)
		}
		d = startMayCrash(t, bin, dir, env)
		if d.crashed(t, 0) {
			crashes++
			continue
		}
		// Up: either the job is set aside, or it is about to run and
		// crash. Watch the admin list until one of the two shows.
		host = newBrowser(t, d.url)
		state := ""
		for deadline := time.Now().Add(20 * time.Second); state != "failed"; {
			if d.crashed(t, 0) {
				break
			}
			state = adminVariants(t, host, password, eventID)
			if time.Now().After(deadline) {
				t.Fatalf("start %d: variants %q after 20 s; log:\n%s", start, state, d.stderr.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if state != "failed" {
			crashes++
			continue
		}
		break
	}
	if crashes != 3 {
		t.Fatalf("the photo crashed the daemon %d times, want 3", crashes)
	}
	// The daemon stays up, serves the placeholder and the original.
	if d.crashed(t, 2*time.Second) {
		t.Fatalf("the daemon crashed after setting the photo aside; log:\n%s", d.stderr.String())
	}
	photos := host.json("GET", "/api/admin/events/"+eventID+"/photos", nil, 200)["photos"].([]any)
	pid := photos[0].(map[string]any)["id"].(string)
	status, h, thumb := host.call("GET", "/api/media/"+pid+"?v=thumb", "", nil)
	if status != 200 || h.Get("Content-Type") != "image/jpeg" || len(thumb) == 0 {
		t.Fatalf("thumb of the set-aside photo = %d %q", status, h.Get("Content-Type"))
	}
	if status, _, got := host.call("GET", "/api/media/"+pid+"?v=original", "", nil); status != 200 || !bytes.Equal(got, original) {
		t.Fatalf("original of the set-aside photo = %d, %d bytes", status, len(got))
	}
	if d.crashed(t, 0) {
		t.Fatalf("serving the set-aside photo crashed the daemon; log:\n%s", d.stderr.String())
	}
}

// adminVariants signs in if needed and returns the variants state of the
// event's only photo ("" while it cannot be read). The daemon may crash
// under it, so transport errors are not failures here.
func adminVariants(t *testing.T, host *browser, password, eventID string) string {
	t.Helper()
	send := func(method, path string, body []byte) (int, []byte) {
		req, err := http.NewRequest(method, host.url+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Origin", host.url)
		req.Header.Set("Content-Type", "application/json")
		res, err := host.hc.Do(req)
		if err != nil {
			return 0, nil
		}
		defer res.Body.Close()
		out, _ := io.ReadAll(res.Body)
		return res.StatusCode, out
	}
	status, out := send("GET", "/api/admin/events/"+eventID+"/photos", nil)
	if status == 401 {
		raw, _ := json.Marshal(map[string]any{"password": password})
		send("POST", "/api/admin/login", raw)
		return ""
	}
	var list struct {
		Photos []struct {
			Variants string `json:"variants"`
		} `json:"photos"`
	}
	if status != 200 || json.Unmarshal(out, &list) != nil || len(list.Photos) != 1 {
		return ""
	}
	return list.Photos[0].Variants
}
