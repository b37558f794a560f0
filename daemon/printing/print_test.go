package printing_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/jpeg"
	"log/slog"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	"eventbox/assets"
	"eventbox/daemon/jobs"
	"eventbox/daemon/printing"
	"eventbox/daemon/printing/cups"
	"eventbox/daemon/printing/cupstest"
	"eventbox/imaging"
	"eventbox/internal/testtool"
	"eventbox/qr"
	"eventbox/store"
)

// box is a store, printing over a private CUPS, and a job runner.
type box struct {
	st     *store.Store
	api    *printing.API
	srv    *cupstest.Server
	runner *jobs.Runner
	event  store.Event
}

func newBox(t *testing.T) *box {
	t.Helper()
	srv := cupstest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	st, err := store.Open(ctx, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rd, err := qr.NewRendererFS(assets.Fonts(), assets.CaptionFonts()...)
	if err != nil {
		t.Fatal(err)
	}
	b := &box{st: st, srv: srv}
	b.api = printing.New(printing.Config{Store: st, CUPS: cups.New(srv.Socket), Pool: imaging.NewPool(imaging.PoolConfig{}),
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})), QR: rd, DefaultOrigin: "http://eventbox.local", Poll: 100 * time.Millisecond,
		Notify:  func() { b.runner.Notify(store.PrintJobKind) },
		Notices: testNotices{t}})
	if b.runner, err = jobs.New(jobs.Config{Store: st, Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})), Kinds: []jobs.Kind{b.api.Kind()}, Poll: 200 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { b.runner.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done; st.Close() })
	b.event = store.Event{Name: "Lucie & Marc", EventDate: "2026-06-20", DefaultLocale: "fr"}
	if err := st.Events().Create(ctx, &b.event); err != nil {
		t.Fatal(err)
	}
	if err := st.Printing().SaveSettings(ctx, store.PrintSettings{Printer: srv.Printer, Paper: store.PaperPostcard, HostPrint: true}); err != nil {
		t.Fatal(err)
	}
	return b
}

// photo stores a w×h JPEG photo of the event: a blue left half, an
// orange right half.
func (b *box) photo(t *testing.T, w, h int) store.Photo {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{30, 80, 200, 255}
			if x >= w/2 {
				c = color.RGBA{240, 140, 20, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 85}); err != nil {
		t.Fatal(err)
	}
	p := store.Photo{ID: store.NewID(), EventID: b.event.ID, Status: store.StatusVisible, Width: w, Height: h, Size: int64(buf.Len())}
	if _, err := b.st.Media().Write(p.OriginalName(), bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	res, err := b.st.Photos().Add(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res.Photo
}

func (b *box) print(t *testing.T, pj store.PrintJob) {
	t.Helper()
	if pj.ID == "" {
		pj.ID = store.NewID()
	}
	sp, err := store.PrintJobSpec(pj)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.Jobs().Enqueue(context.Background(), sp); err != nil {
		t.Fatal(err)
	}
	b.runner.Notify(store.PrintJobKind)
}

// newest answers the PDF of the highest CUPS job (cups-pdf names them
// TITLE-job_N.pdf).
func newest(pdfs []string) string {
	best, bestN := "", -1
	for _, p := range pdfs {
		m := regexp.MustCompile(`job_(\d+)\.pdf$`).FindStringSubmatch(p)
		if m == nil {
			continue
		}
		if n, _ := strconv.Atoi(m[1]); n > bestN {
			best, bestN = p, n
		}
	}
	return best
}

func near(a, b float64) bool { return math.Abs(a-b) < 2 }

// TestAPhotoPrintsAtThePapersSizeWithItsLayout prints a photo of the
// event on each paper through a real CUPS and cups-pdf, and reads the
// PDF it wrote: the paper's size, and the gallery link's code in the
// frame (twice on the strips' sheet).
func TestAPhotoPrintsAtThePapersSizeWithItsLayout(t *testing.T) {
	testtool.Unraced(t, "scaling photos to the print's pixels")
	testtool.Need(t, "poppler-utils", "pdfinfo", "pdftoppm")
	b := newBox(t)
	ctx := context.Background()
	if err := b.st.Printing().SaveLayout(ctx, b.event.ID, store.PrintLayout{Frame: true, QR: true}); err != nil {
		t.Fatal(err)
	}
	ph := b.photo(t, 1600, 1200)
	link := "http://eventbox.local/e/" + b.event.Slug
	for i, tc := range []struct {
		paper     string
		wPt, hPt  float64
		wantCodes int
	}{
		{store.PaperPostcard, 283.46, 425.2, 1},
		{store.PaperStrips, 288, 432, 2},
		{store.PaperA6, 297.64, 419.53, 1},
		{store.PaperA4, 595.28, 841.89, 1},
	} {
		t.Run(tc.paper, func(t *testing.T) {
			if err := b.st.Printing().SaveSettings(ctx, store.PrintSettings{Printer: b.srv.Printer, Paper: tc.paper}); err != nil {
				t.Fatal(err)
			}
			b.print(t, store.PrintJob{Document: store.PrintPhoto, PhotoID: ph.ID, EventID: ph.EventID, Copies: 1, By: "host"})
			pdf := newest(b.srv.WaitPDFs(i+1, 120*time.Second))
			w, h := cupstest.PageSize(t, pdf)
			if !near(w, tc.wPt) || !near(h, tc.hPt) {
				t.Errorf("%s: page %.1f×%.1f pt, want %.1f×%.1f", tc.paper, w, h, tc.wPt, tc.hPt)
			}
			got := cupstest.Codes(t, pdf)
			if len(got) != tc.wantCodes {
				t.Fatalf("%s: codes %q, want %d of %s", tc.paper, got, tc.wantCodes, link)
			}
			for _, c := range got {
				if c != link {
					t.Errorf("%s: code %q, want %q", tc.paper, c, link)
				}
			}
		})
	}
}

// testNotices makes the notices' jobs as the daemon does, without an
// outbox to wake.
type testNotices struct{ t *testing.T }

func (n testNotices) Notice(kind, eventID string, data any) []store.JobSpec {
	sp, err := store.NoticeJobSpec(store.Notice{Kind: kind, EventID: eventID}, data)
	if err != nil {
		n.t.Error(err)
	}
	return []store.JobSpec{sp}
}

func (testNotices) Queued() {}
