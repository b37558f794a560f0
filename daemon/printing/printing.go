// Package printing prints photos, a test page and the album on a printer
// through CUPS (package cups): the owners' settings
// (/api/admin/printing…: the printer, listed from CUPS, the paper, what
// prints, and the printers CUPS sees without a queue, added from the
// console: devices.go), each event's layout (/api/admin/events/:id/print-layout), a
// print from moderation or of the album (/api/admin/events/:id/print),
// the booth's print button and printing line (/api/e/:slug/booth/print…),
// and the print job kind "print" on daemon/jobs, which lays each page out
// (render.go) and sends it, one at a time, to CUPS, follows it there until
// it is printed, and alerts the hosts (notice printer.attention) when the
// printer needs a person (docs/decisions.md, "The print queue").
package printing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"eventbox/daemon/jobs"
	"eventbox/daemon/printing/cups"
	"eventbox/daemon/visitor"
	"eventbox/qr"
	"eventbox/store"
	"eventbox/text"
)

// Fitter decodes a photo at a print's size within the image pool's
// budget (imaging.Pool.Fit).
type Fitter interface {
	Fit(ctx context.Context, r io.ReaderAt, size int64, long int) (image.Image, error)
}

// Config is what printing needs from the daemon.
type Config struct {
	Store    *store.Store
	Visitors *visitor.Resolver
	Logger   *slog.Logger
	// CUPS is the print server's client.
	CUPS *cups.Client
	// Pool decodes the photos; QR draws the gallery link's code and
	// lends its fonts to the frame.
	Pool Fitter
	QR   *qr.Renderer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Origin is the scheme and host the box's links start with, from a
	// request; DefaultOrigin the one of a print no request asked for (a
	// booth photo printed by itself).
	Origin        func(r *http.Request) string
	DefaultOrigin string
	// Notify tells the job runner that print jobs were queued; nil: none.
	Notify func()
	// Notices makes the printer's attention notice and wakes the outbox
	// once it is stored; nil: no notice.
	Notices Notices
	// Documents makes the album and the signs a print may carry; nil:
	// neither can be printed.
	Documents Documents
	// Poll is how often a print on its way asks CUPS how it goes; zero
	// means 2 s.
	Poll time.Duration
	// DeviceSchemes are the kinds of printer the console may add
	// (devices.go); nil means DefaultDeviceSchemes. Tests add cups-pdf.
	DeviceSchemes []string
	// DeviceTimeout is how long CUPS's backends look for printers; zero
	// means 5 s.
	DeviceTimeout time.Duration
}

// API is printing: its routes and its job kind. Build it with New.
type API struct {
	cfg   Config
	store *store.Store
	log   *slog.Logger
	cups  *cups.Client
	fonts *text.Fonts
	now   func() time.Time
	poll  time.Duration

	mu sync.Mutex
	// seen is the printer's state as last read, for the booth pages.
	seen   cups.Printer
	seenOK bool
	seenAt time.Time
	seenBy string
	seenEr error
}

// Notices is the outbox as printing uses it.
type Notices interface {
	// Notice is the job of a webhook notice of kind about the event ("":
	// the box), none when it cannot be made.
	Notice(kind, eventID string, data any) []store.JobSpec
	// Queued wakes the outbox once the notice is stored.
	Queued()
}

// Documents makes the event documents a print may carry.
type Documents interface {
	// Album writes an event's printable album (A4 PDF).
	Album(ctx context.Context, e store.Event, w io.Writer) error
	// Signage makes an event's signs as GET …/signage does (its query,
	// the links' origin) and answers the PDF.
	Signage(ctx context.Context, e store.Event, q url.Values, origin string) ([]byte, string, error)
}

// New builds printing over cfg.
func New(cfg Config) *API {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Notify == nil {
		cfg.Notify = func() {}
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 2 * time.Second
	}
	if cfg.DeviceSchemes == nil {
		cfg.DeviceSchemes = DefaultDeviceSchemes
	}
	if cfg.DeviceTimeout <= 0 {
		cfg.DeviceTimeout = 5 * time.Second
	}
	a := &API{cfg: cfg, store: cfg.Store, log: cfg.Logger.With("component", "printing"), cups: cfg.CUPS,
		now: cfg.Now, poll: cfg.Poll}
	if cfg.QR != nil {
		a.fonts = cfg.QR.Fonts()
	}
	return a
}

