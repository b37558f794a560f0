package cloudexport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"eventbox/daemon/access"
	"eventbox/daemon/jobs"
	"eventbox/daemon/mediafile"
	"eventbox/imaging"
	"eventbox/s3store"
	"eventbox/store"
	"eventbox/webdav"
)

// The export's retry policy (docs/decisions.md, "Cloud export"): a failed
// attempt is retried after 1 min, 2, 4… up to an hour, for
// exportMaxFailures failures (about a day and a half), and at once when
// the network returns (Runner.Wake). A process that dies during an export
// (a power cut) is not the export's fault: deaths hardly count.
const exportMaxFailures = 30

var exportPolicy = jobs.Policy{Base: time.Minute, Cap: time.Hour, MaxFailures: exportMaxFailures, MaxDeaths: 100}

// defaultExportQuiet is how long the export waits after the last guest
// upload ended before it sends the next file.
const defaultExportQuiet = 10 * time.Second

// pageSize is how many records one listing step of an export reads.
const pageSize = 200

// An export notes what it has sent (its job's progress state, every file
// so far, and the export's counts) after reportEvery files, or after a
// file sent reportAfter since it last did, and at its end. Noting it
// after each file wrote the whole state each time: for a party's 3,600
// files that is O(n²) bytes and two synced transactions a file. A file
// sent but not yet noted when the box stops is found by the next
// attempt's listing, with its size, and not sent again.
const (
	reportEvery = 50
	reportAfter = 5 * time.Second
)

// RemoteFunc opens the WebDAV server of the settings, bound to ctx.
type RemoteFunc func(ctx context.Context, s webdav.Settings) (*webdav.Remote, error)

// ActivityFunc answers the guests' upload activity: how many uploads are
// being received, a generation that changes whenever one starts or ends,
// and a channel closed at the next change.
type ActivityFunc func() (busy int, gen uint64, change <-chan struct{})

// Naming is how the export writes the guestbook and names its files, the
// same way as the console's archives.
type Naming interface {
	// GuestbookText makes guestbook.txt of the messages, oldest first,
	// and answers the file name of each voice note by message id.
	GuestbookText(e store.Event, msgs []store.Message) (string, map[string]string)
	// UniqueName answers name, or name made unique among taken (compared
	// without case), and records it in taken.
	UniqueName(taken map[string]bool, name string) string
}

// Config is what an Exporter needs.
type Config struct {
	// Store holds the settings, the exports, the records and the files.
	Store *store.Store
	// Logger receives the exports' starts, ends and failures.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Remote opens the WebDAV server; nil means webdav.New with its
	// default transport.
	Remote RemoteFunc
	// Bucket opens the S3-compatible bucket; nil means s3store.New with
	// its default transport.
	Bucket BucketFunc
	// BoxName names the box in an S3 export's keys
	// (<prefix>/<box name>/<event>/…) unless the settings name it; ""
	// means "eventbox".
	BoxName string
	// Notify tells the job runner that jobs of the kinds were queued
	// (the export's notice); nil tells nobody.
	Notify func(kinds ...string)
	// Display makes the photo's sharp display variant now if it is
	// missing or rough (variants.Maker.Sharp): a HEIC's JPEG copy is its
	// display image, which the box has made already unless its image
	// work is behind. Required.
	Display func(ctx context.Context, photoID string) error
	// Uploads answers the guests' upload activity, which the export
	// waits out (Quiet); nil means the export never waits.
	Uploads ActivityFunc
	// Quiet is how long the export waits after the last guest upload
	// ended before it sends the next file; zero means 10 s.
	Quiet time.Duration
	// Naming writes guestbook.txt and names the files as the console's
	// archives do (archive.Naming). Required.
	Naming Naming
	// WakeMail makes the mails waiting for a retry due now: the guests'
	// gallery mails wait for the export (GuestLink). nil wakes nothing.
	WakeMail func(ctx context.Context)
	// ShareTransport makes the calls of the cloud's share API
	// (GuestLink); nil means http.DefaultTransport.
	ShareTransport http.RoundTripper
}

