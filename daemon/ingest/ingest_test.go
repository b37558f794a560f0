package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"io/fs"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"eventbox/daemon/ingest"
	"eventbox/store"
)

// goodJPEG is a small whole JPEG with some detail.
func goodJPEG(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// photoForm is a multipart photo upload of body under "photo".
func photoForm(t *testing.T, body []byte) *http.Request {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("photo", "photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	fw.Write(body)
	mw.Close()
	r := httptest.NewRequest("POST", "/upload", &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return r
}

// failingRecords is a store whose commit of a photo record fails, as a
// full card does at the database's commit.
type failingRecords struct {
	ingest.Records
	err error
}

func (f failingRecords) Add(context.Context, store.Photo, int, ...store.JobSpec) (store.AddPhotoResult, error) {
	return store.AddPhotoResult{}, f.err
}

// newBox opens a store in a fresh DATA_DIR with one event in it.
func newBox(t *testing.T) (*store.Store, store.Event, string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	st, err := store.Open(ctx, dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := store.NewEvent("Wedding")
	if err := st.Events().Create(ctx, &e); err != nil {
		t.Fatal(err)
	}
	return st, e, dir
}

// quietIngester ingests into st with a discarded log.
func quietIngester(st *store.Store) *ingest.Ingester {
	return ingest.New(ingest.Config{Records: st.Photos(), Media: st.Media(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// files lists the files under dir/sub.
func files(t *testing.T, dir, sub string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, sub), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPhoto runs photo uploads through ReadForm and Photo, without the
// HTTP router, over a real store.
func TestPhoto(t *testing.T) {
	good := goodJPEG(t)
	diskFull := &fs.PathError{Op: "write", Path: "eventbox.db", Err: errors.New("no space left on device")}
	tests := []struct {
		name string
		body []byte
		// limit is the file's limit; 0: 1 MiB.
		limit int64
		// records, when set, wraps the store's records.
		records func(ingest.Records) ingest.Records
		// wantErr checks the error; nil: success.
		wantErr func(error) bool
		// wantSize is the size of the stored original.
		wantSize int64
	}{
		{name: "a good JPEG is stored whole", body: good, wantSize: int64(len(good))},
		{
			name: "a truncated JPEG is an invalid image", body: good[:len(good)/2],
			wantErr: func(err error) bool {
				var ie *ingest.InvalidImageError
				return errors.As(err, &ie) && ie.Field == "photo"
			},
		},
		{
			name: "data after the image is cut off", body: append(append([]byte{}, good...), bytes.Repeat([]byte("video"), 1000)...),
			wantSize: int64(len(good)),
		},
		{
			name: "a body over the limit is too large", body: bytes.Repeat(good, 4), limit: int64(len(good)),
			wantErr: func(err error) bool { return errors.Is(err, ingest.ErrTooLarge) },
		},
		{
			name: "a failed commit of the record removes the file", body: good,
			records: func(r ingest.Records) ingest.Records { return failingRecords{r, diskFull} },
			wantErr: func(err error) bool { return errors.Is(err, diskFull) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, e, dir := newBox(t)
			var records ingest.Records = st.Photos()
			if tt.records != nil {
				records = tt.records(st.Photos())
			}
			nudged := 0
			in := ingest.New(ingest.Config{Records: records, Media: st.Media(),
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				Jobs:   func(p store.Photo) []store.JobSpec { return []store.JobSpec{store.VariantJobSpec(p.ID)} },
				Stored: func(context.Context, store.Photo) { nudged++ }})
			limit := tt.limit
			if limit == 0 {
				limit = 1 << 20
			}

			res, err := upload(in, photoForm(t, tt.body), limit, store.Photo{EventID: e.ID, Status: store.StatusVisible})

			if tmp := files(t, dir, "tmp"); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			media := files(t, dir, "media")
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("error %v, not the one wanted", err)
				}
				if len(media) > 0 || nudged > 0 {
					t.Fatalf("a refused upload left media files %v (%d nudges)", media, nudged)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Existing || res.Photo.ID == "" || res.Photo.Size != tt.wantSize || nudged != 1 {
				t.Fatalf("stored %+v (%d nudges); want a new photo of %d bytes, one nudge", res, nudged, tt.wantSize)
			}
			fi, err := os.Stat(filepath.Join(dir, "media", filepath.FromSlash(res.Photo.OriginalName())))
			if err != nil || fi.Size() != tt.wantSize || len(media) != 1 {
				t.Fatalf("media %v; the original is %v (%v), want %d bytes alone", media, fi, err, tt.wantSize)
			}
			if _, err := st.Photos().Get(context.Background(), res.Photo.ID); err != nil {
				t.Fatalf("the record is not stored: %v", err)
			}
		})
	}
}

// upload reads a photo form and stores it.
func upload(in *ingest.Ingester, r *http.Request, limit int64, p store.Photo) (ingest.Result, error) {
	_, file, err := in.ReadForm(httptest.NewRecorder(), r, ingest.Form{Limit: limit, FileField: "photo", FileRequired: true})
	if err != nil {
		return ingest.Result{}, err
	}
	return in.Photo(r.Context(), file, p, 0)
}

// TestRetryFoundByFingerprint checks that a guest's phone that sends the
// same bytes again (the answer was lost) gets the photo stored the first
// time, and nothing more is stored; the retry key is that of the bytes
// sent, so it holds for a photo whose trailing data was cut off.
func TestRetryFoundByFingerprint(t *testing.T) {
	good := goodJPEG(t)
	tests := []struct {
		name string
		body []byte
	}{
		{"a whole JPEG", good},
		{"a JPEG with data after the image", append(append([]byte{}, good...), bytes.Repeat([]byte("mpo"), 500)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, e, dir := newBox(t)
			in := quietIngester(st)
			p := store.Photo{EventID: e.ID, GuestID: store.NewID(), GuestName: "Ana", Status: store.StatusVisible}

			first, err := upload(in, photoForm(t, tt.body), 1<<20, p)
			if err != nil || first.Existing {
				t.Fatalf("first upload: %+v, %v", first, err)
			}
			again, err := upload(in, photoForm(t, tt.body), 1<<20, p)
			if err != nil {
				t.Fatal(err)
			}
			if !again.Existing || again.Photo.ID != first.Photo.ID {
				t.Fatalf("the retry stored %+v; want the first photo %s", again, first.Photo.ID)
			}
			if media, tmp := files(t, dir, "media"), files(t, dir, "tmp"); len(media) != 1 || len(tmp) > 0 {
				t.Fatalf("media %v, temp %v; want the first original alone", media, tmp)
			}
			other := p
			other.GuestID = store.NewID()
			if res, err := upload(in, photoForm(t, tt.body), 1<<20, other); err != nil || res.Existing {
				t.Fatalf("the same bytes from another guest: %+v, %v; want a new photo", res, err)
			}
		})
	}
}
