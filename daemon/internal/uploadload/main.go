// Command uploadload measures eventbox under a burst of uploads: N guests
// on loopback send phone-sized photos at the same time, first to a trivial
// Go server that only streams the bodies to disk, then to the real
// eventbox binary, alternating, and it reports the time until every upload
// has its answer, the bytes the daemon wrote to the disk per byte stored
// and its peak RSS.
//
//	go build -o /tmp/eventbox ./cmd/eventbox
//	go run ./daemon/internal/uploadload -bin /tmp/eventbox
//
// During eventbox's bursts it also samples GET /api/health every 100 ms
// from an address of its own, and each guest, as the guest page's album
// tile does, asks for the preview of each photo it sent as soon as the
// upload is acknowledged, then for its thumbnail.
//
// It exits non-zero when a target is missed: every upload acknowledged,
// the burst's time at most 1.2× the trivial server's, the health check's
// p99 at most 250 ms, the album tile showing each photo (its preview or
// its thumb) p95 at most 10 s after the acknowledgement, at most 1.1
// bytes written per byte stored, peak RSS at most 400 MiB (under pi3 the
// three time bounds doubled). With PROFILE=pi4 or PROFILE=pi3 (or
// -profile) both servers run in a control group of that Pi stand-in
// (internal/piprofile), each in its own; the guests do not.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"eventbox/daemon/internal/loadclient"
	"eventbox/imaging/imagingtest"
	"eventbox/internal/piprofile"
)

func main() {
	bin := flag.String("bin", "", "path to the eventbox binary (required)")
	guests := flag.Int("guests", 20, "concurrent guests")
	photos := flag.Int("photos", 200, "photos in all")
	bases := flag.Int("bases", 8, "distinct images to generate (each photo is one of them with its own bytes)")
	noPreview := flag.Bool("no-preview", false, "photos without the small preview a phone's camera writes in the EXIF block (as an editor's export may be)")
	heicEvery := flag.Int("heic-every", 0, "make every N-th photo a 12 MP grid HEIC with its thumbnail item, as an iPhone writes it (needs heif-enc; 0: none)")
	rounds := flag.Int("rounds", 2, "alternating rounds of trivial server and eventbox")
	profile := flag.String("profile", os.Getenv(piprofile.EnvVar), "run both servers as on a Pi stand-in: pi4 or pi3 (default $PROFILE)")
	serveTrivial := flag.String("serve-trivial", "", "internal: serve the trivial server on this address, into -trivial-dir")
	trivialDir := flag.String("trivial-dir", "", "internal: where -serve-trivial writes")
	resumable := flag.Bool("resumable", false, "each guest sends one large video through the resumable (tus) route, loses its connection mid-piece, and sends the rest")
	videoMB := flag.Int("video-mb", 40, "with -resumable: each video's size in MB")
	pieceMB := flag.Int("piece-mb", 8, "with -resumable: the most one PATCH sends, in MB (0: all the rest, as the guest page does)")
	flag.Parse()
	if *serveTrivial != "" {
		l, err := net.Listen("tcp", *serveTrivial)
		if err != nil {
			fmt.Fprintln(os.Stderr, "uploadload:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "uploadload: trivial server:", (&http.Server{Handler: trivialHandler(*trivialDir)}).Serve(l))
		os.Exit(1)
	}
	prof, withProfile, err := piprofile.Lookup(*profile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "uploadload:", err)
		os.Exit(2)
	}
	var pp *piprofile.Profile
	if withProfile {
		pp = &prof
		fmt.Printf("both servers under %s; the guests are not limited\n", prof)
	}
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "uploadload: -bin is required")
		os.Exit(2)
	}
	if *resumable {
		err = runResumable(*bin, *guests, *videoMB*1e6, *pieceMB*1e6, pp)
	} else {
		err = run(*bin, *guests, *photos, *bases, *rounds, !*noPreview, *heicEvery, pp)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "uploadload:", err)
		os.Exit(1)
	}
}

