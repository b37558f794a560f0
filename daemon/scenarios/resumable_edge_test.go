package scenarios_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"eventbox/internal/fakemp4"
	"eventbox/internal/testtool"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"sync"
	"testing"
	"time"
)

// edgeProxy is a phone at the edge of a busy hotspot between a client and
// the box: it passes what the client sends at rate bytes/s of fake time
// (its clock advances by what it passes; nothing sleeps) and cuts every
// connection each time another cutEvery bytes went through.
type edgeProxy struct {
	ln       net.Listener
	target   string
	rate     float64
	cutEvery int64

	mu      sync.Mutex
	sent    int64         // bytes the client sent through, in all
	since   int64         // bytes since the last cut
	elapsed time.Duration // fake time the bytes took at rate
	cuts    int
	conns   map[net.Conn]bool
}

func newEdgeProxy(t *testing.T, target string, rate float64, cutEvery int64) *edgeProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &edgeProxy{ln: ln, target: target, rate: rate, cutEvery: cutEvery, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.cutAll() })
	return p
}

func (p *edgeProxy) addr() string { return p.ln.Addr().String() }

func (p *edgeProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[s] = true, true
		p.mu.Unlock()
		go func() { _, _ = io.Copy(c, s); c.Close() }()
		go p.up(c, s)
	}
}

