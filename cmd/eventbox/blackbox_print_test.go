package main

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventbox/daemon/printing/cupstest"
	"eventbox/internal/testtool"
)

// vmKiB reads a field of /proc/<pid>/status, in KiB.
func vmKiB(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(field + `:\s+(\d+) kB`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("no %s in /proc/%d/status", field, pid)
	}
	n, _ := strconv.ParseInt(string(m[1]), 10, 64)
	return n
}

// smoothJPEG is a w×h photo of soft gradients (small as a file).
func smoothJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := range h {
		for x := range w {
			img.Y[y*img.YStride+x] = uint8(x * 255 / w)
		}
	}
	for y := range (h + 1) / 2 {
		for x := range (w + 1) / 2 {
			img.Cb[y*img.CStride+x] = uint8(y * 510 / h)
			img.Cr[y*img.CStride+x] = 128
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// printedTitles counts the PDFs cups-pdf wrote per print id (its files
// are named after the CUPS job's name, eventbox-print-<id>).
func printedTitles(srv *cupstest.Server) map[string]int {
	out := map[string]int{}
	re := regexp.MustCompile(`eventbox-print-([a-z0-9]+)`)
	for _, p := range srv.PDFs() {
		if m := re.FindStringSubmatch(filepath.Base(p)); m != nil {
			out[m[1]]++
		}
	}
	return out
}

// TestPrintsExactlyOnceAcrossKills prints photos through a private CUPS
// with the built binary and kills it with SIGKILL at random moments while
// prints are on their way, restarting it on the same data each time: in
// the end each print came out of the printer exactly once. Then, on a
// fresh start, it prints a 48 MP photo on 10×15 cm at 300 dpi and reports
// the daemon's peak RSS.
func TestPrintsExactlyOnceAcrossKills(t *testing.T) {
	testtool.Long(t, "the real binary killed while it prints")
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	srv := cupstest.Start(t)
	bin := buildBinary(t)
	dir := t.TempDir()
	env := []string{"ADMIN_PASSWORD=print-test-password", "CUPS_SERVER=" + srv.Socket}
	d := startDaemon(t, bin, dir, env...)
	signIn := func(d *daemonProc) *browser {
		host := newBrowser(t, d.url)
		host.json("POST", "/api/admin/login", map[string]any{"password": "print-test-password"}, 200)
		return host
	}
	host := signIn(d)
	host.json("PUT", "/api/admin/printing", map[string]any{"printer": srv.Printer, "paper": "postcard",
		"autoBooth": false, "boothCopies": 0, "hostPrint": true}, 200)
	ev := host.json("POST", "/api/admin/events", map[string]any{"name": "Exactly once"}, 201)["event"].(map[string]any)
	id := ev["id"].(string)
	host.json("PUT", "/api/admin/events/"+id+"/print-layout", map[string]any{"photo": "crop", "frame": true, "qr": true}, 200)
	var photos []string
	for i := range 4 {
		photos = append(photos, host.uploadPhoto("/api/admin/events/"+id+"/photos/import", smoothJPEG(t, 1600+i, 1200))["id"].(string))
	}
	big := host.uploadPhoto("/api/admin/events/"+id+"/photos/import", smoothJPEG(t, 8000, 6000))["id"].(string)

	seed := uint64(time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(seed, 2))
	t.Logf("seed %d", seed)
	var prints []string
	kills := 5
	for round := range kills {
		for i := range 2 {
			r := host.json("POST", "/api/admin/events/"+id+"/print", map[string]any{"photoId": photos[(round*2+i)%len(photos)]}, 202)
			prints = append(prints, r["print"].(map[string]any)["id"].(string))
		}
		time.Sleep(time.Duration(rng.IntN(1500)) * time.Millisecond)
		d.cmd.Process.Signal(syscall.SIGKILL)
		<-d.done
		d = startDaemon(t, bin, dir, env...)
		host = signIn(d)
	}
	// Every print ends, each once. The prints go through CUPS one at a
	// time, each through Ghostscript; on a loaded two-core machine (CI's,
	// with the card image building beside it) one took 12 s, so the wait
	// is generous: this test is about each print once, not their speed.
	const printWait = 5 * time.Minute
	deadline := time.Now().Add(printWait)
	for {
		q := host.json("GET", "/api/admin/printing/queue", nil, 200)
		if q["pending"] == float64(0) {
			for _, p := range q["prints"].([]any) {
				if s := p.(map[string]any)["status"]; s != "done" {
					t.Errorf("print %v ended %s", p.(map[string]any)["id"], s)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("prints still pending after %s: %v", printWait, q)
		}
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second) // the last PDF is written after CUPS reports the job done
	got := printedTitles(srv)
	for _, p := range prints {
		if got[p] != 1 {
			t.Errorf("print %s came out %d times, want once", p, got[p])
		}
	}
	if len(got) != len(prints) {
		t.Errorf("%d prints came out, %d were asked for: %v", len(got), len(prints), got)
	}
	if n := strings.Count(d.stderr.String(), "print found at the print server after a restart"); n > 0 {
		t.Logf("%d prints were found at CUPS after a restart instead of being sent again", n)
	}

	// A 48 MP photo on 10×15 cm at 300 dpi, on a fresh start.
	d.cmd.Process.Signal(syscall.SIGTERM)
	<-d.done
	d = startDaemon(t, bin, dir, env...)
	host = signIn(d)
	pid := d.cmd.Process.Pid
	idle := vmKiB(t, pid, "VmHWM")
	before := len(srv.PDFs())
	host.json("POST", "/api/admin/events/"+id+"/print", map[string]any{"photoId": big}, 202)
	srv.WaitPDFs(before+1, 120*time.Second)
	peak := vmKiB(t, pid, "VmHWM")
	t.Logf("printing a 48 MP photo on 10×15 cm at 300 dpi: daemon peak RSS (VmHWM) %.1f MiB (%.1f MiB before the print)",
		float64(peak)/1024, float64(idle)/1024)
	if peak > 400<<10 {
		t.Errorf("peak RSS %d KiB is over the 400 MiB budget", peak)
	}
}
