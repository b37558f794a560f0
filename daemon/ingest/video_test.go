package ingest_test

import (
	"bytes"
	"errors"
	"io"
	"net/http/httptest"
	"os"
	"strconv"
	"testing"
	"time"

	"eventbox/daemon/ingest"
	"eventbox/store"
)

// stopsSending gives its bytes, then fails as a client's connection that
// drops does.
type stopsSending struct{ r io.Reader }

func (s stopsSending) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err == io.EOF {
		return n, io.ErrUnexpectedEOF
	}
	return n, err
}

// TestVideo runs video uploads (poster JPEG, then the video, in one body)
// through Video, without the HTTP router, over a real store.
func TestVideo(t *testing.T) {
	poster := goodJPEG(t)
	phoneMP4, err := os.ReadFile("../../probe/testdata/moov-at-end.mp4")
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(len(poster))
	lim := ingest.VideoLimits{MaxBytes: 1 << 20, MaxDuration: time.Minute}
	isVideoErr := func(field string) func(error) bool {
		return func(err error) bool {
			var ve *ingest.InvalidVideoError
			return errors.As(err, &ve) && ve.Field == field
		}
	}
	tests := []struct {
		name        string
		posterBytes string
		body        []byte
		lim         ingest.VideoLimits
		stops       bool // the body stops arriving at its end
		wantErr     func(error) bool
	}{
		{name: "a poster and a phone's MP4 are stored", posterBytes: n, body: join(poster, phoneMP4), lim: lim},
		{name: "no poster size is an invalid video", body: join(poster, phoneMP4), lim: lim, wantErr: isVideoErr("X-Poster-Bytes")},
		{name: "a poster that is not a JPEG is an invalid video", posterBytes: "100", body: join(bytes.Repeat([]byte("x"), 100), phoneMP4), lim: lim, wantErr: isVideoErr("poster")},
		{name: "a body shorter than its poster is an invalid video", posterBytes: strconv.Itoa(len(poster) * 2), body: poster, lim: lim, wantErr: isVideoErr("poster")},
		{name: "a video of no known container is an invalid video", posterBytes: n, body: join(poster, bytes.Repeat([]byte("v"), 4096)), lim: lim, wantErr: isVideoErr("video")},
		{
			name: "a video over the longest is too long", posterBytes: n, body: join(poster, phoneMP4),
			lim:     ingest.VideoLimits{MaxBytes: 1 << 20, MaxDuration: time.Millisecond},
			wantErr: func(err error) bool { var te *ingest.VideoTooLongError; return errors.As(err, &te) },
		},
		{
			name: "a body over the limit is too large", posterBytes: n, body: join(poster, phoneMP4),
			lim:     ingest.VideoLimits{MaxBytes: 16, MaxDuration: time.Minute},
			wantErr: func(err error) bool { return errors.Is(err, ingest.ErrTooLarge) },
		},
		{
			name: "a body that stops arriving is the client's fault", posterBytes: n, body: join(poster, phoneMP4[:100]), lim: lim, stops: true,
			wantErr: func(err error) bool { var fe *ingest.FieldError; return errors.As(err, &fe) && fe.Field == "body" },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, e, dir := newBox(t)
			in := quietIngester(st)
			var body io.Reader = bytes.NewReader(tt.body)
			if tt.stops {
				body = stopsSending{body}
			}
			r := httptest.NewRequest("POST", "/upload", body)
			if tt.stops {
				r.ContentLength = -1
			}
			r.Header.Set("Content-Type", "application/vnd.service.video")
			if tt.posterBytes != "" {
				r.Header.Set("X-Poster-Bytes", tt.posterBytes)
			}

			res, err := in.Video(httptest.NewRecorder(), r, store.Photo{EventID: e.ID, Status: store.StatusVisible}, 0, tt.lim)

			media, tmp := files(t, dir, "media"), files(t, dir, "tmp")
			if len(tmp) > 0 {
				t.Errorf("temp files left: %v", tmp)
			}
			if tt.wantErr != nil {
				if err == nil || !tt.wantErr(err) {
					t.Fatalf("error %v, not the one wanted", err)
				}
				if len(media) > 0 {
					t.Fatalf("a refused video left media files %v", media)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Photo.Video == nil || res.Photo.Video.Size != int64(len(phoneMP4)) || res.Photo.Size != int64(len(poster)) || len(media) != 2 {
				t.Fatalf("stored %+v with media %v; want the poster and the video", res.Photo, media)
			}
		})
	}
}

func join(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
