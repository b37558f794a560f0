package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventbox/daemon"
	"eventbox/store"
)

// The album's memory targets (the issue): a 500-photo album within 128
// MiB peak RSS and within 1.5 times the peak of a 50-photo album.
const (
	albumBenchMaxRSS = 128 << 20
	albumBenchRatio  = 1.5
)

// TestAlbumMemoryBenchmark builds albums of 50 and 500 photos with real
// display-size JPEGs (1920×1440, about 0.5 MB each) over the real router,
// each in a fresh child process, and reports time and peak RSS against
// the targets. It is slow and writes about 300 MB to a temp dir, so it
// runs only with EVENTBOX_BENCH=1:
//
//	EVENTBOX_BENCH=1 go test -run TestAlbumMemoryBenchmark -v ./daemon/scenarios/
func TestAlbumMemoryBenchmark(t *testing.T) {
	if os.Getenv("EVENTBOX_BENCH") != "1" {
		t.Skip("set EVENTBOX_BENCH=1 to build 50- and 500-photo albums and measure them")
	}
	bases := benchJPEGs(t, 8)
	type result struct {
		n       int
		rss     int64 // bytes
		ms      int64
		size    int64
		pages   int
		baseRSS int64
	}
	var results []result
	for _, n := range []int{50, 500} {
		dir, eventID := benchEvent(t, bases, n)
		base := runAlbumChild(t, dir, eventID, false)
		got := runAlbumChild(t, dir, eventID, true)
		results = append(results, result{n: n, rss: got.rss, ms: got.ms, size: got.size, pages: got.pages, baseRSS: base.rss})
		t.Logf("%3d photos: %6d ms, %4d pages, %5.1f MB PDF, peak RSS %5.1f MiB (the same process without an album: %5.1f MiB)",
			n, got.ms, got.pages, float64(got.size)/1e6, mib(got.rss), mib(base.rss))
		if want := 1 + n; got.pages != want {
			t.Errorf("%d photos gave %d pages, want %d", n, got.pages, want)
		}
	}
	small, large := results[0], results[1]
	ratio := float64(large.rss) / float64(small.rss)
	t.Logf("500/50 peak RSS ratio %.2f (target ≤ %.1f); 500-photo peak %.1f MiB (target ≤ %d MiB)",
		ratio, albumBenchRatio, mib(large.rss), albumBenchMaxRSS>>20)
	if large.rss > albumBenchMaxRSS {
		t.Errorf("500-photo album peaked at %.1f MiB, over %d MiB", mib(large.rss), albumBenchMaxRSS>>20)
	}
	if ratio > albumBenchRatio {
		t.Errorf("500-photo album peaked at %.2f× the 50-photo one, over %.1f×", ratio, albumBenchRatio)
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// benchJPEGs makes n distinct 1920×1440 photo-like JPEGs at the display
// variant's quality: smooth shapes with sensor-like noise.
func benchJPEGs(t *testing.T, n int) [][]byte {
	t.Helper()
	var out [][]byte
	for i := range n {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		img := image.NewYCbCr(image.Rect(0, 0, 1920, 1440), image.YCbCrSubsampleRatio420)
		for y := 0; y < 1440; y++ {
			for x := 0; x < 1920; x++ {
				v := 128 + 60*((x/(97+i*13)+y/(71+i*7))%3-1) + (x*y/(4000+i*500))%40 + rng.IntN(24)
				img.Y[y*img.YStride+x] = uint8(min(max(v, 0), 255))
			}
		}
		for j := range img.Cb {
			img.Cb[j] = uint8(110 + (j/960+i*9)%40)
			img.Cr[j] = uint8(140 - (j%960+i*5)%30)
		}
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
			t.Fatal(err)
		}
		out = append(out, buf.Bytes())
	}
	return out
}

// benchEvent stores an event with n visible photos whose display
// variants are the given JPEGs in turn, each made distinct by a comment
// segment, and returns the data dir and event id.
func benchEvent(t *testing.T, bases [][]byte, n int) (string, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e := store.NewEvent("Anna & Marco")
	e.EventDate = "2026-06-20"
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		base := bases[i%len(bases)]
		com := []byte{0xff, 0xfe, 0, 6, byte(i >> 16), byte(i >> 8), byte(i), 0}
		data := append(append(append([]byte{}, base[:2]...), com[:6]...), base[2:]...)
		p := store.Photo{EventID: e.ID, GuestName: fmt.Sprintf("Guest %d", i), Status: store.StatusVisible,
			Width: 1920, Height: 1440, Format: "jpeg", Variants: true}
		p.ID = store.NewID()
		if _, err := st.Media().Write(p.VariantName("display"), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Photos().Add(ctx, p, 0); err != nil {
			t.Fatal(err)
		}
	}
	return dir, e.ID
}

type childResult struct {
	rss   int64
	ms    int64
	size  int64
	pages int
}

// runAlbumChild runs TestAlbumMemoryChild in a new process over the data
// dir and returns what it printed, its own peak RSS (VmHWM) included. Without album the child only starts the daemon and signs in:
// the fixed cost.
func runAlbumChild(t *testing.T, dir, eventID string, album bool) childResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestAlbumMemoryChild$", "-test.v")
	cmd.Env = append(os.Environ(), "EVENTBOX_ALBUM_CHILD="+dir, "EVENTBOX_ALBUM_EVENT="+eventID,
		"EVENTBOX_ALBUM_MAKE="+strconv.FormatBool(album))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "STAGE ") {
			t.Logf("child (album %v): %s", album, l)
		}
	}
	var res childResult
	if _, err := fmt.Sscanf(afterMarker(string(out), "ALBUM "), "%d %d %d %d", &res.ms, &res.size, &res.pages, &res.rss); err != nil {
		t.Fatalf("child printed no result: %v\n%s", err, out)
	}
	if res.rss == 0 {
		t.Fatal("the child could not read its peak RSS from /proc/self/status")
	}
	return res
}