// bounds are the targets a run is held to: the burst's time against the
// trivial server's, GET /api/health's p99 during the burst, the time from
// an upload's acknowledgement to its thumbnail (p95), and the daemon's
// peak RSS. Under pi3 the time bounds are doubled.
type bounds struct {
	ratio  float64
	health time.Duration
	thumb  time.Duration
	rss    int64
}

func boundsFor(prof *piprofile.Profile) bounds {
	b := bounds{ratio: 1.2, health: 250 * time.Millisecond, thumb: 10 * time.Second, rss: 400 << 20}
	if prof != nil && prof.Name == "pi3" {
		b.ratio, b.health, b.thumb = 2*b.ratio, 2*b.health, 2*b.thumb
	}
	return b
}

func run(bin string, guests, n, bases, rounds int, preview bool, heicEvery int, prof *piprofile.Profile) error {
	start := time.Now()
	files, err := makePhotos(n, bases, preview, heicEvery)
	if err != nil {
		return err
	}
	var total int64
	for _, f := range files {
		total += int64(len(f))
	}
	with := "with"
	if !preview {
		with = "without"
	}
	heics := 0
	for _, f := range files {
		if isHEIC(f) {
			heics++
		}
	}
	fmt.Printf("%d photos (%d of them grid HEICs with a thumbnail item), %.1f MB each on average, %s the camera's preview (made in %v), %d guests\n",
		n, heics, float64(total)/float64(n)/1e6, with, time.Since(start).Round(time.Millisecond), guests)
	want := boundsFor(prof)
	var trivial, box []time.Duration
	var ratios []float64
	var peak int64
	var health, shown, shownHEIC, thumbs []time.Duration
	acked, sent := 0, 0
	var written, stored int64
	for round := 1; round <= rounds; round++ {
		tr, err := runTrivial(files, guests, prof)
		if err != nil {
			return fmt.Errorf("trivial server: %w", err)
		}
		if tr.acked != len(files) {
			return fmt.Errorf("trivial server: %d of %d uploads acknowledged: %w", tr.acked, len(files), tr.err)
		}
		trivial = append(trivial, tr.d)
		r, err := runEventbox(bin, files, guests, prof)
		if err != nil {
			return fmt.Errorf("eventbox: %w", err)
		}
		box = append(box, r.d)
		ratios = append(ratios, float64(r.d)/float64(tr.d))
		peak = max(peak, r.rss)
		health = append(health, r.health...)
		shown = append(shown, r.shown...)
		shownHEIC = append(shownHEIC, r.shownHEIC...)
		thumbs = append(thumbs, r.thumbs...)
		acked += r.acked
		sent += len(files)
		written += r.written
		stored += r.bytes
		if r.err != nil {
			fmt.Println("eventbox:", r.err)
		}
		fmt.Printf("round %d: trivial %v, eventbox %v (%.2f×), %d of %d acknowledged; health p50 %v p99 %v max %v (%d samples); tile shows the photo p95 %v, thumbs %d, p95 %v max %v; peak RSS %.1f MiB\n",
			round, tr.d.Round(time.Millisecond), r.d.Round(time.Millisecond), float64(r.d)/float64(tr.d),
			r.acked, len(files), pct(r.health, 50), pct(r.health, 99), pct(r.health, 100), len(r.health),
			pct(r.shown, 95), len(r.thumbs), pct(r.thumbs, 95), pct(r.thumbs, 100), float64(r.rss)/(1<<20))
	}
	// Rounds are paired (the same photos, back to back), so the ratio is
	// the median of the rounds' ratios.
	sort.Float64s(ratios)
	ratio := ratios[len(ratios)/2]
	hp99, sp95 := pct(health, 99), pct(shown, 95)
	missed := []string{}
	check := func(ok bool, what string) string {
		if !ok {
			missed = append(missed, what)
			return "MISSED"
		}
		return "ok"
	}
	fmt.Printf("median: trivial %v, eventbox %v\n", median(trivial).Round(time.Millisecond), median(box).Round(time.Millisecond))
	fmt.Printf("  acknowledged      %d of %d (target all) %s\n", acked, sent, check(acked == sent, "acknowledged"))
	fmt.Printf("  burst time ratio  %.2f× (median of %d rounds; target ≤ %.2f×) %s\n", ratio, len(ratios), want.ratio, check(ratio <= want.ratio, "ratio"))
	fmt.Printf("  GET /api/health   p50 %v, p99 %v, max %v over %d samples (target p99 ≤ %v) %s\n",
		pct(health, 50), hp99, pct(health, 100), len(health), want.health, check(len(health) > 0 && hp99 <= want.health, "health p99"))
	fmt.Printf("  ack → tile shows  p50 %v, p95 %v, max %v over %d photos: the camera's preview or the thumb (target p95 ≤ %v) %s\n",
		pct(shown, 50), sp95, pct(shown, 100), len(shown), want.thumb, check(len(shown) == acked && sp95 <= want.thumb, "album tile p95"))
	if heics > 0 {
		hp95 := pct(shownHEIC, 95)
		fmt.Printf("  ... of the HEICs  p50 %v, p95 %v, max %v over %d photos: the thumbnail item or the thumb (target p95 ≤ %v) %s\n",
			pct(shownHEIC, 50), hp95, pct(shownHEIC, 100), len(shownHEIC), want.thumb, check(len(shownHEIC) == heics*rounds && hp95 <= want.thumb, "HEIC album tile p95"))
	}
	fmt.Printf("  ack → thumbnail   p50 %v, p95 %v, max %v over %d photos (the thumb itself, made while the burst goes on)\n",
		pct(thumbs, 50), pct(thumbs, 95), pct(thumbs, 100), len(thumbs))
	perByte := float64(written) / float64(max(stored, 1))
	fmt.Printf("  disk writes       %.3f bytes written per byte stored during the bursts (target ≤ 1.1) %s\n", perByte, check(perByte <= 1.1, "disk writes"))
	fmt.Printf("  peak RSS          %.1f MiB (target ≤ %d MiB) %s\n", float64(peak)/(1<<20), want.rss>>20, check(peak <= want.rss, "peak RSS"))
	if len(missed) > 0 {
		return fmt.Errorf("missed: %s", strings.Join(missed, ", "))
	}
	return nil
}

