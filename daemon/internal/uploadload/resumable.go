package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/internal/fakemp4"
	"eventbox/internal/piprofile"
)

// burst is the resumable mode's plan: every guest sends one large video
// (with its poster first) through the tus route in pieces, loses its
// connection in the middle of a piece, asks the box where it stopped and
// sends only the rest.
type burst struct {
	// Size is each video's length in bytes.
	Size int
	// Piece is the most one PATCH sends.
	Piece int
	// CutAt is where the connection drops, in bytes from the start: the
	// PATCH that would carry that byte is cut there.
	CutAt     int
	conflicts *atomic.Int64
}

// burstResult is what the guests saw.
type burstResult struct {
	Acknowledged int     // videos whose last PATCH answered 204 with Upload-Result-Status 201
	Sent         int64   // video bytes handed to the connections, cut pieces included
	Stored       int64   // bytes of the stored originals that match the videos sent
	Resumed      []int64 // the offset each guest resumed from
	Conflicts    int64   // pieces the box answered 409 (the upload was further on)
}

// video is one guest's video: a shared body with a head of its own (the
// guest's number written into the media data), so every guest sends
// different bytes without the tool holding a copy per guest.
type video struct {
	head []byte
	base []byte
}

func (v video) size() int { return len(v.base) }

// section reads bytes [off, end) of the video.
func (v video) section(off, end int) io.Reader {
	var rs []io.Reader
	if off < len(v.head) {
		rs = append(rs, bytes.NewReader(v.head[off:min(end, len(v.head))]))
		off = min(end, len(v.head))
	}
	if off < end {
		rs = append(rs, bytes.NewReader(v.base[off:end]))
	}
	return io.MultiReader(rs...)
}

// makeVideos makes n different MP4s of size bytes that the box's video
// check accepts (30 seconds, a phone's layout: internal/fakemp4), each
// with its own first bytes of media data.
func makeVideos(n, size int) []video {
	payload := make([]byte, size-fakemp4.Overhead)
	for i := range payload {
		payload[i] = byte(i*7 + i>>12) // not all zeros: a change anywhere shows
	}
	base := fakemp4.Make(30, payload)
	out := make([]video, n)
	at := fakemp4.DataOffset
	for i := range out {
		head := append([]byte{}, base[:at+16]...)
		copy(head[at:], fmt.Sprintf("guest-%010d", i))
		out[i] = video{head: head, base: base}
	}
	return out
}

// posterJPEG is a small JPEG of its own for guest i's video.
func posterJPEG(i int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, 64, 36))
	for p := 0; p < len(img.Pix); p += 4 {
		img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = byte(i*37), byte(p), byte(i*11+p/7), 255
	}
	img.Set(i%64, 0, color.RGBA{255, 255, 255, 255})
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// tusMeta is an Upload-Metadata value (keys in the order given).
func tusMeta(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+" "+base64.StdEncoding.EncodeToString([]byte(kv[i+1])))
	}
	return strings.Join(parts, ",")
}

// errCut is what a cut piece's body answers where the connection drops.
var errCut = errors.New("the connection dropped here")

// countingBody hands r to the connection, counting the bytes in sent;
// with cut it fails with errCut once limit bytes went (the HTTP client
// then closes the TCP connection mid-body).
type countingBody struct {
	r     io.Reader
	limit int64
	cut   bool
	sent  func(int)
}

func (b *countingBody) Read(p []byte) (int, error) {
	if b.limit <= 0 {
		if b.cut {
			return 0, errCut
		}
		return 0, io.EOF
	}
	if int64(len(p)) > b.limit {
		p = p[:b.limit]
	}
	n, err := b.r.Read(p)
	b.limit -= int64(n)
	b.sent(n)
	return n, err
}