func afterMarker(s, marker string) string {
	if i := strings.Index(s, marker); i >= 0 {
		return s[i+len(marker):]
	}
	return ""
}

// TestAlbumMemoryChild is the child of TestAlbumMemoryBenchmark: the
// daemon over an existing data dir, one album fetched through the real
// router and thrown away, and "ALBUM <ms> <bytes> <pages> <peak RSS>"
// printed, with the memory at each stage as "STAGE" lines.
func TestAlbumMemoryChild(t *testing.T) {
	dir := os.Getenv("EVENTBOX_ALBUM_CHILD")
	if dir == "" {
		t.Skip("run by TestAlbumMemoryBenchmark")
	}
	ctx := context.Background()
	fmt.Println("STAGE start", procStatus())
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fmt.Println("STAGE store", procStatus())
	cfg := daemon.DefaultConfig()
	cfg.DataDir = dir
	cfg.AdminPassword = ownerPassword
	cfg.PasswordCost = bcrypt.MinCost
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	d, err := daemon.New(ctx, cfg, st)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: 5 * time.Minute}
	req, _ := http.NewRequest("POST", srv.URL+"/api/admin/login", strings.NewReader(`{"password":"`+ownerPassword+`"}`))
	req.Header.Set("Origin", srv.URL)
	req.Header.Set("Content-Type", "application/json")
	res, err := hc.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("sign-in: %v %v", err, res)
	}
	res.Body.Close()
	fmt.Println("STAGE signed-in", procStatus())
	if os.Getenv("EVENTBOX_ALBUM_MAKE") != "true" {
		fmt.Println("ALBUM 0 0 0", peakRSS(t))
		return
	}
	start := time.Now()
	res, err = hc.Get(srv.URL + "/api/admin/events/" + os.Getenv("EVENTBOX_ALBUM_EVENT") + "/album?layout=1")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("album: %v %v", err, res)
	}
	defer res.Body.Close()
	// Count pages on the way: each page object says "/Type /Page ".
	pc := &pageCounter{}
	n, err := io.Copy(pc, res.Body)
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Println("STAGE album", procStatus(), fmt.Sprintf("HeapSys %d kB, HeapInuse %d kB, StackSys %d kB, Sys %d kB, NumGC %d, TotalAlloc %d kB", ms.HeapSys>>10, ms.HeapInuse>>10, ms.StackSys>>10, ms.Sys>>10, ms.NumGC, ms.TotalAlloc>>10))
	fmt.Printf("ALBUM %d %d %d %d\n", time.Since(start).Milliseconds(), n, pc.pages, peakRSS(t))
}

// pageCounter counts page objects in a stream without keeping it.
type pageCounter struct {
	pages int
	tail  []byte
}

func (p *pageCounter) Write(b []byte) (int, error) {
	const marker = "/Type /Page /Parent"
	// A marker across the previous chunk's end: tail plus this chunk's
	// start; then whole markers inside this chunk.
	edge := append(p.tail, b[:min(len(b), len(marker)-1)]...)
	p.pages += bytes.Count(edge, []byte(marker)) + bytes.Count(b, []byte(marker))
	if len(b) >= len(marker)-1 {
		p.tail = append(p.tail[:0], b[len(b)-(len(marker)-1):]...)
	} else {
		p.tail = append(p.tail[:0], edge[max(0, len(edge)-(len(marker)-1)):]...)
	}
	return len(b), nil
}

// procStatus returns the memory lines of /proc/self/status.
func procStatus() string {
	b, _ := os.ReadFile("/proc/self/status")
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		for _, k := range []string{"VmHWM", "VmRSS", "RssAnon", "RssFile"} {
			if strings.HasPrefix(l, k+":") {
				out = append(out, strings.Join(strings.Fields(l), " "))
			}
		}
	}
	return strings.Join(out, ", ")
}

// peakRSS is this process's peak resident set (VmHWM), in bytes. The
// kernel's rusage of a child is no use here: it keeps the parent's peak
// from before exec.
func peakRSS(t *testing.T) int64 { return vmKiB(t, os.Getpid(), "VmHWM") << 10 }
