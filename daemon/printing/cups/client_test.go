package cups_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/phpdave11/gofpdf"

	"eventbox/daemon/printing/cups"
	"eventbox/daemon/printing/cupstest"
)

func onePagePDF(t *testing.T) []byte {
	t.Helper()
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "mm", Size: gofpdf.SizeType{Wd: 100, Ht: 150}})
	pdf.AddPage()
	pdf.Rect(10, 10, 80, 130, "D")
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func waitJob(t *testing.T, c *cups.Client, printer string, id int, want func(cups.Job) bool) cups.Job {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		j, err := c.Job(context.Background(), printer, id)
		if err != nil {
			t.Fatal(err)
		}
		if want(j) {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d stayed %+v", id, j)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestClientPrintsThroughAPrivateCUPS drives every operation the box uses
// against a real cupsd over both its socket and its TCP port.
func TestClientPrintsThroughAPrivateCUPS(t *testing.T) {
	srv := cupstest.Start(t)
	ctx := context.Background()
	for _, addr := range []string{srv.Socket, srv.Addr} {
		c := cups.New(addr)
		ps, err := c.Printers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(ps, func(p cups.Printer) bool { return p.Name == srv.Printer && p.Accepting }) {
			t.Fatalf("printers over %s: %+v, want %s accepting", addr, ps, srv.Printer)
		}
	}
	c := cups.New(srv.Socket)
	p, err := c.Printer(ctx, srv.Printer)
	if err != nil || p.State != cups.PrinterIdle || len(p.Reasons) != 0 {
		t.Fatalf("printer: %+v, %v; want idle without reasons", p, err)
	}
	if _, err := c.Printer(ctx, "no-such-printer"); !errors.Is(err, cups.ErrNotFound) {
		t.Fatalf("unknown printer: %v, want ErrNotFound", err)
	}

	// Stopped: the reason shows, a job waits, and prints once resumed.
	srv.Stop("Out of paper")
	p, err = c.Printer(ctx, srv.Printer)
	if err != nil || p.State != cups.PrinterStopped || !slices.Contains(p.Reasons, "paused") || p.Message != "Out of paper" {
		t.Fatalf("stopped printer: %+v, %v", p, err)
	}
	id, err := c.Print(ctx, cups.PrintRequest{Printer: srv.Printer, Title: "eventbox-print-1", Media: "om_small-photo_100x150mm",
		Copies: 1, Document: bytes.NewReader(onePagePDF(t))})
	if err != nil {
		t.Fatal(err)
	}
	j := waitJob(t, c, srv.Printer, id, func(j cups.Job) bool { return j.State == cups.JobPending })
	if j.Documents != 1 || j.Name != "eventbox-print-1" {
		t.Fatalf("pending job: %+v", j)
	}
	if len(srv.PDFs()) != 0 {
		t.Fatal("a stopped printer printed")
	}
	found, ok, err := c.FindJob(ctx, srv.Printer, "eventbox-print-1")
	if err != nil || !ok || found.ID != id {
		t.Fatalf("FindJob: %+v %v %v, want job %d", found, ok, err, id)
	}
	if _, ok, _ := c.FindJob(ctx, srv.Printer, "eventbox-print-2"); ok {
		t.Fatal("FindJob found a job never sent")
	}
	srv.Resume()
	waitJob(t, c, srv.Printer, id, func(j cups.Job) bool { return j.State == cups.JobCompleted })
	srv.WaitPDFs(1, 30*time.Second)
	// A finished job is still found (the history), so it is never sent twice.
	if found, ok, err := c.FindJob(ctx, srv.Printer, "eventbox-print-1"); err != nil || !ok || !found.Finished() {
		t.Fatalf("finished job: %+v %v %v", found, ok, err)
	}

	// Cancel a waiting job.
	srv.Stop("paused by the test")
	id2, err := c.Print(ctx, cups.PrintRequest{Printer: srv.Printer, Title: "eventbox-print-3", Document: bytes.NewReader(onePagePDF(t))})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Cancel(ctx, srv.Printer, id2); err != nil {
		t.Fatal(err)
	}
	waitJob(t, c, srv.Printer, id2, func(j cups.Job) bool { return j.State == cups.JobCanceled })
	if err := c.Cancel(ctx, srv.Printer, id2); err != nil {
		t.Fatalf("cancelling a cancelled job: %v", err)
	}
}