// up passes the client's bytes to the box, cutting at the budget.
func (p *edgeProxy) up(c, s net.Conn) {
	defer c.Close()
	defer s.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := c.Read(buf)
		if n > 0 {
			p.mu.Lock()
			pass := int64(n)
			cut := false
			if p.since+pass >= p.cutEvery {
				pass, cut = p.cutEvery-p.since, true
			}
			p.sent += pass
			p.since += pass
			p.elapsed += time.Duration(float64(pass) / p.rate * float64(time.Second))
			p.mu.Unlock()
			if _, werr := s.Write(buf[:pass]); werr != nil {
				return
			}
			if cut {
				p.mu.Lock()
				p.since = 0
				p.cuts++
				p.mu.Unlock()
				p.cutAll() // the Wi-Fi drops: every connection goes
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *edgeProxy) cutAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
}

func (p *edgeProxy) stats() (sent int64, elapsed time.Duration, cuts int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sent, p.elapsed, p.cuts
}

// bigMP4 is an MP4 of size bytes (most of it the mdat) lasting seconds.
func bigMP4(size, seconds int) []byte {
	payload := make([]byte, size-fakemp4.Overhead)
	for i := range payload {
		payload[i] = byte(i*7 + i>>12) // not all zeros: a change anywhere shows
	}
	return fakemp4.Make(seconds, payload)
}

// edgeClient is a guest's phone talking through the proxy.
type edgeClient struct {
	base string
	hc   *http.Client
}

func (c *edgeClient) req(method, path string, body io.Reader, size int64, headers ...string) (*http.Response, []byte, error) {
	r, err := http.NewRequest(method, c.base+path, body)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		r.ContentLength = size
	}
	r.Header.Set("Origin", c.base)
	for i := 0; i+1 < len(headers); i += 2 {
		r.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.hc.Do(r)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res, b, err
}

// tusUpload sends data through the resumable route as a tus client
// does: create, PATCH, and on a cut HEAD and PATCH the rest. It answers
// the finished upload's GET.
func (c *edgeClient) tusUpload(t *testing.T, slug string, data []byte, meta map[string]string, tries int) (map[string]any, error) {
	var url string
	for i := 0; i < tries; i++ {
		if url == "" {
			res, _, err := c.req("POST", "/api/e/"+slug+"/uploads", nil, 0, "Tus-Resumable", "1.0.0",
				"Upload-Length", strconv.Itoa(len(data)), "Upload-Metadata", tusMeta(meta))
			if err != nil {
				continue
			}
			if res.StatusCode != 201 {
				return nil, fmt.Errorf("create: %d", res.StatusCode)
			}
			url = res.Header.Get("Location")
		}
		res, _, err := c.req("HEAD", url, nil, 0, "Tus-Resumable", "1.0.0")
		if err != nil {
			t.Logf("head: %v", err)
			continue
		}
		off, _ := strconv.Atoi(res.Header.Get("Upload-Offset"))
		if off < len(data) {
			res, body, err := c.req("PATCH", url, bytes.NewReader(data[off:]), int64(len(data)-off), "Tus-Resumable", "1.0.0",
				"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(off))
			if err != nil || res.StatusCode == 408 || res.StatusCode == 400 || res.StatusCode == 409 {
				t.Logf("patch from %d: %v %v %s", off, err, res != nil && res.StatusCode > 0, body)
				continue // cut: ask where the box is
			}
			if res.StatusCode != 204 {
				return nil, fmt.Errorf("patch: %d %s", res.StatusCode, body)
			}
		}
		res, body, err := c.req("GET", url, nil, 0)
		if err != nil {
			continue
		}
		var out map[string]any
		if err := json.Unmarshal(body, &out); err != nil || res.StatusCode/100 != 2 {
			return nil, fmt.Errorf("result: %d %s", res.StatusCode, body)
		}
		return out, nil
	}
	return nil, errors.New("did not arrive")
}

// TestResumableVideoAtTheHotspotsEdge: a 150 MB video from a phone that
// sends 300 KB/s and loses the network every 10 MB arrives whole, with at
// most 1.1 times its size sent; over the spec's one-request route the
// same phone never gets it in.
func TestResumableVideoAtTheHotspotsEdge(t *testing.T) {
	testtool.Long(t, "a 150 MB video through a cutting proxy")
	if testing.Short() {
		t.Skip("150 MB through a proxy")
	}
	const size = 150 << 20
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	slug := ev["slug"].(string)
	proxy := newEdgeProxy(t, h.srv.Listener.Addr().String(), 300<<10, 10<<20)
	jar, _ := cookiejar.New(nil)
	phone := &edgeClient{base: "http://" + proxy.addr(), hc: &http.Client{Jar: jar, Timeout: 2 * time.Minute}}
	if res, _, err := phone.req("POST", "/api/e/"+slug+"/join", nil, 0); err != nil || res.StatusCode != 200 {
		t.Fatalf("join: %v %v", res, err)
	}
	poster := photoJPEG(t, 64, 36, 0, false, 5)
	video := bigMP4(size, 30)

	t.Run("the spec's route never gets it in", func(t *testing.T) {
		before, _, _ := proxy.stats()
		body := append(append([]byte{}, poster...), video...)
		for i := 0; i < 3; i++ {
			res, _, err := phone.req("POST", "/api/e/"+slug+"/photos", bytes.NewReader(body), int64(len(body)),
				"Content-Type", "application/vnd.service.video", "X-Poster-Bytes", strconv.Itoa(len(poster)))
			if err == nil && res.StatusCode/100 == 2 {
				t.Fatal("the whole-file route got the video in through the cuts")
			}
		}
		after, _, _ := proxy.stats()
		t.Logf("whole-file route: 3 tries, %.1f MB sent, nothing stored", float64(after-before)/(1<<20))
	})

	sent0, time0, cuts0 := proxy.stats()
	// The poster first (small), then the video that names it.
	res, _, err := phone.req("POST", "/api/e/"+slug+"/uploads", nil, 0, "Tus-Resumable", "1.0.0",
		"Upload-Length", strconv.Itoa(len(poster)), "Upload-Metadata", tusMeta(map[string]string{"kind": "poster", "filetype": "image/jpeg"}))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("poster: %v %v", res, err)
	}
	purl := res.Header.Get("Location")
	if res, _, err := phone.req("PATCH", purl, bytes.NewReader(poster), int64(len(poster)), "Tus-Resumable", "1.0.0",
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0"); err != nil || res.StatusCode != 204 {
		t.Fatalf("poster patch: %v %v", res, err)
	}
	pid := purl[len(purl)-16:]
	out, err := phone.tusUpload(t, slug, video, map[string]string{"filetype": "video/mp4", "filename": "party.mp4", "poster": pid}, 60)
	if err != nil {
		t.Fatal(err)
	}
	sent, took, cuts := proxy.stats()
	sent, took, cuts = sent-sent0, took-time0, cuts-cuts0
	ratio := float64(sent) / float64(size)
	t.Logf("150 MB video at 300 KB/s, cut every 10 MB: %d cuts, %.1f MB sent (%.3f× the file), %s of fake time",
		cuts, float64(sent)/(1<<20), ratio, took.Round(time.Second))
	if cuts < 14 {
		t.Fatalf("only %d cuts: the proxy did not cut", cuts)
	}
	if ratio > 1.1 {
		t.Fatalf("sent %.3f× the file's size, want at most 1.1×", ratio)
	}
	p := out["photo"].(map[string]any)
	got, body, err := phone.req("GET", "/api/media/"+p["id"].(string)+"?v=play", nil, 0)
	if err != nil || got.StatusCode != 200 {
		t.Fatalf("video: %v %v", got, err)
	}
	if !bytes.Equal(body, video) {
		t.Fatalf("the stored video (%d bytes) is not the one sent (%d bytes)", len(body), len(video))
	}
}
