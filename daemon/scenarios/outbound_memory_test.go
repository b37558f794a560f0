package scenarios_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/net/webdav"

	"eventbox/internal/testtool"
)

// outboundFlood is what each hostile server below offers: the 1 GB of the
// audit that took the daemon to 2.0 GB (SMTP) and 3.1 GB (WebDAV).
const outboundFlood = 1 << 30

// outboundGrowthKiB bounds how far the daemon's peak RSS may rise over
// its resident size before the hostile answer: the caps (256 KiB of SMTP
// replies, a WebDAV listing of 32 MiB parsed as it comes) and the
// collector's slack.
const outboundGrowthKiB = 128 << 10

// floodConn writes line to c until n bytes went or c is closed.
func floodConn(c net.Conn, head, line string, n int64, written *atomic.Int64) {
	w := bufio.NewWriterSize(c, 64<<10)
	_, _ = w.WriteString(head)
	for written.Load() < n {
		k, err := w.WriteString(line)
		written.Add(int64(k))
		if err != nil {
			return
		}
	}
	_ = w.Flush()
}

// s3Hook is an S3 endpoint whose every request hook answers (after the
// request's body is read); it answers its address and what it wrote.
func s3Hook(t *testing.T, hook func(w http.ResponseWriter, r *http.Request, written *atomic.Int64)) (string, *atomic.Int64) {
	t.Helper()
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hook(w, r, &written)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &written
}

// s3Request is the settings test's body for the bucket at endpoint.
func s3Request(endpoint string) map[string]any {
	return map[string]any{"kind": "s3", "autoExport": false, "s3": map[string]any{"endpoint": endpoint, "bucket": "parties",
		"accessKey": "box", "secret": "box-secret", "pathStyle": true}}
}