// pct is the p-th percentile (nearest rank) of ds, rounded to the
// millisecond; 0 for none.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))].Round(time.Millisecond)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// makePhotos makes n JPEGs of about 10 MB: bases distinct 12-megapixel
// images with sensor-like noise, each copy made unique by a comment
// segment so the daemon sees n different uploads. With preview each
// carries, as a phone camera's photos do, an EXIF block with a 160×120
// preview (the DCF size) of the picture. With heicEvery above 0, every
// heicEvery-th photo is instead a copy of a 12 MP grid HEIC as an iPhone
// writes it (4032×3024 in 512×512 tiles, a 320×240 thumbnail item),
// made unique by a free box at its end.
func makePhotos(n, bases int, preview bool, heicEvery int) ([][]byte, error) {
	var heic []byte
	if heicEvery > 0 {
		dir, err := os.MkdirTemp("", "uploadload-heic-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if heic, _, err = imagingtest.GridPictureThumbWith(imagingtest.Medium, dir, 4032, 3024, 4, 0, 320, 240); err != nil {
			return nil, fmt.Errorf("making the HEIC: %w", err)
		}
	}
	base := make([][]byte, bases)
	var wg sync.WaitGroup
	for i := range base {
		wg.Add(1)
		go func() {
			defer wg.Done()
			base[i] = phonePhoto(uint64(i), preview)
		}()
	}
	wg.Wait()
	out := make([][]byte, n)
	for i := range out {
		if heicEvery > 0 && i%heicEvery == heicEvery-1 {
			out[i] = append(append([]byte{}, heic...), fmt.Sprintf("\x00\x00\x00\x16freephoto-%08d", i)...)
			continue
		}
		b := base[i%bases]
		com := []byte(fmt.Sprintf("\xff\xfe\x00\x10photo-%08d", i))
		out[i] = append(append(append([]byte{}, b[:2]...), com...), b[2:]...)
	}
	return out, nil
}

