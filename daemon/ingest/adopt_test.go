package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"eventbox/daemon/ingest"
	"eventbox/store"
)

// finishedUpload writes b as a finished resumable upload's file in dir,
// its last byte an hour old, and returns its path.
func finishedUpload(t *testing.T, dir string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, "uploads", "u1", "data")
	if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	return p
}

// sameFile reports whether the files at a and b are one file.
func sameFile(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Stat(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := os.Stat(b)
	if err != nil {
		t.Fatal(err)
	}
	return os.SameFile(fa, fb)
}

// TestAdoptedPhoto: a photo whose file is a finished upload's (WithFile)
// is stored as that file, not a copy of it, under every rule of a body:
// the size limit, the image check, the cut of data after a JPEG (which
// leaves the upload as sent) and the retry fingerprint.
func TestAdoptedPhoto(t *testing.T) {
	good := goodJPEG(t)
	motion := append(append([]byte{}, good...), bytes.Repeat([]byte("video"), 1000)...)
	tests := []struct {
		name  string
		file  []byte
		limit int64
		// sentBefore: the same bytes came first through a body.
		sentBefore bool
		wantErr    func(error) bool
		wantSize   int64
		// wantSame: the stored original is the upload's file itself.
		wantSame bool
	}{
		{name: "a whole photo is the upload's own file", file: good, wantSize: int64(len(good)), wantSame: true},
		{name: "data after the image is left out of a copy, the upload stays whole", file: motion, wantSize: int64(len(good))},
		{name: "the same bytes sent before through a body are the same photo", file: good, sentBefore: true, wantSize: int64(len(good))},
		{name: "a file over the limit is too large", file: good, limit: int64(len(good)) - 1,
			wantErr: func(err error) bool { return errors.Is(err, ingest.ErrTooLarge) }},
		{name: "a file that is not an image is an invalid image", file: good[:len(good)/2],
			wantErr: func(err error) bool { var ie *ingest.InvalidImageError; return errors.As(err, &ie) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, e, dir := newBox(t)
			in := quietIngester(st)
			p := store.Photo{EventID: e.ID, GuestID: store.NewID(), Status: store.StatusVisible}
			limit := tt.limit
			if limit == 0 {
				limit = 1 << 20
			}
			var first ingest.Result
			if tt.sentBefore {
				var err error
				if first, err = upload(in, photoForm(t, tt.file), limit, p); err != nil {
					t.Fatal(err)
				}
			}
			src := finishedUpload(t, dir, tt.file)
			r := photoForm(t, nil) // the file part is empty: the file is src
			r = r.WithContext(ingest.WithFile(r.Context(), src, int64(len(tt.file))))

			res, err := upload(in, r, limit, p)

			if tmp := files(t, dir, "tmp"); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			if b, rerr := os.ReadFile(src); rerr != nil || !bytes.Equal(b, tt.file) {
				t.Fatalf("the upload's file changed (%d bytes, %v): a retry would not find the same bytes", len(b), rerr)
			}
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("error %v, not the one wanted", err)
				}
				if media := files(t, dir, "media"); len(media) > 0 {
					t.Fatalf("a refused file left media files %v", media)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tt.sentBefore {
				if !res.Existing || res.Photo.ID != first.Photo.ID {
					t.Fatalf("stored %+v; want the photo sent before, %s", res, first.Photo.ID)
				}
				return
			}
			orig := filepath.Join(dir, "media", filepath.FromSlash(res.Photo.OriginalName()))
			fi, err := os.Stat(orig)
			if err != nil || fi.Size() != tt.wantSize || res.Photo.Size != tt.wantSize {
				t.Fatalf("the original is %v (%v), the record %d bytes; want %d", fi, err, res.Photo.Size, tt.wantSize)
			}
			if same := sameFile(t, src, orig); same != tt.wantSame {
				t.Fatalf("the original is the upload's file: %v, want %v", same, tt.wantSame)
			}
			// The media sweep's grace goes by the file's time: a file renamed
			// into place must look new until its record commits.
			if age := time.Since(fi.ModTime()); age > time.Minute {
				t.Fatalf("the stored original looks %v old: the media sweep could take it before its record commits", age)
			}
			// A crash after the record, before the upload's answer was kept:
			// the upload's file is still there and is sent again. One photo,
			// and nothing left unnamed.
			r = photoForm(t, nil)
			r = r.WithContext(ingest.WithFile(r.Context(), src, int64(len(tt.file))))
			retry, err := upload(in, r, limit, p)
			if err != nil || !retry.Existing || retry.Photo.ID != res.Photo.ID {
				t.Fatalf("the upload's file adopted again: %+v, %v; want photo %s", retry, err, res.Photo.ID)
			}
			if media, tmp := files(t, dir, "media"), files(t, dir, "tmp"); len(media) != 1 || len(tmp) > 0 {
				t.Fatalf("media %v, temp %v; want the first original alone", media, tmp)
			}
			// The body route knows the file by the same key: one photo.
			again, err := upload(in, photoForm(t, tt.file), limit, p)
			if err != nil || !again.Existing || again.Photo.ID != res.Photo.ID {
				t.Fatalf("the same bytes through a body: %+v, %v; want photo %s", again, err, res.Photo.ID)
			}
		})
	}
}

// TestAdoptedVideo: a video whose file is a finished upload's is stored
// as that file; the poster comes in the body and is copied.
func TestAdoptedVideo(t *testing.T) {
	poster := goodJPEG(t)
	mp4, err := os.ReadFile("../../probe/testdata/moov-at-end.mp4")
	if err != nil {
		t.Fatal(err)
	}
	lim := ingest.VideoLimits{MaxBytes: 1 << 20, MaxDuration: time.Minute}
	tests := []struct {
		name    string
		body    []byte // after the poster
		lim     ingest.VideoLimits
		wantErr func(error) bool
	}{
		{name: "the video is the upload's own file", lim: lim},
		{name: "a video over the limit is too large", lim: ingest.VideoLimits{MaxBytes: int64(len(mp4)) - 1, MaxDuration: time.Minute},
			wantErr: func(err error) bool { return errors.Is(err, ingest.ErrTooLarge) }},
		{name: "bytes after the poster are an invalid video", body: []byte("more"), lim: lim,
			wantErr: func(err error) bool { var ve *ingest.InvalidVideoError; return errors.As(err, &ve) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, e, dir := newBox(t)
			in := quietIngester(st)
			src := finishedUpload(t, dir, mp4)
			r := httptest.NewRequest("POST", "/upload", bytes.NewReader(join(poster, tt.body)))
			r.Header.Set("Content-Type", "application/vnd.service.video")
			r.Header.Set("X-Poster-Bytes", strconv.Itoa(len(poster)))
			r = r.WithContext(ingest.WithFile(context.Background(), src, int64(len(mp4))))

			res, err := in.Video(httptest.NewRecorder(), r, store.Photo{EventID: e.ID, GuestID: store.NewID(), Status: store.StatusVisible}, 0, tt.lim)

			if tmp := files(t, dir, "tmp"); len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("error %v, not the one wanted", err)
				}
				if media := files(t, dir, "media"); len(media) > 0 {
					t.Fatalf("a refused video left media files %v", media)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stored := filepath.Join(dir, "media", filepath.FromSlash(res.Photo.VideoName()))
			if !sameFile(t, src, stored) || res.Photo.Video.Size != int64(len(mp4)) {
				t.Fatalf("the stored video (%d bytes) is not the upload's file", res.Photo.Video.Size)
			}
			if b, err := os.ReadFile(filepath.Join(dir, "media", filepath.FromSlash(res.Photo.OriginalName()))); err != nil || !bytes.Equal(b, poster) {
				t.Fatalf("the poster: %d bytes, %v", len(b), err)
			}
		})
	}
}
