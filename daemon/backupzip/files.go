package backupzip

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"eventbox/store"
)

func marshalManifest(m Manifest) ([]byte, error) {
	raw, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding manifest: %w", err)
	}
	return raw, nil
}

func copyFile(w io.Writer, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}

// Storage kinds of a Target.
const (
	OnCard = "card"
	OnUSB  = "usb"
)

// USBFolder is the folder a host makes at the top of a USB drive to have
// the scheduled backups written there instead of the card.
const USBFolder = "eventbox-backups"

// Target is where scheduled backups go.
type Target struct {
	// Kind is OnCard or OnUSB.
	Kind string `json:"kind"`
	// Dir is the folder.
	Dir string `json:"dir"`
}

// TargetConfig says how the target is chosen.
type TargetConfig struct {
	// DataDir: the card's folder is DataDir/backups.
	DataDir string
	// Mounts lists the mount points of the system; nil reads
	// /proc/self/mountinfo.
	Mounts func() ([]string, error)
	// USBRoots are the folders under which removable drives are mounted;
	// nil means /media, /run/media and /mnt.
	USBRoots []string
}

// ChooseTarget picks where scheduled backups go: the first mounted file
// system under one of the USB roots that has an eventbox-backups folder at
// its top (the host opts a drive in by making that folder), else
// DATA_DIR/backups on the card. It is asked again for every backup, so a
// drive plugged in or pulled out counts from the next one.
func ChooseTarget(cfg TargetConfig) Target {
	card := Target{Kind: OnCard, Dir: filepath.Join(cfg.DataDir, "backups")}
	mounts := cfg.Mounts
	if mounts == nil {
		mounts = procMounts
	}
	roots := cfg.USBRoots
	if roots == nil {
		roots = []string{"/media", "/run/media", "/mnt"}
	}
	points, err := mounts()
	if err != nil {
		return card
	}
	slices.Sort(points)
	for _, p := range points {
		for _, root := range roots {
			if !strings.HasPrefix(p, root+"/") {
				continue
			}
			dir := filepath.Join(p, USBFolder)
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				return Target{Kind: OnUSB, Dir: dir}
			}
		}
	}
	return card
}

// procMounts reads the mount points from /proc/self/mountinfo.
func procMounts() ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("reading mounts: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 {
			out = append(out, strings.ReplaceAll(fields[4], `\040`, " "))
		}
	}
	return out, sc.Err()
}

// Kept is a backup file in a target's folder.
type Kept struct {
	Name      string `json:"name"`
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"createdAt"`
}

const nameLayout = "20060102-150405"

// FileName is the name of a backup made at t for reason.
func FileName(t time.Time, reason string) string {
	return "eventbox-" + t.UTC().Format(nameLayout) + "-" + reason + ".zip"
}

// parseName reads the time out of a FileName.
func parseName(name string) (time.Time, bool) {
	rest, ok := strings.CutPrefix(name, "eventbox-")
	if !ok || !strings.HasSuffix(name, ".zip") || len(rest) < len(nameLayout) {
		return time.Time{}, false
	}
	t, err := time.Parse(nameLayout, rest[:len(nameLayout)])
	return t, err == nil
}

// List answers the backups in dir, oldest first. A missing folder is
// empty.
func List(dir string) ([]Kept, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing backups: %w", err)
	}
	var out []Kept
	for _, e := range entries {
		t, ok := parseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, Kept{Name: e.Name(), Bytes: info.Size(), CreatedAt: t.UnixMilli()})
	}
	slices.SortFunc(out, func(a, b Kept) int { return int(a.CreatedAt - b.CreatedAt) })
	return out, nil
}

// Prune removes the backups of dir older than days, oldest first, and
// answers their names. days 0 removes nothing (scheduled backups are off
// and what is kept stays).
func Prune(dir string, days int, now time.Time) ([]string, error) {
	if days <= 0 {
		return nil, nil
	}
	kept, err := List(dir)
	if err != nil {
		return nil, err
	}
	cutoff := now.Add(-time.Duration(days) * 24 * time.Hour).UnixMilli()
	var removed []string
	for _, k := range kept {
		if k.CreatedAt >= cutoff {
			break
		}
		if err := os.Remove(filepath.Join(dir, k.Name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("removing old backup %s: %w", k.Name, err)
		}
		removed = append(removed, k.Name)
	}
	return removed, nil
}

// WriteFile writes a backup of st as name in dir: to a hidden temp file,
// fsynced, then renamed, so a cut leaves no half backup under a backup's
// name. It answers the manifest and the file's size.
func WriteFile(ctx context.Context, st *store.Store, dir, name string, opts WriteOptions) (Manifest, int64, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return Manifest{}, 0, fmt.Errorf("creating %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".partial-*")
	if err != nil {
		return Manifest{}, 0, fmt.Errorf("creating backup file: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(f.Name())
		}
	}()
	bw := bufio.NewWriterSize(f, 256<<10)
	m, err := Write(ctx, st, bw, opts)
	if err != nil {
		return m, 0, err
	}
	if err := bw.Flush(); err != nil {
		return m, 0, fmt.Errorf("writing backup file: %w", err)
	}
	if err := f.Sync(); err != nil {
		return m, 0, fmt.Errorf("syncing backup file: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		return m, 0, fmt.Errorf("reading backup file: %w", err)
	}
	if err := f.Close(); err != nil {
		return m, 0, fmt.Errorf("closing backup file: %w", err)
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		return m, 0, fmt.Errorf("naming backup file: %w", err)
	}
	ok = true
	return m, info.Size(), nil
}

// ClearPartial removes the temp files of backups cut by a crash.
func ClearPartial(dir string) {
	matches, _ := filepath.Glob(filepath.Join(dir, ".partial-*"))
	for _, p := range matches {
		_ = os.Remove(p)
	}
}
