package printing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"time"

	"eventbox/daemon/photos"
	"eventbox/daemon/printing/cups"
	"eventbox/daemon/web"
	"eventbox/store"
)

// settingsDTO is the printing settings as the console edits them.
type settingsDTO struct {
	Printer     *string `json:"printer"`
	Paper       string  `json:"paper"`
	AutoBooth   bool    `json:"autoBooth"`
	BoothCopies int     `json:"boothCopies"`
	HostPrint   bool    `json:"hostPrint"`
}

// printerDTO is a CUPS queue and its state.
type printerDTO struct {
	Name      string   `json:"name"`
	Info      string   `json:"info"`
	MakeModel string   `json:"makeModel"`
	State     string   `json:"state"`
	Reasons   []string `json:"reasons"`
	Message   string   `json:"message"`
	Accepting bool     `json:"accepting"`
	// Problem is what needs a person, or null.
	Problem *string `json:"problem"`
}

var stateNames = map[int]string{cups.PrinterIdle: "idle", cups.PrinterProcessing: "printing", cups.PrinterStopped: "stopped"}

func toPrinterDTO(p cups.Printer) printerDTO {
	d := printerDTO{Name: p.Name, Info: p.Info, MakeModel: p.MakeModel, State: stateNames[p.State],
		Reasons: p.Reasons, Message: p.Message, Accepting: p.Accepting}
	if d.State == "" {
		d.State = "unknown"
	}
	if d.Reasons == nil {
		d.Reasons = []string{}
	}
	if pr := problemOf(&p, nil); pr != "" {
		d.Problem = &pr
	}
	return d
}

// printingBody is the answer of GET and PUT /api/admin/printing.
type printingBody struct {
	Settings settingsDTO `json:"settings"`
	Papers   []string    `json:"papers"`
	// Available reports that the box reaches its print server; Printer
	// is the chosen printer's state, null when none is chosen or it
	// cannot be read; Problem what needs a person (with "offline" when
	// the printer cannot be read).
	Available bool        `json:"available"`
	Printer   *printerDTO `json:"printer"`
	Problem   *string     `json:"problem"`
	MaxCopies int         `json:"maxBoothCopies"`
}

func toSettingsDTO(s store.PrintSettings) settingsDTO {
	d := settingsDTO{Paper: s.Paper, AutoBooth: s.AutoBooth, BoothCopies: s.BoothCopies, HostPrint: s.HostPrint}
	if s.Printer != "" {
		d.Printer = &s.Printer
	}
	return d
}

// status reads the chosen printer from CUPS: its state, or the problem
// of not reaching it. A booth page asks every few seconds: a reading
// younger than two seconds (a print's own included) is answered again.
func (a *API) status(ctx context.Context, name string) (cups.Printer, bool, string) {
	if name == "" {
		return cups.Printer{}, false, ""
	}
	a.mu.Lock()
	if a.seenBy == name && a.now().Sub(a.seenAt) < 2*time.Second {
		p, ok, err := a.seen, a.seenOK, a.seenEr
		a.mu.Unlock()
		if !ok {
			return p, false, problemOf(nil, err)
		}
		return p, true, problemOf(&p, nil)
	}
	a.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	p, err := a.cups.Printer(ctx, name)
	a.mu.Lock()
	a.seen, a.seenOK, a.seenAt, a.seenBy, a.seenEr = p, err == nil, a.now(), name, err
	a.mu.Unlock()
	if err != nil {
		return p, false, problemOf(nil, err)
	}
	return p, true, problemOf(&p, nil)
}

func (a *API) printingBody(ctx context.Context, s store.PrintSettings) printingBody {
	b := printingBody{Settings: toSettingsDTO(s), Papers: store.Papers(), MaxCopies: store.MaxBoothCopies}
	if s.Printer == "" {
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := a.cups.Printers(ctx)
		b.Available = err == nil
		return b
	}
	p, ok, problem := a.status(ctx, s.Printer)
	if ok {
		d := toPrinterDTO(p)
		b.Printer, b.Available = &d, true
	} else {
		// The printer cannot be read: is it the print server?
		ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		_, err := a.cups.Printers(ctx)
		b.Available = err == nil
	}
	if problem != "" {
		b.Problem = &problem
	}
	return b
}