// Exporter is the "export" job kind: it copies an event's photos, videos
// and guestbook to the WebDAV server or the S3-compatible bucket of the
// settings.
type Exporter struct {
	cfg   Config
	store *store.Store
	log   *slog.Logger
	now   func() time.Time
}

// New returns an Exporter over cfg; give its Kind to the job runner.
func New(cfg Config) *Exporter {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Remote == nil {
		cfg.Remote = dialRemote(nil)
	}
	if cfg.Bucket == nil {
		cfg.Bucket = dialBucket(nil)
	}
	if cfg.BoxName == "" {
		cfg.BoxName = "eventbox"
	}
	if cfg.Notify == nil {
		cfg.Notify = func(...string) {}
	}
	if cfg.WakeMail == nil {
		cfg.WakeMail = func(context.Context) {}
	}
	return &Exporter{cfg: cfg, store: cfg.Store, log: cfg.Logger, now: cfg.Now}
}

// dialRemote is the RemoteFunc of webdav.New over transport (nil: its
// default).
func dialRemote(transport http.RoundTripper) RemoteFunc {
	return func(ctx context.Context, s webdav.Settings) (*webdav.Remote, error) {
		return webdav.New(ctx, s, webdav.Config{Transport: transport})
	}
}

// Kind is the "export" job kind: one export at a time over all events,
// one file at a time.
func (s *Exporter) Kind() jobs.Kind {
	return jobs.Kind{Name: store.ExportJobKind, Handler: s.run, Concurrency: 1, Retry: exportPolicy,
		// An export waiting for a retry goes when the network returns.
		WakeOnSuccess: true}
}

// exportState is what an export keeps between attempts (Job.Progress):
// each file it has put on the server, with the size and ETag the server
// answered and the SHA-256 it sent, by its path in the event's folder;
// and, for S3, the multipart upload under way, kept before its first
// part is sent so the next attempt resumes it.
type exportState struct {
	// Target is the settings' kind the files went to ("" before S3 was
	// one: WebDAV). When the hosts switch targets between two attempts,
	// the export starts again in the new target's folder.
	Target string                `json:"target,omitempty"`
	Files  map[string]remoteFile `json:"files"`
	Upload *s3store.Upload       `json:"upload,omitempty"`
}

// exportItem is one file of an export.
type exportItem struct {
	// dir is "" or "voice"; name the file's name there.
	dir, name string
	// media is the stored file to send; empty for content.
	media string
	// display is set for a HEIC's JPEG copy: the id of the photo whose
	// display variant media is, made now if it is missing or rough.
	display string
	// rough: the photo's variants were rough (its thumbnail item) when
	// the export listed it.
	rough bool
	// content is a made file (guestbook.txt, index.html).
	content []byte
}

func (it exportItem) path() string { return path.Join(it.dir, it.name) }

// run is the export job's handler. The export's end (done, or
// failed for good) is written with its notice in one transaction; a
// failure that may pass is recorded in the export's error and retried.
func (s *Exporter) run(ctx context.Context, j jobs.Job) error {
	var p store.ExportJob
	if err := j.Decode(&p); err != nil {
		return err
	}
	x, err := s.store.Cloud().Export(ctx, p.EventID, p.ExportID)
	if errors.Is(err, store.ErrNotFound) {
		return jobs.Permanent(fmt.Errorf("export %s: event or export deleted: %w", p.ExportID, err))
	}
	if err != nil {
		return err
	}
	if x.Finished() {
		return nil
	}
	err = s.send(ctx, j, x)
	if err == nil || ctx.Err() != nil {
		return err
	}
	words := Words(err)
	j.SetResult(words)
	last := jobs.IsPermanent(err) || j.Failures+1 >= exportMaxFailures
	if !last {
		if _, uerr := s.store.Cloud().UpdateExport(context.WithoutCancel(ctx), x.EventID, x.ID, func(e *store.Export) {
			e.Status, e.Error = store.ExportQueued, words
		}); uerr != nil {
			s.log.WarnContext(ctx, "export error not recorded", "export", x.ID, "error", uerr)
		}
		return err
	}
	x, ferr := s.end(context.WithoutCancel(ctx), x, store.ExportFailed, words)
	if ferr != nil {
		return fmt.Errorf("recording the failure of export %s (%v): %w", x.ID, err, ferr)
	}
	s.log.WarnContext(ctx, "export failed", "event", x.EventID, "export", x.ID, "error", err)
	return jobs.Permanent(err)
}