// isHEIC reports whether b is a HEIF file (an ftyp box first).
func isHEIC(b []byte) bool { return len(b) >= 8 && string(b[4:8]) == "ftyp" }

func phonePhoto(seed uint64, preview bool) []byte {
	const w, h = 4032, 3024
	rng := rand.New(rand.NewPCG(seed, 7))
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := 0; y < h; y++ {
		row := img.Y[y*img.YStride:]
		for x := 0; x < w; x++ {
			v := (x*255/w+y*255/h)/2 + int(rng.NormFloat64()*28)
			row[x] = uint8(max(0, min(255, v)))
		}
	}
	for i := range img.Cb {
		img.Cb[i] = uint8(110 + rng.IntN(40))
		img.Cr[i] = uint8(120 + rng.IntN(40))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 93}); err != nil {
		panic(err)
	}
	if !preview {
		return buf.Bytes()
	}
	// The preview a phone camera writes: 160×120, the DCF size.
	return imagingtest.WithAPP1(buf.Bytes(), imagingtest.EXIFWithPreview(1, imagingtest.PreviewOf(img, 160, 120)))
}

// trivialHandler streams each multipart body to a file in dir, fsyncs it
// and answers 201.
func trivialHandler(dir string) http.Handler {
	var seq int64
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			mu.Lock()
			seq++
			name := filepath.Join(dir, strconv.FormatInt(seq, 10))
			mu.Unlock()
			f, err := os.Create(name)
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			_, err = io.Copy(f, part)
			if err == nil {
				err = f.Sync()
			}
			f.Close()
			if err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
		}
		w.WriteHeader(201)
	})
}

// runTrivial times the uploads against a server that streams each
// multipart body to a file, fsyncs it and answers 201: the floor the
// daemon is compared with. Under a profile the server is this program
// again (-serve-trivial), in the profile's control group.
func runTrivial(files [][]byte, guests int, prof *piprofile.Profile) (photoBurst, error) {
	dir, err := os.MkdirTemp("", "trivial-")
	if err != nil {
		return photoBurst{}, err
	}
	defer os.RemoveAll(dir)
	var url string
	if prof == nil {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return photoBurst{}, err
		}
		srv := &http.Server{Handler: trivialHandler(dir)}
		go srv.Serve(l)
		defer srv.Close()
		url = "http://" + l.Addr().String()
	} else {
		self, err := os.Executable()
		if err != nil {
			return photoBurst{}, err
		}
		addr, err := loadclient.FreeAddr()
		if err != nil {
			return photoBurst{}, err
		}
		g, err := prof.NewGroup("trivial")
		if err != nil {
			return photoBurst{}, err
		}
		defer g.Close()
		cmd := g.Command(self, "-serve-trivial", addr, "-trivial-dir", dir)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return photoBurst{}, err
		}
		defer func() {
			cmd.Process.Kill()
			cmd.Wait()
		}()
		if err := waitListening(addr); err != nil {
			return photoBurst{}, err
		}
		url = "http://" + addr
	}
	clients := make([]*http.Client, guests)
	for i := range clients {
		clients[i] = guestClient(i) // the same phones as against eventbox
	}
	return uploadAll(clients, url, "/upload", url, files, nil), nil
}

// waitListening waits until something accepts connections on addr.
func waitListening(addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("nothing listening on %s within 30 s", addr)
}

// box is a running eventbox binary with an event the guests have joined.
type box struct {
	cmd     *exec.Cmd
	url     string
	slug    string
	clients []*http.Client
	stop    func()
}