// Kind is the print job kind for the runner: one print at a time, retried
// every few seconds up to a minute while the printer is busy or away, for
// a day.
func (a *API) Kind() jobs.Kind {
	return jobs.Kind{Name: store.PrintJobKind, Handler: a.run, Concurrency: 1,
		Retry: jobs.Policy{Base: 5 * time.Second, Cap: time.Minute, MaxAge: 24 * time.Hour, MaxDeaths: 5}}
}

// errCancelled ends a print a host cancelled.
var errCancelled = errors.New("cancelled")

// errNoPrinter is a print while no printer is chosen.
var errNoPrinter = errors.New("no printer is chosen")

// Title is the CUPS job name of print id: unique, so that an attempt
// after a restart finds the job CUPS already has.
func Title(id string) string { return "eventbox-print-" + id }

// run is one attempt of a print job.
func (a *API) run(ctx context.Context, j jobs.Job) error {
	var pj store.PrintJob
	if err := j.Decode(&pj); err != nil {
		return err
	}
	var st store.PrintState
	if j.Progress != nil && len(j.Progress.State) > 0 {
		if err := json.Unmarshal(j.Progress.State, &st); err != nil {
			return jobs.Permanent(fmt.Errorf("reading the state of print %s: %w", pj.ID, err))
		}
	}
	if st.CUPSJob == 0 {
		if pj.Cancelled {
			return jobs.Permanent(errCancelled)
		}
		settings, err := a.store.Printing().Settings(ctx)
		if err != nil {
			return err
		}
		if settings.Printer == "" {
			return jobs.RetryAfter(time.Minute, errNoPrinter)
		}
		st.Printer = settings.Printer
		// A restart after CUPS took the print but before its id was
		// recorded: CUPS has it under its unique name.
		cj, found, err := a.cups.FindJob(ctx, st.Printer, Title(pj.ID))
		if err != nil {
			a.observe(ctx, st.Printer, nil, err)
			return jobs.RetryAfter(10*time.Second, err)
		}
		if found {
			a.log.InfoContext(ctx, "print found at the print server after a restart", "print", pj.ID, "cups_job", cj.ID)
			st.CUPSJob = cj.ID
		} else {
			p, err := a.cups.Printer(ctx, st.Printer)
			if err != nil || p.State == cups.PrinterStopped || !p.Accepting {
				a.observe(ctx, st.Printer, &p, err)
				if err == nil {
					err = fmt.Errorf("the printer is stopped: %s", strings.Join(p.Reasons, ", "))
				}
				return jobs.RetryAfter(5*time.Second, err)
			}
			if st.CUPSJob, err = a.send(ctx, pj, settings); err != nil {
				return err
			}
		}
		state, err := json.Marshal(st)
		if err != nil {
			return err
		}
		// The CUPS job id in the job's record, one commit: from now on
		// every attempt asks CUPS about it instead of sending again.
		if err := j.Report(ctx, store.JobProgress{Note: "sent", State: state}); err != nil {
			return fmt.Errorf("recording print %s as sent: %w", pj.ID, err)
		}
		// A cancel that came while the print was on its way found no
		// CUPS job to cancel: it is cancelled there now.
		if pj.Cancelled, err = a.cancelledMeanwhile(ctx, j.ID); err != nil {
			return err
		}
	}
	if pj.Cancelled {
		if err := a.cups.Cancel(ctx, st.Printer, st.CUPSJob); err != nil {
			a.observe(ctx, st.Printer, nil, err)
			return jobs.RetryAfter(10*time.Second, fmt.Errorf("cancelling print %s at the print server: %w", pj.ID, err))
		}
	}
	return a.follow(ctx, pj, st)
}

