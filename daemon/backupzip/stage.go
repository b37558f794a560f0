package backupzip

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"eventbox/store"
)

// StageConfig says where and how a restore is staged.
type StageConfig struct {
	// DataDir is the live DATA_DIR; the staging area is inside it.
	DataDir string
	// Room is the space the staged files may take (free space less the
	// storage guard's margin); a backup needing more is refused.
	Room int64
	// Inspect, when not nil, is called with the staged store open, after
	// every file checked out: the daemon adds the restoring owner's
	// session there. Its error stops the restore.
	Inspect func(ctx context.Context, st *store.Store) error
	// Logger for the staged store; nil discards.
	Logger *slog.Logger
}

// Stage checks the backup zr against its manifest and extracts it into
// the staging area (store.StagingDir). It refuses (RefusedError, naming
// the file) a bad or missing manifest, a file whose size or SHA-256 does
// not match, a file missing from the ZIP or not in the manifest, a name
// outside the backup's layout, a database from a newer eventbox and a
// backup larger than Room. On any error the staging area is removed and
// the live data was never touched. On success the caller decides the
// swap with store.CommitRestore, or drops it with store.AbandonStaging.
func Stage(ctx context.Context, zr *zip.Reader, cfg StageConfig) (m Manifest, err error) {
	m, entries, err := check(zr, cfg.Room)
	if err != nil {
		return m, err
	}
	dir, err := store.PrepareStaging(cfg.DataDir)
	if err != nil {
		return m, err
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, store.AbandonStaging(cfg.DataDir))
		}
	}()
	for _, f := range m.Files {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		if err := extract(entries[f.Name], f, dir); err != nil {
			return m, err
		}
	}
	if err := inspect(ctx, dir, cfg); err != nil {
		return m, err
	}
	return m, nil
}

// check reads the manifest and compares it with the ZIP's entries, before
// anything is written.
func check(zr *zip.Reader, room int64) (Manifest, map[string]*zip.File, error) {
	var m Manifest
	entries := map[string]*zip.File{}
	var manifest *zip.File
	for _, zf := range zr.File {
		if zf.Name == ManifestName {
			if manifest != nil {
				return m, nil, refuse(ManifestName, "appears twice")
			}
			manifest = zf
			continue
		}
		if !validName(zf.Name) {
			return m, nil, refuse(zf.Name, "is outside the backup's layout")
		}
		if _, dup := entries[zf.Name]; dup {
			return m, nil, refuse(zf.Name, "appears twice")
		}
		entries[zf.Name] = zf
	}
	if manifest == nil {
		return m, nil, refuse(ManifestName, "is missing")
	}
	if err := readManifest(manifest, &m); err != nil {
		return m, nil, err
	}
	listed := map[string]bool{}
	var need int64
	for _, f := range m.Files {
		if !validName(f.Name) {
			return m, nil, refuse(f.Name, "is outside the backup's layout")
		}
		if listed[f.Name] {
			return m, nil, refuse(ManifestName, "lists %s twice", f.Name)
		}
		listed[f.Name] = true
		if entries[f.Name] == nil {
			return m, nil, refuse(f.Name, "is in the manifest but not in the ZIP")
		}
		if zf := entries[f.Name]; zf.UncompressedSize64 != uint64(f.Bytes) {
			return m, nil, refuse(f.Name, "has %d bytes in the ZIP, the manifest says %d", zf.UncompressedSize64, f.Bytes)
		}
		if f.Name == DBName && f.Bytes > store.MaxRestoreDBBytes {
			return m, nil, refuse(DBName, "is %d MB, more than the %d MB a box's database may be", mb(f.Bytes), mb(store.MaxRestoreDBBytes))
		}
		need += f.Bytes
		if need > room {
			return m, nil, refuse(f.Name, "does not fit on the card: the backup needs %d MB, %d MB are free", mb(m.Bytes), mb(max(room, 0)))
		}
	}
	for name := range entries {
		if !listed[name] {
			return m, nil, refuse(name, "is not in the manifest")
		}
	}
	if m.DB.Schema > store.Schemas() {
		return m, nil, refuse(DBName, "was written by a newer eventbox (schema %d, this one knows up to %d): update first", m.DB.Schema, store.Schemas())
	}
	return m, entries, nil
}

func mb(n int64) int64 { return (n + 1<<20 - 1) >> 20 }

