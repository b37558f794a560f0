package scenarios_test

import (
	"encoding/binary"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"eventbox/daemon"
	"eventbox/store"
)

// fakeCUPS is a print server that answers the few IPP operations a print
// takes, with one idle printer that accepts jobs. A holding one answers
// nothing: each request waits until the test ends, as a print server that
// has hung. Every operation is told on asked, the title of every
// Print-Job on printed.
type fakeCUPS struct {
	srv     *httptest.Server
	asked   chan uint16
	printed chan string
}

// The IPP operations the fake tells apart.
const (
	ippPrintJob         = 0x0002
	ippGetJobAttributes = 0x0009
	ippGetJobs          = 0x000A
)

var printTitle = regexp.MustCompile(`eventbox-print-[0-9a-z]{16}`)

func startFakeCUPS(t *testing.T, hold bool) *fakeCUPS {
	t.Helper()
	f := &fakeCUPS{asked: make(chan uint16, 100), printed: make(chan string, 100)}
	release := make(chan struct{})
	var mu sync.Mutex
	jobs := 0
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil || len(body) < 8 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		op, id := binary.BigEndian.Uint16(body[2:4]), binary.BigEndian.Uint32(body[4:8])
		f.asked <- op
		if hold {
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		var groups [][]byte
		switch op {
		case ippPrintJob:
			mu.Lock()
			jobs++
			n := jobs
			mu.Unlock()
			f.printed <- printTitle.FindString(string(body))
			groups = append(groups, ippGroup(0x02, ippAttr(0x21, "job-id", ippInt(n))))
		case ippGetJobAttributes:
			groups = append(groups, ippGroup(0x02, ippAttr(0x21, "job-id", ippInt(1)), ippAttr(0x23, "job-state", ippInt(9))))
		case ippGetJobs: // none
		default:
			groups = append(groups, ippGroup(0x04, ippAttr(0x42, "printer-name", []byte("Photo")),
				ippAttr(0x23, "printer-state", ippInt(3)), ippAttr(0x22, "printer-is-accepting-jobs", []byte{1})))
		}
		out := []byte{2, 0, 0, 0}
		out = binary.BigEndian.AppendUint32(out, id)
		out = append(out, ippGroup(0x01, ippAttr(0x47, "attributes-charset", []byte("utf-8")))...)
		for _, g := range groups {
			out = append(out, g...)
		}
		w.Header().Set("Content-Type", "application/ipp")
		w.Write(append(out, 0x03))
	}))
	t.Cleanup(func() { close(release); f.srv.Close() })
	return f
}

// addr is the fake's host:port, as Config.CUPS takes it.
func (f *fakeCUPS) addr() string { return strings.TrimPrefix(f.srv.URL, "http://") }

func ippInt(v int) []byte { return binary.BigEndian.AppendUint32(nil, uint32(v)) }

func ippAttr(tag byte, name string, value []byte) []byte {
	b := []byte{tag}
	b = binary.BigEndian.AppendUint16(b, uint16(len(name)))
	b = append(b, name...)
	b = binary.BigEndian.AppendUint16(b, uint16(len(value)))
	return append(b, value...)
}

func ippGroup(tag byte, attrs ...[]byte) []byte {
	b := []byte{tag}
	for _, a := range attrs {
		b = append(b, a...)
	}
	return b
}

// next answers what ch gets next, failing the test after 30 s.
func next[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("waited 30 s for %s", what)
		var zero T
		return zero
	}
}

// TestACancelledPrintStaysCancelledAfterARestart: a print is cancelled
// while its attempt waits for a print server that does not answer; the
// daemon restarts over the same data; once a printer answers, the
// cancelled print is not sent (the next print is, alone) and the queue
// lists it as cancelled.
func TestACancelledPrintStaysCancelledAfterARestart(t *testing.T) {
	hung := startFakeCUPS(t, true)
	h := newHarness(t, func(c *daemon.Config) { c.CUPS = hung.addr(); c.PrintPoll = 10 * time.Millisecond })
	if err := h.st.Printing().SaveSettings(t.Context(), store.PrintSettings{Printer: "Photo", Paper: store.PaperPostcard}); err != nil {
		t.Fatal(err)
	}
	owner := h.owner()
	cancelled := owner.do("POST", "/api/admin/printing/test", nil).expect(t, 202, "").JSON["print"].(map[string]any)["id"].(string)
	// The attempt asks the print server whether it has the print already,
	// and waits.
	for {
		if next(t, hung.asked, "the print's attempt to reach the print server") == ippGetJobs {
			break
		}
	}
	owner.do("DELETE", "/api/admin/printing/queue/"+cancelled, nil).expect(t, 204, "")

	// The daemon stops with the attempt still waiting, and starts again
	// over the same data, with a printer that answers.
	h.srv.Close()
	if err := h.st.Close(); err != nil {
		t.Fatal(err)
	}
	cups := startFakeCUPS(t, false)
	h = newHarness(t, func(c *daemon.Config) {
		c.DataDir = h.cfg.DataDir
		c.CUPS = cups.addr()
		c.PrintPoll = 10 * time.Millisecond
	})
	owner = h.owner()
	later := owner.do("POST", "/api/admin/printing/test", nil).expect(t, 202, "").JSON["print"].(map[string]any)["id"].(string)
	// Prints go one at a time, in the order asked: the cancelled one's
	// turn came first.
	if got := next(t, cups.printed, "a print to be sent"); got != "eventbox-print-"+later {
		t.Fatalf("sent %q first, want only the later print %s (cancelled: %s)", got, later, cancelled)
	}
	listed := false
	for _, p := range printsOf(queue(t, owner)) {
		if p["id"] == cancelled {
			listed = true
			if p["status"] != "cancelled" {
				t.Errorf("the cancelled print is %v", p)
			}
		}
	}
	if !listed {
		t.Errorf("the cancelled print is not in the queue")
	}
	select {
	case got := <-cups.printed:
		t.Errorf("sent %q as well", got)
	default:
	}
}