// cancelledMeanwhile reads again the print of job id and reports whether
// a host cancelled it during the attempt (store.PrintJob.Cancelled).
func (a *API) cancelledMeanwhile(ctx context.Context, id uint64) (bool, error) {
	sj, err := a.store.Jobs().Get(ctx, id)
	if err != nil {
		return false, fmt.Errorf("reading print job %d again: %w", id, err)
	}
	var pj store.PrintJob
	if err := json.Unmarshal(sj.Payload, &pj); err != nil {
		return false, jobs.Permanent(fmt.Errorf("reading print job %d again: %w", id, err))
	}
	return pj.Cancelled, nil
}

// send lays print pj out and hands it to CUPS, and answers CUPS's job id.
func (a *API) send(ctx context.Context, pj store.PrintJob, settings store.PrintSettings) (int, error) {
	pp, ok := papers[settings.Paper]
	if !ok {
		pp = papers[store.PaperPostcard]
	}
	doc, err := a.document(ctx, pj, pp)
	if err != nil {
		return 0, err
	}
	defer doc.Close()
	media, scaling := pp.media, "none"
	if pj.Document == store.PrintAlbum || pj.Document == store.PrintSignage {
		// A4 documents, made by others: CUPS fits an A3 poster to the sheet.
		media, scaling = papers[store.PaperA4].media, "auto"
	}
	id, err := a.cups.Print(ctx, cups.PrintRequest{Printer: settings.Printer, Title: Title(pj.ID), Media: media,
		Scaling: scaling, Copies: max(pj.Copies, 1), Document: doc})
	if err != nil {
		a.observe(ctx, settings.Printer, nil, err)
		return 0, jobs.RetryAfter(5*time.Second, err)
	}
	a.log.InfoContext(ctx, "print sent", "print", pj.ID, "document", pj.Document, "event", pj.EventID,
		"photo", pj.PhotoID, "copies", pj.Copies, "cups_job", id)
	return id, nil
}

// follow waits for the CUPS job of pj to end, watching the printer.
func (a *API) follow(ctx context.Context, pj store.PrintJob, st store.PrintState) error {
	for {
		cj, err := a.cups.Job(ctx, st.Printer, st.CUPSJob)
		if errors.Is(err, cups.ErrNotFound) {
			// CUPS forgot it (its history was cleared): nothing to resend.
			a.log.WarnContext(ctx, "print no longer known to the print server", "print", pj.ID, "cups_job", st.CUPSJob)
			return nil
		}
		if err != nil {
			a.observe(ctx, st.Printer, nil, err)
			return jobs.RetryAfter(10*time.Second, err)
		}
		switch cj.State {
		case cups.JobCompleted:
			a.log.InfoContext(ctx, "printed", "print", pj.ID, "cups_job", cj.ID)
			p, err := a.cups.Printer(ctx, st.Printer)
			a.observe(ctx, st.Printer, &p, err)
			return nil
		case cups.JobCanceled:
			return jobs.Permanent(errCancelled)
		case cups.JobAborted:
			return jobs.Permanent(fmt.Errorf("the printer gave up on it: %s", strings.Join(cj.Reasons, ", ")))
		}
		p, err := a.cups.Printer(ctx, st.Printer)
		a.observe(ctx, st.Printer, &p, err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(a.poll):
		}
	}
}

// document is the PDF print pj prints.
func (a *API) document(ctx context.Context, pj store.PrintJob, pp paper) (io.ReadCloser, error) {
	switch pj.Document {
	case store.PrintAlbum:
		return a.albumDocument(ctx, pj)
	case store.PrintSignage:
		return a.signageDocument(ctx, pj)
	case store.PrintTest:
		pg := page{paper: pp, layout: store.PrintLayout{Frame: true}, title: "eventbox", date: text.Date(a.now(), "en")}
		return a.pdf(pg)
	}
	ph, err := a.store.Photos().Get(ctx, pj.PhotoID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, jobs.Permanent(fmt.Errorf("photo %s is gone", pj.PhotoID))
	} else if err != nil {
		return nil, err
	}
	e, err := a.store.Events().Get(ctx, ph.EventID)
	if err != nil {
		return nil, jobs.Permanent(fmt.Errorf("the event of photo %s: %w", ph.ID, err))
	}
	layout, err := a.store.Printing().Layout(ctx, e.ID)
	if err != nil {
		return nil, err
	}
	pg, err := a.photoPage(ctx, pj, pp, layout, e, ph)
	if err != nil {
		return nil, err
	}
	return a.pdf(pg)
}

