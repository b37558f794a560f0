package backupzip_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/backupzip"
	"eventbox/store"
)

var when = time.Date(2026, 6, 20, 15, 4, 5, 0, time.UTC)

// source is a populated store: an owner, an event and two media files.
type source struct {
	st    *store.Store
	event store.Event
	media map[string][]byte // name in the ZIP -> bytes
}

func newSource(t *testing.T) *source {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, t.TempDir(), store.Options{Now: func() time.Time { return when }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	a := store.Account{Username: "ana", Role: store.RoleOwner}
	if err := st.Accounts().Create(ctx, &a); err != nil {
		t.Fatal(err)
	}
	e := store.NewEvent("Ana & Ben")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	s := &source{st: st, event: e, media: map[string][]byte{}}
	for name, body := range map[string][]byte{
		"p1.jpg":       bytes.Repeat([]byte("photo one "), 300),
		"p2-thumb.jpg": []byte("second photo, small"),
	} {
		if _, err := st.Media().Write(store.MediaName(e.ID, name), bytes.NewReader(body)); err != nil {
			t.Fatal(err)
		}
		s.media["media/"+e.ID+"/"+name] = body
	}
	return s
}

// backupOf writes a backup of s and answers its bytes and manifest.
func (s *source) backupOf(t *testing.T) ([]byte, backupzip.Manifest) {
	t.Helper()
	var buf bytes.Buffer
	m, err := backupzip.Write(context.Background(), s.st, &buf, backupzip.WriteOptions{App: "1.2.3", Now: func() time.Time { return when }})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), m
}

func openZip(t *testing.T, raw []byte) *zip.Reader {
	t.Helper()
	zr, err := backupzip.OpenZip(bytes.NewReader(raw), int64(len(raw)))
	if err != nil {
		t.Fatalf("OpenZip: %v", err)
	}
	return zr
}

func hexSum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func TestWriteRecordsEveryFileInTheManifest(t *testing.T) {
	s := newSource(t)
	raw, m := s.backupOf(t)
	if m.Version != backupzip.FormatVersion || m.App != "1.2.3" || m.CreatedAt != when.UnixMilli() {
		t.Fatalf("manifest head = %d %q %d", m.Version, m.App, m.CreatedAt)
	}
	if m.DB.Schema != store.Schemas() || m.DB.Name != backupzip.DBName || m.Files[0] != m.DB.File {
		t.Fatalf("manifest db = %+v, first file %+v", m.DB, m.Files[0])
	}
	zr := openZip(t, raw)
	// The ZIP holds the files in the manifest's order, then the manifest.
	var names []string
	for _, zf := range zr.File {
		names = append(names, zf.Name)
	}
	if names[len(names)-1] != backupzip.ManifestName || len(names) != len(m.Files)+1 {
		t.Fatalf("ZIP entries = %v", names)
	}
	var total int64
	for i, f := range m.Files {
		zf := zr.File[i]
		if zf.Name != f.Name {
			t.Fatalf("entry %d = %s, manifest says %s", i, zf.Name, f.Name)
		}
		body := entryBody(t, zf)
		if int64(len(body)) != f.Bytes || hexSum(body) != f.SHA256 {
			t.Errorf("%s: %d bytes %s, manifest %d %s", f.Name, len(body), hexSum(body), f.Bytes, f.SHA256)
		}
		wantMethod := zip.Store
		if f.Name == backupzip.DBName {
			wantMethod = zip.Deflate
		} else if want, ok := s.media[f.Name]; !ok || !bytes.Equal(body, want) {
			t.Errorf("%s: not the stored media file", f.Name)
		}
		if zf.Method != wantMethod {
			t.Errorf("%s: method %d, want %d", f.Name, zf.Method, wantMethod)
		}
		if !zf.Modified.Equal(when) {
			t.Errorf("%s: modified %v, want %v", f.Name, zf.Modified, when)
		}
		total += f.Bytes
	}
	if len(m.Files) != 1+len(s.media) || total != m.Bytes {
		t.Fatalf("manifest lists %d files of %d bytes (sum %d)", len(m.Files), m.Bytes, total)
	}
	// The manifest in the ZIP is the one answered.
	var inZip backupzip.Manifest
	if err := json.Unmarshal(entryBody(t, zr.File[len(zr.File)-1]), &inZip); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(inZip)
	b, _ := json.Marshal(m)
	if !bytes.Equal(a, b) {
		t.Fatalf("manifest in ZIP %s\nanswered %s", a, b)
	}
}

