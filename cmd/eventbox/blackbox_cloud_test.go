package main

import (
	"bytes"
	"encoding/json"
	"image/jpeg"
	"io"
	"io/fs"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

const (
	rcloneUser     = "box"
	rclonePassword = "rclone-secret"
	cloudOwnerPass = "cloud-owner-password"
	tempPrefix     = ".eventbox-upload-" // webdav.TempPrefix
)

// startRclone serves dir over WebDAV with rclone, as CI installs it, and
// answers its address; without rclone the test is skipped.
func startRclone(t *testing.T, dir string) string {
	t.Helper()
	bin := testtool.NeedOne(t, "rclone", "rclone")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", "webdav", dir, "--addr", addr, "--user", rcloneUser, "--pass", rclonePassword, "--config", os.DevNull)
	var log testtool.SyncBuffer
	cmd.Stderr = &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("rclone did not listen within 20 s:\n%s", log.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// davProxy sits between the daemon and rclone: it counts the MOVEs onto
// each final name, and can hold an upload once part of its body passed,
// so the test can kill the daemon in the middle of a file.
type davProxy struct {
	mu    sync.Mutex
	moves map[string]int
	hold  chan struct{} // armed: the next PUT stops here after 64 KiB
	held  chan struct{} // closed when it has
}

func (p *davProxy) ServeHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		if r.Method == "MOVE" {
			if u, err := url.Parse(r.Header.Get("Destination")); err == nil {
				p.moves[u.Path]++
			}
		}
		if r.Method == "PUT" && p.hold != nil {
			r.Body = &heldBody{r: r.Body, hold: p.hold, held: p.held}
			p.hold = nil
		}
		p.mu.Unlock()
		next.ServeHTTP(w, r)
	})
}

type heldBody struct {
	r    io.ReadCloser
	n    int
	hold chan struct{}
	held chan struct{}
	once sync.Once
}

func (b *heldBody) Read(p []byte) (int, error) {
	if b.n >= 64<<10 {
		b.once.Do(func() { close(b.held) })
		<-b.hold
	}
	n, err := b.r.Read(p)
	b.n += n
	return n, err
}

func (b *heldBody) Close() error { return b.r.Close() }

