package cloudexport_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/webdav"

	"eventbox/daemon/cloudexport"
	"eventbox/daemon/jobs"
	"eventbox/internal/testtool"
	"eventbox/s3store/s3test"
	"eventbox/store"
)

const (
	davUser     = "ana"
	davPassword = "webdav-secret"
)

// newDAV is a real WebDAV server (golang.org/x/net/webdav) over a temp
// dir, behind basic auth; it answers the dir.
func newDAV(t *testing.T) (url, dir string) {
	t.Helper()
	dir = t.TempDir()
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(dir), LockSystem: webdav.NewMemLS()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != davUser || p != davPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="dav"`)
			http.Error(w, "Username or password was incorrect", http.StatusUnauthorized)
			return
		}
		dav.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/dav/", dir
}

// davFiles answers every file under dir by its slash path.
func davFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// box is a store with one event, an Exporter and a job runner that runs
// only the export kind.
type box struct {
	st       *store.Store
	event    store.Event
	runner   *jobs.Runner
	guestbox *guestbookSpy
	notified chan []string
	// displays is the display images the export asked to be made.
	displays *displaySpy
}

// displaySpy is the export's Display: it writes "display <guest name>" as
// the photo's display image, fails for a photo of the guest "broken", and
// keeps the ids it was asked for.
type displaySpy struct {
	st  *store.Store
	mu  sync.Mutex
	ids []string
}

func (d *displaySpy) make(ctx context.Context, id string) error {
	d.mu.Lock()
	d.ids = append(d.ids, id)
	d.mu.Unlock()
	p, err := d.st.Photos().Get(ctx, id)
	if err != nil {
		return err
	}
	if p.GuestName == "broken" {
		return errors.New("the image work failed")
	}
	_, err = d.st.Media().Write(p.VariantName("display"), strings.NewReader("display "+p.GuestName))
	return err
}

// asked answers the ids the export asked display images for.
func (d *displaySpy) asked() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.ids)
}

// guestbookSpy makes guestbook.txt as one line per message id, the voice
// notes as voice/<id>.ogg, and keeps the messages it was given.
type guestbookSpy struct {
	mu   sync.Mutex
	msgs []store.Message
}

func (g *guestbookSpy) GuestbookText(e store.Event, msgs []store.Message) (string, map[string]string) {
	g.mu.Lock()
	g.msgs = append(g.msgs, msgs...)
	g.mu.Unlock()
	var b strings.Builder
	audio := map[string]string{}
	for _, m := range msgs {
		b.WriteString(m.ID + " " + m.Text + "\n")
		if m.HasAudio() {
			audio[m.ID] = "voice/" + m.ID + "." + m.AudioExt
		}
	}
	return b.String(), audio
}

func newBox(t *testing.T) *box {
	t.Helper()
	ctx := t.Context()
	now := func() time.Time { return time.Date(2026, 6, 20, 18, 0, 0, 0, time.UTC) }
	st, err := store.Open(ctx, t.TempDir(), store.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := store.Event{Name: "Anna & Ben", EventDate: "2026-06-20"}
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	b := &box{st: st, event: e, guestbox: &guestbookSpy{}, notified: make(chan []string, 16), displays: &displaySpy{st: st}}
	x := cloudexport.New(cloudexport.Config{Store: st, Now: now, Display: b.displays.make,
		Notify: func(kinds ...string) { b.notified <- kinds },
		Naming: b.guestbox})
	if b.runner, err = jobs.New(jobs.Config{Store: st, Kinds: []jobs.Kind{x.Kind()}}); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = b.runner.Run(runCtx)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return b
}

// photo stores a photo of status (favorite or not) whose original holds
// its own name.
func (b *box) photo(t *testing.T, name, status string, favorite bool) {
	t.Helper()
	p := store.Photo{ID: store.NewID(), EventID: b.event.ID, GuestID: "g-" + name, GuestName: name,
		Status: status, Favorite: favorite, Format: "jpeg"}
	if _, err := b.st.Media().Write(p.OriginalName(), strings.NewReader("photo "+name)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.st.Photos().Add(t.Context(), p, 0); err != nil {
		t.Fatal(err)
	}
}

// message stores a guestbook message of status with a voice note that
// holds its text.
func (b *box) message(t *testing.T, text, status string) store.Message {
	t.Helper()
	m := store.Message{ID: store.NewID(), EventID: b.event.ID, GuestID: "g-" + text, Text: text, Status: status,
		AudioMIME: "audio/ogg", AudioExt: "ogg"}
	n, err := b.st.Media().Write(m.AudioName(), strings.NewReader("voice "+text))
	if err != nil {
		t.Fatal(err)
	}
	m.AudioSize = n
	if m, err = b.st.Messages().Add(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	return m
}

// export queues an export of scope and runs it to its end.
func (b *box) export(t *testing.T, scope string) store.Export {
	t.Helper()
	ctx := t.Context()
	x, _, err := b.st.Cloud().QueueExport(ctx, b.event.ID, scope)
	if err != nil {
		t.Fatal(err)
	}
	b.runner.Notify(store.ExportJobKind)
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := b.runner.WaitIdle(wctx); err != nil {
		t.Fatal(err)
	}
	if x, err = b.st.Cloud().Export(ctx, b.event.ID, x.ID); err != nil {
		t.Fatal(err)
	}
	return x
}

// notices answers the kinds of the notices queued.
func (b *box) notices(t *testing.T) []string {
	t.Helper()
	page, err := b.st.Jobs().List(t.Context(), store.JobFilter{Kind: store.NoticeJobKind, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, j := range page.Jobs {
		var n store.Notice
		if err := json.Unmarshal(j.Payload, &n); err != nil {
			t.Fatal(err)
		}
		if n.EventID != b.event.ID {
			t.Errorf("notice %s of event %q", n.Kind, n.EventID)
		}
		kinds = append(kinds, n.Kind)
	}
	return kinds
}

// exportTarget sets the box's settings to a target and answers the
// event's folder there and a reader of every file there by its path.
type exportTarget struct {
	name string
	set  func(t *testing.T, b *box) (folder string, files func() map[string][]byte)
}

// targets are the export's targets make test runs over: a real WebDAV
// server and the quick S3 fake; versityGW and seaweedFS are the real
// S3-compatible ones (versitygw: make longtest, make s3test and CI;
// SeaweedFS: make longtest and make s3test).
var targets = []exportTarget{
	{"webdav", func(t *testing.T, b *box) (string, func() map[string][]byte) {
		url, dir := newDAV(t)
		if err := b.st.Cloud().PutSettings(t.Context(), store.CloudSettings{URL: url, User: davUser,
			Password: davPassword, Folder: "Photos/eventbox"}); err != nil {
			t.Fatal(err)
		}
		return "Photos/eventbox/2026-06-20 Anna-Ben", func() map[string][]byte { return davFiles(t, dir) }
	}},
	{"s3 gofakes3", func(t *testing.T, b *box) (string, func() map[string][]byte) {
		return s3Settings(t, b, s3test.Fake(t))
	}},
}

var seaweedFS = exportTarget{"s3 seaweedfs", func(t *testing.T, b *box) (string, func() map[string][]byte) {
	return s3Settings(t, b, s3test.Real(t))
}}

var versityGW = exportTarget{"s3 versitygw", func(t *testing.T, b *box) (string, func() map[string][]byte) {
	return s3Settings(t, b, s3test.Versity(t))
}}

// s3Settings points the box's settings at the bucket of srv, prefix
// "rentals", box name "box-07".
func s3Settings(t *testing.T, b *box, srv s3test.Server) (string, func() map[string][]byte) {
	t.Helper()
	if err := b.st.Cloud().PutSettings(t.Context(), store.CloudSettings{Kind: store.CloudS3, S3: &store.S3Settings{
		Endpoint: srv.Endpoint, Region: srv.Region, Bucket: srv.Bucket, Prefix: "/rentals/", BoxName: "box-07",
		AccessKey: srv.AccessKey, Secret: srv.Secret, PathStyle: true}}); err != nil {
		t.Fatal(err)
	}
	return "rentals/box-07/2026-06-20 Anna-Ben", func() map[string][]byte {
		files, err := s3test.Objects(t.Context(), srv, "")
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
}

// An export sends what the access rules give it, and nothing else: the
// visible photos (the visible favorites with the favorites scope), the
// visible messages and their voice notes, index.html and last the
// manifest, into the event's folder under the settings' folder (WebDAV)
// or <prefix>/<box name>/ (S3), each file read back byte for byte; its end
// is recorded with its notice, and the notice runner is told.
func TestExportSendsWhatAccessGives(t *testing.T) {
	for _, target := range targets {
		exportSendsWhatAccessGives(t, target)
	}
}

func TestExportSendsWhatAccessGivesOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	exportSendsWhatAccessGives(t, versityGW)
}

func TestExportSendsWhatAccessGivesOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	exportSendsWhatAccessGives(t, seaweedFS)
}

func exportSendsWhatAccessGives(t *testing.T, target exportTarget) {
	for _, tt := range []struct {
		scope  string
		photos []string
	}{
		{store.ExportVisible, []string{"visible", "visible-favorite"}},
		{store.ExportFavorites, []string{"visible-favorite"}},
	} {
		t.Run(target.name+" "+tt.scope, func(t *testing.T) {
			b := newBox(t)
			b.photo(t, "visible", store.StatusVisible, false)
			b.photo(t, "visible-favorite", store.StatusVisible, true)
			b.photo(t, "pending", store.StatusPending, false)
			b.photo(t, "pending-favorite", store.StatusPending, true)
			b.photo(t, "hidden", store.StatusHidden, false)
			b.photo(t, "hidden-favorite", store.StatusHidden, true)
			shown := b.message(t, "shown", store.StatusVisible)
			b.message(t, "waiting", store.StatusPending)
			b.message(t, "hid", store.StatusHidden)
			folder, read := target.set(t, b)

			x := b.export(t, tt.scope)
			if x.Status != store.ExportDone || x.Error != "" {
				t.Fatalf("export %s (%q), want done", x.Status, x.Error)
			}
			if x.Folder != folder {
				t.Fatalf("folder %q, want %q", x.Folder, folder)
			}
			files := read()
			var photos []string
			for p, data := range files {
				if !strings.HasPrefix(p, folder+"/") {
					t.Errorf("%s is outside the event's folder", p)
				}
				if name, ok := strings.CutPrefix(string(data), "photo "); ok {
					photos = append(photos, name)
				}
			}
			slices.Sort(photos)
			if !slices.Equal(photos, tt.photos) {
				t.Errorf("photos sent %v, want %v", photos, tt.photos)
			}
			if got := files[folder+"/voice/"+shown.ID+".ogg"]; string(got) != "voice shown" {
				t.Errorf("voice note of the visible message: %q", got)
			}
			txt := string(files[folder+"/guestbook.txt"])
			if txt != shown.ID+" shown\n" {
				t.Errorf("guestbook.txt %q, want the visible message only", txt)
			}
			if len(b.guestbox.msgs) != 1 || b.guestbox.msgs[0].ID != shown.ID {
				t.Errorf("the guestbook was made of %v, want the visible message only", b.guestbox.msgs)
			}
			index := files[folder+"/index.html"]
			if !bytes.Contains(index, []byte("<h1>Anna &amp; Ben</h1>")) || !bytes.Contains(index, []byte(`href="guestbook.txt"`)) {
				t.Errorf("index.html: %s", index)
			}
			want := len(tt.photos) + 3 // guestbook.txt, one voice note, index.html
			if len(files) != want+1 || x.Total != want || x.Sent != want {
				t.Errorf("%d files on the server, export total %d sent %d, want %d and the manifest", len(files), x.Total, x.Sent, want)
			}
			checkManifest(t, files, folder, x)
			if got := b.notices(t); !slices.Equal(got, []string{store.NoticeExportFinished}) {
				t.Errorf("notices %v, want one export.finished", got)
			}
			select {
			case kinds := <-b.notified:
				if !slices.Equal(kinds, []string{store.NoticeJobKind}) {
					t.Errorf("told the runner of %v", kinds)
				}
			default:
				t.Error("the notice runner was not told")
			}
		})
	}
}

// checkManifest: the manifest lists every other file of the folder with
// its size and SHA-256, as read back.
func checkManifest(t *testing.T, files map[string][]byte, folder string, x store.Export) {
	t.Helper()
	var m cloudexport.Manifest
	if err := json.Unmarshal(files[folder+"/"+cloudexport.ManifestName], &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	if m.Version != 1 || m.Export != x.ID || m.Event.Name != "Anna & Ben" || len(m.Files) != len(files)-1 {
		t.Errorf("manifest %+v for %d files", m, len(files)-1)
	}
	for _, f := range m.Files {
		data, ok := files[folder+"/"+f.Path]
		sum := sha256.Sum256(data)
		if !ok || int64(len(data)) != f.Size || f.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("manifest's %s (%d bytes, %s) is not the file read back (%v, %d bytes)", f.Path, f.Size, f.SHA256, ok, len(data))
		}
	}
}

// An export that cannot succeed by trying again fails at once, for good,
// with the reason in the hosts' words and its export.failed notice.
func TestExportFailsForGood(t *testing.T) {
	for _, tt := range []struct {
		name     string
		settings func(url string) *store.CloudSettings
		words    string
	}{
		{"no settings", func(string) *store.CloudSettings { return nil }, "the cloud export is not set up"},
		{"a wrong password", func(url string) *store.CloudSettings {
			return &store.CloudSettings{URL: url, User: davUser, Password: "wrong", Folder: "eventbox"}
		}, "401"},
		{"an address that is not http", func(string) *store.CloudSettings {
			return &store.CloudSettings{URL: "ftp://dav.example.com/", User: davUser, Password: davPassword}
		}, "the address must start with https:// or http://"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := newBox(t)
			url, dir := newDAV(t)
			b.photo(t, "visible", store.StatusVisible, false)
			if s := tt.settings(url); s != nil {
				if err := b.st.Cloud().PutSettings(t.Context(), *s); err != nil {
					t.Fatal(err)
				}
			}
			x := b.export(t, store.ExportVisible)
			if x.Status != store.ExportFailed || !strings.Contains(x.Error, tt.words) || x.FinishedAt == 0 {
				t.Fatalf("export %s, error %q, finished %d; want failed, saying %q", x.Status, x.Error, x.FinishedAt, tt.words)
			}
			if got := b.notices(t); !slices.Equal(got, []string{store.NoticeExportFailed}) {
				t.Errorf("notices %v, want one export.failed", got)
			}
			if files := davFiles(t, dir); len(files) != 0 {
				t.Errorf("files sent: %v", files)
			}
		})
	}
}

func (g *guestbookSpy) UniqueName(taken map[string]bool, name string) string {
	for taken[strings.ToLower(name)] {
		name = "x" + name
	}
	taken[strings.ToLower(name)] = true
	return name
}
