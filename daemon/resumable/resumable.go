package resumable

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"eventbox/daemon/ingest"
	"eventbox/daemon/web"
	"eventbox/store"
)

// The protocol's version and what of it the box speaks.
const (
	// Version is the tus protocol version spoken.
	Version = "1.0.0"
	// Extensions are the tus extensions spoken.
	Extensions = "creation,termination,expiration"
	// ContentType is the PATCH body's content type.
	ContentType = "application/offset+octet-stream"
)

const (
	// DefaultExpiry is how long an upload with bytes in it that stopped
	// advancing is kept, and a finished upload's answer: a guest who left
	// the hotspot at night and comes back the next morning still resumes;
	// the pieces of one who never comes back are removed a day later.
	// (An upload with no byte in it expires after ShortExpiry.)
	DefaultExpiry = 24 * time.Hour
	// syncEvery is how many bytes a PATCH writes between two fsyncs, each
	// followed by the offset's advance: what a power cut can cost at most.
	syncEvery = 8 << 20
	// roomEvery is how many bytes a PATCH writes between two looks at the
	// card's free space: N PATCHes at once pass the storage guard's
	// margin by N times this at most.
	roomEvery = 1 << 20
	// takeoverWait is how long a PATCH waits for the request it took the
	// upload over from (a phone's connection lost mid-body, still read by
	// the box) to store what it received.
	takeoverWait = 10 * time.Second
	// takeoverGrace is how long a request waits for the one holding the
	// upload before it stops it: bytes already on their way are stored,
	// not thrown away.
	takeoverGrace = 2 * time.Second
	// sweepEvery is how often expired uploads are looked for: the index
	// is in memory, so a sweep reads no folder.
	sweepEvery = time.Minute
	// maxMetadata caps the Upload-Metadata header.
	maxMetadata = 4 << 10
	// formSlack is what a dry run announces beyond the file for a form's
	// boundaries and fields.
	formSlack = 1 << 10
	// The largest file of each kind when Config leaves it zero.
	defaultMaxPhoto = 25 << 20
	defaultMaxVideo = 200 << 20
	defaultMaxVoice = 20 << 20
)

// Refusals of the protocol itself (the others are the spec's).
var (
	// ErrOffset answers a PATCH whose Upload-Offset is not the upload's.
	ErrOffset = &web.Error{Status: http.StatusConflict, Code: "conflict"}
	// ErrVersion answers a request without Tus-Resumable: 1.0.0.
	ErrVersion = &web.Error{Status: http.StatusPreconditionFailed, Code: "tus_version"}
	// ErrContentType answers a PATCH whose body is not
	// application/offset+octet-stream.
	ErrContentType = &web.Error{Status: http.StatusUnsupportedMediaType, Code: "bad_request",
		Details: map[string]string{"Content-Type": "must be " + ContentType}}
	// ErrLocked answers a PATCH while another one still writes.
	ErrLocked = &web.Error{Status: http.StatusLocked, Code: "locked"}
)

// Config is what a Server needs.
type Config struct {
	// Dir holds the uploads (DATA_DIR/uploads), on the media's file
	// system; it is created.
	Dir string
	// Logger must not be nil.
	Logger *slog.Logger
	// Now is the clock of expiries; nil means time.Now.
	Now func() time.Time
	// Expiry is how long an upload that stopped advancing is kept;
	// zero means DefaultExpiry.
	Expiry time.Duration
	// Photos is the spec's POST /api/e/:slug/photos (photos and videos)
	// and Messages its POST /api/e/:slug/messages (voice notes), errors
	// answered as { error, details }.
	Photos, Messages http.Handler
	// Who is the guest behind a request, "" when none.
	Who func(r *http.Request) string
	// Room answers the bytes that may still be written before the
	// storage guard's margin; nil means no limit. A creation counts
	// every reservation against it, and a PATCH writes only while it is
	// positive.
	Room func(ctx context.Context) int64
	// MaxPhoto, MaxVideo and MaxVoice are the largest file of each kind,
	// in bytes (zero: 25 MiB, 200 MiB, 20 MiB); a poster's is
	// ingest.MaxPosterBytes. An Upload-Length past its kind's is refused
	// before any arithmetic.
	MaxPhoto, MaxVideo, MaxVoice int64
	// Store names an upload's event and guest in the console's list;
	// nil lists them by slug and id alone.
	Store *store.Store
}