// startBox starts the daemon on a fresh DATA_DIR (in the profile's control
// group when prof is set), makes an event and lets the guests join, each
// from its own address. stop ends the daemon and removes its data.
func startBox(bin string, guests int, prof *piprofile.Profile) (*box, error) {
	dir, err := os.MkdirTemp("", "eventbox-load-")
	if err != nil {
		return nil, err
	}
	var undo []func()
	stop := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	undo = append(undo, func() { os.RemoveAll(dir) })
	addr, err := loadclient.FreeAddr()
	if err != nil {
		stop()
		return nil, err
	}
	cmd := exec.Command(bin, "serve")
	if prof != nil {
		g, err := prof.NewGroup("eventbox")
		if err != nil {
			stop()
			return nil, err
		}
		undo = append(undo, func() { g.Close() }) // after the Wait below
		cmd = g.Command(bin, "serve")
	}
	cmd.Env = append(os.Environ(), "LISTEN_ADDR="+addr, "DATA_DIR="+dir, "ADMIN_PASSWORD=load-test-password", "MDNS_NAME=off", "LOG_LEVEL=warn")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		stop()
		return nil, err
	}
	undo = append(undo, func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	b := &box{cmd: cmd, url: "http://" + addr, stop: stop}
	if err := b.join(guests); err != nil {
		stop()
		return nil, err
	}
	return b, nil
}

// join waits for the daemon, makes an event and lets the guests join.
func (b *box) join(guests int) error {
	if err := waitHealthy(b.url); err != nil {
		return err
	}
	admin := newClient()
	if err := loadclient.Post(admin, b.url, "/api/admin/login", `{"password":"load-test-password"}`, nil); err != nil {
		return err
	}
	var created struct{ Event struct{ Slug string } }
	if err := loadclient.Post(admin, b.url, "/api/admin/events", `{"name":"Load test"}`, &created); err != nil {
		return err
	}
	b.slug = created.Event.Slug
	b.clients = make([]*http.Client, guests)
	for i := range b.clients {
		b.clients[i] = guestClient(i)
		if err := loadclient.Post(b.clients[i], b.url, "/api/e/"+b.slug+"/join", "", nil); err != nil {
			return err
		}
	}
	return nil
}

// boxRound is what one eventbox round measured.
type boxRound struct {
	photoBurst
	// health are GET /api/health's latencies sampled during the burst.
	health []time.Duration
	// shown and thumbs are, per photo, the time from its upload's
	// acknowledgement until its album tile showed the photo (its preview
	// or its thumb) and until its thumbnail was served.
	shown, thumbs []time.Duration
	// shownHEIC is shown for the HEICs alone.
	shownHEIC []time.Duration
	rss       int64
	// written is what the daemon wrote to the disk during the burst
	// (/proc/<pid>/io write_bytes).
	written int64
}