// TestBlackBoxCloudExport exports an event from the real binary to
// rclone's WebDAV server: the test reports a wrong password in the
// server's words, and an export cut by killing the daemon in the middle of
// a file resumes at the next start with no file sent twice, no partial
// file under its own name, and every file byte for byte.
func TestBlackBoxCloudExport(t *testing.T) {
	testtool.Long(t, "the real binary exporting to rclone's WebDAV server")
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	davDir := t.TempDir()
	rclone := startRclone(t, davDir)
	target, _ := url.Parse(rclone)
	proxy := &davProxy{moves: map[string]int{}}
	front := &http.Server{Handler: proxy.ServeHTTP(httputil.NewSingleHostReverseProxy(target)), ReadHeaderTimeout: 10 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go front.Serve(ln)
	t.Cleanup(func() { front.Close() })
	davURL := "http://" + ln.Addr().String() + "/"

	bin := buildBinary(t)
	dir := t.TempDir()
	env := []string{"ADMIN_PASSWORD=" + cloudOwnerPass}
	d := startDaemon(t, bin, dir, env...)
	host := newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": cloudOwnerPass}, 200)
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Ana & Ben", "eventDate": "2026-06-20"}, 201)["event"].(map[string]any)
	id, slug := ev["id"].(string), ev["slug"].(string)

	settings := map[string]any{"url": davURL, "user": rcloneUser, "password": "wrong", "folder": "Photos", "autoExport": false}
	r := host.json("POST", "/api/admin/cloud/test", settings, 200)
	if r["ok"] != false || !strings.Contains(r["message"].(string), "401") {
		t.Fatalf("test with a wrong password: %v", r)
	}
	settings["password"] = rclonePassword
	if r := host.json("POST", "/api/admin/cloud/test", settings, 200); r["ok"] != true {
		t.Fatalf("test: %v", r)
	}
	host.json("PUT", "/api/admin/cloud", settings, 200)

	guest := newBrowser(t, d.url)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)
	originals := map[string][]byte{}
	for i := 0; i < 4; i++ {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
		fw.Write(noisyJPEG(t, 800, 600, uint64(i+1)))
		mw.Close()
		status, _, out := guest.call("POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), buf.Bytes())
		if status != 201 {
			t.Fatalf("upload = %d %s", status, out)
		}
		var res map[string]any
		json.Unmarshal(out, &res)
		pid := res["photo"].(map[string]any)["id"].(string)
		_, _, originals[pid] = host.call("GET", "/api/media/"+pid+"?v=original", "", nil)
		if len(originals[pid]) < 100<<10 {
			t.Fatalf("photo of %d bytes: too small to be cut in the middle", len(originals[pid]))
		}
	}

	// A phone's HEIC goes out as it is and as a JPEG copy.
	heic, err := os.ReadFile("../../imaging/testdata/quadrants.heic")
	if err != nil {
		t.Fatal(err)
	}
	var hbuf bytes.Buffer
	mw := multipart.NewWriter(&hbuf)
	fw, _ := mw.CreateFormFile("photo", "IMG_0002.HEIC")
	fw.Write(heic)
	mw.Close()
	status, _, out := guest.call("POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), hbuf.Bytes())
	if status != 201 {
		t.Fatalf("HEIC upload = %d %s", status, out)
	}
	var hres map[string]any
	json.Unmarshal(out, &hres)
	heicID := hres["photo"].(map[string]any)["id"].(string)

	// Hold the first upload in its middle while the files sent beside it
	// (four at a time) go through, then kill the daemon.
	proxy.mu.Lock()
	proxy.moves = map[string]int{}
	hold, held := make(chan struct{}), make(chan struct{})
	proxy.hold, proxy.held = hold, held
	proxy.mu.Unlock()
	host.json("POST", "/api/admin/events/"+id+"/cloud", map[string]any{"scope": "visible"}, 202)
	select {
	case <-held:
	case <-time.After(30 * time.Second):
		t.Fatalf("no upload reached the middle of its file in 30 s; log:\n%s", d.stderr.String())
	}
	for deadline := time.Now().Add(30 * time.Second); ; {
		proxy.mu.Lock()
		n := len(proxy.moves)
		proxy.mu.Unlock()
		if n >= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no file went through beside the held one in 30 s; log:\n%s", d.stderr.String())
		}
		time.Sleep(time.Millisecond)
	}
	d.cmd.Process.Kill()
	<-d.done
	close(hold)

	d = startDaemon(t, bin, dir, env...)
	host = newBrowser(t, d.url)
	host.json("POST", "/api/admin/login", map[string]any{"password": cloudOwnerPass}, 200)
	var x map[string]any
	deadline := time.Now().Add(60 * time.Second)
	for {
		x = host.json("GET", "/api/admin/events/"+id+"/cloud", nil, 200)["exports"].([]any)[0].(map[string]any)
		if x["status"] == "done" || x["status"] == "failed" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("export not done 60 s after the restart: %v; log:\n%s", x, d.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if x["status"] != "done" || x["sent"] != float64(7) {
		t.Fatalf("export after the restart: %v", x)
	}

	found := 0
	err = filepath.WalkDir(davDir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		if strings.HasPrefix(e.Name(), tempPrefix) {
			t.Errorf("temporary file left: %s", p)
		}
		switch {
		case strings.HasSuffix(e.Name(), "-"+heicID+".heic"):
			if b, _ := os.ReadFile(p); !bytes.Equal(b, heic) {
				t.Errorf("%s is not the HEIC byte for byte", p)
			}
			found++
		case strings.HasSuffix(e.Name(), "-"+heicID+".jpg"):
			b, _ := os.ReadFile(p)
			if cfg, err := jpeg.DecodeConfig(bytes.NewReader(b)); err != nil || cfg.Width == 0 {
				t.Errorf("the HEIC's JPEG copy %s does not decode: %v", p, err)
			}
			found++
		}
		for pid, orig := range originals {
			if strings.HasSuffix(e.Name(), "-"+pid+".jpg") {
				found++
				if b, _ := os.ReadFile(p); !bytes.Equal(b, orig) {
					t.Errorf("%s is not the original byte for byte", p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found != len(originals)+2 {
		t.Errorf("%d of %d photos, a HEIC and its copy on the server", found, len(originals)+2)
	}
	proxy.mu.Lock()
	defer proxy.mu.Unlock()
	for name, n := range proxy.moves {
		if n != 1 {
			t.Errorf("%s was sent %d times", name, n)
		}
	}
	if len(proxy.moves) != 8 {
		t.Errorf("%d files moved into place, want 4 photos, a HEIC and its copy, index.html and manifest.json: %v", len(proxy.moves), proxy.moves)
	}
}