// readManifest decodes and checks the manifest.
func readManifest(zf *zip.File, m *Manifest) error {
	if zf.UncompressedSize64 > maxManifestBytes {
		return refuse(ManifestName, "is too large")
	}
	rc, err := zf.Open()
	if err != nil {
		return refuse(ManifestName, "cannot be read: %v", err)
	}
	defer rc.Close()
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(m); err != nil {
		return refuse(ManifestName, "is not a valid manifest: %v", err)
	}
	switch {
	case m.Version != FormatVersion:
		return refuse(ManifestName, "has version %d; this eventbox reads version %d", m.Version, FormatVersion)
	case len(m.Files) == 0 || m.Files[0].Name != DBName || m.DB.Name != DBName:
		return refuse(ManifestName, "does not list the database first")
	case m.DB.File != m.Files[0]:
		return refuse(ManifestName, "describes the database twice, differently")
	}
	var total int64
	for _, f := range m.Files {
		if f.Bytes < 0 || !sha256Hex.MatchString(f.SHA256) {
			return refuse(ManifestName, "has a bad size or checksum for %s", f.Name)
		}
		total += f.Bytes
	}
	if total != m.Bytes {
		return refuse(ManifestName, "counts %d bytes, its files %d", m.Bytes, total)
	}
	return nil
}

var (
	sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// mediaName is the form of a media file the store makes:
	// media/<16 base32 characters>/<lower-case name>.
	mediaName = regexp.MustCompile(`^media/[a-z2-7]{16}/[a-z0-9][a-z0-9.-]{0,63}$`)
)

// validName accepts the database and media names the store makes, and
// nothing that could land outside the staging area.
func validName(name string) bool {
	if name == DBName {
		return true
	}
	return mediaName.MatchString(name) && !strings.Contains(name, "..") &&
		store.ValidID(strings.Split(name, "/")[1])
}

// extract copies one entry into the staging area and checks its size and
// checksum.
func extract(zf *zip.File, f File, dir string) error {
	rc, err := zf.Open()
	if err != nil {
		return refuse(f.Name, "cannot be read: %v", err)
	}
	defer rc.Close()
	dst := filepath.Join(dir, filepath.FromSlash(f.Name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o750); err != nil {
		return fmt.Errorf("creating staging folder: %w", err)
	}
	// The database is 0600, like the one Open makes; media 0640.
	mode := os.FileMode(0o640)
	if f.Name == DBName {
		mode = 0o600
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return fmt.Errorf("staging %s: %w", f.Name, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(rc, f.Bytes+1))
	if cerr := out.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("staging %s: %w", f.Name, cerr)
	}
	switch {
	case errors.Is(err, zip.ErrChecksum) || errors.Is(err, zip.ErrFormat) || errors.Is(err, zip.ErrAlgorithm):
		return refuse(f.Name, "is damaged: %v", err)
	case err != nil:
		var pe *os.PathError
		if errors.As(err, &pe) {
			return err // the card's fault, not the file's
		}
		return refuse(f.Name, "cannot be read: %v", err)
	case n != f.Bytes:
		return refuse(f.Name, "has %d bytes, the manifest says %d", n, f.Bytes)
	case sum(h) != f.SHA256:
		return refuse(f.Name, "does not match its checksum")
	}
	return nil
}

// inspect opens the staged database: it must be a database this binary
// can run, and cfg.Inspect gets to change it.
func inspect(ctx context.Context, dir string, cfg StageConfig) error {
	err := store.VerifyDB(filepath.Join(dir, DBName), time.Second)
	var p *store.DBProblem
	if errors.As(err, &p) {
		return refuse(DBName, "%s", p.Reason)
	}
	if err != nil {
		return fmt.Errorf("checking the staged database: %w", err)
	}
	st, err := store.Open(ctx, dir, store.Options{LockTimeout: time.Second, Logger: cfg.Logger, MediaGrace: 365 * 24 * time.Hour,
		Unkeyed: true})
	if errors.Is(err, store.ErrNewerSchema) {
		return refuse(DBName, "was written by a newer eventbox: update first")
	}
	if err != nil {
		return refuse(DBName, "is not a database this eventbox can open: %v", err)
	}
	if cfg.Inspect != nil {
		err = cfg.Inspect(ctx, st)
	}
	return errors.Join(err, st.Close())
}