// pdf renders pg and answers its PDF. The canvas is let go before the
// PDF is returned.
func (a *API) pdf(pg page) (io.ReadCloser, error) {
	canvas := a.render(pg)
	var b strings.Builder
	if err := writePDF(&b, canvas, pg.paper, pg.landscape()); err != nil {
		return nil, err
	}
	return io.NopCloser(strings.NewReader(b.String())), nil
}

// problems maps printer-state-reasons (less their -error, -warning and
// -report suffixes) to what the console and the booth say.
var problems = map[string]string{
	"media-empty": "paper", "media-needed": "paper", "media-low": "",
	"marker-supply-empty": "ink", "marker-supply-missing": "ink", "toner-empty": "ink", "marker-waste-full": "ink",
	"media-jam": "jam",
	"offline":   "offline", "connecting-to-device": "offline", "timed-out": "offline", "shutdown": "offline",
	"paused": "paused", "moving-to-paused": "paused",
	"door-open": "cover", "cover-open": "cover", "interlock-open": "cover",
	"input-tray-missing": "paper", "output-area-full": "other",
}

// problemOf answers what needs a person at printer p (one of "paper",
// "ink", "jam", "offline", "paused", "cover", "other"), or "" when
// nothing does. err is the error of reading p.
func problemOf(p *cups.Printer, err error) string {
	if err != nil || p == nil {
		return "offline"
	}
	var got []string
	for _, r := range p.Reasons {
		base, sev := r, ""
		for _, s := range []string{"-error", "-warning", "-report"} {
			if strings.HasSuffix(r, s) {
				base, sev = strings.TrimSuffix(r, s), s
			}
		}
		code, known := problems[base]
		switch {
		case known && code != "" && sev != "-warning":
			got = append(got, code)
		case !known && sev == "-error":
			got = append(got, "other")
		}
	}
	if len(got) == 0 && p.State == cups.PrinterStopped {
		got = append(got, "paused")
	}
	if len(got) == 0 {
		return ""
	}
	// The most specific first: what to fetch beats "paused".
	order := []string{"paper", "ink", "jam", "cover", "offline", "other", "paused"}
	for _, o := range order {
		if slices.Contains(got, o) {
			return o
		}
	}
	return got[0]
}

// attentionNotice is the data of a printer.attention notice.
type attentionNotice struct {
	Printer string   `json:"printer"`
	Problem string   `json:"problem"`
	Reasons []string `json:"reasons,omitempty"`
	Message string   `json:"message,omitempty"`
}

// observe records what a print's attempt read of the printer: for the
// booth pages, and the alert when it needs a person (once per trouble).
func (a *API) observe(ctx context.Context, name string, p *cups.Printer, err error) {
	a.mu.Lock()
	if p != nil && err == nil {
		a.seen, a.seenOK = *p, true
	} else {
		a.seen, a.seenOK = cups.Printer{Name: name}, false
	}
	a.seenAt, a.seenBy, a.seenEr = a.now(), name, err
	a.mu.Unlock()
	problem := problemOf(p, err)
	var notice []store.JobSpec
	if problem != "" && a.cfg.Notices != nil {
		n := attentionNotice{Printer: name, Problem: problem}
		if p != nil && err == nil {
			n.Reasons, n.Message = p.Reasons, p.Message
		}
		notice = a.cfg.Notices.Notice(store.NoticePrinterAttention, "", n)
	}
	queued, aerr := a.store.Printing().Attention(ctx, problem, notice...)
	if aerr != nil {
		a.log.WarnContext(ctx, "recording the printer's state", "error", aerr)
		return
	}
	if queued {
		a.log.WarnContext(ctx, "the printer needs a person", "printer", name, "problem", problem)
		if a.cfg.Notices != nil {
			a.cfg.Notices.Queued()
		}
	}
}
