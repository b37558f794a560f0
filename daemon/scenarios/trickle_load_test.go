package scenarios_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"eventbox/daemon"
)

// TestTrickleLoad is the measurement behind the upload pace
// (docs/decisions.md, "Slow and concurrent uploads"): 1,000 uploads from
// 125 loopback addresses, each sending a byte every 10 s after the first
// 2,000, against a pace window of 2 s. It reports the temp files and the
// process's descriptors while they trickle and after the window.
//
//	EVENTBOX_TRICKLE=1 go test -run 'TestTrickleLoad$' -v ./daemon/scenarios/
func TestTrickleLoad(t *testing.T) {
	if os.Getenv("EVENTBOX_TRICKLE") == "" {
		t.Skip("set EVENTBOX_TRICKLE=1 to run the measurement")
	}
	const conns, addrs, window = 1000, 125, 2 * time.Second
	h := newHarness(t, func(c *daemon.Config) { c.UploadWindow = window })
	ev := h.createEvent(h.owner(), map[string]any{"name": "Trickle"})
	slug := ev["slug"].(string)
	guests := make([]*client, (conns+2)/3)
	for i := range guests {
		guests[i] = h.guest(slug)
	}
	ct, body := multipartBody(t, "photo", "a.jpg", photoJPEG(t, 800, 600, 0, false, 1), nil)
	u, _ := url.Parse(h.srv.URL)
	fds := func() int {
		e, _ := os.ReadDir("/proc/self/fd")
		return len(e)
	}
	tmp := func() int { return countFiles(t, filepath.Join(h.cfg.DataDir, "tmp")) }
	base := fds()
	var answered, refused, cut atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < conns; i++ {
		g := guests[i/3]
		var cookie string
		for _, k := range g.hc.Jar.Cookies(u) {
			cookie += k.Name + "=" + k.Value + "; "
		}
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(1+i%addrs))}}
		conn, err := d.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /api/e/%s/photos HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nCookie: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
			slug, u.Host, h.srv.URL, cookie, ct, len(body))
		conn.Write(body[:2000])
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close()
			go func() {
				for j := 2000; j < len(body); j++ {
					time.Sleep(10 * time.Second)
					if _, err := conn.Write(body[j : j+1]); err != nil {
						return
					}
				}
			}()
			conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			res, err := http.ReadResponse(bufio.NewReader(conn), nil)
			if err != nil {
				return
			}
			answered.Add(1)
			switch res.StatusCode {
			case http.StatusTooManyRequests:
				refused.Add(1)
			case http.StatusRequestTimeout:
				cut.Add(1)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	maxTmp, maxFDs := 0, 0
	for sampling := true; sampling; {
		select {
		case <-done:
			sampling = false
		case <-time.After(50 * time.Millisecond):
			maxTmp, maxFDs = max(maxTmp, tmp()), max(maxFDs, fds())
		}
	}
	t.Logf("at most while trickling: %d temp files, %d descriptors (baseline %d; the test's own %d client sockets included)", maxTmp, maxFDs, base, conns)
	time.Sleep(200 * time.Millisecond)
	t.Logf("after the window: %d temp files, %d descriptors; %d answered: %d refused 429, %d cut 408", tmp(), fds(), answered.Load(), refused.Load(), cut.Load())
	if n := tmp(); n != 0 {
		t.Errorf("%d temp files remain", n)
	}
}
