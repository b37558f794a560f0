package main

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"io/fs"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"eventbox/internal/testtool"
)

// crashKills is how many times TestCrashUploads kills the daemon: a few in
// the ordinary test run, EVENTBOX_CRASH_KILLS (make crashtest) for the long
// run.
func crashKills(t *testing.T) int {
	if v := os.Getenv("EVENTBOX_CRASH_KILLS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("EVENTBOX_CRASH_KILLS=%q: want a positive number", v)
		}
		return n
	}
	return 6
}

// crashGuests upload at the same time in each round.
const crashGuests = 3

// TestCrashUploads kills the built binary with SIGKILL at random moments
// while guests upload, many times, restarting it on the same DATA_DIR each
// time. At the end every upload answered 200/201 is listed, its original
// is byte for byte what was sent, its thumb and display decode, no media
// file is left that no record names, and no temp file remains.
func TestCrashUploads(t *testing.T) {
	testtool.Long(t, "the real binary killed again and again while guests upload")
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	kills := crashKills(t)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("EVENTBOX_CRASH_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("seed %d (EVENTBOX_CRASH_SEED to repeat), %d kills", seed, kills)
	rng := rand.New(rand.NewPCG(seed, 1))
	base := noisyJPEG(t, 800, 600, seed)

	began := time.Now()
	bin := buildBinary(t)
	dir := t.TempDir()
	d := startDaemon(t, bin, dir, "ADMIN_PASSWORD=crash-test-password")
	host := &crashClient{t: t}
	host.json(d.url, "POST", "/api/admin/login", map[string]any{"password": "crash-test-password"}, 200)
	ev := host.json(d.url, "POST", "/api/admin/events", map[string]any{"name": "Crash"}, 201)["event"].(map[string]any)
	slug := ev["slug"].(string)
	guests := make([]*crashClient, crashGuests)
	for i := range guests {
		guests[i] = &crashClient{t: t}
		guests[i].json(d.url, "POST", "/api/e/"+slug+"/join", nil, 200)
		guests[i].json(d.url, "POST", "/api/e/"+slug+"/guest", map[string]any{"name": fmt.Sprintf("Guest %d", i+1)}, 200)
	}

	// answered maps each photo id answered 200/201 to the number of the
	// upload that sent it (its bytes are made again from the number).
	answered := map[string]int{}
	var mu sync.Mutex
	var next, attempts, lost, refused, tempCleared int
	for round := 0; round < kills; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for _, g := range guests {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					n := next
					next++
					attempts++
					mu.Unlock()
					status, id, err := g.upload(d.url, slug, withComment(base, n))
					mu.Lock()
					switch {
					case err != nil:
						lost++
					case status == 200 || status == 201:
						answered[id] = n
					default:
						refused++
						t.Errorf("upload %d answered %d", n, status)
					}
					mu.Unlock()
					if err != nil {
						return // the daemon is gone
					}
				}
			}()
		}
		time.Sleep(time.Duration(20+rng.IntN(400)) * time.Millisecond)
		if err := d.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-d.done
		close(stop)
		wg.Wait()
		d = startDaemon(t, bin, dir)
		if _, c := sweepCounts(d.stderr.String()); c > 0 {
			tempCleared += c
		}
	}
	// The last start ran within seconds of the last kill, so files of an
	// interrupted upload are still inside the sweep's grace period. Let the
	// period pass (files dated 10 minutes back) and start once more.
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	ageMedia(t, filepath.Join(dir, "media"), 10*time.Minute)
	d = startDaemon(t, bin, dir)
	removed, cleared := sweepCounts(d.stderr.String())

	// Every answered upload is listed, whole, with variants that decode.
	listed := map[string]bool{}
	for _, g := range guests {
		for _, id := range g.listPhotos(d.url, slug) {
			listed[id] = true
		}
	}
	for id, n := range answered {
		if !listed[id] {
			t.Errorf("photo %s (upload %d) was answered but is not listed", id, n)
			continue
		}
		want := withComment(base, n)
		if got := host.get(d.url, "/api/media/"+id+"?v=original"); !bytes.Equal(got, want) {
			t.Errorf("original of %s is %d bytes, not the %d sent", id, len(got), len(want))
		}
		for _, v := range []string{"thumb", "display"} {
			if _, err := jpeg.Decode(bytes.NewReader(host.get(d.url, "/api/media/"+id+"?v="+v))); err != nil {
				t.Errorf("%s of %s does not decode: %v", v, id, err)
			}
		}
	}
	// Stop cleanly (the variant worker finishes its files), then look at
	// the disk: only files named by listed photos, no temp file.
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.done
	var files, unnamed int
	err := filepath.WalkDir(filepath.Join(dir, "media"), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		files++
		id, _, _ := strings.Cut(e.Name(), ".")
		if !listed[id] {
			unnamed++
			t.Errorf("%s is named by no record", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if tmp, _ := os.ReadDir(filepath.Join(dir, "tmp")); len(tmp) != 0 {
		t.Errorf("%d temp files remain", len(tmp))
	}
	t.Logf("in %v: %d kills, %d uploads sent: %d answered 200/201, %d without an answer (killed), %d refused; "+
		"%d photos listed (answered or committed before the kill), %d media files, %d unnamed; "+
		"restarts after a kill cleared %d temp files; the last start removed %d unnamed files and cleared %d temp files",
		time.Since(began).Round(time.Second), kills, attempts, len(answered), lost, refused, len(listed), files, unnamed, tempCleared, removed, cleared)
}

// noisyJPEG encodes a picture of noise, so it is hundreds of KiB like a
// phone's photo and a kill can land while it is on the wire.
func noisyJPEG(t *testing.T, w, h int, seed uint64) []byte {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 2))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(rng.UintN(256))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// withComment makes upload n's bytes: the base JPEG with a comment segment
// carrying n after its start marker, so every upload is a distinct file.
func withComment(base []byte, n int) []byte {
	text := []byte(fmt.Sprintf("upload %d", n))
	seg := make([]byte, 4, 4+len(text))
	seg[0], seg[1] = 0xff, 0xfe
	binary.BigEndian.PutUint16(seg[2:], uint16(2+len(text)))
	seg = append(seg, text...)
	out := make([]byte, 0, len(base)+len(seg))
	out = append(out, base[:2]...)
	out = append(out, seg...)
	return append(out, base[2:]...)
}

// ageMedia dates every file under root back by d.
func ageMedia(t *testing.T, root string, d time.Duration) {
	t.Helper()
	at := time.Now().Add(-d)
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		return os.Chtimes(p, at, at)
	})
	if err != nil {
		t.Fatal(err)
	}
}