func TestStageRestoresTheBackup(t *testing.T) {
	s := newSource(t)
	raw, m := s.backupOf(t)
	dataDir := t.TempDir()
	var seen []string
	got, err := backupzip.Stage(context.Background(), openZip(t, raw), backupzip.StageConfig{
		DataDir: dataDir, Room: m.Bytes,
		Inspect: func(ctx context.Context, st *store.Store) error {
			e, err := st.Events().BySlug(ctx, s.event.Slug)
			seen = append(seen, e.Name)
			return err
		},
	})
	if err != nil {
		t.Fatalf("Stage: %v", err)
	}
	if got.Bytes != m.Bytes || len(got.Files) != len(m.Files) {
		t.Fatalf("Stage answered %+v", got)
	}
	if !slices.Equal(seen, []string{"Ana & Ben"}) {
		t.Fatalf("Inspect saw %v", seen)
	}
	staged := store.StagingDir(dataDir)
	for name, want := range s.media {
		body, err := os.ReadFile(filepath.Join(staged, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(body, want) {
			t.Errorf("staged %s: %q, %v", name, body, err)
		}
	}
	info, err := os.Stat(filepath.Join(staged, backupzip.DBName))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("staged database: %v, %v", info, err)
	}
	if _, err := os.Stat(filepath.Join(dataDir, backupzip.DBName)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the live data was touched: %v", err)
	}
}

// entry is one file of a hand-made ZIP.
type entry struct {
	name string
	body []byte
}

// entryBody reads one entry of a ZIP whole.
func entryBody(t *testing.T, zf *zip.File) []byte {
	t.Helper()
	rc, err := zf.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	body, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// rebuild reads a good backup into its entries and manifest, lets edit
// change them, and writes the ZIP again (with the manifest last, as
// edited, unless edit drops it).
func rebuild(t *testing.T, raw []byte, edit func(m *backupzip.Manifest, es *[]entry)) []byte {
	t.Helper()
	zr := openZip(t, raw)
	var es []entry
	var m backupzip.Manifest
	for _, zf := range zr.File {
		body := entryBody(t, zf)
		if zf.Name == backupzip.ManifestName {
			if err := json.Unmarshal(body, &m); err != nil {
				t.Fatal(err)
			}
			continue
		}
		es = append(es, entry{zf.Name, body})
	}
	edit(&m, &es)
	// An edit drops the manifest by adding it without bytes.
	if !slices.ContainsFunc(es, func(e entry) bool { return e.name == backupzip.ManifestName && e.body == nil }) {
		mraw, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		es = append(es, entry{backupzip.ManifestName, mraw})
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		if e.name == "" {
			continue
		}
		if e.name == backupzip.ManifestName && e.body == nil {
			continue
		}
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// setFile changes a file's bytes and its manifest line to match.
func setFile(m *backupzip.Manifest, es []entry, name string, body []byte) {
	for i := range es {
		if es[i].name == name {
			es[i].body = body
		}
	}
	m.Bytes = 0
	for i := range m.Files {
		if m.Files[i].Name == name {
			m.Files[i].Bytes, m.Files[i].SHA256 = int64(len(body)), hexSum(body)
		}
		m.Bytes += m.Files[i].Bytes
	}
	m.DB.File = m.Files[0]
}

func TestStageRefusesABadBackup(t *testing.T) {
	s := newSource(t)
	good, m := s.backupOf(t)
	media := m.Files[1].Name
	other := "media/" + store.NewID() + "/x.jpg"
	cases := []struct {
		name       string
		edit       func(m *backupzip.Manifest, es *[]entry)
		room       int64
		file, says string
	}{
		{"no manifest", func(m *backupzip.Manifest, es *[]entry) {
			*es = append(*es, entry{backupzip.ManifestName, nil})
		}, 0, backupzip.ManifestName, "is missing"},
		{"manifest twice", func(m *backupzip.Manifest, es *[]entry) {
			*es = append(*es, entry{backupzip.ManifestName, []byte("{}")})
		}, 0, backupzip.ManifestName, "appears twice"},
		{"newer layout", func(m *backupzip.Manifest, es *[]entry) { m.Version = backupzip.FormatVersion + 1 }, 0,
			backupzip.ManifestName, "has version 2"},
		{"database not first", func(m *backupzip.Manifest, es *[]entry) {
			m.Files[0], m.Files[1] = m.Files[1], m.Files[0]
		}, 0, backupzip.ManifestName, "does not list the database first"},
		{"database described twice", func(m *backupzip.Manifest, es *[]entry) { m.DB.Bytes++ }, 0,
			backupzip.ManifestName, "describes the database twice"},
		{"bytes miscounted", func(m *backupzip.Manifest, es *[]entry) { m.Bytes++ }, 0,
			backupzip.ManifestName, "counts"},
		{"bad checksum text", func(m *backupzip.Manifest, es *[]entry) { m.Files[1].SHA256 = "XYZ" }, 0,
			backupzip.ManifestName, "bad size or checksum for " + media},
		{"file not in the manifest", func(m *backupzip.Manifest, es *[]entry) {
			*es = append(*es, entry{other, []byte("extra")})
		}, 0, other, "is not in the manifest"},
		{"file not in the ZIP", func(m *backupzip.Manifest, es *[]entry) { (*es)[1].name = "" }, 0,
			media, "is in the manifest but not in the ZIP"},
		{"file twice in the ZIP", func(m *backupzip.Manifest, es *[]entry) { *es = append(*es, (*es)[1]) }, 0,
			media, "appears twice"},
		{"file twice in the manifest", func(m *backupzip.Manifest, es *[]entry) {
			m.Files = append(m.Files, m.Files[1])
			m.Bytes += m.Files[1].Bytes
		}, 0, backupzip.ManifestName, "lists " + media + " twice"},
		{"size differs", func(m *backupzip.Manifest, es *[]entry) {
			(*es)[1].body = append((*es)[1].body, 'x')
		}, 0, media, "bytes in the ZIP, the manifest says"},
		{"content differs", func(m *backupzip.Manifest, es *[]entry) {
			b := slices.Clone((*es)[1].body)
			b[0] ^= 1
			(*es)[1].body = b
		}, 0, media, "does not match its checksum"},
		{"path out of the layout", func(m *backupzip.Manifest, es *[]entry) {
			*es = append(*es, entry{"media/../../secret.key", []byte("k")})
		}, 0, "media/../../secret.key", "is outside the backup's layout"},
		{"listed path out of the layout", func(m *backupzip.Manifest, es *[]entry) {
			m.Files = append(m.Files, backupzip.File{Name: "../eventbox.db", SHA256: hexSum(nil)})
		}, 0, "../eventbox.db", "is outside the backup's layout"},
		{"newer schema", func(m *backupzip.Manifest, es *[]entry) { m.DB.Schema = store.Schemas() + 1 }, 0,
			backupzip.DBName, "newer eventbox"},
		{"does not fit", func(m *backupzip.Manifest, es *[]entry) {}, m.Bytes - 1, m.Files[len(m.Files)-1].Name, "does not fit on the card"},
		{"database is not one", func(m *backupzip.Manifest, es *[]entry) {
			setFile(m, *es, backupzip.DBName, bytes.Repeat([]byte{0xee}, 64<<10))
		}, 0, backupzip.DBName, "is not a database this eventbox can open"},
		{"database is empty", func(m *backupzip.Manifest, es *[]entry) { setFile(m, *es, backupzip.DBName, []byte{}) }, 0,
			backupzip.DBName, "is empty"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := rebuild(t, good, c.edit)
			room := c.room
			if room == 0 {
				room = 1 << 30
			}
			dataDir := t.TempDir()
			_, err := backupzip.Stage(context.Background(), openZip(t, raw), backupzip.StageConfig{DataDir: dataDir, Room: room})
			re, ok := backupzip.IsRefused(err)
			if !ok {
				t.Fatalf("Stage = %v, want a refusal", err)
			}
			if re.File != c.file || !strings.Contains(re.Reason, c.says) {
				t.Fatalf("refused %q: %q, want %q: …%q…", re.File, re.Reason, c.file, c.says)
			}
			if _, err := os.Stat(store.StagingDir(dataDir)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the staging area is left: %v", err)
			}
		})
	}
}

func TestStageStopsWhenInspectFails(t *testing.T) {
	s := newSource(t)
	raw, m := s.backupOf(t)
	dataDir := t.TempDir()
	boom := errors.New("no session")
	_, err := backupzip.Stage(context.Background(), openZip(t, raw), backupzip.StageConfig{DataDir: dataDir, Room: m.Bytes,
		Inspect: func(context.Context, *store.Store) error { return boom }})
	if !errors.Is(err, boom) {
		t.Fatalf("Stage = %v, want Inspect's error", err)
	}
	if _, ok := backupzip.IsRefused(err); ok {
		t.Fatalf("Inspect's error is not the backup's fault: %v", err)
	}
	if _, err := os.Stat(store.StagingDir(dataDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the staging area is left: %v", err)
	}
}

// TestStageRefusesADamagedZip flips a byte inside an entry's data. In a
// stored media file the ZIP's own CRC catches it while the file is
// extracted; in the deflated database the decompressor or the CRC does,
// whichever meets it first.
func TestStageRefusesADamagedZip(t *testing.T) {
	s := newSource(t)
	raw, m := s.backupOf(t)
	cases := []struct {
		entry int
		says  string
	}{
		{0, ""}, // the database
		{1, "is damaged"},
	}
	for _, c := range cases {
		zf := openZip(t, raw).File[c.entry]
		off, err := zf.DataOffset()
		if err != nil {
			t.Fatal(err)
		}
		bad := slices.Clone(raw)
		bad[off+int64(zf.CompressedSize64)/2] ^= 0x20
		dataDir := t.TempDir()
		_, err = backupzip.Stage(context.Background(), openZip(t, bad), backupzip.StageConfig{DataDir: dataDir, Room: m.Bytes})
		re, ok := backupzip.IsRefused(err)
		if !ok || re.File != zf.Name || !strings.Contains(re.Reason, c.says) {
			t.Fatalf("Stage = %v, want %s refused: …%s…", err, zf.Name, c.says)
		}
		if _, err := os.Stat(store.StagingDir(dataDir)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("the staging area is left: %v", err)
		}
	}
}

// endRecord answers the offset of a ZIP's end-of-central-directory record.
func endRecord(t *testing.T, raw []byte) int {
	t.Helper()
	i := bytes.LastIndex(raw, []byte("PK\x05\x06"))
	if i < 0 {
		t.Fatal("no end record")
	}
	return i
}

func TestOpenZipRefuses(t *testing.T) {
	s := newSource(t)
	good, _ := s.backupOf(t)
	cases := []struct {
		name string
		raw  func() []byte
		says string
	}{
		{"not a zip", func() []byte { return bytes.Repeat([]byte("not a zip "), 100) }, "is not a ZIP file"},
		{"empty", func() []byte { return nil }, "is not a ZIP file"},
		{"cut short", func() []byte { return good[:len(good)-10] }, "is not a ZIP file"},
		{"too many files", func() []byte {
			b := slices.Clone(good)
			i := endRecord(t, b)
			// A ZIP64 end would be needed for more than 65,535: mark
			// the 16-bit count as overflowed and add the records.
			binary.LittleEndian.PutUint16(b[i+8:], 0xffff)
			binary.LittleEndian.PutUint16(b[i+10:], 0xffff)
			dirSize := binary.LittleEndian.Uint32(b[i+12:])
			dirOff := binary.LittleEndian.Uint32(b[i+16:])
			rec := make([]byte, 56)
			copy(rec, "PK\x06\x06")
			binary.LittleEndian.PutUint64(rec[4:], 44)
			binary.LittleEndian.PutUint64(rec[24:], backupzip.MaxEntries+1)
			binary.LittleEndian.PutUint64(rec[32:], backupzip.MaxEntries+1)
			binary.LittleEndian.PutUint64(rec[40:], uint64(dirSize))
			binary.LittleEndian.PutUint64(rec[48:], uint64(dirOff))
			loc := make([]byte, 20)
			copy(loc, "PK\x06\x07")
			binary.LittleEndian.PutUint64(loc[8:], uint64(i))
			binary.LittleEndian.PutUint32(loc[16:], 1)
			out := slices.Concat(b[:i], rec, loc, b[i:])
			return out
		}, "lists 100001 files"},
		{"directory too large", func() []byte {
			b := slices.Clone(good)
			i := endRecord(t, b)
			binary.LittleEndian.PutUint32(b[i+12:], 64<<20)
			return b
		}, "has a directory of 64 MB"},
		{"directory out of place", func() []byte {
			// Bytes before the ZIP (a self-extractor's stub) move every
			// offset.
			return slices.Concat([]byte("stub"), good)
		}, "has its directory out of place"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			raw := c.raw()
			_, err := backupzip.OpenZip(bytes.NewReader(raw), int64(len(raw)))
			re, ok := backupzip.IsRefused(err)
			if !ok || re.File != backupzip.ZipName || !strings.Contains(re.Reason, c.says) {
				t.Fatalf("OpenZip = %v, want %s refused: …%s…", err, backupzip.ZipName, c.says)
			}
		})
	}
}

func TestListAndPrune(t *testing.T) {
	dir := t.TempDir()
	day := 24 * time.Hour
	names := []string{
		backupzip.FileName(when.Add(-1*day), "nightly"),
		backupzip.FileName(when.Add(-5*day), "nightly"),
		backupzip.FileName(when.Add(-3*day), "manual"),
		backupzip.FileName(when.Add(-3*day-time.Second), "nightly"),
	}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), bytes.Repeat([]byte{'z'}, i+1), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Neither a stranger's file, nor a half-written backup, nor a folder
	// is a backup.
	for _, n := range []string{"notes.txt", "eventbox-garbage.zip", ".partial-123"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, backupzip.FileName(when, "dir")), 0o750); err != nil {
		t.Fatal(err)
	}
	if names[0] != "eventbox-20260619-150405-nightly.zip" {
		t.Fatalf("FileName = %s", names[0])
	}
	kept, err := backupzip.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range kept {
		got = append(got, k.Name)
	}
	if want := []string{names[1], names[3], names[2], names[0]}; !slices.Equal(got, want) {
		t.Fatalf("List = %v, want oldest first %v", got, want)
	}
	if kept[3].Bytes != 1 || kept[3].CreatedAt != when.Add(-day).UnixMilli() {
		t.Fatalf("List's newest = %+v", kept[3])
	}
	if none, err := backupzip.List(filepath.Join(dir, "missing")); err != nil || none != nil {
		t.Fatalf("List of a missing folder = %v, %v", none, err)
	}

	cases := []struct {
		days    int
		removed []string
	}{
		{0, nil},
		{-1, nil},
		{7, nil},
		// Exactly three days old stays; a second older goes.
		{3, []string{names[1], names[3]}},
		{1, []string{names[2]}},
	}
	for _, c := range cases {
		removed, err := backupzip.Prune(dir, c.days, when)
		if err != nil || !slices.Equal(removed, c.removed) {
			t.Fatalf("Prune(%d days) = %v, %v, want %v", c.days, removed, err, c.removed)
		}
	}
	kept, _ = backupzip.List(dir)
	if len(kept) != 1 || kept[0].Name != names[0] {
		t.Fatalf("left after pruning: %+v", kept)
	}
}

func TestChooseTarget(t *testing.T) {
	root := t.TempDir()
	usb := filepath.Join(root, "media")
	for _, d := range []string{"a/" + backupzip.USBFolder, "b", "c/" + backupzip.USBFolder} {
		if err := os.MkdirAll(filepath.Join(usb, d), 0o750); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(usb, "b", backupzip.USBFolder), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	card := backupzip.Target{Kind: backupzip.OnCard, Dir: "/data/backups"}
	cases := []struct {
		name   string
		mounts []string
		err    error
		want   backupzip.Target
	}{
		{"no drive", []string{"/", "/boot"}, nil, card},
		{"mounts unreadable", nil, errors.New("no proc"), card},
		{"a drive without the folder", []string{usb + "/b"}, nil, card},
		{"the folder outside the roots", []string{root}, nil, card},
		{"the root itself", []string{usb}, nil, card},
		{"a drive with the folder", []string{"/", usb + "/c"}, nil,
			backupzip.Target{Kind: backupzip.OnUSB, Dir: filepath.Join(usb, "c", backupzip.USBFolder)}},
		{"the first in order", []string{usb + "/c", usb + "/b", usb + "/a"}, nil,
			backupzip.Target{Kind: backupzip.OnUSB, Dir: filepath.Join(usb, "a", backupzip.USBFolder)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := backupzip.ChooseTarget(backupzip.TargetConfig{DataDir: "/data", USBRoots: []string{usb},
				Mounts: func() ([]string, error) { return c.mounts, c.err }})
			if got != c.want {
				t.Fatalf("ChooseTarget = %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestWriteFileLeavesOnlyWholeBackups(t *testing.T) {
	s := newSource(t)
	dir := filepath.Join(t.TempDir(), "backups")
	name := backupzip.FileName(when, "manual")
	m, size, err := backupzip.WriteFile(context.Background(), s.st, dir, name, backupzip.WriteOptions{Now: func() time.Time { return when }})
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, name))
	if err != nil || info.Size() != size || len(m.Files) != 3 {
		t.Fatalf("written %v (%d bytes answered), %v", info, size, err)
	}
	// A cancelled backup leaves no file at all.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := backupzip.WriteFile(ctx, s.st, dir, backupzip.FileName(when.Add(time.Hour), "manual"), backupzip.WriteOptions{}); err == nil {
		t.Fatal("a cancelled backup was written")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name {
		t.Fatalf("folder after a cancelled backup: %v", entries)
	}
	// A crash's temp files are cleared.
	if err := os.WriteFile(filepath.Join(dir, ".partial-42"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	backupzip.ClearPartial(dir)
	entries, _ = os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name {
		t.Fatalf("folder after ClearPartial: %v", entries)
	}
}
