package party

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"sync"
	"time"
)

// client is one device: its own address, its own cookies; on the radio
// (from not nil) its connections carry the radio's delay each way.
func client(from net.IP, timeout time.Duration, s Shape) *http.Client {
	jar, _ := cookiejar.New(nil)
	d := &net.Dialer{Timeout: 30 * time.Second}
	dial := d.DialContext
	if from != nil {
		d.LocalAddr = &net.TCPAddr{IP: from}
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return newDelayConn(c, s), nil
		}
	}
	return &http.Client{Jar: jar, Timeout: timeout, Transport: &http.Transport{DialContext: dial,
		MaxIdleConnsPerHost: 6, ExpectContinueTimeout: time.Minute, IdleConnTimeout: 30 * time.Second,
		WriteBufferSize: 64 << 10, ReadBufferSize: 64 << 10}}
}

// call sends a request with the Origin header the daemon asks of every
// change and answers the status and body.
func call(ctx context.Context, c *http.Client, origin, method, path string, body io.Reader, ctype string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, origin+path, body)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Origin", origin)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, 8<<20))
	return res.StatusCode, raw, err
}

// callJSON sends v as JSON and decodes a 2xx answer into out (if not
// nil); another status is an error.
func callJSON(ctx context.Context, c *http.Client, origin, method, path string, v, out any) error {
	var body io.Reader
	if v != nil {
		b, _ := json.Marshal(v)
		body = bytes.NewReader(b)
	}
	st, raw, err := call(ctx, c, origin, method, path, body, "application/json")
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if st >= 300 {
		return fmt.Errorf("%s %s: %d %s", method, path, st, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// multipartBody streams a multipart form of one file field (made of
// parts) and text fields.
func multipartBody(field, name, ctype string, parts [][]byte, fields map[string]string) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		var err error
		for k, v := range fields {
			if err == nil {
				err = mw.WriteField(k, v)
			}
		}
		if err == nil && parts != nil {
			h := make(map[string][]string)
			h["Content-Disposition"] = []string{fmt.Sprintf(`form-data; name=%q; filename=%q`, field, name)}
			h["Content-Type"] = []string{ctype}
			var w io.Writer
			if w, err = mw.CreatePart(h); err == nil {
				for _, p := range parts {
					if _, err = w.Write(p); err != nil {
						break
					}
				}
			}
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	return pr, mw.FormDataContentType()
}

var assetRef = regexp.MustCompile(`(?:src|href)="(/[^"]+\.(?:js|css|svg|png|json))"`)

// loadPage does what a phone does when it opens the guest page: the
// page, its scripts and styles (six at a time, as a browser), then the
// event and the guest's photos; it answers how long until all came.
func loadPage(ctx context.Context, c *http.Client, origin, slug string) (time.Duration, error) {
	start := time.Now()
	st, page, err := call(ctx, c, origin, "GET", "/e/"+slug, nil, "")
	if err != nil || st != 200 {
		return 0, fmt.Errorf("the guest page: %d %v", st, err)
	}
	refs := map[string]bool{}
	for _, m := range assetRef.FindAllSubmatch(page, -1) {
		refs[string(m[1])] = true
	}
	sem := make(chan struct{}, 6)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	get := func(path string) {
		defer wg.Done()
		sem <- struct{}{}
		defer func() { <-sem }()
		st, _, err := call(ctx, c, origin, "GET", path, nil, "")
		if err == nil && st != 200 {
			err = fmt.Errorf("%s answered %d", path, st)
		}
		if err != nil {
			mu.Lock()
			firstErr = err
			mu.Unlock()
		}
	}
	for r := range refs {
		wg.Add(1)
		go get(r)
	}
	wg.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	for _, p := range []string{"/api/e/" + slug, "/api/e/" + slug + "/photos"} {
		if st, _, err := call(ctx, c, origin, "GET", p, nil, ""); err != nil || st != 200 {
			return 0, fmt.Errorf("%s: %d %v", p, st, err)
		}
	}
	return time.Since(start), nil
}

// sseEvent is one event of a server-sent stream.
type sseEvent struct {
	name, id string
	data     []byte
}

// follow reads the stream at path until ctx ends, calling on with each
// event, and reconnects (with Last-Event-ID, as a browser) a second after
// the stream ends or fails, as when the daemon is killed. A stream that
// answers reset (a daemon started again keeps no changes of the one
// before) is read again from the lists, as the pages do: on gets a reset
// event.
func follow(ctx context.Context, c *http.Client, origin, path string, on func(sseEvent)) {
	last := ""
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, "GET", origin+path, nil)
		req.Header.Set("Accept", "text/event-stream")
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		if res, err := c.Do(req); err == nil {
			sc := bufio.NewScanner(res.Body)
			sc.Buffer(make([]byte, 64<<10), 1<<20)
			var ev sseEvent
			for sc.Scan() {
				line := sc.Text()
				switch {
				case line == "":
					if ev.name != "" || ev.data != nil {
						on(ev)
						if ev.id != "" {
							last = ev.id
						}
					}
					ev = sseEvent{}
				case strings.HasPrefix(line, "event:"):
					ev.name = strings.TrimSpace(line[6:])
				case strings.HasPrefix(line, "id:"):
					ev.id = strings.TrimSpace(line[3:])
				case strings.HasPrefix(line, "data:"):
					ev.data = append(ev.data, strings.TrimSpace(line[5:])...)
				}
			}
			res.Body.Close()
		}
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}