var sweepLine = regexp.MustCompile(`media area reconciled.* removed=(\d+).* temp_cleared=(\d+)`)

// sweepCounts reads the start-up sweep's counts from a daemon's log.
func sweepCounts(log string) (removed, cleared int) {
	m := sweepLine.FindStringSubmatch(log)
	if m == nil {
		return -1, -1
	}
	removed, _ = strconv.Atoi(m[1])
	cleared, _ = strconv.Atoi(m[2])
	return removed, cleared
}

// crashClient is a guest or host whose cookies outlive the daemon's
// restarts (cookies do not depend on the port), talking to whichever
// daemon runs now.
type crashClient struct {
	t    *testing.T
	once sync.Once
	hc   *http.Client
}

func (c *crashClient) client() *http.Client {
	c.once.Do(func() {
		jar, _ := cookiejar.New(nil)
		c.hc = &http.Client{Jar: jar, Timeout: 30 * time.Second}
	})
	return c.hc
}

func (c *crashClient) do(base, method, path, contentType string, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Origin", base)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.client().Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	return res, raw, err
}

func (c *crashClient) json(base, method, path string, body any, want int) map[string]any {
	c.t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	res, out, err := c.do(base, method, path, "application/json", raw)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil || res.StatusCode != want {
		c.t.Fatalf("%s %s = %d, want %d: %s", method, path, res.StatusCode, want, out)
	}
	return m
}

// upload sends a photo; err is set when no answer came (the daemon died).
func (c *crashClient) upload(base, slug string, photo []byte) (int, string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("photo", "IMG.jpg")
	fw.Write(photo)
	mw.Close()
	res, out, err := c.do(base, "POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), buf.Bytes())
	if err != nil {
		return 0, "", err
	}
	var r struct {
		Photo struct {
			ID string `json:"id"`
		} `json:"photo"`
	}
	_ = json.Unmarshal(out, &r)
	return res.StatusCode, r.Photo.ID, nil
}

func (c *crashClient) get(base, path string) []byte {
	c.t.Helper()
	res, out, err := c.do(base, "GET", path, "", nil)
	if err != nil || res.StatusCode != 200 {
		c.t.Errorf("GET %s: %v %d", path, err, statusOf(res))
		return nil
	}
	return out
}

func statusOf(res *http.Response) int {
	if res == nil {
		return 0
	}
	return res.StatusCode
}

// listPhotos pages through the guest's own photos.
func (c *crashClient) listPhotos(base, slug string) []string {
	c.t.Helper()
	var ids []string
	path := "/api/e/" + slug + "/photos"
	for {
		page := c.json(base, "GET", path, nil, 200)
		for _, p := range page["photos"].([]any) {
			ids = append(ids, p.(map[string]any)["id"].(string))
		}
		next, ok := page["nextCursor"].(float64)
		if !ok {
			return ids
		}
		path = "/api/e/" + slug + "/photos?before=" + strconv.FormatInt(int64(next), 10)
	}
}