// Settings answers GET /api/admin/printing (owners).
func (a *API) Settings(w http.ResponseWriter, r *http.Request) error {
	s, err := a.store.Printing().Settings(r.Context())
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, a.printingBody(r.Context(), s))
}

// SaveSettings answers PUT /api/admin/printing (owners).
func (a *API) SaveSettings(w http.ResponseWriter, r *http.Request) error {
	var req settingsDTO
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	details := map[string]string{}
	s := store.PrintSettings{Paper: req.Paper, AutoBooth: req.AutoBooth, BoothCopies: req.BoothCopies, HostPrint: req.HostPrint}
	if req.Printer != nil {
		s.Printer = *req.Printer
		if s.Printer == "" || len(s.Printer) > 127 {
			details["printer"] = "must be the name of a printer of the box, or null"
		}
	}
	if !slices.Contains(store.Papers(), s.Paper) {
		details["paper"] = "must be one of postcard, strips, a6, a4"
	}
	if s.BoothCopies < 0 || s.BoothCopies > store.MaxBoothCopies {
		details["boothCopies"] = "must be 0 to 5"
	}
	if len(details) > 0 {
		return web.BadRequest(details)
	}
	if s.Printer != "" {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		if _, err := a.cups.Printer(ctx, s.Printer); errors.Is(err, cups.ErrNotFound) {
			return web.Field("printer", "is not a printer of the box")
		}
	}
	if err := a.store.Printing().SaveSettings(r.Context(), s); err != nil {
		return err
	}
	a.log.InfoContext(r.Context(), "print settings saved", "printer", s.Printer, "paper", s.Paper,
		"auto_booth", s.AutoBooth, "booth_copies", s.BoothCopies, "host_print", s.HostPrint)
	a.cfg.Notify() // a print waiting for a printer may go now
	return web.JSON(w, r, http.StatusOK, a.printingBody(r.Context(), s))
}