// runEventbox starts the daemon and times the uploads while a monitor on
// an address of its own asks for GET /api/health every 100 ms and each
// guest, as the guest page's album does, asks for the thumbnail of each
// photo it has sent as soon as the upload is acknowledged (again while it
// is the placeholder). Then it fetches every thumb through the album and
// reads the peak RSS.
func runEventbox(bin string, files [][]byte, guests int, prof *piprofile.Profile) (boxRound, error) {
	b, err := startBox(bin, guests, prof)
	if err != nil {
		return boxRound{}, err
	}
	defer b.stop()
	var out boxRound
	stopHealth := make(chan struct{})
	healthDone := make(chan []time.Duration)
	go func() { healthDone <- sampleHealth(b.url, stopHealth) }()
	var mu sync.Mutex
	var wg sync.WaitGroup
	onAck := func(guest int, file []byte, body []byte, at time.Time) {
		var ans struct{ Photo struct{ ID string } }
		if json.Unmarshal(body, &ans) != nil || ans.Photo.ID == "" {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if d, ok := waitTile(b.clients[guest], b.url, ans.Photo.ID, at); ok {
				mu.Lock()
				out.shown = append(out.shown, d.shown)
				if isHEIC(file) {
					out.shownHEIC = append(out.shownHEIC, d.shown)
				}
				out.thumbs = append(out.thumbs, d.thumb)
				mu.Unlock()
			}
		}()
	}
	before, err := writeBytes(b.cmd.Process.Pid)
	if err != nil {
		return boxRound{}, err
	}
	out.photoBurst = uploadAll(b.clients, b.url, "/api/e/"+b.slug+"/photos", b.url, files, onAck)
	after, err := writeBytes(b.cmd.Process.Pid)
	if err != nil {
		return boxRound{}, err
	}
	out.written = after - before
	close(stopHealth)
	out.health = <-healthDone
	wg.Wait()
	if err := fetchThumbs(b.clients, b.url, b.slug); err != nil {
		return boxRound{}, err
	}
	out.rss, err = peakRSS(b.cmd.Process.Pid)
	return out, err
}

// thumbDeadline is how long a guest's album keeps asking for a thumbnail.
const thumbDeadline = 10 * time.Minute

// tileTimes is how long after its acknowledgement a photo's album tile
// first showed the photo (the camera's preview or the thumb) and showed
// its thumb.
type tileTimes struct {
	shown, thumb time.Duration
}

// waitTile does what the guest page's album tile does for a photo just
// sent (thumbReady false): it asks for ?v=preview, answered at once with
// the camera's own preview (or the placeholder when the photo has none),
// then for the thumb, which waits while the box makes it; it asks again
// every 250 ms while the placeholder answers (its ETag is not the
// photo's). shown is when the first answer carrying the photo came;
// false when the thumb never came within thumbDeadline.
func waitTile(c *http.Client, url, id string, acked time.Time) (tileTimes, bool) {
	var out tileTimes
	get := func(v string) string {
		res, err := c.Get(url + "/api/media/" + id + "?v=" + v)
		if err != nil {
			return ""
		}
		io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return ""
		}
		return res.Header.Get("ETag")
	}
	if get("preview") == `"`+id+`-preview"` {
		out.shown = time.Since(acked)
	}
	for time.Since(acked) < thumbDeadline {
		et := get("thumb")
		if et == `"`+id+`-thumb-rough"` && out.shown == 0 {
			out.shown = time.Since(acked) // a HEIC's thumbnail item, shown until the sharp thumb
		}
		if et == `"`+id+`-thumb"` {
			out.thumb = time.Since(acked)
			if out.shown == 0 {
				out.shown = out.thumb
			}
			return out, true
		}
		time.Sleep(250 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "uploadload: thumbnail of %s not served within %v\n", id, thumbDeadline)
	return out, false
}

// sampleHealth asks for GET /api/health every 100 ms, from 127.0.1.1 (an
// address no guest uses), until stop is closed, and answers the
// latencies; a failed or non-200 answer counts as the time it took
// plus a minute, so that it shows as a miss.
func sampleHealth(url string, stop <-chan struct{}) []time.Duration {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, 1)}, Timeout: 30 * time.Second}
	c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DialContext: d.DialContext}}
	var out []time.Duration
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return out
		case <-tick.C:
		}
		start := time.Now()
		res, err := c.Get(url + "/api/health")
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
		}
		took := time.Since(start)
		if err != nil || res.StatusCode != 200 {
			took += time.Minute
		}
		out = append(out, took)
	}
}

func newClient() *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: 5 * time.Minute}
}

// guestClient is guest i's phone: its own cookies and its own address,
// 127.0.0.(10+i) (all of 127/8 is the loopback), as each phone on the
// hotspot has its own; the box bounds the uploads in flight per address.
func guestClient(i int) *http.Client {
	c := newClient()
	n := 10 + i
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, byte(n/250), byte(n%250))}, Timeout: 30 * time.Second}
	c.Transport = &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 4, ExpectContinueTimeout: time.Minute}
	return c
}

