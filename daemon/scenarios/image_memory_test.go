package scenarios_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
)

// The memory budget (docs/design.md, "Memory budget"): whatever a guest
// uploads, the daemon stays under 400 MiB and other requests answer within
// a quarter of a second. This test holds the daemon to its own 384 MiB soft
// limit, a little under.
const (
	budgetPeakKiB = 384 << 10
	budgetLatency = 250 * time.Millisecond
	memOwnerPass  = "memory-test-password"
)

// strictLatencyEnv, set to 1 (make latency, on a quiet machine), holds
// TestImageBombsStayWithinTheMemoryBudget to budgetLatency itself; without
// it other work shares the CPU and only a stall of eight times the bound
// fails.
const strictLatencyEnv = "EVENTBOX_STRICT_LATENCY"

// memDaemon is the real eventbox binary, serving in a child process whose
// peak RSS is the daemon's alone.
type memDaemon struct {
	url     string
	dataDir string
	pid     int
	logs    *bytes.Buffer
	mu      *sync.Mutex
}

// memBinary is the eventbox binary the memory tests run, built once for
// the test binary (a build is about 15 s of CPU, once per test before),
// without -race as shipped: the race detector's own memory would hide the
// daemon's. TestMain removes it.
var memBinary = testtool.Binary{Pkg: "../../cmd/eventbox"}

// TestMain removes the memory tests' binary once every test has run.
func TestMain(m *testing.M) {
	code := m.Run()
	memBinary.Remove()
	os.Exit(code)
}