// tus sends one tus request as a guest's phone does (cookie, Origin).
func tus(ctx context.Context, c *http.Client, origin, method, url string, body io.Reader, size int64, headers ...string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, nil, fmt.Errorf("making the %s request: %w", method, err)
	}
	if body != nil {
		req.ContentLength = size
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Tus-Resumable", "1.0.0")
	if method == "PATCH" {
		// The body waits for the box's 100 Continue, which comes when the
		// PATCH holds the upload: a HEAD after a cut then finds the cut
		// request, not one whose headers are still on their way.
		req.Header.Set("Expect", "100-continue")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := c.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the answer to %s %s: %w", method, url, err)
	}
	return res, raw, nil
}

// run sends every guest's video at once (clients[i] sends videos[i]) to
// the event slug of the box at origin, calling sent with every video byte
// handed to a connection, and then reads each stored original back.
func (b burst) run(ctx context.Context, origin, slug string, clients []*http.Client, videos []video, sent func(int)) (burstResult, error) {
	var res burstResult
	var mu sync.Mutex
	var total atomic.Int64
	b.conflicts = new(atomic.Int64)
	count := func(n int) { total.Add(int64(n)); sent(n) }
	errs := make([]error, len(clients))
	ids := make([]string, len(clients))
	resumed := make([]int64, len(clients))
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id, from, err := b.guest(ctx, c, origin, slug, i, videos[i], count)
			if err != nil {
				errs[i] = fmt.Errorf("guest %d: %w", i, err)
				return
			}
			mu.Lock()
			ids[i], resumed[i] = id, from
			res.Acknowledged++
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.Sent, res.Resumed, res.Conflicts = total.Load(), resumed, b.conflicts.Load()
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for i, id := range ids {
		n, err := storedBytes(ctx, clients[i], origin, id, videos[i])
		if err != nil {
			return res, fmt.Errorf("guest %d's stored video: %w", i, err)
		}
		res.Stored += n
	}
	return res, nil
}