func waitHealthy(url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		res, err := http.Get(url + "/api/health")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("daemon not healthy within 30 s")
}

// photoBurst is what uploadAll measured: the time until the last answer and
// how many uploads were acknowledged (the first error otherwise).
type photoBurst struct {
	d     time.Duration
	acked int
	bytes int64 // of the acknowledged uploads' files
	err   error
}

// uploadAll sends the files as multipart uploads, split evenly over the
// clients, each client one upload at a time (going on after a failed
// one), and times them until the last answer. onAck, when not nil, is
// told of each acknowledged upload: the guest, the file, the answer's
// body and when it came.
func uploadAll(clients []*http.Client, url, path, origin string, files [][]byte, onAck func(guest int, file, body []byte, at time.Time)) photoBurst {
	start := time.Now()
	var mu sync.Mutex
	var out photoBurst
	var wg sync.WaitGroup
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := i; j < len(files); j += len(clients) {
				body, err := uploadOne(c, url+path, origin, files[j])
				at := time.Now()
				mu.Lock()
				if err != nil && out.err == nil {
					out.err = err
				} else if err == nil {
					out.acked++
					out.bytes += int64(len(files[j]))
				}
				mu.Unlock()
				if err == nil && onAck != nil {
					onAck(i, files[j], body, at)
				}
			}
		}()
	}
	wg.Wait()
	out.d = time.Since(start)
	return out
}

func uploadOne(c *http.Client, url, origin string, data []byte) ([]byte, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		name := "PXL_0001.jpg"
		if isHEIC(data) {
			name = "IMG_0001.HEIC"
		}
		fw, err := mw.CreateFormFile("photo", name)
		if err == nil {
			_, err = fw.Write(data)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequestWithContext(context.Background(), "POST", url, pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", origin)
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 201 && res.StatusCode != 200 {
		return nil, fmt.Errorf("upload answered %d: %s", res.StatusCode, body)
	}
	return body, nil
}

// fetchThumbs asks for every photo's thumb, which waits for (or makes)
// the variants: the image work then counts in the peak RSS.
func fetchThumbs(clients []*http.Client, url, slug string) error {
	for _, c := range clients {
		before := ""
		for {
			req, _ := http.NewRequest("GET", url+"/api/e/"+slug+"/photos"+before, nil)
			res, err := c.Do(req)
			if err != nil {
				return err
			}
			var page struct {
				Photos     []struct{ ID string }
				NextCursor *int64
			}
			err = json.NewDecoder(res.Body).Decode(&page)
			res.Body.Close()
			if err != nil {
				return err
			}
			for _, p := range page.Photos {
				res, err := c.Get(url + "/api/media/" + p.ID + "?v=thumb")
				if err != nil {
					return err
				}
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != 200 {
					return fmt.Errorf("thumb of %s answered %d", p.ID, res.StatusCode)
				}
			}
			if page.NextCursor == nil {
				break
			}
			before = "?before=" + strconv.FormatInt(*page.NextCursor, 10)
		}
	}
	return nil
}

// writeBytes reads how many bytes the process has caused to be written
// to the disk (/proc/<pid>/io write_bytes).
func writeBytes(pid int) (int64, error) { return procNumber(pid, "io", "write_bytes", 1) }

// peakRSS reads the process's high-water mark of resident memory.
func peakRSS(pid int) (int64, error) { return procMemory(pid, "VmHWM") }

// procMemory reads one of the process's memory figures (VmHWM, VmRSS) in
// bytes from /proc.
func procMemory(pid int, field string) (int64, error) {
	return procNumber(pid, "status", field, 1<<10) // in kB there
}

// procNumber reads the number after "key:" in /proc/<pid>/<file>, times
// unit.
func procNumber(pid int, file, key string, unit int64) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			return n * unit, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/%s", key, pid, file)
}
