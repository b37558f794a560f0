package cups_test

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
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
	srv.WaitPDFs(1, 90*time.Second)
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

// TestClientAddsAPrinterCUPSSees lists the printers the private cupsd's
// backends see (its cups-pdf backend, cups-pdf:/), finds their driver
// by the device's own id, adds a queue for one over the socket as the
// SystemGroup's user (PeerCred), and prints a PDF on it. Over TCP, where
// the box cannot say who it is, CUPS refuses the same.
func TestClientAddsAPrinterCUPSSees(t *testing.T) {
	srv := cupstest.Start(t)
	ctx := context.Background()
	c := cups.New(srv.Socket)
	ds, err := c.Devices(ctx, []string{"cups-pdf"}, 5)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(ds, func(d cups.Device) bool { return d.URI == "cups-pdf:/" })
	if i < 0 {
		t.Fatalf("devices: %+v, want cups-pdf:/", ds)
	}
	dev := ds[i]
	if dev.ID == "" || dev.MakeModel == "" || dev.Class == "" {
		t.Fatalf("cups-pdf device without its id, model or class: %+v", dev)
	}
	ppds, err := c.PPDs(ctx, dev.ID, dev.MakeModel, 5)
	if err != nil || len(ppds) == 0 {
		t.Fatalf("drivers for %+v: %+v, %v", dev, ppds, err)
	}
	if !strings.Contains(ppds[0].Name, "CUPS-PDF") {
		t.Fatalf("best driver for cups-pdf: %+v", ppds)
	}

	name := "added-" + srv.Printer
	uri := srv.PDFDevice(name)
	if err := cups.New(srv.Addr).AddPrinter(ctx, name, uri, ppds[0].Name, "Added"); !errors.Is(err, cups.ErrNotAuthorized) {
		t.Fatalf("adding a printer over TCP: %v, want ErrNotAuthorized", err)
	}
	if _, err := cups.New(srv.Addr).Devices(ctx, []string{"cups-pdf"}, 1); !errors.Is(err, cups.ErrNotAuthorized) {
		t.Fatalf("listing devices over TCP: %v, want ErrNotAuthorized", err)
	}
	if err := c.AddPrinter(ctx, name, uri, "no-such-driver.ppd", ""); err == nil || errors.Is(err, cups.ErrNotAuthorized) {
		t.Fatalf("a driver CUPS has not: %v, want CUPS's refusal", err)
	}
	if err := c.AddPrinter(ctx, name, uri, ppds[0].Name, "Added"); err != nil {
		t.Fatal(err)
	}
	ps, err := c.Printers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ps, func(p cups.Printer) bool {
		return p.Name == name && p.Accepting && p.State == cups.PrinterIdle && p.Info == "Added"
	}) {
		t.Fatalf("printers: %+v, want %s accepting and idle", ps, name)
	}
	id, err := c.Print(ctx, cups.PrintRequest{Printer: name, Title: "eventbox-added-1", Document: bytes.NewReader(onePagePDF(t))})
	if err != nil {
		t.Fatal(err)
	}
	waitJob(t, c, name, id, func(j cups.Job) bool { return j.State == cups.JobCompleted })
	srv.WaitPDFs(1, 90*time.Second)
}