// startMemDaemon starts the daemon's binary; env adds settings
// (NAME=value) to the few it always has.
func startMemDaemon(t *testing.T, env ...string) *memDaemon {
	t.Helper()
	bin := memBinary.Path(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve")
	dataDir := t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "LISTEN_ADDR=" + addr, "DATA_DIR=" + dataDir,
		"MDNS_NAME=off", "ADMIN_PASSWORD=" + memOwnerPass}
	cmd.Env = append(cmd.Env, env...)
	d := &memDaemon{url: "http://" + addr, dataDir: dataDir, logs: &bytes.Buffer{}, mu: &sync.Mutex{}}
	cmd.Stderr = lockedWriter{d.mu, d.logs}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d.pid = cmd.Process.Pid
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for deadline := time.Now().Add(30 * time.Second); ; {
		if res, err := http.Get(d.url + "/api/health"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("daemon not healthy within 30 s:\n%s", d.log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (d *memDaemon) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.logs.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// memClient is a browser-like client: cookies, and the page's Origin.
type memClient struct {
	t   *testing.T
	hc  *http.Client
	url string
}

func newMemClient(t *testing.T, url string) *memClient {
	jar, _ := cookiejar.New(nil)
	return &memClient{t: t, hc: &http.Client{Jar: jar, Timeout: 3 * time.Minute}, url: url}
}

func (c *memClient) do(method, path, contentType string, body []byte) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.url+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Origin", c.url)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

func (c *memClient) json(method, path string, in any, want int) map[string]any {
	c.t.Helper()
	b, _ := json.Marshal(in)
	status, out := c.do(method, path, "application/json", b)
	if status != want {
		c.t.Fatalf("%s %s: %d %s", method, path, status, out)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	return m
}

// latencySampler asks for /api/health and the guest's photo list every
// 50 ms until stopped and keeps the slowest answer of each.
type latencySampler struct {
	stop              chan struct{}
	done              sync.WaitGroup
	health, list      time.Duration
	healthErr, listOK bool
}

func sample(base string, guest *http.Client, slug string) *latencySampler {
	s := &latencySampler{stop: make(chan struct{}), listOK: true}
	get := func(hc *http.Client, path string) (time.Duration, bool) {
		start := time.Now()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Origin", base)
		res, err := hc.Do(req)
		if err != nil {
			return time.Since(start), false
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return time.Since(start), res.StatusCode == 200
	}
	plain := &http.Client{Timeout: time.Minute}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for first := true; ; first = false {
			if !first {
				select {
				case <-s.stop:
					return
				case <-t.C:
				}
			}
			d, ok := get(plain, "/api/health")
			s.health = max(s.health, d)
			s.healthErr = s.healthErr || !ok
			d, ok = get(guest, "/api/e/"+slug+"/photos")
			s.list = max(s.list, d)
			s.listOK = s.listOK && ok
		}
	}()
	return s
}

func (s *latencySampler) finish() {
	close(s.stop)
	s.done.Wait()
}

// TestImageBombsStayWithinTheMemoryBudget uploads, as a joined guest, each
// image that once took the daemon past its memory budget, waits for its
// thumb, and checks the daemon's peak RSS (VmHWM, reset before each image)
// and the slowest health and photo-list answers while it worked (held to
// the budget's quarter second by make latency on a quiet machine; in make
// longtest a measurement, failing only on a stall). Phone-like grid HEICs must
// get their variants, and the display must show the picture.
func TestImageBombsStayWithinTheMemoryBudget(t *testing.T) {
	testtool.Long(t, "49 to 200 MP images made and decoded, a minute on a quiet machine")
	testtool.Unraced(t, "decoding 49 to 200 MP images in a child binary")
	if testing.Short() {
		t.Skip("builds the daemon and uploads 49 MP images")
	}
	dir := t.TempDir()
	type bomb struct {
		name       string
		make       func() ([]byte, error)
		wantUpload int                 // 201 stored, or 415 refused
		ref        func() *image.YCbCr // the picture, to compare the display with
		// latency bounds the slowest health and list answers:
		// budgetLatency unless a known gap is written down.
		latency time.Duration
	}
	var grid12, grid48, jpeg200 *image.YCbCr
	gridMaker := func(w, h int, ref **image.YCbCr) func() ([]byte, error) {
		return func() ([]byte, error) {
			b, m, err := imagingtest.GridPicture(dir, w, h, 4, 0)
			*ref = m
			return b, err
		}
	}
	bombs := []bomb{
		{"a 7000x7000 single-coded HEIC of 12 KB is refused", func() ([]byte, error) {
			return os.ReadFile("../../imaging/testdata/flat-7000x7000.heic")
		}, 415, nil, 0},
		{"a 49 MP 16-bit PNG is refused", func() ([]byte, error) { return imagingtest.PNG(7000, 7000, 16) }, 415, nil, 0},
		{"a 49 MP progressive JPEG is refused", func() ([]byte, error) { return imagingtest.ProgressiveJPEG(7000, 7000) }, 415, nil, 0},
		{"a 49 MP WebP gets its variants", func() ([]byte, error) { return imagingtest.WebP(dir, 7000, 7000) }, 201, nil, 0},
		{"a 640x480 JPEG claiming 7000x7000 gets its variants", func() ([]byte, error) {
			return imagingtest.FalseSizeJPEG(640, 480, 7000, 7000)
		}, 201, nil, 0},
		// Known gap (docs/decisions.md, "Image memory"): a garbage
		// collection waits for the HEVC tile being decoded in
		// WebAssembly, which cannot be preempted, so on a loaded machine
		// other answers can wait up to about a second (they waited 3.8 s
		// and 57 s when the picture was decoded whole).
		{"a 12 MP grid HEIC gets its variants", gridMaker(4032, 3024, &grid12), 201, func() *image.YCbCr { return grid12 }, 2 * time.Second},
		{"a 48 MP grid HEIC gets its variants", gridMaker(8064, 6048, &grid48), 201, func() *image.YCbCr { return grid48 }, 2 * time.Second},
		// Over the daemon's image budget: decoded in a process of its
		// own (docs/decisions/images.md, "Large photos in a process of
		// their own"), whose peak the daemon logs.
		{"a 48 MP single-coded HEIC gets its variants", func() ([]byte, error) { return imagingtest.SingleHEIC(dir, 8064, 6048) }, 201, nil, 0},
		{"a 48 MP progressive JPEG gets its variants", func() ([]byte, error) { return imagingtest.ProgressiveJPEG(8064, 6048) }, 201, nil, 0},
		{"a 48 MP 16-bit PNG gets its variants", func() ([]byte, error) { return imagingtest.PNG(8064, 6048, 16) }, 201, nil, 0},
		// The largest phone sensor's photo, decoded at 1/8 scale in the
		// daemon; one claiming more than 201 MP is refused whatever its
		// format (docs/decisions/images.md, "Photos up to 200 MP").
		{"a 200 MP JPEG gets its variants", func() ([]byte, error) {
			p := filepath.Join(dir, "200mp.jpg")
			m, err := imagingtest.LargeJPEG(p, 16320, 12240, 8)
			jpeg200 = m
			if err != nil {
				return nil, err
			}
			return os.ReadFile(p)
		}, 201, func() *image.YCbCr { return jpeg200 }, 0},
		{"a JPEG claiming 250 MP is refused", func() ([]byte, error) { return imagingtest.FalseSizeJPEG(640, 480, 18000, 14000) }, 415, nil, 0},
	}

	// A 200 MP photo is 26 MB here (30 to 50 MB from a phone): over the
	// default 25 MB upload limit, which this test is not about.
	d := startMemDaemon(t, "MAX_UPLOAD_MB=64")
	owner := newMemClient(t, d.url)
	owner.json("POST", "/api/admin/login", map[string]any{"password": memOwnerPass}, 200)
	ev := owner.json("POST", "/api/admin/events", map[string]any{"name": "Memory"}, 201)
	slug, _ := ev["slug"].(string)
	if slug == "" {
		slug, _ = ev["event"].(map[string]any)["slug"].(string)
	}
	guest := newMemClient(t, d.url)
	guest.json("POST", "/api/e/"+slug+"/join", nil, 200)

	childPeak := regexp.MustCompile(`decoding process ended.*peak_rss_kib[=":]+(\d+)`)
	seenChildren := 0
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			data, err := b.make()
			if err != nil {
				if errors := err.Error(); strings.Contains(errors, "executable file not found") {
					testtool.Missing(t, fmt.Sprintf("a tool is missing (Debian packages webp, libjpeg-turbo-progs, libheif-examples): %v", err))
				}
				t.Fatal(err)
			}
			guest.t = t
			// Reset the peak RSS to the current RSS (clear_refs 5).
			if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", d.pid), []byte("5"), 0); err != nil {
				t.Fatalf("resetting the peak RSS: %v", err)
			}
			s := sample(d.url, guest.hc, slug)
			began := time.Now()
			var form bytes.Buffer
			mw := multipart.NewWriter(&form)
			fw, _ := mw.CreateFormFile("photo", "IMG_0001")
			fw.Write(data)
			mw.Close()
			status, body := guest.do("POST", "/api/e/"+slug+"/photos", mw.FormDataContentType(), form.Bytes())
			thumb, display := 0, []byte(nil)
			if status == 201 {
				var p struct {
					Photo struct{ ID string } `json:"photo"`
				}
				_ = json.Unmarshal(body, &p)
				// Asking for the thumb makes the variants if the
				// background worker has not yet.
				thumb, _ = guest.do("GET", "/api/media/"+p.Photo.ID+"?v=thumb", "", nil)
				if b.ref != nil {
					_, display = guest.do("GET", "/api/media/"+p.Photo.ID+"?v=display", "", nil)
				}
			}
			s.finish()
			took := time.Since(began)
			peak := vmKiB(t, d.pid, "VmHWM")
			child := ""
			if m := childPeak.FindAllStringSubmatch(d.log(), -1); len(m) > seenChildren {
				child = fmt.Sprintf("; decoding process peak RSS %s KiB", m[len(m)-1][1])
				seenChildren = len(m)
			}
			report := fmt.Sprintf("%s (%d bytes): upload %d, thumb %d in %v; daemon peak RSS %.1f MiB%s; slowest health %v, list %v",
				b.name, len(data), status, thumb, took.Round(time.Millisecond), float64(peak)/1024, child, s.health.Round(time.Millisecond), s.list.Round(time.Millisecond))
			t.Log(report)
			if status != b.wantUpload {
				t.Errorf("upload answered %d %s, want %d", status, body, b.wantUpload)
			}
			if status == 201 && thumb != 200 {
				t.Errorf("thumb answered %d, want 200", thumb)
			}
			if peak > budgetPeakKiB {
				t.Errorf("peak RSS %.1f MiB, over the %d MiB budget", float64(peak)/1024, budgetPeakKiB>>10)
			}
			limit := budgetLatency
			if b.latency > 0 {
				limit = b.latency
			}
			if os.Getenv(strictLatencyEnv) != "1" {
				// Beside other work on two cores (make longtest runs
				// beside CI's box lane) the latency is a measurement,
				// logged above, and only a stall fails: eight times the
				// bound, as the 57 s wait this test once found.
				limit *= 8
			}
			if s.health > limit || s.list > limit || s.healthErr || !s.listOK {
				t.Errorf("while the image was processed: health took %v (failed %v), the list %v (ok %v); want under %v",
					s.health, s.healthErr, s.list, s.listOK, limit)
			}
			if b.ref != nil && display != nil {
				m, err := jpeg.Decode(bytes.NewReader(display))
				if err != nil {
					t.Fatalf("display: %v", err)
				}
				if e := imagingtest.LumaError(m, b.ref()); e > 3 {
					t.Errorf("the display's luma is off by %.1f on average, want at most 3", e)
				}
			}
		})
	}
}