// end writes the export's end and its notice (export.finished or
// export.failed) in one transaction, and tells the notice runner.
func (s *Exporter) end(ctx context.Context, x store.Export, status, words string) (store.Export, error) {
	kind := store.NoticeExportFinished
	if status == store.ExportFailed {
		kind = store.NoticeExportFailed
	}
	now := s.now().UnixMilli()
	spec, err := store.NoticeJobSpec(store.Notice{Kind: kind, At: now, EventID: x.EventID}, exportNotice{
		ExportID: x.ID, Scope: x.Scope, Folder: x.Folder, Total: x.Total, Sent: x.Sent, Bytes: x.Bytes, Error: words,
	})
	if err != nil {
		return x, err
	}
	x, err = s.store.Cloud().UpdateExport(ctx, x.EventID, x.ID, func(e *store.Export) {
		e.Status, e.Error, e.FinishedAt = status, words, now
	}, spec)
	if err != nil {
		return x, err
	}
	s.cfg.Notify(store.NoticeJobKind)
	if status == store.ExportDone {
		// The guests' gallery mails waiting for this copy go now.
		s.cfg.WakeMail(ctx)
	}
	return x, nil
}

// exportNotice is the data of the export.finished and export.failed
// notices.
type exportNotice struct {
	ExportID string `json:"exportId"`
	Scope    string `json:"scope"`
	Folder   string `json:"folder"`
	Total    int    `json:"total"`
	Sent     int    `json:"sent"`
	Bytes    int64  `json:"bytes"`
	Error    string `json:"error,omitempty"`
}