// Server answers the resumable upload routes. It is safe for concurrent
// use.
type Server struct {
	cfg Config

	mu    sync.Mutex
	slots map[string]*slot

	idx *index
}

// slot is one upload's lock: a PATCH, a finish or a DELETE holds it.
type slot struct {
	sem   chan struct{}
	users int
	// kick, set by the PATCH holding the slot, stops its body.
	kick func()
}

// New returns a Server over cfg.Dir.
func New(cfg Config) (*Server, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Expiry <= 0 {
		cfg.Expiry = DefaultExpiry
	}
	for _, m := range []struct {
		v   *int64
		def int64
	}{{&cfg.MaxPhoto, defaultMaxPhoto}, {&cfg.MaxVideo, defaultMaxVideo}, {&cfg.MaxVoice, defaultMaxVoice}} {
		if *m.v <= 0 {
			*m.v = m.def
		}
	}
	if err := os.MkdirAll(cfg.Dir, 0o750); err != nil {
		return nil, fmt.Errorf("creating the uploads folder: %w", err)
	}
	s := &Server{cfg: cfg, slots: map[string]*slot{}, idx: newIndex()}
	if err := s.load(); err != nil {
		return nil, err
	}
	return s, nil
}

// maxLength is the largest file of kind.
func (s *Server) maxLength(kind string) int64 {
	switch kind {
	case KindVideo:
		return s.cfg.MaxVideo
	case KindVoice:
		return s.cfg.MaxVoice
	case KindPoster:
		return ingest.MaxPosterBytes
	}
	return s.cfg.MaxPhoto
}

// limits are what a creation is held to now.
func (s *Server) limits(ctx context.Context) limits {
	room := int64(math.MaxInt64)
	if s.cfg.Room != nil {
		room = s.cfg.Room(ctx)
	}
	largest := max(s.cfg.MaxPhoto, s.cfg.MaxVideo, s.cfg.MaxVoice, ingest.MaxPosterBytes)
	return limits{room: room, perAddress: largestPerAddress * largest, expiry: s.cfg.Expiry}
}

// doneUntil is when a finished upload's kept answer expires, epoch ms.
func (s *Server) doneUntil(in info) int64 {
	return in.Touched + s.cfg.Expiry.Milliseconds()
}

