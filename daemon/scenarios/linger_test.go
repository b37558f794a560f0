package scenarios_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/internal/testtool"
)

// sendWholeBody is a client that sends its whole request before reading
// the answer, as Python's http.client and a browser's fetch of a file do:
// it writes the head and size bytes of body (the prefix, then zeros, in
// 64 KiB writes), then reads
// the answer. chunked sends the body without a Content-Length. A write
// that fails (the box closed the connection while the body was on its
// way) fails the test: such a client never sees the answer.
func sendWholeBody(t *testing.T, c *client, path, ct, extra, prefix string, size int, chunked bool) *http.Response {
	t.Helper()
	u, _ := url.Parse(c.h.srv.URL)
	var cookie string
	for _, k := range c.hc.Jar.Cookies(u) {
		cookie += k.Name + "=" + k.Value + "; "
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	length := fmt.Sprintf("Content-Length: %d\r\n", size)
	if chunked {
		length = "Transfer-Encoding: chunked\r\n"
	}
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nCookie: %s\r\nContent-Type: %s\r\n%s%s\r\n",
		path, u.Host, c.h.srv.URL, cookie, ct, extra, length)
	block := make([]byte, 64<<10)
	for sent := 0; sent < size; {
		n := min(len(block), size-sent)
		clear(block)
		if sent == 0 {
			copy(block, prefix)
		}
		var err error
		if chunked {
			_, err = fmt.Fprintf(conn, "%x\r\n%s\r\n", n, block[:n])
		} else {
			_, err = conn.Write(block[:n])
		}
		if err != nil {
			t.Fatalf("sending the body: %v after %d of %d bytes: the answer is lost", err, sent, size)
		}
		sent += n
	}
	if chunked {
		if _, err := io.WriteString(conn, "0\r\n\r\n"); err != nil {
			t.Fatalf("ending the body: %v", err)
		}
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the answer: %v", err)
	}
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("reading the answer's body: %v", err)
	}
	res.Body = io.NopCloser(strings.NewReader(string(raw)))
	return res
}

// errorCode decodes the { error } of an answer.
func errorCode(t *testing.T, res *http.Response) string {
	t.Helper()
	var body struct {
		Error string `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&body); err != nil {
		t.Fatalf("answer %d is not JSON: %v", res.StatusCode, err)
	}
	return body.Error
}

// TestEarlyRefusalsReachAClientThatKeepsSending: an upload refused before
// its body is all in (over MAX_UPLOAD_MB or MAX_VIDEO_MB, uploads closed,
// quota reached, videos off) is answered to a client that sends its whole
// body before reading: the box reads and discards the rest, then closes.
func TestEarlyRefusalsReachAClientThatKeepsSending(t *testing.T) {
	t.Parallel()
	const mb = 1 << 20
	h := newHarness(t, func(c *daemon.Config) { c.MaxUploadMB = 25; c.MaxVideoMB = 25 })
	owner := h.owner()
	open := h.createEvent(owner, map[string]any{"name": "Open", "allowVideos": true, "maxPhotosPerGuest": 1})["slug"].(string)
	closed := h.createEvent(owner, map[string]any{"name": "Closed", "uploadsOpen": false})["slug"].(string)
	photosOnly := h.createEvent(owner, map[string]any{"name": "Photos only", "allowVideos": false})["slug"].(string)
	full := h.guest(open)
	full.upload(open, photoJPEG(t, 40, 30, 1, false, 1), nil, "").expect(t, 201, "")

	const form = "multipart/form-data; boundary=x"
	const part = "--x\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"IMG_0001.JPG\"\r\nContent-Type: image/jpeg\r\n\r\n"
	const video = "application/vnd.service.video"
	jpeg := string(photoJPEG(t, 40, 30, 1, false, 2))
	poster := fmt.Sprintf("X-Poster-Bytes: %d\r\n", len(jpeg))
	tests := []struct {
		name    string
		c       *client
		slug    string
		ct      string
		extra   string
		size    int
		chunked bool
		status  int
		code    string
	}{
		{"a 40 MB photo to a 25 MB limit is too large", h.guest(open), open, form, "", 40 * mb, false, 413, "too_large"},
		{"a 40 MB photo sent chunked is too large", h.guest(open), open, form, "", 40 * mb, true, 413, "too_large"},
		{"a 40 MB video to a 25 MB limit is too large", h.guest(open), open, video, poster, 40 * mb, false, 413, "too_large"},
		{"a 40 MB video sent chunked is too large", h.guest(open), open, video, poster, 40 * mb, true, 413, "too_large"},
		{"a photo after uploads closed", h.guest(closed), closed, form, "", 8 * mb, false, 403, "uploads_closed"},
		{"a photo over the quota", full, open, form, "", 8 * mb, false, 403, "quota_reached"},
		{"a video to an event of photos only", h.guest(photosOnly), photosOnly, video, poster, 8 * mb, false, 403, "videos_off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prefix := part
			if tt.ct == video {
				prefix = jpeg
			}
			res := sendWholeBody(t, tt.c, "/api/e/"+tt.slug+"/photos", tt.ct, tt.extra, prefix, tt.size, tt.chunked)
			if got := errorCode(t, res); res.StatusCode != tt.status || got != tt.code {
				t.Fatalf("got %d %q, want %d %q", res.StatusCode, got, tt.status, tt.code)
			}
		})
	}
}

// pythonUpload is Python's http.client sending a body of size zero bytes
// whole before it reads the answer; it prints the status and the body.
const pythonUpload = `
import http.client, sys
host, path, cookie, origin, size = sys.argv[1:6]
c = http.client.HTTPConnection(host, timeout=60)
c.request("POST", path, body=b"\0" * int(size), headers={
    "Cookie": cookie, "Origin": origin, "Content-Type": "multipart/form-data; boundary=x"})
r = c.getresponse()
print(r.status, r.read().decode())
`

// TestTooLargeReachesPythonHTTPClient: Python's http.client, which sends
// the whole body before reading, reads the 413 of a 40 MB body to a
// 25 MB limit instead of a broken pipe.
func TestTooLargeReachesPythonHTTPClient(t *testing.T) {
	t.Parallel()
	python := testtool.NeedOne(t, "python3", "python3")
	h := newHarness(t)
	slug := h.createEvent(h.owner(), map[string]any{"name": "Party"})["slug"].(string)
	g := h.guest(slug)
	u, _ := url.Parse(h.srv.URL)
	var cookie string
	for _, k := range g.hc.Jar.Cookies(u) {
		cookie += k.Name + "=" + k.Value + "; "
	}
	out, err := exec.Command(python, "-c", pythonUpload, u.Host, "/api/e/"+slug+"/photos", cookie, h.srv.URL,
		strconv.Itoa(40<<20)).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); !strings.HasPrefix(got, "413 ") || !strings.Contains(got, `"too_large"`) {
		t.Fatalf("python3 read %q, want 413 too_large", got)
	}
}
