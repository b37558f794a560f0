package daemon

import (
	"archive/zip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"eventbox/store"
)

const (
	// archivePageSize is how many photo records one listing step of an
	// archive reads; the files are opened after the step's transaction.
	archivePageSize = 200
	// archiveCopyBuffer is the one buffer an archive copies through.
	archiveCopyBuffer = 64 << 10
)

// handleAdminArchive streams a ZIP of the event's photos: the visible
// ones; all=1 adds pending and hidden; favorites=1 keeps the favorites.
func (s *Server) handleAdminArchive(w http.ResponseWriter, r *http.Request) error {
	e, err := s.adminEvent(r)
	if err != nil {
		return err
	}
	all, err := parseFlag(r, "all")
	if err != nil {
		return err
	}
	favorites, err := parseFlag(r, "favorites")
	if err != nil {
		return err
	}
	q := store.PhotoQuery{EventID: e.ID, Status: store.StatusVisible, Favorites: favorites}
	if all {
		q.Status = ""
	}
	return s.streamArchive(w, r, e, q, false)
}

// streamArchive writes the photos of the query as a ZIP, newest first,
// with constant memory: records are listed a page at a time (each page in
// its own short transaction) and each file is copied through one buffer
// with the Store method (media are compressed already). A photo deleted
// meanwhile is left out. It stops when the request's context ends; after
// the first byte a failure cuts the connection (abortStream). When the
// whole archive was sent, each photo's download count goes up by one, in
// one transaction. No matching photo gives a valid empty ZIP. With strip
// (a gallery link's visitor) photos go without their position.
func (s *Server) streamArchive(w http.ResponseWriter, r *http.Request, e store.Event, q store.PhotoQuery, strip bool) error {
	ctx := r.Context()
	q.Limit = archivePageSize
	page, err := s.store.Photos(ctx, q)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/zip")
	h.Set("Content-Disposition", contentDisposition(archiveName(e)))
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)

	start := time.Now()
	zw := zip.NewWriter(w)
	names := map[string]bool{}
	buf := make([]byte, archiveCopyBuffer)
	var sent []string
	var bytes int64
	stop := func(err error) error {
		s.log.InfoContext(ctx, "archive stopped", "event", e.ID, "files", len(sent), "bytes", bytes,
			"clientGone", ctx.Err() != nil)
		return s.abortStream(r, err)
	}
	for {
		for _, p := range page.Items {
			if err := ctx.Err(); err != nil {
				return stop(err)
			}
			n, err := s.addToArchive(ctx, zw, p, names, buf, strip)
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
		if page, err = s.store.Photos(ctx, q); err != nil {
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
	if err := s.store.IncrementDownloads(context.WithoutCancel(ctx), sent); err != nil {
		s.log.WarnContext(ctx, "archive downloads not counted", "event", e.ID, "error", err)
	}
	s.log.InfoContext(ctx, "archive sent", "event", e.ID, "files", len(sent), "bytes", bytes,
		"ms", time.Since(start).Milliseconds())
	return nil
}

// addToArchive copies a photo's original (a video's video) into the
// archive under a readable, unique name and returns the bytes copied. A
// file that is gone answers store.ErrNotFound before anything is written.
// With strip a photo goes without its position (withoutLocation).
func (s *Server) addToArchive(ctx context.Context, zw *zip.Writer, p store.Photo, names map[string]bool, buf []byte, strip bool) (int64, error) {
	media, ext := p.OriginalName(), "."+formatExt(p.Format)
	if p.Video != nil {
		media, ext = p.VideoName(), videoExt(p.Video.MIME)
	}
	f, err := s.store.Media().Open(media)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var content io.Reader = f
	if strip {
		st, err := f.Stat()
		if err != nil {
			return 0, fmt.Errorf("reading %s: %w", media, err)
		}
		if content, err = withoutLocation(f, st.Size(), p); err != nil {
			return 0, err
		}
	}
	name := uniqueName(names, downloadName(p, "original", ext))
	hdr := &zip.FileHeader{Name: name, Method: zip.Store, Modified: time.UnixMilli(p.CreatedAt).UTC()}
	hdr.SetMode(0o644)
	dst, err := zw.CreateHeader(hdr)
	if err != nil {
		return 0, fmt.Errorf("adding %s to the archive: %w", name, err)
	}
	n, err := io.CopyBuffer(dst, ctxReader{ctx, content}, buf)
	if err != nil {
		return n, fmt.Errorf("adding %s to the archive: %w", name, err)
	}
	return n, nil
}

// uniqueName returns name, or name with -2, -3… before its extension when
// an earlier entry took it, and records the result. Names are compared
// without case: Windows and macOS file systems do.
func uniqueName(taken map[string]bool, name string) string {
	ext := path.Ext(name)
	base := strings.TrimSuffix(name, ext)
	out := name
	for i := 2; taken[strings.ToLower(out)]; i++ {
		out = base + "-" + strconv.Itoa(i) + ext
	}
	taken[strings.ToLower(out)] = true
	return out
}

// archiveName is the ZIP's file name: "<event name>-photos.zip", the name
// made safe for any file system.
func archiveName(e store.Event) string {
	name := safeName(e.Name)
	if name == "" {
		name = "event"
	}
	return name + "-photos.zip"
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