// guest is one phone: the poster, then the video in pieces up to the cut,
// HEAD, and the rest. It answers the stored photo's id and the offset it
// resumed from.
func (b burst) guest(ctx context.Context, c *http.Client, origin, slug string, i int, v video, sent func(int)) (string, int64, error) {
	poster := posterJPEG(i)
	res, body, err := tus(ctx, c, origin, "POST", origin+"/api/e/"+slug+"/uploads", nil, 0,
		"Upload-Length", strconv.Itoa(len(poster)), "Upload-Metadata", tusMeta("kind", "poster", "filetype", "image/jpeg"))
	if err != nil || res.StatusCode != 201 {
		return "", 0, fmt.Errorf("creating the poster's upload: %v %s", errOr(err, res), body)
	}
	purl := res.Header.Get("Location")
	res, body, err = tus(ctx, c, origin, "PATCH", origin+purl, bytes.NewReader(poster), int64(len(poster)),
		"Content-Type", "application/offset+octet-stream", "Upload-Offset", "0")
	if err != nil || res.StatusCode != 204 {
		return "", 0, fmt.Errorf("sending the poster: %v %s", errOr(err, res), body)
	}
	pid := purl[strings.LastIndex(purl, "/")+1:]
	res, body, err = tus(ctx, c, origin, "POST", origin+"/api/e/"+slug+"/uploads", nil, 0,
		"Upload-Length", strconv.Itoa(v.size()),
		"Upload-Metadata", tusMeta("filename", fmt.Sprintf("VID_%04d.mp4", i), "filetype", "video/mp4", "poster", pid))
	if err != nil || res.StatusCode != 201 {
		return "", 0, fmt.Errorf("creating the video's upload: %v %s", errOr(err, res), body)
	}
	url := origin + res.Header.Get("Location")
	// Pieces up to the cut, the cut piece dropped mid-way.
	for off := 0; off < b.CutAt; off += b.Piece {
		end := min(off+b.Piece, v.size())
		body := &countingBody{r: v.section(off, end), limit: int64(end - off), sent: sent}
		if end > b.CutAt {
			body.limit, body.cut = int64(b.CutAt-off), true
		}
		res, raw, err := tus(ctx, c, origin, "PATCH", url, body, int64(end-off),
			"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(off))
		if end > b.CutAt {
			if err == nil {
				return "", 0, fmt.Errorf("the piece cut at %d got an answer: %d %s", b.CutAt, res.StatusCode, raw)
			}
			break
		}
		if err != nil || res.StatusCode != 204 {
			return "", 0, fmt.Errorf("the piece at %d: %v %s", off, errOr(err, res), raw)
		}
	}
	res, _, err = tus(ctx, c, origin, "HEAD", url, nil, 0)
	if err != nil || res.StatusCode != 200 {
		return "", 0, fmt.Errorf("asking where the upload stopped: %v", errOr(err, res))
	}
	from, err := strconv.ParseInt(res.Header.Get("Upload-Offset"), 10, 64)
	if err != nil {
		return "", 0, fmt.Errorf("reading the offset after the cut: %w", err)
	}
	for off, conflicts := int(from), 0; off < v.size(); off += b.Piece {
		end := min(off+b.Piece, v.size())
		res, body, err := tus(ctx, c, origin, "PATCH", url, &countingBody{r: v.section(off, end), limit: int64(end - off), sent: sent}, int64(end-off),
			"Content-Type", "application/offset+octet-stream", "Upload-Offset", strconv.Itoa(off))
		if err == nil && res.StatusCode == http.StatusConflict && conflicts < 3 {
			// The cut request was still on its way when HEAD answered
			// (its headers reached the box after the HEAD): the box
			// stored what it carried and says where it is now, as a tus
			// client reads it.
			at, perr := strconv.Atoi(res.Header.Get("Upload-Offset"))
			if perr != nil || at < off {
				return "", 0, fmt.Errorf("the piece at %d after the cut: 409 with offset %q", off, res.Header.Get("Upload-Offset"))
			}
			conflicts++
			b.conflicts.Add(1)
			off = at - b.Piece // the loop adds the piece
			continue
		}
		if err != nil || res.StatusCode != 204 {
			return "", 0, fmt.Errorf("the piece at %d after the cut: %v %s", off, errOr(err, res), body)
		}
		if end < v.size() {
			continue
		}
		if st := res.Header.Get("Upload-Result-Status"); st != "201" {
			return "", 0, fmt.Errorf("the last piece answered Upload-Result-Status %q, want 201 (a new photo)", st)
		}
		kind, id, _ := strings.Cut(res.Header.Get("Upload-Result"), " ")
		if kind != "photo" || id == "" {
			return "", 0, fmt.Errorf("the last piece answered Upload-Result %q, want photo <id>", res.Header.Get("Upload-Result"))
		}
		return id, from, nil
	}
	return "", 0, errors.New("no piece finished the upload")
}

// storedBytes reads the stored original of photo id and answers its length
// if it is v byte for byte.
func storedBytes(ctx context.Context, c *http.Client, origin, id string, v video) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", origin+"/api/media/"+id+"?v=play", nil)
	if err != nil {
		return 0, fmt.Errorf("making the media request: %w", err)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return 0, fmt.Errorf("GET of the video answered %d", res.StatusCode)
	}
	want := v.section(0, v.size())
	a, b := make([]byte, 64<<10), make([]byte, 64<<10)
	var n int64
	for {
		k, rerr := io.ReadFull(res.Body, a)
		if k > 0 {
			if _, err := io.ReadFull(want, b[:k]); err != nil || !bytes.Equal(a[:k], b[:k]) {
				return 0, fmt.Errorf("the stored video differs from the one sent within bytes %d to %d", n, n+int64(k))
			}
			n += int64(k)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return 0, fmt.Errorf("reading the stored video: %w", rerr)
		}
	}
	if n != int64(v.size()) {
		return 0, fmt.Errorf("the stored video has %d bytes, not the %d sent", n, v.size())
	}
	return n, nil
}

// errOr names what went wrong with a request: its error or its status.
func errOr(err error, res *http.Response) string {
	if err != nil {
		return err.Error()
	}
	return strconv.Itoa(res.StatusCode)
}

