package scenarios_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
)

// rawUpload opens a TCP connection to the harness and sends the headers
// of a photo upload by c of a body of total bytes, then the first bytes of
// body. The connection is closed when the test ends.
func rawUpload(t *testing.T, c *client, slug string, ct string, total int, first []byte) net.Conn {
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
	t.Cleanup(func() { conn.Close() })
	fmt.Fprintf(conn, "POST /api/e/%s/photos HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nCookie: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		slug, u.Host, c.h.srv.URL, cookie, ct, total)
	if _, err := conn.Write(first); err != nil {
		t.Fatal(err)
	}
	return conn
}

// readAnswer reads the status line and headers of the answer on conn,
// within 5 s.
func readAnswer(t *testing.T, conn net.Conn) *http.Response {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return res
}

// waitTempFiles waits until DATA_DIR/tmp holds n files.
func waitTempFiles(t *testing.T, h *harness, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for countFiles(t, filepath.Join(h.cfg.DataDir, "tmp")) != n {
		if time.Now().After(deadline) {
			t.Fatalf("%d temp files, want %d", countFiles(t, filepath.Join(h.cfg.DataDir, "tmp")), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestStalledUploadsAreCut: an upload body that stops, or trickles a byte
// at a time, is cut after the pacing window (here 300 ms for 1 KiB) with
// 408 timeout, and its temp file is removed.
func TestStalledUploadsAreCut(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) {
		c.UploadWindow = 300 * time.Millisecond
		c.UploadMinBytes = 1 << 10
	})
	ev := h.createEvent(h.owner(), map[string]any{"name": "Slow"})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	ct, body := multipartBody(t, "photo", "a.jpg", photoJPEG(t, 800, 600, 0, false, 1), nil)

	for _, tc := range []struct {
		name    string
		trickle bool
	}{
		{"a body that stops", false},
		{"a body that sends one byte every 100 ms", true},
	} {
		t.Run(tc.name+" is cut and leaves no temp file", func(t *testing.T) {
			conn := rawUpload(t, g, slug, ct, len(body), body[:2000])
			waitTempFiles(t, h, 1)
			start := time.Now()
			if tc.trickle {
				go func() {
					for i := 2000; i < len(body); i++ {
						time.Sleep(100 * time.Millisecond)
						if _, err := conn.Write(body[i : i+1]); err != nil {
							return
						}
					}
				}()
			}
			res := readAnswer(t, conn)
			if res.StatusCode != http.StatusRequestTimeout {
				t.Fatalf("answer %d, want 408", res.StatusCode)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("cut after %v", took)
			}
			waitTempFiles(t, h, 0)
		})
	}

	t.Run("a whole upload at a steady pace is taken", func(t *testing.T) {
		conn := rawUpload(t, g, slug, ct, len(body), nil)
		for i := 0; i < len(body); i += 4096 {
			time.Sleep(20 * time.Millisecond)
			conn.Write(body[i:min(i+4096, len(body))])
		}
		if res := readAnswer(t, conn); res.StatusCode != http.StatusCreated {
			t.Fatalf("answer %d, want 201", res.StatusCode)
		}
	})
}

// TestConcurrentUploadsAreCapped: a guest's fourth upload at once, and an
// address's ninth, get 429 rate_limited with Retry-After before a byte of
// their body is read; once the others end, uploads go through again.
func TestConcurrentUploadsAreCapped(t *testing.T) {
	h := newHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "Busy"})
	slug := ev["slug"].(string)
	jpeg := photoJPEG(t, 64, 48, 0, false, 1)
	ct, body := multipartBody(t, "photo", "a.jpg", jpeg, nil)
	half := body[:len(body)/2]

	refused := func(t *testing.T, c *client) {
		t.Helper()
		// The headers only: the answer must come without the body.
		conn := rawUpload(t, c, slug, ct, len(body), nil)
		res := readAnswer(t, conn)
		if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") == "" {
			t.Fatalf("answer %d Retry-After %q, want 429 with Retry-After", res.StatusCode, res.Header.Get("Retry-After"))
		}
		var b strings.Builder
		bufio.NewReader(res.Body).WriteTo(&b)
		if !strings.Contains(b.String(), `"rate_limited"`) {
			t.Fatalf("answer body %s", b.String())
		}
	}

	t.Run("the fourth upload of one guest is refused", func(t *testing.T) {
		g := h.guest(slug)
		var held []net.Conn
		for i := 0; i < 3; i++ {
			held = append(held, rawUpload(t, g, slug, ct, len(body), half))
		}
		waitTempFiles(t, h, 3)
		refused(t, g)
		for _, c := range held {
			c.Close()
		}
		waitTempFiles(t, h, 0)
		deadline := time.Now().Add(5 * time.Second)
		for {
			r := g.upload(slug, jpeg, nil, "")
			if r.Status == http.StatusCreated {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("after the others ended the upload answers %d %s", r.Status, r.Body)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})

	t.Run("the ninth upload from one address is refused", func(t *testing.T) {
		var held []net.Conn
		guests := []*client{h.guest(slug), h.guest(slug), h.guest(slug)}
		for i := 0; i < 8; i++ {
			held = append(held, rawUpload(t, guests[i/3], slug, ct, len(body), half))
		}
		waitTempFiles(t, h, 8)
		refused(t, guests[2])
		for _, c := range held {
			c.Close()
		}
		waitTempFiles(t, h, 0)
	})
}

// TestHTTPServerLimits: the http.Server bounds headers in time and size
// and idle connections, and sets no whole-request deadline.
func TestHTTPServerLimits(t *testing.T) {
	h := newHarness(t)
	srv := h.d.HTTPServer()
	if srv.ReadHeaderTimeout <= 0 || srv.ReadHeaderTimeout > 15*time.Second {
		t.Errorf("ReadHeaderTimeout %v", srv.ReadHeaderTimeout)
	}
	if srv.IdleTimeout <= 0 || srv.IdleTimeout > 5*time.Minute {
		t.Errorf("IdleTimeout %v", srv.IdleTimeout)
	}
	if srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 64<<10 {
		t.Errorf("MaxHeaderBytes %d", srv.MaxHeaderBytes)
	}
	if srv.ReadTimeout != 0 || srv.WriteTimeout != 0 {
		t.Errorf("ReadTimeout %v WriteTimeout %v: long uploads and answers would be cut", srv.ReadTimeout, srv.WriteTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /api/health HTTP/1.1\r\nHost: %s\r\nX-Big: %s\r\n\r\n", ln.Addr(), strings.Repeat("a", 100<<10))
	if res := readAnswer(t, conn); res.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("100 KiB of headers answered %d, want 431", res.StatusCode)
	}
}
