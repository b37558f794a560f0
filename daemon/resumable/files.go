package resumable

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Kinds of upload, from the metadata's kind or filetype.
const (
	KindPhoto  = "photo"
	KindVideo  = "video"
	KindPoster = "poster"
	KindVoice  = "voice"
)

// info is an upload's record, info.json in its folder.
type info struct {
	ID    string `json:"id"`
	Slug  string `json:"slug"`
	Guest string `json:"guest"`
	// Addr is the creating client's address key (addressKey).
	Addr   string `json:"addr,omitempty"`
	Kind   string `json:"kind"`
	Length int64  `json:"length"`
	// Offset is the bytes of data fsynced: what the box vouches for.
	Offset int64             `json:"offset"`
	Meta   map[string]string `json:"meta,omitempty"`
	// Poster is the id of a video's finished poster upload.
	Poster string `json:"poster,omitempty"`
	// Touched is when the upload last advanced, epoch ms; the upload
	// expires Config.Expiry after it.
	Touched int64 `json:"touched"`
	// Done is the answer of the spec's route once the whole file went
	// through it (data is gone then).
	Done *result `json:"done,omitempty"`
}

// result is a stored answer of the spec's route.
type result struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
	// retryAfter is the answer's Retry-After, for a refusal answered now.
	retryAfter string
}

// complete reports whether every byte is in.
func (i info) complete() bool { return i.Offset == i.Length }

// dataPath and infoPath name an upload's files.
func (s *Server) dir(id string) string      { return filepath.Join(s.cfg.Dir, id) }
func (s *Server) dataPath(id string) string { return filepath.Join(s.cfg.Dir, id, "data") }
func (s *Server) infoPath(id string) string { return filepath.Join(s.cfg.Dir, id, "info.json") }

// read loads an upload's record; fs.ErrNotExist when there is none.
func (s *Server) read(id string) (info, error) {
	b, err := os.ReadFile(s.infoPath(id))
	if err != nil {
		return info{}, err
	}
	var in info
	if err := json.Unmarshal(b, &in); err != nil {
		return info{}, fmt.Errorf("reading upload %s: %w", id, err)
	}
	return in, nil
}

// write stores an upload's record whole: a temp file, fsynced, renamed
// over the old one, the folder fsynced.
func (s *Server) write(in info) error {
	b, err := json.Marshal(in)
	if err != nil {
		return err
	}
	dir := s.dir(in.ID)
	tmp := filepath.Join(dir, "info.json.tmp")
	if err := writeSynced(tmp, b); err != nil {
		return fmt.Errorf("writing upload %s: %w", in.ID, err)
	}
	if err := os.Rename(tmp, s.infoPath(in.ID)); err != nil {
		return fmt.Errorf("writing upload %s: %w", in.ID, err)
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("writing upload %s: %w", in.ID, err)
	}
	s.idx.put(in, s.doneUntil(in))
	return nil
}

// create makes an upload's folder whole: a "new-" folder with its record
// and an empty data file, fsynced, renamed to the upload's id.
func (s *Server) create(in info) error {
	tmp := filepath.Join(s.cfg.Dir, "new-"+in.ID)
	if err := os.MkdirAll(tmp, 0o750); err != nil {
		return fmt.Errorf("creating upload: %w", err)
	}
	fail := func(err error) error {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("creating upload: %w", err)
	}
	b, err := json.Marshal(in)
	if err != nil {
		return fail(err)
	}
	if err := writeSynced(filepath.Join(tmp, "info.json"), b); err != nil {
		return fail(err)
	}
	if err := writeSynced(filepath.Join(tmp, "data"), nil); err != nil {
		return fail(err)
	}
	if err := syncDir(tmp); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, s.dir(in.ID)); err != nil {
		return fail(err)
	}
	if err := syncDir(s.cfg.Dir); err != nil {
		return fmt.Errorf("creating upload: %w", err)
	}
	return nil
}

// remove deletes an upload's folder and forgets it.
func (s *Server) remove(id string) error {
	if err := os.RemoveAll(s.dir(id)); err != nil {
		return fmt.Errorf("removing upload %s: %w", id, err)
	}
	s.idx.drop(id)
	return nil
}

// removeData deletes an upload's bytes once its answer is kept.
func (s *Server) removeData(id string) error {
	if err := os.Remove(s.dataPath(id)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("removing upload %s: %w", id, err)
	}
	return nil
}

// load reads every upload's record into the index, once at start, and
// notes the folders that are not whole uploads (a creation a crash cut).
func (s *Server) load() error {
	entries, err := os.ReadDir(s.cfg.Dir)
	if err != nil {
		return fmt.Errorf("listing uploads: %w", err)
	}
	var videos []info
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "new-") {
			s.idx.partial = append(s.idx.partial, e.Name())
			continue
		}
		in, err := s.read(e.Name())
		if err != nil || in.ID != e.Name() {
			s.idx.partial = append(s.idx.partial, e.Name())
			continue
		}
		if in.Kind == KindVideo && in.Done == nil {
			// After its poster, which it names.
			videos = append(videos, in)
			continue
		}
		s.idx.put(in, s.doneUntil(in))
	}
	for _, in := range videos {
		s.idx.put(in, s.doneUntil(in))
	}
	s.idx.sortQueue()
	return nil
}

func writeSynced(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}