// Words says why an export or a settings test failed, for the hosts: the
// server's own words where it answered.
func Words(err error) string {
	var ce *webdav.Error
	if errors.As(err, &ce) {
		return ce.Error()
	}
	var s3e *s3store.Error
	if errors.As(err, &s3e) {
		return s3e.Error()
	}
	var s3se *s3store.SetupError
	if errors.As(err, &s3se) {
		return s3se.Msg
	}
	var se *webdav.SetupError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

// errCloudOff: the export's settings are gone.
var errCloudOff = errors.New("the cloud export is not set up")

// send runs one attempt: it lists what the export sends, skips what
// the server has already (same size, and the same ETag where an earlier
// attempt noted one), and sends the rest one file at a time, pausing while
// guests upload. It reports after each file, so the next attempt resumes
// there.
func (s *Exporter) send(ctx context.Context, j jobs.Job, x store.Export) error {
	settings, ok, err := s.store.Cloud().Settings(ctx)
	if err != nil {
		return err
	}
	if !ok {
		return jobs.Permanent(errCloudOff)
	}
	if lost := secretLost(settings); lost != nil {
		return jobs.Permanent(lost)
	}
	e, err := s.store.Events().Get(ctx, x.EventID)
	if errors.Is(err, store.ErrNotFound) {
		return jobs.Permanent(err)
	}
	if err != nil {
		return err
	}
	state := exportState{Files: map[string]remoteFile{}}
	if j.Progress != nil && len(j.Progress.State) > 0 {
		if err := json.Unmarshal(j.Progress.State, &state); err != nil || state.Files == nil {
			state = exportState{Files: map[string]remoteFile{}}
		}
	}
	items, err := s.items(ctx, e, x.Scope)
	if err != nil {
		return err
	}
	folder := x.Folder
	if state.Target == "" && len(state.Files) > 0 {
		state.Target = store.CloudWebDAV
	}
	switch {
	case state.Target == "":
		folder = "" // nothing sent yet: the folder is the settings' of now
	case state.Target != settings.Target():
		// The hosts switched targets: nothing is on the new one yet.
		folder, state = "", exportState{Files: map[string]remoteFile{}}
	}
	state.Target = settings.Target()
	if folder == "" {
		folder = s.folderOf(settings, e)
	}
	x, err = s.store.Cloud().UpdateExport(ctx, x.EventID, x.ID, func(ex *store.Export) {
		ex.Status, ex.Folder, ex.Total, ex.Sent, ex.Bytes, ex.Error = store.ExportRunning, folder, len(items), 0, 0, ""
		if ex.StartedAt == 0 {
			ex.StartedAt = s.now().UnixMilli()
		}
	})
	if err != nil {
		return err
	}
	sent, bytes := 0, int64(0)
	report := func() error {
		raw, err := json.Marshal(state)
		if err != nil {
			return err
		}
		if err := j.Report(ctx, store.JobProgress{Done: int64(sent), Total: int64(len(items)), State: raw}); err != nil {
			return err
		}
		x, err = s.store.Cloud().UpdateExport(ctx, x.EventID, x.ID, func(ex *store.Export) { ex.Sent, ex.Bytes = sent, bytes })
		return err
	}
	remote, err := s.target(ctx, settings, &state, report)
	if err != nil {
		return jobs.Permanent(err)
	}
	if err := remote.prepare(ctx, folder); err != nil {
		return err
	}
	listed := map[string]map[string]remoteFile{}
	for _, it := range items {
		if _, ok := listed[it.dir]; ok {
			continue
		}
		have, err := remote.list(ctx, path.Join(folder, it.dir))
		if err != nil {
			return err
		}
		listed[it.dir] = have
	}

	// The files go up to remote.parallel() at a time; mu guards the
	// state, the counts and the reports between them.
	var mu sync.Mutex
	sinceReport, reported := 0, s.now()
	one := func(ctx context.Context, it exportItem, have remoteFile, there bool, noted remoteFile) error {
		entry, uploaded, err := s.item(ctx, remote, folder, it, have, there, noted)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		sent++
		bytes += entry.Size
		if uploaded || (entry != remoteFile{} && state.Files[it.path()].SHA256 == "") {
			state.Files[it.path()] = entry
		}
		if sinceReport++; sinceReport >= reportEvery || uploaded && s.now().Sub(reported) >= reportAfter {
			if err := report(); err != nil {
				return err
			}
			sinceReport, reported = 0, s.now()
		}
		return nil
	}
	quiet := NewQuiet(s.cfg.Uploads, s.cfg.Quiet)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(max(remote.parallel(), 1))
	for _, it := range items {
		if err := quiet.Wait(gctx); err != nil {
			break // the group's error, or ctx's, below
		}
		have, there := listed[it.dir][it.name]
		mu.Lock()
		noted := state.Files[it.path()]
		mu.Unlock()
		g.Go(func() error { return one(gctx, it, have, there, noted) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := report(); err != nil {
		return err
	}
	if err := s.manifest(ctx, remote, folder, e, x, items, state); err != nil {
		return err
	}
	x.Sent, x.Bytes = sent, bytes
	if _, err := s.end(ctx, x, store.ExportDone, ""); err != nil {
		return err
	}
	s.log.InfoContext(ctx, "export done", "event", x.EventID, "export", x.ID, "files", sent, "bytes", bytes)
	return nil
}

// cloudErr marks the server's refusals that retrying cannot change as
// permanent.
func cloudErr(err error) error {
	var ce *webdav.Error
	if errors.As(err, &ce) && ce.Permanent() {
		return jobs.Permanent(err)
	}
	return err
}

// item puts one file on the target unless it is there already, and
// answers it as the target has it (with the SHA-256 of the box's bytes)
// and whether it was sent now. have is the target's listing of the name
// (there: listed), noted what an earlier attempt sent under it.
func (s *Exporter) item(ctx context.Context, remote target, folder string, it exportItem,
	have remoteFile, there bool, noted remoteFile) (remoteFile, bool, error) {
	same := func(size int64) bool {
		return there && have.Size == size && (noted.ETag == "" || have.ETag == "" || noted.ETag == have.ETag)
	}
	kept := func(r io.ReaderAt, size int64) (remoteFile, bool, error) {
		have.SHA256 = noted.SHA256
		if have.SHA256 == "" && r != nil {
			sum, err := sha256Of(r, size)
			if err != nil {
				return remoteFile{}, false, err
			}
			have.SHA256 = sum
		}
		return have, false, nil
	}
	dir := path.Join(folder, it.dir)
	switch {
	case it.content != nil:
		r := bytes.NewReader(it.content)
		if same(int64(len(it.content))) {
			return kept(r, r.Size())
		}
		return s.sendFile(ctx, remote, dir, it.name, r, r.Size())
	}
	if it.rough {
		// Its display is the thumbnail item: make the sharp one first.
		if ok, err := s.display(ctx, it); !ok {
			return remoteFile{}, false, err
		}
	}
	f, err := s.store.Media().Open(it.media)
	if errors.Is(err, store.ErrNotFound) && it.display != "" && !it.rough {
		// The image work has not reached the HEIC yet.
		if ok, err := s.display(ctx, it); !ok {
			return remoteFile{}, false, err
		}
		f, err = s.store.Media().Open(it.media)
	}
	if errors.Is(err, store.ErrNotFound) {
		return remoteFile{}, false, nil // deleted since it was listed
	}
	if err != nil {
		return remoteFile{}, false, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return remoteFile{}, false, fmt.Errorf("reading %s: %w", it.media, err)
	}
	if same(fi.Size()) {
		return kept(f, fi.Size())
	}
	return s.sendFile(ctx, remote, dir, it.name, f, fi.Size())
}

// display makes the sharp display image of the HEIC whose JPEG copy it
// is (Config.Display). It answers false when there is none to send: a
// photo whose image work failed goes without its copy, with a warning,
// its original sent all the same.
func (s *Exporter) display(ctx context.Context, it exportItem) (bool, error) {
	err := s.cfg.Display(ctx, it.display)
	switch {
	case err == nil:
		return true, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	}
	s.log.WarnContext(ctx, "no jpeg copy of a heic", "photo", it.display, "error", err)
	return false, nil
}

// sendFile puts size bytes of r as dir/name and notes their SHA-256,
// hashed as the target reads them (sumReader): a file is read from the
// card once to be sent, not once more for its sum.
func (s *Exporter) sendFile(ctx context.Context, remote target, dir, name string, r io.ReaderAt, size int64) (remoteFile, bool, error) {
	sr := &sumReader{r: r, h: sha256.New()}
	got, err := remote.put(ctx, dir, name, sr, size)
	if err != nil {
		return remoteFile{}, false, err
	}
	if got.SHA256 = sr.sum(size); got.SHA256 == "" {
		// The target did not read it all in order (a resumed upload
		// skips the parts the store has): read it for its sum.
		if got.SHA256, err = sha256Of(r, size); err != nil {
			return remoteFile{}, false, err
		}
	}
	return got, true, nil
}

// sumReader is a file as a target reads it, hashing each byte the first
// time a read reaches it. Targets read from the start to the end, and may
// start over (after an auth challenge, or a checksum pass before the
// send): the bytes are the same, so only those past what was hashed are
// added. A read that skips ahead leaves no sum.
type sumReader struct {
	r    io.ReaderAt
	mu   sync.Mutex
	h    hash.Hash
	next int64 // bytes hashed so far; -1 once a read skipped some
}

func (s *sumReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := s.r.ReadAt(p, off)
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.next < 0:
	case off > s.next:
		s.next = -1
	case off+int64(n) > s.next:
		s.h.Write(p[s.next-off : n])
		s.next = off + int64(n)
	}
	return n, err
}

// sum is the hex SHA-256 of the file's size bytes, or "" when the reads
// did not cover them in order.
func (s *sumReader) sum(size int64) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != size {
		return ""
	}
	return hex.EncodeToString(s.h.Sum(nil))
}

// sha256Of answers the hex SHA-256 of size bytes of r.
func sha256Of(r io.ReaderAt, size int64) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(r, 0, size)); err != nil {
		return "", fmt.Errorf("reading a file to export: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// upload is a file's bytes as an upload body: seekable, so the WebDAV
// client can send it again after an auth challenge without keeping a copy
// (it buffers any body it cannot seek), not closable, so the client does
// not close the caller's file, and cut as soon as ctx ends.
type upload struct {
	ctx context.Context
	*io.SectionReader
}

func (u upload) Read(p []byte) (int, error) {
	if err := u.ctx.Err(); err != nil {
		return 0, err
	}
	return u.SectionReader.Read(p)
}

func newUpload(ctx context.Context, f io.ReaderAt, size int64) upload {
	return upload{ctx, io.NewSectionReader(f, 0, size)}
}

// items lists what an export of the event sends: the originals of the
// photos and videos the access rules give the export
// (access.CloudPhotos: visible ones; favorites scope: visible
// favorites), a JPEG copy of each HEIC (its display image), the guestbook's messages they
// give it (access.CloudGuestbook: visible ones; guestbook.txt and
// voice/…), and index.html. Records are read a page at a time; the list
// holds names, not files.
func (s *Exporter) items(ctx context.Context, e store.Event, scope string) ([]exportItem, error) {
	var photos []store.Photo
	q := access.PhotoQuery(e.ID, access.CloudPhotos(scope == store.ExportFavorites))
	q.Limit = pageSize
	for {
		page, err := s.store.Photos().List(ctx, q)
		if err != nil {
			return nil, err
		}
		photos = append(photos, page.Items...)
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	slices.Reverse(photos) // oldest first
	taken := map[string]bool{"index.html": true, "guestbook.txt": true}
	var items []exportItem
	var shown []indexEntry
	for _, p := range photos {
		media, ext := p.OriginalName(), "."+mediafile.FormatExt(p.Format)
		if p.Video != nil {
			media, ext = p.VideoName(), mediafile.VideoExt(p.Video.MIME)
		}
		name := s.cfg.Naming.UniqueName(taken, mediafile.DownloadName(p, "original", ext))
		items = append(items, exportItem{name: name, media: media})
		entry := indexEntry{name: name, video: p.Video != nil, who: p.GuestName, at: p.CreatedAt}
		if p.Video == nil && p.Format == string(imaging.HEIC) && imaging.HEICSupported() {
			jpg := s.cfg.Naming.UniqueName(taken, strings.TrimSuffix(name, ext)+".jpg")
			items = append(items, exportItem{name: jpg, media: p.VariantName("display"), display: p.ID, rough: p.VariantsRough})
			entry.name, entry.original = jpg, name
		}
		shown = append(shown, entry)
	}
	var msgs []store.Message
	mq := access.MessageQuery(e.ID, access.CloudGuestbook())
	mq.Limit = 500
	for {
		page, err := s.store.Messages().List(ctx, mq)
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, page.Items...)
		if page.Next == 0 {
			break
		}
		mq.Before = page.Next
	}
	if len(msgs) > 0 {
		slices.Reverse(msgs)
		txt, audio := s.cfg.Naming.GuestbookText(e, msgs)
		items = append(items, exportItem{name: "guestbook.txt", content: []byte(txt)})
		for _, m := range msgs {
			if file, ok := audio[m.ID]; ok {
				items = append(items, exportItem{dir: path.Dir(file), name: path.Base(file), media: m.AudioName()})
			}
		}
	}
	items = append(items, exportItem{name: "index.html", content: indexHTML(e, shown, hasGuestbook(items))})
	return items, nil
}

func hasGuestbook(items []exportItem) bool {
	return slices.ContainsFunc(items, func(it exportItem) bool { return it.name == "guestbook.txt" && it.dir == "" })
}

// indexEntry is one photo or video on index.html.
type indexEntry struct {
	name, original, who string
	video               bool
	at                  int64
}

// indexHTML is a page that shows the exported photos from their folder,
// offline: no script, no outside file. It says its language (the event's,
// else English) and names every link, for screen readers: a photo's or
// video's link by its file name, which holds its date and its guest.
func indexHTML(e store.Event, shown []indexEntry, guestbook bool) []byte {
	var b strings.Builder
	title := html.EscapeString(e.Name)
	lang := e.DefaultLocale
	if lang == "" {
		lang = "en"
	}
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\">"+
		"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>%s</title>\n"+
		"<style>body{font-family:system-ui,sans-serif;margin:1rem;background:#fafafa}"+
		"main{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:.75rem}"+
		"figure{margin:0}img,video{width:100%%;height:220px;object-fit:cover;border-radius:4px;background:#ddd}"+
		"figcaption{font-size:.8rem;color:#555}</style></head>\n<body>\n<h1>%s</h1>\n", html.EscapeString(lang), title, title)
	if e.EventDate != "" {
		fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(e.EventDate))
	}
	if guestbook {
		b.WriteString("<p><a href=\"guestbook.txt\">guestbook.txt</a></p>\n")
	}
	b.WriteString("<main>\n")
	for _, s := range shown {
		src := html.EscapeString(url.PathEscape(s.name))
		fmt.Fprintf(&b, "<figure><a href=\"%s\" aria-label=\"%s\">", src, html.EscapeString(s.name))
		if s.video {
			fmt.Fprintf(&b, "<video src=\"%s\" preload=\"metadata\" controls></video>", src)
		} else {
			fmt.Fprintf(&b, "<img src=\"%s\" loading=\"lazy\" alt=\"\">", src)
		}
		b.WriteString("</a><figcaption>")
		b.WriteString(html.EscapeString(time.UnixMilli(s.at).Local().Format("2006-01-02 15:04")))
		if s.who != "" {
			b.WriteString(" · " + html.EscapeString(s.who))
		}
		if s.original != "" {
			o := html.EscapeString(url.PathEscape(s.original))
			fmt.Fprintf(&b, " · <a href=\"%s\" aria-label=\"%s\">HEIC</a>", o, html.EscapeString(s.original))
		}
		b.WriteString("</figcaption></figure>\n")
	}
	b.WriteString("</main>\n</body></html>\n")
	return []byte(b.String())
}

// Folder is the settings' folder as a clean relative path; empty means
// "eventbox".
func Folder(folder string) string {
	f := strings.Trim(path.Clean("/"+strings.TrimSpace(folder)), "/")
	if f == "" {
		return "eventbox"
	}
	return f
}

// eventFolder names an event's folder on the server: its date (the event
// date, else the day it was made) and its name, with only letters,
// digits and dashes, which every server and file system takes
// ("2026-06-20 Anna-Ben").
func eventFolder(e store.Event) string {
	date := e.EventDate
	if date == "" {
		date = time.UnixMilli(e.CreatedAt).Local().Format("2006-01-02")
	}
	name := mediafile.SafeName(e.Name)
	if name == "" {
		name = e.ID
	}
	return date + " " + name
}

// Quiet makes the export wait while guests upload: before each file, if
// an upload is being received, or one started or ended since the export
// last looked, it waits until none has for the quiet period.
type Quiet struct {
	activity ActivityFunc
	period   time.Duration
	seen     uint64
}

// NewQuiet waits out the uploads activity answers, period after the last
// one (zero: defaultExportQuiet); a nil activity never waits.
func NewQuiet(activity ActivityFunc, period time.Duration) *Quiet {
	if activity == nil {
		activity = func() (int, uint64, <-chan struct{}) { return 0, 0, nil }
	}
	if period <= 0 {
		period = defaultExportQuiet
	}
	_, gen, _ := activity()
	return &Quiet{activity: activity, period: period, seen: gen}
}

// Wait returns once no upload has started or ended for the quiet period,
// at once when none did since the last call.
func (q *Quiet) Wait(ctx context.Context) error {
	for {
		busy, gen, change := q.activity()
		if busy == 0 && gen == q.seen {
			return nil
		}
		if busy > 0 {
			select {
			case <-change:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		t := time.NewTimer(q.period)
		select {
		case <-t.C:
			q.seen = gen
		case <-change:
			t.Stop()
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
}
