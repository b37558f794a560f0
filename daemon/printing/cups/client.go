package cups

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/user"
	"strings"
	"sync/atomic"
	"time"
)

// DefaultAddr is the local CUPS server's socket, the address a box uses
// when none is configured.
const DefaultAddr = "/run/cups/cups.sock"

// ErrNotFound is a printer or job CUPS does not know.
var ErrNotFound = errors.New("cups: not found")

// ErrNotAccepting is a printer that refuses jobs for now (stopped with
// "reject jobs", or busy): a later try may pass.
var ErrNotAccepting = errors.New("cups: the printer does not accept jobs now")

// ErrNotAuthorized is an operation CUPS keeps for its SystemGroup when
// the box is not in it, or did not say who it is (over TCP).
var ErrNotAuthorized = errors.New("cups: not authorized")

// StatusError is an IPP error status CUPS answered with its own words.
type StatusError struct {
	Status  int
	Message string
}

// Error is CUPS's status and words.
func (e *StatusError) Error() string {
	return fmt.Sprintf("cups: status 0x%04x: %s", e.Status, e.Message)
}

// Printer states (printer-state).
const (
	PrinterIdle       = 3
	PrinterProcessing = 4
	PrinterStopped    = 5
)

// Job states (job-state).
const (
	JobPending    = 3
	JobHeld       = 4
	JobProcessing = 5
	JobStopped    = 6
	JobCanceled   = 7
	JobAborted    = 8
	JobCompleted  = 9
)

// Printer is a CUPS queue as the box shows it.
type Printer struct {
	Name string
	// DeviceURI is where CUPS sends the queue's jobs (device-uri).
	DeviceURI string
	Info      string
	MakeModel string
	// State is PrinterIdle, PrinterProcessing or PrinterStopped; Reasons
	// are printer-state-reasons without "none" (keywords such as
	// "media-empty-error", "paused", "offline-report"); Message is the
	// printer's own words (printer-state-message).
	State     int
	Reasons   []string
	Message   string
	Accepting bool
	// Queued is CUPS's count of the printer's unfinished jobs.
	Queued int
}

// Job is what CUPS says of one job.
type Job struct {
	ID      int
	Name    string
	State   int
	Reasons []string
	Message string
	// Documents is how many documents the job holds.
	Documents int
}

// Finished reports whether the job will not print any more (completed,
// canceled or aborted).
func (j Job) Finished() bool { return j.State >= JobCanceled }

// PrintRequest is one document to print.
type PrintRequest struct {
	Printer string
	// Title is the job's name (job-name); the box makes it unique so it
	// can find the job again after a restart (Client.FindJob).
	Title string
	// Media is a PWG media name ("iso_a6_105x148mm"); Copies at least 1.
	Media  string
	Copies int
	// Scaling is print-scaling: "none" (the page is laid out at the
	// paper's size), "auto" (fit it when it is larger); empty means none.
	Scaling string
	// Format is the document's MIME type; empty means application/pdf.
	Format   string
	Document io.Reader
}

// Client talks IPP to one CUPS server. It is safe for concurrent use.
type Client struct {
	http *http.Client
	base string
	user string
	// peer is the process's user name, said as "Authorization: PeerCred"
	// on the operations CUPS keeps for its SystemGroup; only over the
	// socket, where cupsd checks it against the connecting uid. Empty
	// over TCP.
	peer string
	id   atomic.Uint32
}

// New returns a client of the CUPS server at addr: a socket's path
// (starting with "/") or host:port. Empty means DefaultAddr.
func New(addr string) *Client {
	if addr == "" {
		addr = DefaultAddr
	}
	tr := &http.Transport{ResponseHeaderTimeout: 30 * time.Second, MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second}
	base := "http://" + addr
	if strings.HasPrefix(addr, "/") {
		path := addr
		var d net.Dialer
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return d.DialContext(ctx, "unix", path)
		}
		base = "http://localhost"
	}
	c := &Client{http: &http.Client{Transport: tr}, base: base, user: "eventbox"}
	if strings.HasPrefix(addr, "/") {
		if u, err := user.Current(); err == nil {
			c.peer = u.Username
		}
	}
	return c
}

// printerURI is the printer-uri of a queue; CUPS reads its path.
func printerURI(name string) string {
	return "ipp://localhost/printers/" + url.PathEscape(name)
}

