package photos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"eventbox/daemon/dto"
	"eventbox/daemon/ingest"
	"eventbox/daemon/web"
	"eventbox/store"
)

// smallJPEG is a small whole JPEG with some detail; seed makes another.
func smallJPEG(t *testing.T, seed int) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i*7 + seed)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// photoRequest is a multipart photo upload of file under "photo", with
// the text fields first.
func photoRequest(t *testing.T, file []byte, fields map[string]string) *http.Request {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if err := mw.WriteField(k, fields[k]); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("photo", "photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fw.Write(file); err != nil {
		t.Fatal(err)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	r := httptest.NewRequest("POST", "/upload", &buf)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	return r
}

// box is a Receiver over a real store and ingest, with the variant
// maker's receiving and the metrics recorded.
type box struct {
	st    *store.Store
	event store.Event
	rc    *Receiver

	mu        sync.Mutex
	receiving int // bodies being received now
	received  int // bodies received
	counted   []string
}

func (b *box) Receive() (done func()) {
	b.mu.Lock()
	b.receiving++
	b.received++
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		b.receiving--
		b.mu.Unlock()
	}
}

func newBox(t *testing.T, limits Config) *box {
	t.Helper()
	st, _ := openStore(t)
	e := store.Event{Name: "Wedding", Challenges: []store.Challenge{{ID: "c1", Label: "First dance"}}}
	if err := st.Events().Create(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	b := &box{st: st, event: e}
	cfg := limits
	cfg.Ingest = ingest.New(ingest.Config{Records: st.Photos(), Media: st.Media(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	cfg.Variants = b
	cfg.Uploaded = func(kind string) {
		b.mu.Lock()
		b.counted = append(b.counted, kind)
		b.mu.Unlock()
	}
	b.rc = NewReceiver(cfg)
	return b
}

// answer decodes a stored upload's answer.
func answer(t *testing.T, w *httptest.ResponseRecorder) dto.Photo {
	t.Helper()
	var body dto.PhotoBody
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatalf("answer %q: %v", w.Body.String(), err)
	}
	return body.Photo
}

// TestReceivePhoto takes guests' photos and the hosts' imports through
// the Receiver over a real store: the answer, its status, the name and
// challenge it stores, what the metrics count, and what it refuses.
func TestReceivePhoto(t *testing.T) {
	guest := store.Photo{GuestID: "G1", GuestName: "Ann", Status: store.StatusVisible}
	imported := store.Photo{Status: store.StatusVisible}
	tests := []struct {
		name        string
		p           store.Photo
		quota       int
		creditField string
		fields      map[string]string
		file        []byte // nil: a small JPEG
		// again sends the same upload a second time, as a retry does.
		again bool

		wantStatus    int // of the answer, or of the error
		wantField     string
		wantName      string
		wantChallenge string
		wantAdmin     bool
		wantCounted   []string
	}{
		{name: "a guest's photo is stored under the guest's name", p: guest,
			wantStatus: 201, wantName: "Ann", wantCounted: []string{"photo"}},
		{name: "a retry answers the first photo, counted once", p: guest, again: true,
			wantStatus: 200, wantName: "Ann", wantCounted: []string{"photo"}},
		{name: "a challenge of the event is kept", p: guest, fields: map[string]string{"challenge": "c1"},
			wantStatus: 201, wantName: "Ann", wantChallenge: "c1", wantCounted: []string{"photo"}},
		{name: "a challenge of no event is dropped", p: guest, fields: map[string]string{"challenge": "nope"},
			wantStatus: 201, wantName: "Ann", wantCounted: []string{"photo"}},
		{name: "a guest's form sets no credit", p: guest, fields: map[string]string{"credit": "Someone else"},
			wantStatus: 201, wantName: "Ann", wantCounted: []string{"photo"}},
		{name: "an import is the hosts', with the admin fields", p: imported, creditField: "credit",
			wantStatus: 201, wantAdmin: true, wantCounted: []string{"import"}},
		{name: "an import's credit names it, spaces folded", p: imported, creditField: "credit",
			fields:     map[string]string{"credit": "  Studio \t Lumière  "},
			wantStatus: 201, wantName: "Studio Lumière", wantAdmin: true, wantCounted: []string{"import"}},
		{name: "an import's credit of 60 characters is taken", p: imported, creditField: "credit",
			fields:     map[string]string{"credit": strings.Repeat("é", MaxGuestName)},
			wantStatus: 201, wantName: strings.Repeat("é", MaxGuestName), wantAdmin: true, wantCounted: []string{"import"}},
		{name: "an import's credit over 60 characters is refused", p: imported, creditField: "credit",
			fields:     map[string]string{"credit": strings.Repeat("é", MaxGuestName+1)},
			wantStatus: 400, wantField: "credit"},
		{name: "an import's credit with a control character is refused", p: imported, creditField: "credit",
			fields:     map[string]string{"credit": "Ann\x07"},
			wantStatus: 400, wantField: "credit"},
		{name: "a file that is no image is refused", p: guest, file: []byte("not a photo at all"),
			wantStatus: 415, wantField: "photo"},
		{name: "a file over MAX_UPLOAD_MB is refused", p: guest, file: bytes.Repeat([]byte("x"), 1<<20+1),
			wantStatus: 413},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBox(t, Config{MaxUploadMB: 1})
			p := tc.p
			p.EventID = b.event.ID
			file := tc.file
			if file == nil {
				file = smallJPEG(t, 0)
			}
			var w *httptest.ResponseRecorder
			var err error
			for range 1 + boolInt(tc.again) {
				w = httptest.NewRecorder()
				err = b.rc.ReceivePhoto(w, photoRequest(t, file, tc.fields), b.event, p, tc.quota, tc.creditField)
			}
			if b.received != 1+boolInt(tc.again) || b.receiving != 0 {
				t.Errorf("bodies received %d, still receiving %d", b.received, b.receiving)
			}
			if !slices.Equal(b.counted, tc.wantCounted) {
				t.Errorf("counted %v, want %v", b.counted, tc.wantCounted)
			}
			if tc.wantField != "" || tc.wantStatus >= 400 {
				we := web.ToError(err)
				if err == nil || we.Status != tc.wantStatus || (tc.wantField != "" && we.Details[tc.wantField] == "") {
					t.Fatalf("error %v (%d %v), want %d on %q", err, we.Status, we.Details, tc.wantStatus, tc.wantField)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Code != tc.wantStatus {
				t.Fatalf("answered %d %s, want %d", w.Code, w.Body, tc.wantStatus)
			}
			got := answer(t, w)
			name, challenge := "", ""
			if got.GuestName != nil {
				name = *got.GuestName
			}
			if got.ChallengeID != nil {
				challenge = *got.ChallengeID
			}
			if name != tc.wantName || challenge != tc.wantChallenge || (got.Downloads != nil) != tc.wantAdmin || got.Mine != (p.GuestID != "") {
				t.Errorf("answered %s; want name %q, challenge %q, admin fields %v", w.Body, tc.wantName, tc.wantChallenge, tc.wantAdmin)
			}
			stored, err := b.st.Photos().Get(context.Background(), got.ID)
			if err != nil {
				t.Fatal(err)
			}
			if stored.GuestName != tc.wantName || stored.ChallengeID != tc.wantChallenge || stored.GuestID != p.GuestID {
				t.Errorf("stored %+v", stored)
			}
		})
	}
}

// TestReceivePhotoHoldsToTheQuota stores a guest's photos up to the
// quota it is given, and refuses the next.
func TestReceivePhotoHoldsToTheQuota(t *testing.T) {
	b := newBox(t, Config{MaxUploadMB: 1})
	p := store.Photo{EventID: b.event.ID, GuestID: "G1", Status: store.StatusVisible}
	for i, want := range []int{201, 201, 403} {
		w := httptest.NewRecorder()
		err := b.rc.ReceivePhoto(w, photoRequest(t, smallJPEG(t, i), nil), b.event, p, 2, "")
		status := w.Code
		if err != nil {
			status = web.ToError(err).Status
		}
		if status != want {
			t.Fatalf("photo %d: %d (%v), want %d", i+1, status, err, want)
		}
	}
	if !slices.Equal(b.counted, []string{"photo", "photo"}) {
		t.Errorf("counted %v", b.counted)
	}
}

// TestReceiveVideo stores a poster and a phone's MP4 within the limits,
// counted as a video, and refuses one longer than MAX_VIDEO_SECONDS.
func TestReceiveVideo(t *testing.T) {
	mp4, err := os.ReadFile("../../probe/testdata/moov-at-end.mp4")
	if err != nil {
		t.Fatal(err)
	}
	poster := smallJPEG(t, 0)
	for _, tc := range []struct {
		name        string
		limits      Config
		wantStatus  int
		wantErr     func(error) bool
		wantCounted []string
	}{
		{name: "within the limits", limits: Config{MaxVideoMB: 1, MaxVideoSeconds: 60}, wantStatus: 201, wantCounted: []string{"video"}},
		{name: "longer than MAX_VIDEO_SECONDS", limits: Config{MaxVideoMB: 1, MaxVideoSeconds: 0}, wantStatus: 413,
			wantErr: func(err error) bool { var te *ingest.VideoTooLongError; return errors.As(err, &te) }},
		{name: "larger than MAX_VIDEO_MB", limits: Config{MaxVideoMB: 0, MaxVideoSeconds: 60}, wantStatus: 413,
			wantErr: func(err error) bool { return errors.Is(err, ingest.ErrTooLarge) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBox(t, tc.limits)
			r := httptest.NewRequest("POST", "/upload", bytes.NewReader(append(slices.Clone(poster), mp4...)))
			r.Header.Set("Content-Type", "application/vnd.service.video")
			r.Header.Set("X-Poster-Bytes", strconv.Itoa(len(poster)))
			w := httptest.NewRecorder()
			p := store.Photo{EventID: b.event.ID, GuestID: "G1", GuestName: "Ann", Status: store.StatusVisible}
			err := b.rc.ReceiveVideo(w, r, p, 0)
			status := w.Code
			if err != nil {
				status = web.ToError(err).Status
			}
			if status != tc.wantStatus || !slices.Equal(b.counted, tc.wantCounted) || b.received != 1 || b.receiving != 0 {
				t.Fatalf("%d (%v), counted %v, received %d (%d still); want %d, counted %v",
					status, err, b.counted, b.received, b.receiving, tc.wantStatus, tc.wantCounted)
			}
			if tc.wantErr != nil && !tc.wantErr(err) {
				t.Fatalf("error %v, not the one wanted", err)
			}
			if err == nil && answer(t, w).Video == nil {
				t.Errorf("answered %s, without the video", w.Body)
			}
		})
	}
}

// TestLimits gives the limits in bytes and seconds.
func TestLimits(t *testing.T) {
	got := NewReceiver(Config{MaxUploadMB: 30, MaxVideoMB: 200, MaxVideoSeconds: 90}).Limits()
	if want := (Limits{PhotoBytes: 30 << 20, VideoBytes: 200 << 20, VideoSeconds: 90}); got != want {
		t.Errorf("Limits() = %+v, want %+v", got, want)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