// TestHostileOutboundServersStayWithinTheMemoryBudget runs the real binary
// against a mail server that greets with endless "220-" lines, and WebDAV
// servers whose test read-back or listing never ends, and S3 endpoints
// whose read-back or error never ends, through the console's routes, and checks each fails with a clear message while the daemon's
// peak RSS (VmHWM, reset before each) stays small.
func TestHostileOutboundServersStayWithinTheMemoryBudget(t *testing.T) {
	testtool.Unraced(t, "it measures a child binary's peak memory")
	if testing.Short() {
		t.Skip("builds the daemon and offers it 1 GB answers")
	}
	d := startMemDaemon(t)
	owner := newMemClient(t, d.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": memOwnerPass}, 200)

	davHook := func(hook func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) bool) (string, *atomic.Int64) {
		var written atomic.Int64
		dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(t.TempDir()), LockSystem: webdav.NewMemLS()}
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !hook(w, r, &written) {
				dav.ServeHTTP(w, r)
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/dav/", &written
	}
	hijack := func(w http.ResponseWriter) net.Conn {
		c, _, err := http.NewResponseController(w).Hijack()
		if err != nil {
			panic(err)
		}
		return c
	}

	for _, tc := range []struct {
		name string
		// run starts the hostile server and asks the daemon to talk to
		// it; it answers the console's message and what the server
		// wrote.
		run  func(t *testing.T) (string, int64)
		want string
	}{
		{"a mail server greeting with 1 GB of 220- lines", func(t *testing.T) (string, int64) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ln.Close() })
			var written atomic.Int64
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						defer c.Close()
						floodConn(c, "", "220-"+strings.Repeat("x", 70)+"\r\n", outboundFlood, &written)
						_, _ = c.Write([]byte("220 ready\r\n"))
					}()
				}
			}()
			port := ln.Addr().(*net.TCPAddr).Port
			owner.json("PUT", "/api/admin/mail", map[string]any{"smtp": map[string]any{"host": "127.0.0.1", "port": port,
				"from": "box@example.org", "security": "starttls"}}, 200)
			status, body := owner.do("POST", "/api/admin/mail/test", "application/json", []byte(`{"to":"ana@example.org"}`))
			if status != 502 {
				t.Errorf("mail test: %d %s, want 502", status, body)
			}
			return string(body), written.Load()
		}, "more than 256 KiB of replies"},
		{"a WebDAV read-back of 1 GB", func(t *testing.T) (string, int64) {
			u, written := davHook(func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) bool {
				if r.Method != http.MethodGet {
					return false
				}
				c := hijack(w)
				defer c.Close()
				floodConn(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: "+strconv.Itoa(outboundFlood)+"\r\n\r\n",
					strings.Repeat("eventbox can write here. ", 40), outboundFlood, written)
				return true
			})
			r := owner.json("POST", "/api/admin/cloud/test", map[string]any{"url": u, "user": "ana", "password": "x", "folder": "Photos"}, 200)
			msg, _ := r["message"].(string)
			return msg, written.Load()
		}, "other bytes than were written"},
		{"a WebDAV listing of 1 GB", func(t *testing.T) (string, int64) {
			u, written := davHook(func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) bool {
				if r.Method != "PROPFIND" || r.Header.Get("Depth") != "1" {
					return false
				}
				c := hijack(w)
				defer c.Close()
				floodConn(c, "HTTP/1.1 207 Multi-Status\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n"+
					`<?xml version="1.0" encoding="UTF-8"?><D:multistatus xmlns:D="DAV:">`+
					`<D:response><D:href>/dav/Photos/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype>`+
					`</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`,
					`<D:response><D:href>/dav/Photos/IMG_0001.jpg</D:href><D:propstat><D:prop>`+
						`<D:getcontentlength>1048576</D:getcontentlength><D:resourcetype></D:resourcetype><D:getetag>"abc"</D:getetag>`+
						`</D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>`, outboundFlood, written)
				return true
			})
			r := owner.json("POST", "/api/admin/cloud/test", map[string]any{"url": u, "user": "ana", "password": "x", "folder": "Photos"}, 200)
			msg, _ := r["message"].(string)
			return msg, written.Load()
		}, "listing is larger than 32 MiB"},
		{"an S3 read-back of 1 GB", func(t *testing.T) (string, int64) {
			u, written := s3Hook(t, func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
				if r.Method != http.MethodGet {
					w.Header().Set("ETag", `"0123456789abcdef0123456789abcdef"`)
					return
				}
				c := hijack(w)
				defer c.Close()
				floodConn(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nETag: \"0123456789abcdef0123456789abcdef\"\r\n"+
					"Last-Modified: Mon, 22 Jun 2026 10:00:00 GMT\r\nContent-Length: "+strconv.Itoa(outboundFlood)+"\r\n\r\n",
					strings.Repeat("eventbox can write here. ", 40), outboundFlood, written)
			})
			r := owner.json("POST", "/api/admin/cloud/test", s3Request(u), 200)
			msg, _ := r["message"].(string)
			return msg, written.Load()
		}, "reading the test object back: the object is larger than"},
		{"an S3 error of 1 GB", func(t *testing.T) (string, int64) {
			u, written := s3Hook(t, func(w http.ResponseWriter, r *http.Request, written *atomic.Int64) {
				c := hijack(w)
				defer c.Close()
				floodConn(c, "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/xml\r\nConnection: close\r\n\r\n"+
					`<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>`,
					strings.Repeat("x", 1000), outboundFlood, written)
			})
			r := owner.json("POST", "/api/admin/cloud/test", s3Request(u), 200)
			msg, _ := r["message"].(string)
			return msg, written.Load()
		}, "writing a test object: 500"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner.t = t
			if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", d.pid), []byte("5"), 0); err != nil {
				t.Fatalf("resetting the peak RSS: %v", err)
			}
			base := vmKiB(t, d.pid, "VmRSS")
			start := time.Now()
			msg, written := tc.run(t)
			peak := vmKiB(t, d.pid, "VmHWM")
			t.Logf("%s: %q after %.1f s; the server wrote %d MiB; daemon RSS %d MiB before, peak %d MiB",
				tc.name, msg, time.Since(start).Seconds(), written>>20, base>>10, peak>>10)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("message %q, want %q", msg, tc.want)
			}
			if peak-base > outboundGrowthKiB {
				t.Errorf("peak RSS rose by %d MiB, want at most %d MiB", (peak-base)>>10, outboundGrowthKiB>>10)
			}
		})
	}
}
