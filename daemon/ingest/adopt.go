package ingest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"eventbox/store"
)

// adoptKey is the context key of a file to adopt.
type adoptKey struct{}

// adoptFile is a finished file on the data disk that an upload's body
// stands for.
type adoptFile struct {
	path string
	size int64
}

// WithFile returns ctx carrying the finished file at path (size bytes,
// fsynced, inside DATA_DIR) as the upload's file: ReadForm then takes it
// for the form's file part, and Video for the video after the poster,
// instead of copying that part of the body to a temp file. The body
// carries the rest of the request (the text fields, the poster) and an
// empty file part, or nothing after the poster. The file is adopted by a
// hard link into the temp area, so it is never written twice and stays
// whole at path until its caller removes it: a crash at any point leaves
// either the upload's bytes or the stored photo, and the retry
// fingerprint finds the photo if both remain. Only in-process callers
// (daemon/resumable) can set it: no request header or body names a file.
func WithFile(ctx context.Context, path string, size int64) context.Context {
	return context.WithValue(ctx, adoptKey{}, adoptFile{path: path, size: size})
}

// fileOf is the file to adopt that ctx carries, if any.
func fileOf(ctx context.Context) (adoptFile, bool) {
	f, ok := ctx.Value(adoptKey{}).(adoptFile)
	return f, ok
}

// adopt takes the finished file src into a new temp file: a hard link to
// its bytes (nothing written), or a copy where the file system has no
// hard links. It checks src is size bytes long and fingerprints it into
// fp by reading it. The returned TempFile is read-only; shared reports
// whether its bytes are src's own (a link), which must not be changed.
func (in *Ingester) adopt(ctx context.Context, src adoptFile, fp io.Writer) (tmp *store.TempFile, shared bool, err error) {
	tmp, err = in.media.CreateTemp()
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if err != nil {
			tmp.Abort()
		}
	}()
	name := tmp.Name()
	link := filepath.Join(filepath.Dir(name), filepath.Base(name)+"-link")
	if lerr := os.Link(src.path, link); lerr != nil {
		// No hard links here (or another file system): copy, as a body is.
		f, err := os.Open(src.path)
		if err != nil {
			return nil, false, fmt.Errorf("opening the finished upload: %w", err)
		}
		defer f.Close()
		n, err := io.Copy(io.MultiWriter(tmp, fp), io.LimitReader(f, src.size+1))
		if err != nil {
			return nil, false, fmt.Errorf("copying the finished upload: %w", err)
		}
		if n != src.size {
			return nil, false, fmt.Errorf("the finished upload has %d bytes, not %d", n, src.size)
		}
		in.log.WarnContext(ctx, "a finished upload copied, not linked", "error", lerr)
		return tmp, false, nil
	}
	// The temp name now stands for the upload's bytes: the empty file
	// CreateTemp made is replaced whole, so a crash leaves a temp file
	// (emptied at start) and the upload as it was.
	if err := os.Rename(link, name); err != nil {
		_ = os.Remove(link)
		return nil, false, fmt.Errorf("adopting the finished upload: %w", err)
	}
	// Written now, as far as the media sweep can tell: its grace keeps a
	// file renamed into place a moment before its record commits, by the
	// file's time, and the upload's last byte may be older than that.
	now := time.Now()
	if err := os.Chtimes(name, now, now); err != nil {
		return nil, false, fmt.Errorf("adopting the finished upload: %w", err)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, false, fmt.Errorf("opening the adopted upload: %w", err)
	}
	_ = tmp.File.Close()
	tmp.File = f
	n, err := io.Copy(fp, f)
	if err != nil {
		return nil, false, fmt.Errorf("reading the adopted upload: %w", err)
	}
	if n != src.size {
		return nil, false, fmt.Errorf("the finished upload has %d bytes, not %d", n, src.size)
	}
	return tmp, true, nil
}

// unshare gives a TempFile whose bytes are an adopted upload's the first
// size bytes in a file of its own, so it can be cut without changing the
// upload (kept whole until its answer is kept, for a retry after a crash).
func (in *Ingester) unshare(tmp *store.TempFile, size int64) (*store.TempFile, error) {
	own, err := in.media.CreateTemp()
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(own, io.NewSectionReader(tmp.File, 0, size)); err != nil {
		own.Abort()
		return nil, fmt.Errorf("copying the image out of the upload: %w", err)
	}
	return own, nil
}
