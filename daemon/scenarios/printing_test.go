package scenarios_test

import (
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/daemon/printing/cupstest"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// waitUntil polls cond through the router every 50 ms for up to 30 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// queue answers the print queue as the owner sees it.
func queue(t *testing.T, owner *client) map[string]any {
	t.Helper()
	return owner.do("GET", "/api/admin/printing/queue", nil).expect(t, 200, "").JSON
}

func printsOf(q map[string]any) []map[string]any {
	var out []map[string]any
	for _, p := range q["prints"].([]any) {
		out = append(out, p.(map[string]any))
	}
	return out
}

// TestPrintingThroughCUPS sets printing up in the console against a
// private CUPS with a cups-pdf queue, then: a booth photo prints by itself
// while the printer is stopped, the console and the booth page show why
// and the print waits, the hosts get one printer.attention notice, and
// the photo prints once (at the paper's size, with the gallery link's
// code) when the printer is started again; the booth's own print button
// is bounded by its copies; a host cancels a waiting print.
func TestPrintingThroughCUPS(t *testing.T) {
	testtool.Long(t, "printing through CUPS and Ghostscript")
	testtool.Need(t, "poppler-utils", "pdfinfo", "pdftoppm")
	testtool.Need(t, "zbar-tools", "zbarimg")
	srv := cupstest.Start(t)
	h := newHarness(t, func(c *daemon.Config) { c.CUPS = srv.Socket; c.PrintPoll = 50 * time.Millisecond })
	owner := h.owner()

	// The printers come from CUPS; the settings are checked.
	ps := owner.do("GET", "/api/admin/printing/printers", nil).expect(t, 200, "").JSON
	if ps["available"] != true || !strings.Contains(fmt.Sprint(ps["printers"]), srv.Printer) {
		t.Fatalf("printers: %v", ps)
	}
	for name, body := range map[string]map[string]any{
		"an unknown paper":   {"printer": srv.Printer, "paper": "a3", "autoBooth": true, "boothCopies": 2, "hostPrint": true},
		"too many copies":    {"printer": srv.Printer, "paper": "postcard", "autoBooth": true, "boothCopies": 9, "hostPrint": true},
		"an unknown printer": {"printer": "nowhere", "paper": "postcard", "autoBooth": true, "boothCopies": 2, "hostPrint": true},
	} {
		t.Run(name, func(t *testing.T) {
			owner.do("PUT", "/api/admin/printing", body).expect(t, 400, "bad_request")
		})
	}
	settings := map[string]any{"printer": srv.Printer, "paper": "postcard", "autoBooth": true, "boothCopies": 2, "hostPrint": true}
	got := owner.do("PUT", "/api/admin/printing", settings).expect(t, 200, "").JSON
	if got["printer"].(map[string]any)["state"] != "idle" || got["problem"] != nil {
		t.Fatalf("printing: %v", got)
	}

	ev := h.createEvent(owner, map[string]any{"name": "Lucie & Marc"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	owner.do("PUT", "/api/admin/events/"+id+"/print-layout", map[string]any{"photo": "crop", "frame": true, "qr": true}).expect(t, 200, "")
	key := boothOn(t, owner, id, map[string]any{})["boothKey"].(string)
	dev := boothDevice(t, h, slug, key)

	// The printer runs out of paper; the booth takes a photo.
	srv.Stop("Out of paper")
	photo := dev.upload(slug, photoJPEG(t, 1600, 1200, 1, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)
	var booth map[string]any
	waitUntil(t, "the booth to show the stopped printer", func() bool {
		booth = dev.do("GET", "/api/e/"+slug+"/booth/printing", nil).expect(t, 200, "").JSON
		return booth["problem"] == "paused" && booth["queued"] == float64(1)
	})
	if booth["enabled"] != true || booth["copies"] != float64(2) || booth["printing"] != false {
		t.Errorf("booth printing: %v", booth)
	}
	var q map[string]any
	waitUntil(t, "the print to wait for the printer", func() bool {
		q = queue(t, owner)
		p := printsOf(q)
		return len(p) == 1 && p[0]["status"] == "waiting"
	})
	p := printsOf(q)[0]
	if p["by"] != "auto" || p["photoId"] != photo["id"] || p["error"] == nil {
		t.Errorf("print: %v", p)
	}
	printer := q["printing"].(map[string]any)["printer"].(map[string]any)
	if printer["state"] != "stopped" || printer["message"] != "Out of paper" || q["printing"].(map[string]any)["problem"] != "paused" {
		t.Errorf("printer: %v", q["printing"])
	}
	// Retries while it stays stopped alert once.
	for range 3 {
		h.clock.Advance(6 * time.Second)
		owner.do("PUT", "/api/admin/printing", settings).expect(t, 200, "") // nudges the runner
		time.Sleep(200 * time.Millisecond)
	}
	attention := 0
	for _, n := range notices(t, h) {
		if n.Kind == store.NoticePrinterAttention {
			attention++
		}
	}
	if attention != 1 {
		t.Errorf("%d printer.attention notices, want 1", attention)
	}
	if n := len(srv.PDFs()); n != 0 {
		t.Fatalf("%d PDFs while the printer is stopped", n)
	}

	// Started again: the print goes, once.
	srv.Resume()
	h.clock.Advance(6 * time.Second)
	owner.do("PUT", "/api/admin/printing", settings).expect(t, 200, "")
	pdfs := srv.WaitPDFs(1, 90*time.Second)
	waitUntil(t, "the print to be done", func() bool { return printsOf(queue(t, owner))[0]["status"] == "done" })
	checkPrint(t, pdfs[0], 283.46, 425.2, "http://eventbox.local/e/"+slug)
	booth = dev.do("GET", "/api/e/"+slug+"/booth/printing", nil).expect(t, 200, "").JSON
	if booth["problem"] != nil || booth["queued"] != float64(0) || booth["printing"] != false {
		t.Errorf("booth printing after: %v", booth)
	}

	// The booth's print button: at most its copies, its own photos.
	dev.do("POST", "/api/e/"+slug+"/booth/print", map[string]any{"photoId": photo["id"], "copies": 3}).expect(t, 400, "bad_request")
	guest := h.guest(slug)
	guest.do("POST", "/api/e/"+slug+"/booth/print", map[string]any{"photoId": photo["id"]}).expect(t, 403, "forbidden")
	dev.do("POST", "/api/e/"+slug+"/booth/print", map[string]any{"photoId": photo["id"], "copies": 2}).expect(t, 202, "")
	t.Logf("after the booth's print: %q", srv.WaitPDFs(2, 90*time.Second))

	// A host's print, cancelled while the printer is stopped.
	srv.Stop("Paused for the test")
	pr := owner.do("POST", "/api/admin/events/"+id+"/print", map[string]any{"photoId": photo["id"]}).expect(t, 202, "").JSON["print"].(map[string]any)
	owner.do("DELETE", "/api/admin/printing/queue/"+pr["id"].(string), nil).expect(t, 204, "")
	owner.do("DELETE", "/api/admin/printing/queue/aaaaaaaaaaaaaaaa", nil).expect(t, 404, "not_found")
	srv.Resume()
	owner.do("PUT", "/api/admin/printing", settings).expect(t, 200, "")
	time.Sleep(time.Second)
	before := srv.PDFs()
	for _, p := range before {
		if strings.Contains(p, pr["id"].(string)) {
			t.Errorf("the cancelled print came out: %s", p)
		}
	}

	// The album, on A4 whatever the paper.
	owner.do("POST", "/api/admin/events/"+id+"/print", map[string]any{"document": "album"}).expect(t, 202, "")
	owner.do("POST", "/api/admin/events/"+id+"/print", map[string]any{"document": "signs"}).expect(t, 400, "bad_request")
	pdfs = srv.WaitPDFs(len(before)+1, 120*time.Second)
	checkA4(t, newPDFs(before, pdfs))

	// The signs, as the download takes them; a wrong one is refused first.
	r := owner.do("POST", "/api/admin/events/"+id+"/print", map[string]any{"document": "signage", "signs": "kind=banner"}).expect(t, 400, "bad_request")
	if _, ok := r.details()["kind"]; !ok {
		t.Errorf("a wrong sign: %s", r.Body)
	}
	before = pdfs
	owner.do("POST", "/api/admin/events/"+id+"/print", map[string]any{"document": "signage", "signs": "kind=poster&size=a3&wifi=0"}).expect(t, 202, "")
	checkA4(t, newPDFs(before, srv.WaitPDFs(len(before)+1, 120*time.Second)))
}

// newPDFs answers the one PDF of after that before lacks.
func newPDFs(before, after []string) string {
	for _, p := range after {
		if !slices.Contains(before, p) {
			return p
		}
	}
	return ""
}

// checkA4 checks that a printed PDF is an A4 page.
func checkA4(t *testing.T, pdf string) {
	t.Helper()
	out, err := exec.Command("pdfinfo", pdf).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "595") || !strings.Contains(string(out), "842") {
		t.Errorf("%s is not A4: %v\n%s", pdf, err, out)
	}
}

// checkPrint reads a printed PDF: its page size (either way round) and
// the codes on it.
func checkPrint(t *testing.T, pdf string, wPt, hPt float64, link string) {
	t.Helper()
	w, hh := cupstest.PageSize(t, pdf)
	if w < wPt-2 || w > wPt+2 || hh < hPt-2 || hh > hPt+2 {
		t.Errorf("page %.1f×%.1f pt, want %.1f×%.1f", w, hh, wPt, hPt)
	}
	if codes := cupstest.Codes(t, pdf); len(codes) != 1 || codes[0] != link {
		t.Errorf("codes %q, want the gallery link %s", codes, link)
	}
}

// TestAddingAPrinterFromTheConsole adds a printer CUPS sees but has no
// queue for through the console's routes, against a private CUPS whose
// SystemGroup only may add printers: the printers CUPS sees are listed
// (its cups-pdf backend), bad names and device URIs answer 400 with
// details, organizers and guests are refused, the printer added with
// its driver found by its device id is CUPS's, can be chosen and prints
// the test page as a PDF; and CUPS's refusals answer 502 printer_failed
// with their reason.
func TestAddingAPrinterFromTheConsole(t *testing.T) {
	srv := cupstest.Start(t)
	schemes := func(c *daemon.Config) {
		c.CUPS = srv.Socket
		c.PrintPoll = 50 * time.Millisecond
		c.PrintDevices = []string{"usb", "ipp", "ipps", "dnssd", "cups-pdf"}
	}
	h := newHarness(t, schemes)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Lucie & Marc"})
	organizer := h.organizer("marc", ev["id"].(string))
	guest := h.client()

	ds := owner.do("GET", "/api/admin/printing/devices", nil).expect(t, 200, "").JSON
	var dev map[string]any
	for _, d := range ds["devices"].([]any) {
		if d := d.(map[string]any); d["uri"] == "cups-pdf:/" {
			dev = d
		}
	}
	if ds["available"] != true || dev == nil || dev["deviceId"] == "" || dev["driverless"] != false || dev["name"] == "" {
		t.Fatalf("devices: %v, want cups-pdf:/ with its device id", ds)
	}
	name := "added-" + srv.Printer
	add := map[string]any{"name": name, "uri": srv.PDFDevice(name), "makeModel": dev["makeModel"], "deviceId": dev["deviceId"], "info": "Photo printer"}
	with := func(k string, v any) map[string]any {
		b := maps.Clone(add)
		b[k] = v
		return b
	}
	for _, tc := range []struct {
		name   string
		c      *client
		method string
		path   string
		body   any
		status int
		code   string
		detail string
	}{
		{"a name with a slash", owner, "POST", "/api/admin/printing/printers", with("name", "a/b"), 400, "bad_request", "name"},
		{"an empty name", owner, "POST", "/api/admin/printing/printers", with("name", ""), 400, "bad_request", "name"},
		{"a file device", owner, "POST", "/api/admin/printing/printers", with("uri", "file:///etc/passwd"), 400, "bad_request", "uri"},
		{"a network IPP printer", owner, "POST", "/api/admin/printing/printers", with("uri", "ipp://192.0.2.7/ipp/print"), 400, "bad_request", "uri"},
		{"a socket printer", owner, "POST", "/api/admin/printing/printers", with("uri", "socket://192.0.2.7:9100"), 400, "bad_request", "uri"},
		{"a model on two lines", owner, "POST", "/api/admin/printing/printers", with("makeModel", "a\nb"), 400, "bad_request", "makeModel"},
		{"no driver for it", owner, "POST", "/api/admin/printing/printers", with("deviceId", "MFG:Nobody;MDL:Nothing;"), 502, "printer_failed", "reason=no_driver"},
		{"an organizer adding", organizer, "POST", "/api/admin/printing/printers", add, 403, "forbidden", ""},
		{"an organizer listing", organizer, "GET", "/api/admin/printing/devices", nil, 403, "forbidden", ""},
		{"a guest adding", guest, "POST", "/api/admin/printing/printers", add, 401, "unauthorized", ""},
		{"a guest listing", guest, "GET", "/api/admin/printing/devices", nil, 401, "unauthorized", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.c.do(tc.method, tc.path, tc.body).expect(t, tc.status, tc.code)
			key, value, _ := strings.Cut(tc.detail, "=")
			if got, ok := r.details()[key]; tc.detail != "" && (!ok || value != "" && got != value) {
				t.Fatalf("details: %v, want %s", r.details(), tc.detail)
			}
		})
	}

	got := owner.do("POST", "/api/admin/printing/printers", add).expect(t, 201, "").JSON["printer"].(map[string]any)
	if got["name"] != name || got["state"] != "idle" || got["accepting"] != true || got["info"] != "Photo printer" {
		t.Fatalf("added printer: %v", got)
	}
	ps := owner.do("GET", "/api/admin/printing/printers", nil).expect(t, 200, "").JSON
	if !strings.Contains(fmt.Sprint(ps["printers"]), name) {
		t.Fatalf("printers after adding: %v", ps)
	}
	settings := map[string]any{"printer": name, "paper": "postcard", "autoBooth": false, "boothCopies": 0, "hostPrint": false}
	owner.do("PUT", "/api/admin/printing", settings).expect(t, 200, "")
	owner.do("POST", "/api/admin/printing/test", map[string]any{}).expect(t, 202, "")
	srv.WaitPDFs(1, 90*time.Second)

	// Over TCP the box cannot say who it is: CUPS refuses, and the
	// console is told why.
	tcp := newHarness(t, func(c *daemon.Config) { schemes(c); c.CUPS = srv.Addr }).owner()
	for path, body := range map[string]any{"/api/admin/printing/printers": with("name", "refused"), "/api/admin/printing/devices": nil} {
		method := "GET"
		if body != nil {
			method = "POST"
		}
		r := tcp.do(method, path, body).expect(t, 502, "printer_failed")
		if r.details()["reason"] != "not_authorized" || r.details()["cups"] == "" {
			t.Fatalf("%s over TCP: %v, want not_authorized with CUPS's words", path, r.details())
		}
	}
}
