package cloudexport_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/webdav"

	"eventbox/imaging"
	"eventbox/store"
)

// heicPhoto stores a visible HEIC photo of the guest name whose original
// holds "photo <name>", with its display image as display says: "" none
// yet, else the file's content (rough: the photo's variants are its
// thumbnail item's).
func (b *box) heicPhoto(t *testing.T, name, display string, rough bool) store.Photo {
	t.Helper()
	p := store.Photo{ID: store.NewID(), EventID: b.event.ID, GuestID: "g-" + name, GuestName: name,
		Status: store.StatusVisible, Format: string(imaging.HEIC), Variants: display != "", VariantsRough: rough}
	if _, err := b.st.Media().Write(p.OriginalName(), strings.NewReader("photo "+name)); err != nil {
		t.Fatal(err)
	}
	if display != "" {
		if _, err := b.st.Media().Write(p.VariantName("display"), strings.NewReader(display)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.st.Photos().Add(t.Context(), p, 0); err != nil {
		t.Fatal(err)
	}
	return p
}

// A HEIC goes as it is, and beside it as a JPEG copy every computer
// opens: its display image, which the box has made already; one the
// image work has not reached yet, or whose display is still its
// thumbnail item, is made sharp then (Display), and one whose image work
// failed goes without its copy. No HEIC is decoded by the export itself.
func TestHEICGoesAsItIsBesideItsDisplayImage(t *testing.T) {
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build: no copies")
	}
	for _, target := range targets {
		t.Run(target.name, func(t *testing.T) {
			b := newBox(t)
			ready := b.heicPhoto(t, "ready", "display ready", false)
			behind := b.heicPhoto(t, "behind", "", false)
			rough := b.heicPhoto(t, "rough", "the thumbnail item", true)
			broken := b.heicPhoto(t, "broken", "", false)
			folder, read := target.set(t, b)
			x := b.export(t, store.ExportVisible)
			if x.Status != store.ExportDone {
				t.Fatalf("export %s (%q), want done", x.Status, x.Error)
			}
			files := read()
			got := map[string]string{}
			for p, data := range files {
				name := strings.TrimPrefix(p, folder+"/")
				for _, ph := range []store.Photo{ready, behind, rough, broken} {
					if strings.HasSuffix(name, "-"+ph.ID+".heic") || strings.HasSuffix(name, "-"+ph.ID+".jpg") {
						got[name[strings.LastIndex(name, "-")+1:]] = string(data)
					}
				}
			}
			want := map[string]string{
				ready.ID + ".heic": "photo ready", ready.ID + ".jpg": "display ready",
				behind.ID + ".heic": "photo behind", behind.ID + ".jpg": "display behind",
				rough.ID + ".heic": "photo rough", rough.ID + ".jpg": "display rough",
				broken.ID + ".heic": "photo broken",
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("photos on the server %v, want %v", got, want)
			}
			asked := b.displays.asked()
			slices.Sort(asked)
			wantAsked := []string{behind.ID, rough.ID, broken.ID}
			slices.Sort(wantAsked)
			if !slices.Equal(asked, wantAsked) {
				t.Errorf("display images asked for %v, want those of the photos without a sharp one %v", asked, wantAsked)
			}
			checkManifest(t, files, folder, x)
		})
	}
}

// An export notes what it sent every 50 files (or 5 s, on its clock),
// not after each one: writing the whole state after each file made a
// party's 3,600-file export O(n²) in database writes. What the export
// record counts is what the state notes, read here while each photo is
// sent.
func TestExportNotesItsProgressEvery50Files(t *testing.T) {
	b := newBox(t)
	for i := range 120 {
		b.photo(t, fmt.Sprintf("p%03d", i), store.StatusVisible, false)
	}
	var mu sync.Mutex
	var seen []int // the export's sent count as each photo's PUT arrives
	dir := t.TempDir()
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(dir), LockSystem: webdav.NewMemLS()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "-p") && strings.HasSuffix(r.URL.Path, ".tmp") {
			xs, err := b.st.Cloud().Exports(context.WithoutCancel(r.Context()), b.event.ID)
			if err == nil && len(xs) == 1 {
				mu.Lock()
				seen = append(seen, xs[0].Sent)
				mu.Unlock()
			}
		}
		dav.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if err := b.st.Cloud().PutSettings(t.Context(), store.CloudSettings{URL: srv.URL + "/dav/", User: davUser,
		Password: davPassword, Folder: "Photos"}); err != nil {
		t.Fatal(err)
	}
	x := b.export(t, store.ExportVisible)
	if x.Status != store.ExportDone || x.Sent != 121 {
		t.Fatalf("export %s (%q), %d sent, want done with 121", x.Status, x.Error, x.Sent)
	}
	mu.Lock()
	defer mu.Unlock()
	// Files go out four at a time: a PUT may start before the files
	// ahead of it are noted, never after more than 50 were sent unnoted.
	counts := map[int]int{}
	for i, n := range seen {
		counts[n]++
		if n%50 != 0 || i-n >= 50+4 {
			t.Errorf("PUT %d saw %d files noted", i, n)
		}
	}
	if len(seen) != 120 || counts[0] < 50 || counts[50] == 0 || counts[100] == 0 {
		t.Errorf("the export's count as its photos went out: %v (%d PUTs), want 0 for the first 50 or so, then 50, then 100", counts, len(seen))
	}
}

// An export sends four files to a WebDAV server at once, as rclone copy
// does: each photo's PUT here waits until four are in flight (or 10 s,
// which one file at a time would take for each).
func TestExportSendsFourFilesAtOnceToWebDAV(t *testing.T) {
	b := newBox(t)
	for i := range 8 {
		b.photo(t, fmt.Sprintf("p%03d", i), store.StatusVisible, false)
	}
	var mu sync.Mutex
	inFlight, most := 0, 0
	four := make(chan struct{})
	dir := t.TempDir()
	dav := &webdav.Handler{Prefix: "/dav", FileSystem: webdav.Dir(dir), LockSystem: webdav.NewMemLS()}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "-p") {
			mu.Lock()
			inFlight++
			if inFlight > most {
				if most = inFlight; most == 4 {
					close(four)
				}
			}
			mu.Unlock()
			select {
			case <-four:
			case <-time.After(10 * time.Second):
			}
			defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
		}
		dav.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	if err := b.st.Cloud().PutSettings(t.Context(), store.CloudSettings{URL: srv.URL + "/dav/", User: davUser,
		Password: davPassword, Folder: "Photos"}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	x := b.export(t, store.ExportVisible)
	if x.Status != store.ExportDone || x.Sent != 9 {
		t.Fatalf("export %s (%q), %d sent, want done with 9", x.Status, x.Error, x.Sent)
	}
	mu.Lock()
	defer mu.Unlock()
	if most != 4 || time.Since(start) > 9*time.Second {
		t.Errorf("at most %d photos in flight at once (the export took %s), want 4", most, time.Since(start).Round(time.Second))
	}
}
