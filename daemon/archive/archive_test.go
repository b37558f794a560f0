package archive_test

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"eventbox/daemon/archive"
	"eventbox/store"
)

// openStore opens a store in a temp dir with one event.
func openStore(t *testing.T) (*store.Store, store.Event) {
	t.Helper()
	st, err := store.Open(context.Background(), t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := store.Event{Name: "Ana & Ben"}
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	return st, e
}

// addPhoto stores a visible photo by guest with its original's bytes
// (none on disk when body is nil).
func addPhoto(t *testing.T, st *store.Store, eventID, guest string, body []byte) store.Photo {
	t.Helper()
	p := store.Photo{ID: store.NewID(), EventID: eventID, GuestName: guest, Status: store.StatusVisible, Format: "jpeg"}
	if body != nil {
		if _, err := st.Media().Write(p.OriginalName(), bytes.NewReader(body)); err != nil {
			t.Fatal(err)
		}
	}
	res, err := st.Photos().Add(context.Background(), p, 0)
	if err != nil {
		t.Fatal(err)
	}
	return res.Photo
}

// The streamer sends each photo whose file is there once, under a
// readable name, leaves out one whose file went, and counts a download
// only for the photos it sent.
func TestPhotosSendsWhatIsThereAndCountsIt(t *testing.T) {
	st, e := openStore(t)
	ana := addPhoto(t, st, e.ID, "Ana", []byte("ana's photo"))
	gone := addPhoto(t, st, e.ID, "Gone", nil)
	ben := addPhoto(t, st, e.ID, "Ben", []byte("ben's photo"))

	zs := archive.New(archive.Config{Store: st, Logger: slog.New(slog.DiscardHandler)})
	w := httptest.NewRecorder()
	r := httptest.NewRequest("GET", "/archive", nil)
	q := store.PhotoQuery{EventID: e.ID, Status: store.StatusVisible}
	if err := zs.Photos(w, r, e, q, archive.Options{Name: archive.Name(e, "all photos")}); err != nil {
		t.Fatal(err)
	}
	if got := w.Header().Get("Content-Disposition"); !strings.Contains(got, "Ana & Ben - all photos.zip") {
		t.Errorf("Content-Disposition = %q", got)
	}
	zr, err := zip.NewReader(bytes.NewReader(w.Body.Bytes()), int64(w.Body.Len()))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	got := map[string]string{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		got[f.Name] = string(b)
	}
	if len(got) != 2 {
		t.Fatalf("entries = %v, want ana's and ben's", got)
	}
	for name, body := range got {
		want := map[bool]string{true: "ana's photo", false: "ben's photo"}[strings.Contains(name, "Ana")]
		if body != want || !strings.HasSuffix(name, ".jpg") {
			t.Errorf("entry %q holds %q", name, body)
		}
	}
	for _, tt := range []struct {
		p    store.Photo
		want int
	}{{ana, 1}, {ben, 1}, {gone, 0}} {
		p, err := st.Photos().Get(context.Background(), tt.p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if p.Downloads != tt.want {
			t.Errorf("%s: %d downloads, want %d", tt.p.GuestName, p.Downloads, tt.want)
		}
	}
}

// A guestbook archive holds guestbook.txt naming each message's voice
// note, and the notes.
func TestGuestbookHoldsTheTextAndTheVoiceNotes(t *testing.T) {
	st, e := openStore(t)
	m := store.Message{ID: store.NewID(), EventID: e.ID, GuestName: "Ana", Text: "Congratulations",
		Status: store.StatusVisible, AudioMIME: "audio/mp4", AudioExt: "m4a", Seconds: 3, CreatedAt: time.Date(2026, 6, 20, 15, 4, 0, 0, time.Local).UnixMilli()}
	if _, err := st.Media().Write(m.AudioName(), strings.NewReader("voice")); err != nil {
		t.Fatal(err)
	}
	zs := archive.New(archive.Config{Store: st, Logger: slog.New(slog.DiscardHandler)})
	w := httptest.NewRecorder()
	if err := zs.Guestbook(w, httptest.NewRequest("GET", "/archive", nil), e, []store.Message{m}, time.Now()); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(w.Body.Bytes()), int64(w.Body.Len()))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	files := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		files[f.Name] = string(b)
	}
	note := "voice/001-Ana-" + m.ID + ".m4a"
	if files[note] != "voice" {
		t.Errorf("voice note %q missing: %v", note, files)
	}
	if txt := files["guestbook.txt"]; !strings.Contains(txt, "Congratulations") || !strings.Contains(txt, note) {
		t.Errorf("guestbook.txt = %q", txt)
	}
}

// A ZIP's name says what it holds, in a name every file system takes.
func TestNameIsSafeOnEveryFileSystem(t *testing.T) {
	tests := []struct {
		name string
		e    store.Event
		want string
	}{
		{"name, date and what", store.Event{Name: "Ana & Ben", EventDate: "2026-06-20"}, "Ana & Ben - 2026-06-20 - all.zip"},
		{"no date", store.Event{Name: "Ana"}, "Ana - all.zip"},
		{"no name", store.Event{}, "Photos - all.zip"},
		{"slashes, colons and emoji become spaces", store.Event{Name: "a/b: c 🎉 d"}, "a b c d - all.zip"},
		{"trailing dots and spaces go", store.Event{Name: " ..party.. "}, "party - all.zip"},
		{"a Windows device name is kept off", store.Event{Name: "con"}, "_con - all.zip"},
		{"accents and other scripts stay", store.Event{Name: "Fête été 婚礼"}, "Fête été 婚礼 - all.zip"},
		{"a long name is cut", store.Event{Name: strings.Repeat("é", 200)}, strings.Repeat("é", 75) + " - all.zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := archive.Name(tt.e, "all"); got != tt.want {
				t.Errorf("Name = %q, want %q", got, tt.want)
			}
		})
	}
}
