// Package archive writes the box's ZIP downloads as streams: the photos
// of a query (the hosts' archive, a gallery link's) and the guestbook
// (guestbook.txt and the voice notes), with constant memory however large
// the event; and the names their files get, which the cloud export shares.
package archive

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"eventbox/daemon/mediafile"
	"eventbox/daemon/web"
	"eventbox/imaging"
	"eventbox/store"
)

const (
	// PageSize is how many photo records one listing step of an archive
	// (or of the cloud export's list) reads; the files are opened after
	// the step's transaction.
	PageSize = 200
	// copyBuffer is the one buffer an archive copies through.
	copyBuffer = 64 << 10
)

// JPEGCopier makes the full-size JPEG copy of a HEIC within the image
// memory budget, writing it as it is encoded (imaging.Pool).
type JPEGCopier interface {
	JPEGCopy(ctx context.Context, r io.ReaderAt, size int64, w io.Writer) error
}

// Config is what a Streamer needs.
type Config struct {
	// Store holds the records listed and the media files copied.
	Store *store.Store
	// JPEG makes the JPEG copies of HEIC photos in guests' archives.
	JPEG JPEGCopier
	// Logger receives what was sent or why it stopped.
	Logger *slog.Logger
}

// Streamer writes ZIP archives to HTTP answers. It is safe for
// concurrent use.
type Streamer struct {
	store *store.Store
	jpeg  JPEGCopier
	log   *slog.Logger
}

// New returns a Streamer over cfg.
func New(cfg Config) *Streamer {
	return &Streamer{store: cfg.Store, jpeg: cfg.JPEG, log: cfg.Logger}
}

// Options is what differs between the archives: the file name, and for
// guests and gallery visitors (ForGuests) photos without their position
// (mediafile.WithoutLocation) and each HEIC as its JPEG copy.
type Options struct {
	// Name is the download's file name (Name).
	Name string
	// ForGuests sends photos without their position and HEICs as JPEG.
	ForGuests bool
}

// Photos writes the photos of the query as a ZIP, newest first,
// with constant memory: records are listed a page at a time (each page in
// its own short transaction) and each file is copied through one buffer
// with the Store method (media are compressed already). A photo deleted
// meanwhile is left out. It stops when the request's context ends; after
// the first byte a failure cuts the connection (web.AbortStream). When the
// whole archive was sent, each photo's download count goes up by one, in
// one transaction. No matching photo gives a valid empty ZIP. opt names
// the file and says whether it is for guests (add).
func (s *Streamer) Photos(w http.ResponseWriter, r *http.Request, e store.Event, q store.PhotoQuery, opt Options) error {
	ctx := r.Context()
	q.Limit = PageSize
	page, err := s.store.Photos().List(ctx, q)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", mediafile.ContentDisposition(opt.Name))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)

	start := time.Now()
	zw := zip.NewWriter(w)
	names := map[string]bool{}
	buf := make([]byte, copyBuffer)
	var sent []string
	var bytes int64
	stop := func(err error) error {
		s.log.InfoContext(ctx, "archive stopped", "event", e.ID, "files", len(sent), "bytes", bytes,
			"clientGone", ctx.Err() != nil)
		return web.AbortStream(s.log, r, err)
	}
	for {
		for _, p := range page.Items {
			if err := ctx.Err(); err != nil {
				return stop(err)
			}
			n, err := s.add(ctx, zw, p, names, buf, opt.ForGuests)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted since it was listed
			}
			if err != nil {
				return stop(err)
			}
			sent = append(sent, p.ID)
			bytes += n
		}
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
		if page, err = s.store.Photos().List(ctx, q); err != nil {
			return stop(err)
		}
	}
	if err := zw.Close(); err != nil {
		return stop(err)
	}
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	// Counted once the archive is whole; the client may already be gone,
	// which does not undo what it received.
	if err := s.store.Photos().IncrementDownloads(context.WithoutCancel(ctx), sent); err != nil {
		s.log.WarnContext(ctx, "archive downloads not counted", "event", e.ID, "error", err)
	}
	s.log.InfoContext(ctx, "archive sent", "event", e.ID, "files", len(sent), "bytes", bytes,
		"ms", time.Since(start).Milliseconds())
	return nil
}

// add copies a photo's original (a video's video) into the
// archive under a readable, unique name and returns the bytes copied. A
// file that is gone answers store.ErrNotFound before anything is written.
// forGuests (guests' and gallery visitors' archives): a photo goes
// without its position (mediafile.WithoutLocation), and a HEIC as its full-size
// JPEG copy (addJPEGCopy), which computers without a HEIC viewer open.
func (s *Streamer) add(ctx context.Context, zw *zip.Writer, p store.Photo, names map[string]bool, buf []byte, forGuests bool) (int64, error) {
	media, ext := p.OriginalName(), "."+mediafile.FormatExt(p.Format)
	if p.Video != nil {
		media, ext = p.VideoName(), mediafile.VideoExt(p.Video.MIME)
	}
	f, err := s.store.Media().Open(media)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", media, err)
	}
	hdr := &zip.FileHeader{Method: zip.Store, Modified: time.UnixMilli(p.CreatedAt).UTC()}
	hdr.SetMode(0o644)
	if forGuests && p.Video == nil && imaging.Format(p.Format) == imaging.HEIC {
		n, done, err := s.addJPEGCopy(ctx, zw, p, f, st.Size(), names, *hdr)
		if done || err != nil {
			return n, err
		}
	}
	var content io.Reader = f
	if forGuests {
		if content, err = mediafile.WithoutLocation(f, st.Size(), p); err != nil {
			return 0, err
		}
	}
	hdr.Name = UniqueName(names, mediafile.DownloadName(p, "original", ext))
	dst, err := zw.CreateHeader(hdr)
	if err != nil {
		return 0, fmt.Errorf("adding %s to the archive: %w", hdr.Name, err)
	}
	n, err := io.CopyBuffer(dst, ctxReader{ctx, content}, buf)
	if err != nil {
		return n, fmt.Errorf("adding %s to the archive: %w", hdr.Name, err)
	}
	return n, nil
}

