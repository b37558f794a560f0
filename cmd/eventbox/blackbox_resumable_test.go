package main

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"eventbox/internal/testtool"
)

// tusDo sends one tus request as a guest's phone does (cookies, Origin),
// the body streamed from r when it is not nil.
func (c *crashClient) tusDo(base, method, path string, r io.Reader, size int64, headers ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(method, base+path, r)
	if err != nil {
		return nil, nil, err
	}
	if r != nil {
		req.ContentLength = size
	}
	req.Header.Set("Origin", base)
	req.Header.Set("Tus-Resumable", "1.0.0")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res, raw, err
}

// TestResumableUploadSurvivesAKill: a guest's resumable upload of a photo
// of a few MB is under way when the box is killed (SIGKILL, a power cut
// for the process) in the middle of a PATCH. Started again on the same
// DATA_DIR, the box answers HEAD with an offset that counts at least every
// byte it had acknowledged; the phone sends the rest from there, and the
// photo arrives whole, byte for byte, listed once.
func TestResumableUploadSurvivesAKill(t *testing.T) {
	testtool.Long(t, "the real binary killed during a resumable upload")
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir, "ADMIN_PASSWORD=kill-test-password")
	host := &crashClient{t: t}
	host.json(d.url, "POST", "/api/admin/login", map[string]any{"password": "kill-test-password"}, 200)
	slug := host.json(d.url, "POST", "/api/admin/events", map[string]any{"name": "Kill"}, 201)["event"].(map[string]any)["slug"].(string)
	g := &crashClient{t: t}
	g.json(d.url, "POST", "/api/e/"+slug+"/join", nil, 200)

	photo := noisyJPEG(t, 2400, 1600, 7)
	size := len(photo)
	meta := "filename " + base64.StdEncoding.EncodeToString([]byte("IMG_0042.jpg")) +
		",filetype " + base64.StdEncoding.EncodeToString([]byte("image/jpeg"))
	res, body, err := g.tusDo(d.url, "POST", "/api/e/"+slug+"/uploads", nil, 0,
		"Upload-Length", strconv.Itoa(size), "Upload-Metadata", meta)
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("create: %v %d %s", err, statusOf(res), body)
	}
	url := res.Header.Get("Location")

	// A first piece, acknowledged.
	first := size / 3
	res, body, err = g.tusDo(d.url, "PATCH", url, bytes.NewReader(photo[:first]), int64(first),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0")
	if err != nil || res.StatusCode != 204 || res.Header.Get("Upload-Offset") != strconv.Itoa(first) {
		t.Fatalf("first piece: %v %d %s", err, statusOf(res), body)
	}
	// The rest, announced whole but only partly sent when the box dies.
	pr, pw := io.Pipe()
	patched := make(chan error, 1)
	go func() {
		_, _, err := g.tusDo(d.url, "PATCH", url, pr, int64(size-first),
			"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(first))
		patched <- err
	}()
	onTheWire := (size - first) / 2
	for off := first; off < first+onTheWire; off += 64 << 10 {
		if _, err := pw.Write(photo[off:min(off+64<<10, first+onTheWire)]); err != nil {
			t.Fatalf("sending the second piece: %v", err)
		}
	}
	if err := d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-d.done
	pw.CloseWithError(io.ErrClosedPipe)
	if err := <-patched; err == nil {
		t.Fatal("the PATCH cut by the kill got an answer")
	}

	d = startDaemon(t, bin, dir)
	res, _, err = g.tusDo(d.url, "HEAD", url, nil, 0)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("HEAD after the restart: %v %d", err, statusOf(res))
	}
	offset, err := strconv.Atoi(res.Header.Get("Upload-Offset"))
	if err != nil || offset < first || offset > first+onTheWire {
		t.Fatalf("HEAD after the restart: offset %q, want between the acknowledged %d and the %d sent", res.Header.Get("Upload-Offset"), first, first+onTheWire)
	}
	res, body, err = g.tusDo(d.url, "PATCH", url, bytes.NewReader(photo[offset:]), int64(size-offset),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(offset))
	if err != nil || res.StatusCode != 204 || res.Header.Get("Upload-Result-Status") != "201" {
		t.Fatalf("the rest from %d: %v %d %s", offset, err, statusOf(res), body)
	}
	sent := first + onTheWire + (size - offset)
	t.Logf("%.2f MB photo: %d acknowledged, %d more on the wire at the kill; the restarted box held %d; %.2f MB sent in all (%.3f× the file)",
		float64(size)/(1<<20), first, onTheWire, offset, float64(sent)/(1<<20), float64(sent)/float64(size))

	ids := g.listPhotos(d.url, slug)
	if len(ids) != 1 {
		t.Fatalf("%d photos listed, want the one", len(ids))
	}
	if got := g.get(d.url, "/api/media/"+ids[0]+"?v=original"); !bytes.Equal(got, photo) {
		t.Fatalf("the stored original is %d bytes, not the %d sent", len(got), size)
	}
	if res, body, err := g.tusDo(d.url, "GET", url, nil, 0); err != nil || res.StatusCode != 201 || !bytes.Contains(body, []byte(ids[0])) {
		t.Fatalf("GET of the finished upload: %v %d %s", err, statusOf(res), body)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(left) != 0 {
		t.Errorf("%d temp files remain", len(left))
	}
}