// lock takes the upload's slot, asking a PATCH that holds it to stop
// (takeover), and waits up to takeoverWait. unlock must be called once.
func (s *Server) lock(ctx context.Context, id string) (unlock func(), err error) {
	s.mu.Lock()
	sl := s.slots[id]
	if sl == nil {
		sl = &slot{sem: make(chan struct{}, 1)}
		s.slots[id] = sl
	}
	sl.users++
	s.mu.Unlock()
	var kick func()
	release := func() {
		s.mu.Lock()
		if sl.users--; sl.users == 0 {
			delete(s.slots, id)
		}
		s.mu.Unlock()
	}
	select {
	case sl.sem <- struct{}{}:
	default:
		// The request holding the upload may still be reading bytes that
		// arrived before its connection went: let it finish them first.
		grace := time.NewTimer(takeoverGrace)
		select {
		case sl.sem <- struct{}{}:
			grace.Stop()
			return s.unlocker(id, sl, release), nil
		case <-grace.C:
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
		s.mu.Lock()
		kick = sl.kick
		s.mu.Unlock()
		if kick != nil {
			kick()
		}
		t := time.NewTimer(takeoverWait)
		defer t.Stop()
		select {
		case sl.sem <- struct{}{}:
		case <-t.C:
			release()
			return nil, ErrLocked
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return s.unlocker(id, sl, release), nil
}

// unlocker is the unlock of a slot taken.
func (s *Server) unlocker(id string, sl *slot, release func()) func() {
	return func() {
		s.mu.Lock()
		sl.kick = nil
		s.mu.Unlock()
		<-sl.sem
		release()
	}
}

// setKick records how to stop the PATCH holding id's slot.
func (s *Server) setKick(id string, kick func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sl := s.slots[id]; sl != nil {
		sl.kick = kick
	}
}

// tusHeaders are on every answer.
func tusHeaders(w http.ResponseWriter) {
	w.Header().Set("Tus-Resumable", Version)
	w.Header().Set("Cache-Control", "no-store")
}

// checkVersion refuses a request that does not speak tus 1.0.0.
func checkVersion(w http.ResponseWriter, r *http.Request) error {
	tusHeaders(w)
	if r.Header.Get("Tus-Resumable") != Version {
		w.Header().Set("Tus-Version", Version)
		return ErrVersion
	}
	return nil
}

// Options answers the protocol's discovery.
func (s *Server) Options(w http.ResponseWriter, r *http.Request) error {
	h := w.Header()
	h.Set("Tus-Resumable", Version)
	h.Set("Tus-Version", Version)
	h.Set("Tus-Extension", Extensions)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// uploadURL is an upload's address.
func uploadURL(slug, id string) string {
	return "/api/e/" + slug + "/uploads/" + id
}

// parseMetadata reads Upload-Metadata: comma-separated "key base64value"
// pairs (a key alone has an empty value).
func parseMetadata(h string) (map[string]string, error) {
	meta := map[string]string{}
	if strings.TrimSpace(h) == "" {
		return meta, nil
	}
	if len(h) > maxMetadata {
		return nil, web.Field("Upload-Metadata", "is too long")
	}
	for _, pair := range strings.Split(h, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), " ")
		if k == "" {
			return nil, web.Field("Upload-Metadata", "has an empty key")
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil {
			return nil, web.Field("Upload-Metadata", "the value of "+k+" is not base64")
		}
		meta[k] = string(b)
	}
	return meta, nil
}

// kindOf is the upload's kind: the metadata's kind, else by filetype.
func kindOf(meta map[string]string) (string, error) {
	switch k := meta["kind"]; k {
	case KindPhoto, KindVideo, KindPoster, KindVoice:
		return k, nil
	case "":
	default:
		return "", web.Field("Upload-Metadata", "kind must be photo, video, poster or voice")
	}
	t := meta["filetype"]
	switch {
	case strings.HasPrefix(t, "video/"):
		return KindVideo, nil
	case strings.HasPrefix(t, "audio/"):
		return KindVoice, nil
	}
	return KindPhoto, nil
}

// Create starts an upload (POST /api/e/:slug/uploads): Upload-Length and
// Upload-Metadata; the spec's rules answer before any byte is sent.
func (s *Server) Create(w http.ResponseWriter, r *http.Request) error {
	if err := checkVersion(w, r); err != nil {
		return err
	}
	if r.Header.Get("Upload-Defer-Length") != "" {
		return web.Field("Upload-Defer-Length", "is not supported: send Upload-Length")
	}
	length, err := strconv.ParseInt(r.Header.Get("Upload-Length"), 10, 64)
	if err != nil || length < 1 {
		return web.Field("Upload-Length", "must be the file's size in bytes")
	}
	meta, err := parseMetadata(r.Header.Get("Upload-Metadata"))
	if err != nil {
		return err
	}
	kind, err := kindOf(meta)
	if err != nil {
		return err
	}
	slug := web.Param(r, "slug")
	in := info{ID: store.NewID(), Slug: slug, Guest: s.cfg.Who(r), Addr: addressKey(web.ClientIP(r)), Kind: kind,
		Length: length, Meta: meta, Touched: s.cfg.Now().UnixMilli()}
	var poster info
	if kind == KindVideo {
		if poster, err = s.posterOf(r, in); err != nil {
			return err
		}
		in.Poster = poster.ID
	}
	// Held to the kind's own limit before any sum: the dry run's form,
	// a video's poster and video, and the reservations add lengths.
	if length > s.maxLength(kind) {
		return web.ErrTooLarge
	}
	// The spec's route answers first: it knows the guest, the event's
	// rules and limits (a refusal is its answer, as is).
	if done, err := s.dryRun(w, r, in, poster); done || err != nil {
		return err
	}
	if in.Guest == "" {
		return web.ErrForbidden
	}
	if err := s.idx.reserve(in, in.Touched, s.limits(r.Context())); err != nil {
		return err
	}
	if err := s.create(in); err != nil {
		s.idx.drop(in.ID)
		return err
	}
	s.cfg.Logger.DebugContext(r.Context(), "upload created", "upload", in.ID, "kind", kind, "bytes", length)
	w.Header().Set("Location", uploadURL(slug, in.ID))
	w.Header().Set("Upload-Expires", s.expires(in))
	w.WriteHeader(http.StatusCreated)
	return nil
}

// posterOf returns the finished poster upload a video's metadata names.
func (s *Server) posterOf(r *http.Request, v info) (info, error) {
	id := v.Meta["poster"]
	if !store.ValidID(id) {
		return info{}, web.Field("Upload-Metadata", "a video names its poster's finished upload (poster)")
	}
	p, err := s.read(id)
	if err != nil || p.Kind != KindPoster || p.Slug != v.Slug || p.Guest != v.Guest || !p.complete() || s.expired(p) {
		return info{}, web.Field("Upload-Metadata", "poster must be a finished poster upload of yours")
	}
	return p, nil
}

// until is when an upload expires, epoch ms (entry.until).
func (s *Server) until(in info) int64 {
	if in.Done != nil {
		return s.doneUntil(in)
	}
	e := entryOf(in)
	if in.Kind == KindPoster && s.idx.named(in.ID) {
		e.videos = 1
	}
	return e.until(s.cfg.Expiry)
}

// expires is an upload's Upload-Expires.
func (s *Server) expires(in info) string {
	return time.UnixMilli(s.until(in)).UTC().Format(http.TimeFormat)
}

// open loads the upload of the route's :id, the caller's own on this
// event: anyone else's, an expired one, or none at all is 404.
func (s *Server) open(r *http.Request) (info, error) {
	id := web.Param(r, "id")
	if !store.ValidID(id) {
		return info{}, web.ErrNotFound
	}
	in, err := s.read(id)
	if errors.Is(err, fs.ErrNotExist) {
		return info{}, web.ErrNotFound
	}
	if err != nil {
		return info{}, err
	}
	if in.Slug != web.Param(r, "slug") || in.Guest == "" || in.Guest != s.cfg.Who(r) || s.expired(in) {
		return info{}, web.ErrNotFound
	}
	return in, nil
}

func (s *Server) expired(in info) bool {
	return s.cfg.Now().UnixMilli() >= s.until(in)
}

// Head answers an upload's offset (HEAD .../uploads/:id).
func (s *Server) Head(w http.ResponseWriter, r *http.Request) error {
	in, err := s.head(w, r)
	if err != nil {
		// A HEAD answer has no body: the status says it.
		w.WriteHeader(web.ToError(err).Status)
		return nil
	}
	h := w.Header()
	h.Set("Upload-Offset", strconv.FormatInt(in.Offset, 10))
	h.Set("Upload-Length", strconv.FormatInt(in.Length, 10))
	h.Set("Upload-Expires", s.expires(in))
	w.WriteHeader(http.StatusOK)
	return nil
}

func (s *Server) head(w http.ResponseWriter, r *http.Request) (info, error) {
	if err := checkVersion(w, r); err != nil {
		return info{}, err
	}
	in, err := s.open(r)
	if err != nil {
		return info{}, err
	}
	// A client asks where to resume once its connection was lost; the
	// box may still be reading that connection's last bytes. The request
	// holding the upload is stopped and stores what it has, so the
	// offset answered is all the box holds and the next PATCH matches.
	unlock, err := s.lock(r.Context(), in.ID)
	if err != nil {
		return info{}, err
	}
	defer unlock()
	return s.read(in.ID)
}

// Patch appends a body at Upload-Offset (PATCH .../uploads/:id). The
// bytes are fsynced before the offset advances; once the last one is in,
// the whole file goes through the spec's route (finish).
func (s *Server) Patch(w http.ResponseWriter, r *http.Request) error {
	if err := checkVersion(w, r); err != nil {
		return err
	}
	if ct := r.Header.Get("Content-Type"); !strings.EqualFold(strings.TrimSpace(strings.Split(ct, ";")[0]), ContentType) {
		return ErrContentType
	}
	offset, err := strconv.ParseInt(r.Header.Get("Upload-Offset"), 10, 64)
	if err != nil || offset < 0 {
		return web.Field("Upload-Offset", "must be the upload's offset in bytes")
	}
	in, err := s.open(r)
	if err != nil {
		return err
	}
	unlock, err := s.lock(r.Context(), in.ID)
	if err != nil {
		return err
	}
	defer unlock()
	if in, err = s.read(in.ID); err != nil {
		return web.ErrNotFound // removed while this request waited
	}
	if offset != in.Offset {
		w.Header().Set("Upload-Offset", strconv.FormatInt(in.Offset, 10))
		return ErrOffset.With(map[string]string{"Upload-Offset": fmt.Sprintf("the upload is at %d", in.Offset)})
	}
	if !in.complete() {
		var kicked atomic.Bool
		rc := http.NewResponseController(w)
		s.setKick(in.ID, func() {
			kicked.Store(true)
			_ = rc.SetReadDeadline(time.Now())
		})
		werr := s.receive(r.Context(), &in, r.Body, &kicked)
		// Whatever ended the body, the offset answered is what the box
		// holds: the client resumes there.
		w.Header().Set("Upload-Offset", strconv.FormatInt(in.Offset, 10))
		if kicked.Load() {
			// Another request of the same client took over: it answers.
			w.Header().Set("Connection", "close")
			w.Header().Set("Upload-Offset", strconv.FormatInt(in.Offset, 10))
			return ErrOffset.With(map[string]string{"Upload-Offset": "another request took this upload over"})
		}
		if werr != nil {
			return werr
		}
	}
	w.Header().Set("Upload-Offset", strconv.FormatInt(in.Offset, 10))
	if in.complete() && in.Kind == KindPoster {
		if err := s.checkPoster(r.Context(), in); err != nil {
			return err
		}
	}
	w.Header().Set("Upload-Expires", s.expires(in))
	if in.complete() && in.Kind != KindPoster {
		answered := false
		answer := func(res *result) {
			answered = true
			if res.Status >= 300 {
				_ = writeResult(w, res)
				return
			}
			setResultHeaders(w, res)
			w.WriteHeader(http.StatusNoContent)
			_ = http.NewResponseController(w).Flush()
		}
		if in.Done == nil {
			if err := s.finish(r, &in, answer); err != nil {
				if answered {
					s.cfg.Logger.WarnContext(r.Context(), "keeping a finished upload's answer", "upload", in.ID, "error", err)
					return nil
				}
				return err
			}
		}
		if !answered {
			answer(in.Done)
		}
		return nil
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// receive writes body at in.Offset, fsyncing and advancing the stored
// offset every syncEvery bytes and at the end, whatever ended the body.
func (s *Server) receive(ctx context.Context, in *info, body io.Reader, kicked *atomic.Bool) error {
	f, err := os.OpenFile(s.dataPath(in.ID), os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("opening upload %s: %w", in.ID, err)
	}
	defer f.Close()
	// Bytes past the offset the box vouches for (written before a power
	// cut, never fsynced) are not trusted.
	if err := f.Truncate(in.Offset); err != nil {
		return fmt.Errorf("cutting upload %s back to its offset: %w", in.ID, err)
	}
	if _, err := f.Seek(in.Offset, io.SeekStart); err != nil {
		return fmt.Errorf("seeking upload %s: %w", in.ID, err)
	}
	rest := in.Length - in.Offset
	src := io.LimitReader(body, rest+1)
	buf := make([]byte, 64<<10)
	var written, unsynced int64
	// room is what may be written before the card's free space is
	// looked at again: a PATCH writes only while the card is above the
	// storage guard's margin.
	room := func() int64 {
		if s.cfg.Room == nil {
			return roomEvery
		}
		return min(s.cfg.Room(ctx), roomEvery)
	}
	budget := room()
	commit := func() error {
		if unsynced == 0 {
			return nil
		}
		if err := f.Sync(); err != nil {
			return fmt.Errorf("syncing upload %s: %w", in.ID, err)
		}
		next := *in
		next.Offset += unsynced
		next.Touched = s.cfg.Now().UnixMilli()
		if err := s.write(next); err != nil {
			return err
		}
		*in, unsynced = next, 0
		return nil
	}
	var rerr error
	full := false
	for written < rest && !kicked.Load() {
		if budget <= 0 {
			if budget = room(); budget <= 0 {
				full = true
				break
			}
		}
		n, err := src.Read(buf[:min(int64(len(buf)), rest-written, budget)])
		budget -= int64(n)
		if n > 0 {
			if _, werr := f.Write(buf[:n]); werr != nil {
				return fmt.Errorf("storing upload %s: %w", in.ID, werr)
			}
			written += int64(n)
			if unsynced += int64(n); unsynced >= syncEvery {
				if err := commit(); err != nil {
					return err
				}
			}
		}
		if err != nil {
			if err != io.EOF {
				rerr = err
			}
			break
		}
	}
	if err := commit(); err != nil {
		return err
	}
	if full {
		s.cfg.Logger.InfoContext(ctx, "upload stopped at the storage margin", "upload", in.ID, "offset", in.Offset)
		return web.ErrInsufficientStorage
	}
	if rerr != nil {
		s.cfg.Logger.DebugContext(ctx, "upload body cut", "upload", in.ID, "offset", in.Offset, "error", rerr)
		var mbe *http.MaxBytesError
		if errors.As(rerr, &mbe) {
			return web.ErrTooLarge
		}
		return web.Field("body", "upload was interrupted: resume from Upload-Offset")
	}
	if written == rest && !kicked.Load() {
		var one [1]byte
		if n, _ := src.Read(one[:]); n > 0 {
			return web.Field("body", "runs past Upload-Length")
		}
	}
	return nil
}

// Result answers what the spec's route answered for the whole file (GET
// .../uploads/:id): 201 or 200 { photo } for a photo or video, 201
// { message } for a voice note, or its refusal. A finished upload whose
// answer was lost (a restart between the last byte and the answer) goes
// through the route now. An unfinished one is 409 with its offset.
func (s *Server) Result(w http.ResponseWriter, r *http.Request) error {
	tusHeaders(w)
	in, err := s.open(r)
	if err != nil {
		return err
	}
	if !in.complete() || in.Kind == KindPoster {
		w.Header().Set("Upload-Offset", strconv.FormatInt(in.Offset, 10))
		return ErrOffset.With(map[string]string{"Upload-Offset": fmt.Sprintf("the upload is at %d of %d", in.Offset, in.Length)})
	}
	if in.Done == nil {
		unlock, err := s.lock(r.Context(), in.ID)
		if err != nil {
			return err
		}
		defer unlock()
		if in, err = s.read(in.ID); err != nil {
			return web.ErrNotFound
		}
		if in.Done == nil {
			if err := s.finish(r, &in, nil); err != nil {
				return err
			}
		}
	}
	setResultHeaders(w, in.Done)
	return writeResult(w, in.Done)
}

// Delete removes an upload and its pieces (DELETE .../uploads/:id).
func (s *Server) Delete(w http.ResponseWriter, r *http.Request) error {
	if err := checkVersion(w, r); err != nil {
		return err
	}
	in, err := s.open(r)
	if err != nil {
		return err
	}
	unlock, err := s.lock(r.Context(), in.ID)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.remove(in.ID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// Run removes expired uploads every sweepEvery, and at once. It is the
// uploads' service.Service.
func (s *Server) Run(ctx context.Context) error {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		if n, err := s.Sweep(); err != nil {
			s.cfg.Logger.WarnContext(ctx, "sweeping uploads", "error", err)
		} else if n > 0 {
			s.cfg.Logger.InfoContext(ctx, "expired uploads removed", "count", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Sweep removes the uploads that expired and the folders a crash left
// half made, and answers how many it removed. It reads no folder: the
// index knows when each upload expires.
func (s *Server) Sweep() (int, error) {
	n := 0
	var errs []error
	for _, id := range s.idx.expiredAt(s.cfg.Now().UnixMilli(), s.cfg.Expiry) {
		if s.busy(id) {
			s.idx.requeue(id)
			continue
		}
		if err := s.remove(id); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	// Half-made folders are from before this start: no request holds
	// them.
	for _, name := range s.idx.takePartial() {
		if err := s.remove(name); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// busy reports whether a request holds or waits for id's slot.
func (s *Server) busy(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.slots[id] != nil
}
