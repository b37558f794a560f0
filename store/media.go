package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Media is the area on disk under DATA_DIR that holds every file the
// records point at: originals, variants, voice notes and logos, one folder
// per event (media/<eventID>/). Files are only ever written whole: to a
// temp file in DATA_DIR/tmp, fsynced, then renamed into place. Names are
// made from record ids, never from anything a client sent.
type Media struct {
	root string // DATA_DIR/media
	tmp  string // DATA_DIR/tmp, same file system as root

	mu   sync.Mutex
	open map[string]bool // temp files of this process not yet committed or aborted
}

func openMedia(dataDir string) (*Media, error) {
	m := &Media{root: filepath.Join(dataDir, "media"), tmp: filepath.Join(dataDir, "tmp"), open: map[string]bool{}}
	for _, d := range []string{m.root, m.tmp} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("creating %s: %w", d, err)
		}
	}
	return m, nil
}

// clearTemp removes every file of the temp area: at start nothing is being
// written (the database lock keeps a second process out), so what is there
// was left by a power cut or a killed upload and belongs to no record. It
// returns how many it removed.
func (m *Media) clearTemp() (int, error) {
	entries, err := os.ReadDir(m.tmp)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", m.tmp, err)
	}
	n := 0
	var errs []error
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(m.tmp, e.Name())); err != nil {
			errs = append(errs, fmt.Errorf("clearing temp area: %w", err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// clearStaleTemp removes the temp files of a running process that are
// older than cutoff and that no TempFile of this process holds: left by
// an upload whose cleanup failed. Folders (a backup's snapshot links) are
// left to their owner. It returns how many it removed.
func (m *Media) clearStaleTemp(cutoff time.Time) (int, error) {
	entries, err := os.ReadDir(m.tmp)
	if err != nil {
		return 0, fmt.Errorf("reading %s: %w", m.tmp, err)
	}
	n := 0
	var errs []error
	for _, e := range entries {
		p := filepath.Join(m.tmp, e.Name())
		if !e.Type().IsRegular() || m.isOpen(p) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().After(cutoff) {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("clearing temp area: %w", err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

func (m *Media) isOpen(p string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.open[p]
}

func (m *Media) setOpen(p string, open bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if open {
		m.open[p] = true
	} else {
		delete(m.open, p)
	}
}

// ErrBadPath: a media name that is not of the form <eventID>/<file>.
var ErrBadPath = errors.New("bad media path")

// path resolves a media name ("<eventID>/<file>") to a file path inside the
// media root, refusing anything else.
func (m *Media) path(name string) (string, error) {
	dir, file, ok := strings.Cut(name, "/")
	if !ok || !ValidID(dir) || !validFileName(file) {
		return "", fmt.Errorf("%q: %w", name, ErrBadPath)
	}
	return filepath.Join(m.root, dir, file), nil
}

// validFileName allows the names the product makes: id-based, lower-case
// letters, digits, dots and dashes, no leading dot.
func validFileName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '-') {
			return false
		}
	}
	return !strings.Contains(s, "..")
}

// MediaName builds the media name of a file of an event.
func MediaName(eventID, file string) string { return eventID + "/" + file }

// TempFile is a file being written in the temp area. Commit moves it into
// the media area whole; Abort (or a crash) leaves nothing behind.
type TempFile struct {
	*os.File
	m    *Media
	done bool
}

// CreateTemp starts a new file in the temp area.
func (m *Media) CreateTemp() (*TempFile, error) {
	f, err := os.CreateTemp(m.tmp, "up-*")
	if err != nil {
		return nil, fmt.Errorf("creating temp file: %w", err)
	}
	m.setOpen(f.Name(), true)
	return &TempFile{File: f, m: m}, nil
}

// Commit fsyncs the file, closes it and renames it to the media name, then
// fsyncs the directory, so that once Commit returns the file survives a
// power cut. The TempFile must not be used afterwards.
func (t *TempFile) Commit(name string) error {
	dst, err := t.m.path(name)
	if err != nil {
		t.Abort()
		return err
	}
	if err := t.Sync(); err != nil {
		t.Abort()
		return fmt.Errorf("syncing %s: %w", name, err)
	}
	if err := t.Close(); err != nil {
		t.Abort()
		return fmt.Errorf("closing %s: %w", name, err)
	}
	dir := filepath.Dir(dst)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		t.Abort()
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := os.Rename(t.Name(), dst); err != nil {
		t.Abort()
		return fmt.Errorf("moving %s into place: %w", name, err)
	}
	t.done = true
	t.m.setOpen(t.Name(), false)
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// Abort discards the temp file. It is safe to call after Commit or twice.
func (t *TempFile) Abort() {
	if t.done {
		return
	}
	t.done = true
	_ = t.Close()
	_ = os.Remove(t.Name())
	t.m.setOpen(t.Name(), false)
}

// Write stores the bytes read from r under name, atomically.
func (m *Media) Write(name string, r io.Reader) (int64, error) {
	t, err := m.CreateTemp()
	if err != nil {
		return 0, err
	}
	n, err := io.Copy(t, r)
	if err != nil {
		t.Abort()
		return n, fmt.Errorf("writing %s: %w", name, err)
	}
	return n, t.Commit(name)
}

// Open opens a media file for reading.
func (m *Media) Open(name string) (*os.File, error) {
	p, err := m.path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("opening %s: %w", name, ErrNotFound)
	}
	return f, err
}

// Exists reports whether a media file is present.
func (m *Media) Exists(name string) bool {
	p, err := m.path(name)
	if err != nil {
		return false
	}
	_, err = os.Stat(p)
	return err == nil
}

// Remove deletes media files; missing ones are not an error.
func (m *Media) Remove(names ...string) error {
	var errs []error
	for _, name := range names {
		p, err := m.path(name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// RemoveEvent deletes an event's whole media folder.
func (m *Media) RemoveEvent(eventID string) error {
	if !ValidID(eventID) {
		return fmt.Errorf("%q: %w", eventID, ErrBadPath)
	}
	if err := os.RemoveAll(filepath.Join(m.root, eventID)); err != nil {
		return fmt.Errorf("removing media of event %s: %w", eventID, err)
	}
	return nil
}

// EventDirs lists the event ids that have a media folder.
func (m *Media) EventDirs() ([]string, error) {
	entries, err := os.ReadDir(m.root)
	if err != nil {
		return nil, fmt.Errorf("reading media root: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	return ids, nil
}

func dirOf(path string) string { return filepath.Dir(path) }

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}