// newBurst plans videos of size bytes sent in pieces of piece bytes (0:
// each PATCH sends all the rest, as the guest page does), the connection
// dropping in the middle of the piece that holds the video's middle byte.
func newBurst(size, piece int) burst {
	if piece <= 0 {
		piece = size
	}
	k := size / 2 / piece * piece
	return burst{Size: size, Piece: piece, CutAt: k + (min(k+piece, size)-k)/2}
}

// memoryMark is the daemon's memory when the guests had handed over a
// share of the bytes.
type memoryMark struct {
	share    string
	rss, hwm int64
}

// runResumable measures the resumable mode against the real binary: the
// daemon's peak RSS before the first byte, after each quarter of the
// bytes, and once every upload is acknowledged.
func runResumable(bin string, guests, size, piece int, prof *piprofile.Profile) error {
	b := newBurst(size, piece)
	videos := makeVideos(guests, size)
	fmt.Printf("%d guests at once, one %.1f MB video each (and its poster) through the resumable route in pieces of %.1f MB, the connection dropped at %.1f MB\n",
		guests, float64(size)/1e6, float64(b.Piece)/1e6, float64(b.CutAt)/1e6)
	bx, err := startBox(bin, guests, prof)
	if err != nil {
		return err
	}
	defer bx.stop()
	pid := bx.cmd.Process.Pid
	mark := func(share string) memoryMark {
		rss, _ := procMemory(pid, "VmRSS")
		hwm, _ := procMemory(pid, "VmHWM")
		return memoryMark{share, rss, hwm}
	}
	start := mark("start")
	planned := int64(guests) * int64(size)
	var marks []memoryMark
	var mu sync.Mutex
	var sent atomic.Int64
	next := atomic.Int64{}
	next.Store(planned / 4)
	t0 := time.Now()
	res, err := b.run(context.Background(), bx.url, bx.slug, bx.clients, videos, func(n int) {
		total := sent.Add(int64(n))
		for q := next.Load(); total >= q && q <= planned; q = next.Load() {
			if next.CompareAndSwap(q, q+planned/4) {
				m := mark(fmt.Sprintf("%d%%", q*100/planned))
				mu.Lock()
				marks = append(marks, m)
				mu.Unlock()
			}
		}
	})
	took := time.Since(t0)
	end := mark("acknowledged")
	for _, m := range marks {
		end.hwm = max(end.hwm, m.hwm) // the kernel's count lags a little
	}
	fmt.Printf("%d of %d uploads acknowledged in %v; resumed from %s; %d pieces answered 409\n",
		res.Acknowledged, guests, took.Round(time.Millisecond), offsets(res.Resumed), res.Conflicts)
	if err != nil {
		return err
	}
	ratio := float64(res.Sent) / float64(res.Stored)
	fmt.Printf("video bytes sent %.1f MB, stored %.1f MB (byte for byte): %.3f× (target ≤ 1.10)\n",
		float64(res.Sent)/1e6, float64(res.Stored)/1e6, ratio)
	mib := func(v int64) string { return fmt.Sprintf("%.1f", float64(v)/(1<<20)) }
	fmt.Printf("daemon RSS in MiB (now / peak so far): start %s / %s", mib(start.rss), mib(start.hwm))
	for _, m := range append(marks, end) {
		fmt.Printf(", %s %s / %s", m.share, mib(m.rss), mib(m.hwm))
	}
	fmt.Printf("\npeak RSS %s MiB at the start of the burst, %s MiB at its end (+%s; target: peak ≤ 200)\n",
		mib(start.hwm), mib(end.hwm), mib(end.hwm-start.hwm))
	if res.Acknowledged != guests || ratio > 1.1 || end.hwm > 200<<20 {
		return errors.New("a target was missed")
	}
	return nil
}

// offsets sums up where the guests resumed: the least and the most.
func offsets(from []int64) string {
	if len(from) == 0 {
		return "nowhere"
	}
	lo, hi := from[0], from[0]
	for _, f := range from {
		lo, hi = min(lo, f), max(hi, f)
	}
	return fmt.Sprintf("%.1f to %.1f MB", float64(lo)/1e6, float64(hi)/1e6)
}