// request builds a request's operation group.
func (c *Client) request(op uint16, attrs ...attr) message {
	head := []attr{textAttr(tagCharset, "attributes-charset", "utf-8"),
		textAttr(tagLanguage, "attributes-natural-language", "en")}
	if op != opCUPSGetPrinters && op != opGetPrinterAttributes && op != opCUPSGetDevices && op != opCUPSGetPPDs {
		// The box's jobs are its user's: CUPS shows their names and lets
		// it cancel them.
		attrs = append(attrs[:1:1], append([]attr{textAttr(tagName, "requesting-user-name", c.user)}, attrs[1:]...)...)
	}
	return message{code: op, requestID: c.id.Add(1), groups: []group{{tag: tagOperation, attrs: append(head, attrs...)}}}
}

// do sends m (and doc after it, when not nil) to path and answers CUPS's
// reply, or an error for a transport fault or an IPP error status.
func (c *Client) do(ctx context.Context, path string, m message, doc io.Reader) (message, error) {
	return c.send(ctx, path, m, doc, false)
}

// send is do, saying who the box is (PeerCred) when admin is set.
func (c *Client) send(ctx context.Context, path string, m message, doc io.Reader, admin bool) (message, error) {
	body := io.Reader(bytes.NewReader(m.encode()))
	if doc != nil {
		body = io.MultiReader(body, doc)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+path, body)
	if err != nil {
		return message{}, fmt.Errorf("cups: %w", err)
	}
	req.Header.Set("Content-Type", "application/ipp")
	if admin && c.peer != "" {
		req.Header.Set("Authorization", "PeerCred "+c.peer)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return message{}, fmt.Errorf("cups: reaching the print server: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		return message{}, fmt.Errorf("%w (HTTP %d)", ErrNotAuthorized, resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return message{}, fmt.Errorf("cups: the print server answered HTTP %d", resp.StatusCode)
	}
	out, err := decode(bufio.NewReader(io.LimitReader(resp.Body, 8<<20)))
	if err != nil {
		return message{}, err
	}
	if out.code >= 0x0400 {
		msg := ""
		if len(out.groups) > 0 {
			msg = out.groups[0].str("status-message")
		}
		switch out.code {
		case 0x0406: // client-error-not-found
			return out, fmt.Errorf("%w (%s)", ErrNotFound, msg)
		case 0x0506, 0x0507: // server-error-not-accepting-jobs, -busy
			return out, fmt.Errorf("%w (%s)", ErrNotAccepting, msg)
		case 0x0401, 0x0402, 0x0403: // client-error-forbidden, -not-authenticated, -not-authorized
			return out, fmt.Errorf("%w (%s)", ErrNotAuthorized, msg)
		}
		return out, &StatusError{Status: int(out.code), Message: msg}
	}
	return out, nil
}

var printerAttrs = []string{"printer-name", "printer-info", "printer-make-and-model", "printer-state",
	"printer-state-reasons", "printer-state-message", "printer-is-accepting-jobs", "queued-job-count", "device-uri"}

func readPrinter(g group) Printer {
	p := Printer{Name: g.str("printer-name"), DeviceURI: g.str("device-uri"), Info: g.str("printer-info"), MakeModel: g.str("printer-make-and-model"),
		Message: g.str("printer-state-message"), Accepting: g.bool("printer-is-accepting-jobs")}
	p.State, _ = g.int("printer-state")
	p.Queued, _ = g.int("queued-job-count")
	for _, r := range g.strs("printer-state-reasons") {
		if r != "none" {
			p.Reasons = append(p.Reasons, r)
		}
	}
	return p
}

// Printers lists the server's queues.
func (c *Client) Printers(ctx context.Context) ([]Printer, error) {
	out, err := c.do(ctx, "/", c.request(opCUPSGetPrinters,
		textAttr(tagKeyword, "requested-attributes", printerAttrs...)), nil)
	if errors.Is(err, ErrNotFound) {
		return nil, nil // no printers at all
	}
	if err != nil {
		return nil, fmt.Errorf("listing printers: %w", err)
	}
	var ps []Printer
	for _, g := range out.groups {
		if g.tag == tagPrinter {
			ps = append(ps, readPrinter(g))
		}
	}
	return ps, nil
}

// Printer answers the state of one queue.
func (c *Client) Printer(ctx context.Context, name string) (Printer, error) {
	out, err := c.do(ctx, "/printers/"+url.PathEscape(name), c.request(opGetPrinterAttributes,
		textAttr(tagURI, "printer-uri", printerURI(name)),
		textAttr(tagKeyword, "requested-attributes", printerAttrs...)), nil)
	if err != nil {
		return Printer{}, fmt.Errorf("reading printer %q: %w", name, err)
	}
	for _, g := range out.groups {
		if g.tag == tagPrinter {
			return readPrinter(g), nil
		}
	}
	return Printer{}, fmt.Errorf("reading printer %q: %w", name, ErrNotFound)
}

// Print sends one document and answers CUPS's job id once the server has
// the whole document.
func (c *Client) Print(ctx context.Context, p PrintRequest) (int, error) {
	format := p.Format
	if format == "" {
		format = "application/pdf"
	}
	m := c.request(opPrintJob,
		textAttr(tagURI, "printer-uri", printerURI(p.Printer)),
		textAttr(tagName, "job-name", p.Title),
		textAttr(tagMimeType, "document-format", format))
	job := group{tag: tagJob, attrs: []attr{intAttr(tagInteger, "copies", max(p.Copies, 1))}}
	if p.Media != "" {
		job.attrs = append(job.attrs, textAttr(tagKeyword, "media", p.Media))
	}
	scaling := p.Scaling
	if scaling == "" {
		scaling = "none" // the box lays out its pages at the paper's size
	}
	job.attrs = append(job.attrs, textAttr(tagKeyword, "print-scaling", scaling))
	m.groups = append(m.groups, job)
	out, err := c.do(ctx, "/printers/"+url.PathEscape(p.Printer), m, p.Document)
	if err != nil {
		return 0, fmt.Errorf("printing on %q: %w", p.Printer, err)
	}
	for _, g := range out.groups {
		if id, ok := g.int("job-id"); ok && g.tag == tagJob {
			return id, nil
		}
	}
	return 0, fmt.Errorf("printing on %q: the print server gave no job id", p.Printer)
}

var jobAttrs = []string{"job-id", "job-name", "job-state", "job-state-reasons", "job-printer-state-message", "number-of-documents"}

func readJob(g group) Job {
	j := Job{Name: g.str("job-name"), Message: g.str("job-printer-state-message"), Reasons: g.strs("job-state-reasons")}
	j.ID, _ = g.int("job-id")
	j.State, _ = g.int("job-state")
	j.Documents, _ = g.int("number-of-documents")
	return j
}

// Job answers what CUPS says of job id on printer.
func (c *Client) Job(ctx context.Context, printer string, id int) (Job, error) {
	out, err := c.do(ctx, "/jobs", c.request(opGetJobAttributes,
		textAttr(tagURI, "printer-uri", printerURI(printer)),
		intAttr(tagInteger, "job-id", id),
		textAttr(tagKeyword, "requested-attributes", jobAttrs...)), nil)
	if err != nil {
		return Job{}, fmt.Errorf("reading print job %d: %w", id, err)
	}
	for _, g := range out.groups {
		if g.tag == tagJob {
			return readJob(g), nil
		}
	}
	return Job{}, fmt.Errorf("reading print job %d: %w", id, ErrNotFound)
}

// FindJob looks for the job named title among every job CUPS keeps of
// printer, finished ones included, and answers the newest.
func (c *Client) FindJob(ctx context.Context, printer, title string) (Job, bool, error) {
	out, err := c.do(ctx, "/printers/"+url.PathEscape(printer), c.request(opGetJobs,
		textAttr(tagURI, "printer-uri", printerURI(printer)),
		textAttr(tagKeyword, "which-jobs", "all"),
		boolAttr("my-jobs", false),
		textAttr(tagKeyword, "requested-attributes", jobAttrs...)), nil)
	if errors.Is(err, ErrNotFound) {
		return Job{}, false, nil
	}
	if err != nil {
		return Job{}, false, fmt.Errorf("looking for print job %q: %w", title, err)
	}
	var found Job
	ok := false
	for _, g := range out.groups {
		if g.tag != tagJob {
			continue
		}
		if j := readJob(g); j.Name == title && j.ID > found.ID {
			found, ok = j, true
		}
	}
	return found, ok, nil
}

// Cancel cancels job id on printer. A job already finished is no error.
func (c *Client) Cancel(ctx context.Context, printer string, id int) error {
	_, err := c.do(ctx, "/jobs", c.request(opCancelJob,
		textAttr(tagURI, "printer-uri", printerURI(printer)),
		intAttr(tagInteger, "job-id", id)), nil)
	if err != nil {
		if j, jerr := c.Job(ctx, printer, id); jerr == nil && j.Finished() {
			return nil
		}
		return fmt.Errorf("cancelling print job %d: %w", id, err)
	}
	return nil
}