// Printers answers GET /api/admin/printing/printers (owners): CUPS's
// queues, for the console's choice.
func (a *API) Printers(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	ps, err := a.cups.Printers(ctx)
	body := struct {
		Available bool         `json:"available"`
		Printers  []printerDTO `json:"printers"`
	}{Available: err == nil, Printers: []printerDTO{}}
	if err != nil {
		a.log.WarnContext(r.Context(), "listing printers", "error", err)
	}
	for _, p := range ps {
		body.Printers = append(body.Printers, toPrinterDTO(p))
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// printDTO is one print of the queue.
type printDTO struct {
	ID       string  `json:"id"`
	Document string  `json:"document"`
	EventID  *string `json:"eventId"`
	PhotoID  *string `json:"photoId"`
	Copies   int     `json:"copies"`
	By       string  `json:"by"`
	// Status is queued (not tried yet), waiting (tried, waiting for the
	// printer), printing (at the print server), done, failed or
	// cancelled; Error says why it waits or failed.
	Status    string  `json:"status"`
	Error     *string `json:"error"`
	CreatedAt int64   `json:"createdAt"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toPrintDTO(j store.Job) (printDTO, bool) {
	var pj store.PrintJob
	if err := json.Unmarshal(j.Payload, &pj); err != nil {
		return printDTO{}, false
	}
	d := printDTO{ID: pj.ID, Document: pj.Document, EventID: optional(pj.EventID), PhotoID: optional(pj.PhotoID),
		Copies: max(pj.Copies, 1), By: pj.By, CreatedAt: j.CreatedAt}
	switch j.Status {
	case store.JobRunning:
		d.Status = "printing"
	case store.JobDone:
		d.Status = "done"
	case store.JobFailed:
		d.Status = "failed"
		if j.LastError == errCancelled.Error() {
			d.Status = "cancelled"
		} else {
			d.Error = optional(j.LastError)
		}
	default:
		d.Status = "queued"
		if j.Failures > 0 || j.Progress != nil {
			d.Status, d.Error = "waiting", optional(j.LastError)
		}
	}
	return d, true
}

// prints lists the latest print jobs, newest first.
func (a *API) prints(ctx context.Context, limit int) ([]store.Job, error) {
	page, err := a.store.Jobs().List(ctx, store.JobFilter{Kind: store.PrintJobKind, Limit: limit})
	if err != nil {
		return nil, err
	}
	return page.Jobs, nil
}

// Queue answers GET /api/admin/printing/queue (owners): the prints not
// finished and the latest finished, newest first, and the printer.
func (a *API) Queue(w http.ResponseWriter, r *http.Request) error {
	js, err := a.prints(r.Context(), 50)
	if err != nil {
		return err
	}
	s, err := a.store.Printing().Settings(r.Context())
	if err != nil {
		return err
	}
	body := struct {
		Prints  []printDTO   `json:"prints"`
		Status  printingBody `json:"printing"`
		Pending int          `json:"pending"`
	}{Prints: []printDTO{}, Status: a.printingBody(r.Context(), s)}
	for _, j := range js {
		if d, ok := toPrintDTO(j); ok {
			body.Prints = append(body.Prints, d)
			if j.Status == store.JobQueued || j.Status == store.JobRunning {
				body.Pending++
			}
		}
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// CancelPrint answers DELETE /api/admin/printing/queue/:printId (owners):
// a print not sent yet leaves the queue; one an attempt holds is marked
// cancelled with its job (it is not sent after this, even after a
// restart), and cancelled at the print server when CUPS has it already;
// its job then ends as cancelled.
func (a *API) CancelPrint(w http.ResponseWriter, r *http.Request) error {
	id := web.Param(r, "printId")
	if !store.ValidID(id) {
		return web.ErrNotFound
	}
	c, err := a.store.Printing().CancelPrint(r.Context(), id)
	if err != nil {
		return err
	}
	switch {
	case !c.Found:
		return web.ErrNotFound
	case c.Removed:
		a.log.InfoContext(r.Context(), "print cancelled before it was sent", "print", id)
	default:
		if c.State.CUPSJob > 0 {
			if err := a.cups.Cancel(r.Context(), c.State.Printer, c.State.CUPSJob); err != nil {
				return fmt.Errorf("cancelling print %s at the print server: %w", id, err)
			}
		}
		a.log.InfoContext(r.Context(), "print cancelled", "print", id, "cups_job", c.State.CUPSJob)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// enqueue queues print pj and nudges the runner.
func (a *API) enqueue(ctx context.Context, pj store.PrintJob) (printDTO, error) {
	pj.ID = store.NewID()
	pj.CreatedAt = a.now().UnixMilli()
	sp, err := store.PrintJobSpec(pj)
	if err != nil {
		return printDTO{}, err
	}
	if _, err := a.store.Jobs().Enqueue(ctx, sp); err != nil {
		return printDTO{}, err
	}
	a.cfg.Notify()
	a.log.InfoContext(ctx, "print queued", "print", pj.ID, "document", pj.Document, "event", pj.EventID,
		"photo", pj.PhotoID, "copies", pj.Copies, "by", pj.By)
	payload, _ := json.Marshal(pj)
	d, _ := toPrintDTO(store.Job{Payload: payload, Status: store.JobQueued, CreatedAt: pj.CreatedAt})
	return d, nil
}

// errNoPrinterChosen answers a print while no printer is chosen.
var errNoPrinterChosen = web.Field("printer", "choose a printer first")

func (a *API) answerPrint(w http.ResponseWriter, r *http.Request, pj store.PrintJob) error {
	pj.Origin = a.origin(r)
	d, err := a.enqueue(r.Context(), pj)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusAccepted, struct {
		Print printDTO `json:"print"`
	}{d})
}

func (a *API) origin(r *http.Request) string {
	if a.cfg.Origin != nil {
		return a.cfg.Origin(r)
	}
	return a.cfg.DefaultOrigin
}

// TestPrint answers POST /api/admin/printing/test (owners): a test page
// on the chosen paper.
func (a *API) TestPrint(w http.ResponseWriter, r *http.Request) error {
	s, err := a.store.Printing().Settings(r.Context())
	if err != nil {
		return err
	}
	if s.Printer == "" {
		return errNoPrinterChosen
	}
	return a.answerPrint(w, r, store.PrintJob{Document: store.PrintTest, Copies: 1, By: "owner"})
}

// layoutDTO is an event's print layout.
type layoutDTO struct {
	Photo string `json:"photo"`
	Frame bool   `json:"frame"`
	QR    bool   `json:"qr"`
}

func toLayoutDTO(l store.PrintLayout) layoutDTO {
	d := layoutDTO{Photo: "crop", Frame: l.Frame, QR: l.QR}
	if l.Fit {
		d.Photo = "fit"
	}
	return d
}

// Layout answers GET /api/admin/events/:id/print-layout.
func (a *API) Layout(w http.ResponseWriter, r *http.Request, e store.Event) error {
	l, err := a.store.Printing().Layout(r.Context(), e.ID)
	if err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, toLayoutDTO(l))
}

// SaveLayout answers PUT /api/admin/events/:id/print-layout.
func (a *API) SaveLayout(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var req layoutDTO
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Photo != "crop" && req.Photo != "fit" {
		return web.Field("photo", "must be crop or fit")
	}
	l := store.PrintLayout{Fit: req.Photo == "fit", Frame: req.Frame, QR: req.QR}
	if err := a.store.Printing().SaveLayout(r.Context(), e.ID, l); err != nil {
		return err
	}
	return web.JSON(w, r, http.StatusOK, toLayoutDTO(l))
}

// printRequest is the body of POST /api/admin/events/:id/print and of
// the booth's print.
type printRequest struct {
	Document web.Optional[string] `json:"document"`
	PhotoID  web.Optional[string] `json:"photoId"`
	Copies   web.Optional[int]    `json:"copies"`
	// Signs is the query of the signs to print, as GET …/signage takes
	// it (kind=table&size=a6&wifi=0), for the document signage.
	Signs web.Optional[string] `json:"signs"`
}

// PrintEvent answers POST /api/admin/events/:id/print: one photo of the
// event (when the settings let the hosts print) or its album.
func (a *API) PrintEvent(w http.ResponseWriter, r *http.Request, e store.Event) error {
	var req printRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := a.store.Printing().Settings(r.Context())
	if err != nil {
		return err
	}
	if s.Printer == "" {
		return errNoPrinterChosen
	}
	doc := store.PrintPhoto
	if req.Document.Set {
		doc = req.Document.Value
	}
	copies := 1
	if req.Copies.Set {
		copies = req.Copies.Value
	}
	if copies < 1 || copies > 20 {
		return web.Field("copies", "must be 1 to 20")
	}
	switch doc {
	case store.PrintSignage:
		return a.printSigns(w, r, e, req, copies)
	case store.PrintAlbum:
		if a.cfg.Documents == nil {
			return web.Field("document", "the album cannot be printed on this box")
		}
		return a.answerPrint(w, r, store.PrintJob{Document: store.PrintAlbum, EventID: e.ID, Copies: copies, By: "host"})
	case store.PrintPhoto:
	default:
		return web.Field("document", "must be photo, album or signage")
	}
	if !s.HostPrint {
		return web.ErrForbidden
	}
	ph, err := a.photoOf(r.Context(), e.ID, req.PhotoID)
	if err != nil {
		return err
	}
	return a.answerPrint(w, r, store.PrintJob{Document: store.PrintPhoto, EventID: e.ID, PhotoID: ph.ID, Copies: copies, By: "host"})
}

// printSigns queues the event's signs, checked first by making them
// once: a bad query is the request's bad_request.
func (a *API) printSigns(w http.ResponseWriter, r *http.Request, e store.Event, req printRequest, copies int) error {
	if a.cfg.Documents == nil {
		return web.Field("document", "the signs cannot be printed on this box")
	}
	if !req.Signs.Set || len(req.Signs.Value) > 500 {
		return web.Field("signs", "must be the signs' query, such as kind=table&size=a6")
	}
	q, err := url.ParseQuery(req.Signs.Value)
	if err != nil {
		return web.Field("signs", "must be the signs' query, such as kind=table&size=a6")
	}
	if _, _, err := a.cfg.Documents.Signage(r.Context(), e, q, a.origin(r)); err != nil {
		return err
	}
	return a.answerPrint(w, r, store.PrintJob{Document: store.PrintSignage, EventID: e.ID, Signs: q.Encode(), Copies: copies, By: "host"})
}

// photoOf loads the photo of the event a request names (a video's
// poster prints too).
func (a *API) photoOf(ctx context.Context, eventID string, id web.Optional[string]) (store.Photo, error) {
	if !id.Set || !store.ValidID(id.Value) {
		return store.Photo{}, web.Field("photoId", "must be the id of a photo of the event")
	}
	ph, err := a.store.Photos().Get(ctx, id.Value)
	if errors.Is(err, store.ErrNotFound) || err == nil && ph.EventID != eventID {
		return store.Photo{}, web.ErrNotFound
	}
	return ph, err
}

// boothPrintingBody is the answer of GET /api/e/:slug/booth/printing.
type boothPrintingBody struct {
	// Enabled: the box prints (a printer is chosen); Copies is how many
	// copies the booth may ask for a photo (0: no print button).
	Enabled  bool `json:"enabled"`
	Copies   int  `json:"copies"`
	Printing bool `json:"printing"`
	// Queued counts the event's prints waiting behind the one printing.
	Queued  int     `json:"queued"`
	Problem *string `json:"problem"`
}

// BoothPrinting answers GET /api/e/:slug/booth/printing: the booth
// page's printing line.
func (a *API) BoothPrinting(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	s, err := a.store.Printing().Settings(r.Context())
	if err != nil {
		return err
	}
	body := boothPrintingBody{Enabled: s.Printer != "", Copies: s.BoothCopies}
	if !body.Enabled {
		body.Copies = 0
		return web.JSON(w, r, http.StatusOK, body)
	}
	unfinished, err := a.store.Jobs().Unfinished(r.Context(), store.PrintJobKind, 500)
	if err != nil {
		return err
	}
	for _, j := range unfinished {
		var pj store.PrintJob
		if json.Unmarshal(j.Payload, &pj) != nil || pj.EventID != e.ID {
			continue
		}
		if j.Status == store.JobRunning {
			body.Printing = true
		} else {
			body.Queued++
		}
	}
	if _, _, problem := a.status(r.Context(), s.Printer); problem != "" {
		body.Problem = &problem
	}
	return web.JSON(w, r, http.StatusOK, body)
}

// BoothPrint answers POST /api/e/:slug/booth/print: the booth's tap on
// its own photo, up to the settings' copies.
func (a *API) BoothPrint(w http.ResponseWriter, r *http.Request) error {
	e, err := photos.EventBySlug(r, a.store.Events())
	if err != nil {
		return err
	}
	g, err := a.cfg.Visitors.JoinedGuest(r, e)
	if err != nil {
		return err
	}
	if !g.Booth {
		return web.ErrForbidden
	}
	var req printRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := a.store.Printing().Settings(r.Context())
	if err != nil {
		return err
	}
	if s.Printer == "" || s.BoothCopies == 0 {
		return web.ErrForbidden
	}
	copies := 1
	if req.Copies.Set {
		copies = req.Copies.Value
	}
	if copies < 1 || copies > s.BoothCopies {
		return web.Field("copies", "must be 1 to the booth's copies")
	}
	if req.Document.Set && req.Document.Value != store.PrintPhoto {
		return web.Field("document", "must be photo")
	}
	ph, err := a.photoOf(r.Context(), e.ID, req.PhotoID)
	if err != nil {
		return err
	}
	if ph.GuestID != g.ID {
		return web.ErrNotFound
	}
	return a.answerPrint(w, r, store.PrintJob{Document: store.PrintPhoto, EventID: e.ID, PhotoID: ph.ID, Copies: copies, By: "booth"})
}

// AutoPrint is the print of a booth's new photo when the settings print
// every booth photo: a job to store with the photo, or none.
func (a *API) AutoPrint(ctx context.Context, p store.Photo, booth bool) []store.JobSpec {
	return AutoPrint(ctx, a.store, a.now(), a.log, p, booth)
}

// AutoPrint is the print of a booth's new photo, made at now, when st's
// settings print every booth photo: a job to store with the photo, or
// none. It needs no API, so the upload path can make it before the
// printing routes are built.
func AutoPrint(ctx context.Context, st *store.Store, now time.Time, log *slog.Logger, p store.Photo, booth bool) []store.JobSpec {
	if !booth || p.Video != nil {
		return nil
	}
	s, err := st.Printing().Settings(ctx)
	if err != nil || s.Printer == "" || !s.AutoBooth {
		return nil
	}
	sp, err := store.PrintJobSpec(store.PrintJob{ID: store.NewID(), Document: store.PrintPhoto, EventID: p.EventID,
		PhotoID: p.ID, Copies: 1, By: "auto", CreatedAt: now.UnixMilli()})
	if err != nil {
		log.ErrorContext(ctx, "making a booth photo's print", "error", err)
		return nil
	}
	return []store.JobSpec{sp}
}