// addJPEGCopy adds a HEIC photo as its full-size JPEG copy
// (imaging.Pool.JPEGCopy: the image memory budget bounds the decoding,
// and the JPEG goes into the archive as it is encoded, never whole in
// memory; it holds no metadata, so no position either). done is false
// when no copy could be made (a HEIC too large for the budget, or one
// the decoder refuses) and nothing was written: the caller then adds the
// original instead. A failure after the entry was begun is an error.
func (s *Streamer) addJPEGCopy(ctx context.Context, zw *zip.Writer, p store.Photo, f *os.File, size int64, names map[string]bool, hdr zip.FileHeader) (n int64, done bool, err error) {
	jpg := strings.TrimSuffix(mediafile.DownloadName(p, "original", ".heic"), ".heic") + ".jpg"
	hdr.Name = jpg
	entry := &lazyEntry{zw: zw, hdr: &hdr, names: names}
	err = s.jpeg.JPEGCopy(ctx, f, size, entry)
	switch {
	case err == nil && entry.w == nil:
		return 0, false, nil // nothing came out: send the original
	case err == nil:
		return entry.n, true, nil
	case entry.w != nil || ctx.Err() != nil:
		return entry.n, true, fmt.Errorf("adding the jpeg copy of %s to the archive: %w", p.ID, err)
	}
	s.log.WarnContext(ctx, "archive: no jpeg copy, the heic goes as it is", "photo", p.ID, "error", err)
	return 0, false, nil
}

// lazyEntry begins its archive entry at the first byte written, so that
// a copy that fails before writing anything leaves no entry behind. The
// entry's name is made unique then.
type lazyEntry struct {
	zw    *zip.Writer
	hdr   *zip.FileHeader
	names map[string]bool
	w     io.Writer
	n     int64
}

func (l *lazyEntry) Write(b []byte) (int, error) {
	if l.w == nil {
		l.hdr.Name = UniqueName(l.names, l.hdr.Name)
		w, err := l.zw.CreateHeader(l.hdr)
		if err != nil {
			return 0, fmt.Errorf("adding %s to the archive: %w", l.hdr.Name, err)
		}
		l.w = w
	}
	n, err := l.w.Write(b)
	l.n += int64(n)
	return n, err
}

// Naming is the archives' way of writing the guestbook and naming files,
// for the cloud export to name its files the same (cloudexport.Naming).
type Naming struct{}

// GuestbookText is [GuestbookText].
func (Naming) GuestbookText(e store.Event, all []store.Message) (string, map[string]string) {
	return GuestbookText(e, all)
}

// UniqueName is [UniqueName].
func (Naming) UniqueName(taken map[string]bool, name string) string { return UniqueName(taken, name) }

// UniqueName returns name, or name with -2, -3… before its extension when
// an earlier entry took it, and records the result. Names are compared
// without case: Windows and macOS file systems do.
func UniqueName(taken map[string]bool, name string) string {
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	out := name
	for i := 2; taken[strings.ToLower(out)]; i++ {
		out = base + "-" + strconv.Itoa(i) + ext
	}
	taken[strings.ToLower(out)] = true
	return out
}

// Name is a ZIP's file name, which says what it holds:
// "<event name> - <event date> - <what>.zip" (the date left out when the
// event has none), the event name made safe for any file system
// (fileTitle).
func Name(e store.Event, what string) string {
	parts := []string{fileTitle(e.Name)}
	if parts[0] == "" {
		parts[0] = "Photos"
	}
	if d := fileTitle(e.EventDate); d != "" {
		parts = append(parts, d)
	}
	return strings.Join(append(parts, what), " - ") + ".zip"
}

// maxTitleBytes bounds a title in a file name: with what Name adds
// the name stays under the 255 bytes every file system takes.
const maxTitleBytes = 150

// fileTitle keeps of s what is readable and valid in a file name on
// Windows, macOS and Linux: letters (accents and marks included) and
// digits of any script, spaces and - _ ' & , . ( ) + !; anything else
// (slashes, colons, quotes, control characters, emoji) becomes a space.
// Runs of spaces become one; dots and spaces are trimmed at both ends
// (Windows drops trailing ones); the result is cut to maxTitleBytes on a
// character boundary. A Windows device name (CON, NUL, COM1…) before the
// first dot gets an underscore in front.
func fileTitle(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		keep := unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) ||
			strings.ContainsRune("-_'&,.()+!", r)
		if !keep {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if b.Len()+utf8.RuneLen(r) > maxTitleBytes {
			break
		}
		b.WriteRune(r)
	}
	out := strings.Trim(b.String(), " .")
	stem, _, _ := strings.Cut(out, ".")
	if windowsDevice(strings.TrimRight(stem, " ")) {
		out = "_" + out
	}
	return out
}

// windowsDevice reports whether name is one of the names Windows keeps
// for devices, in any case.
func windowsDevice(name string) bool {
	switch strings.ToUpper(name) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	u := strings.ToUpper(name)
	if len(u) == 4 && (strings.HasPrefix(u, "COM") || strings.HasPrefix(u, "LPT")) {
		return u[3] >= '0' && u[3] <= '9'
	}
	return false
}

// ctxReader stops a copy as soon as the context ends (a client that went
// away), instead of at the next failed write.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
