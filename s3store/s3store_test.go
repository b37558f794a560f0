package s3store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"

	"eventbox/internal/testtool"
	"eventbox/s3store"
	"eventbox/s3store/s3test"
)

// Each test runs against the quick fake (gofakes3, make test) and, as
// its ...OnVersityGW and ...OnSeaweedFS twins, against two real
// S3-compatible servers (the Versity gateway: make longtest, make s3test
// and CI's packaging lane; SeaweedFS: make longtest and make s3test).

func TestObjectsGoAndComeBackWhole(t *testing.T) {
	t.Parallel() // the hostile test, which measures the heap, runs alone before
	objectsGoAndComeBack(t, s3test.Fake(t))
}

func TestObjectsGoAndComeBackWholeOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	objectsGoAndComeBack(t, s3test.Versity(t))
}

func TestObjectsGoAndComeBackWholeOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	objectsGoAndComeBack(t, s3test.Real(t))
}

func TestMultipartUploadResumesAfterACut(t *testing.T) {
	t.Parallel() // the hostile test, which measures the heap, runs alone before
	multipartResumes(t, s3test.Fake(t))
}

func TestMultipartUploadResumesAfterACutOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	multipartResumes(t, s3test.Versity(t))
}

func TestMultipartUploadResumesAfterACutOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	multipartResumes(t, s3test.Real(t))
}

func TestSettingsTestSaysWhichStepFailed(t *testing.T) {
	t.Parallel() // the hostile test, which measures the heap, runs alone before
	settingsTestSteps(t, s3test.Fake(t))
}

func TestSettingsTestSaysWhichStepFailedOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	settingsTestSteps(t, s3test.Versity(t))
}

func TestSettingsTestSaysWhichStepFailedOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	settingsTestSteps(t, s3test.Real(t))
}

func TestStoreRefusesABodyChangedOnTheWay(t *testing.T) {
	t.Parallel() // the hostile test, which measures the heap, runs alone before
	changedBodies(t, s3test.Fake(t))
}

func TestStoreRefusesABodyChangedOnTheWayOnVersityGW(t *testing.T) {
	testtool.Long(t, "starts versitygw, built by make s3gateway")
	changedBodies(t, s3test.Versity(t))
}

func TestStoreRefusesABodyChangedOnTheWayOnSeaweedFS(t *testing.T) {
	testtool.Long(t, "starts SeaweedFS, built by make s3server")
	changedBodies(t, s3test.Real(t))
}

func bucketOf(t testing.TB, s s3test.Server, cfg s3store.Config) *s3store.Bucket {
	t.Helper()
	b, err := s3store.New(s3store.Settings{Endpoint: s.Endpoint, Region: s.Region, Bucket: s.Bucket,
		AccessKey: s.AccessKey, Secret: s.Secret, PathStyle: true}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// data answers n random bytes of seed, eight at a time (quick under
// -race).
func data(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := make([]byte, n+8)
	for i := 0; i < n; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b[:n]
}

// objectsGoAndComeBack: small objects in one request, large ones
// in parts, each listed with its size and read back byte for byte.
func objectsGoAndComeBack(t *testing.T, s s3test.Server) {
	ctx := context.Background()
	b := bucketOf(t, s, s3store.Config{PartSize: 5 << 20})
	files := map[string][]byte{
		"index.html":          []byte("<!doctype html><title>x</title>"),
		"voice/note.m4a":      data(70_000, 1),
		"2026-06-20 Anna.mp4": data(11<<20+123, 2), // three parts
		"empty.txt":           {},
	}
	for name, body := range files {
		key := s3store.Key("boxes", "box-07", "2026-06-20 Party", name)
		var err error
		if b.Large(int64(len(body))) {
			_, err = b.PutParts(ctx, key, bytes.NewReader(body), int64(len(body)), "", s3store.Upload{},
				func(s3store.Upload) error { return nil })
		} else {
			_, err = b.Put(ctx, key, bytes.NewReader(body), int64(len(body)), "")
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	listed, err := b.List(ctx, "boxes/box-07/2026-06-20 Party")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s3test.Objects(ctx, s, "boxes/box-07/")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		if o, ok := listed[name]; !ok || o.Size != int64(len(want)) {
			t.Errorf("%s listed as %+v (%v), want %d bytes", name, o, ok, len(want))
		}
		if g := got["boxes/box-07/2026-06-20 Party/"+name]; !bytes.Equal(g, want) {
			t.Errorf("%s read back: %d bytes, want %d, the same", name, len(g), len(want))
		}
	}
	if len(listed) != len(files) {
		t.Errorf("listed %d objects, want %d", len(listed), len(files))
	}
}

// multipartResumes: an upload cut while its third part
// of four is sent (the power goes) resumes from the upload kept before the
// first part: the parts the store has are not sent again, only the cut
// one and those after it; the object is whole.
func multipartResumes(t *testing.T, s s3test.Server) {
	body := data(3*(5<<20)+4321, 3) // four parts of 5 MiB, the last small
	key := "boxes/box-07/party/video.mp4"
	var mu sync.Mutex
	sent := map[int]int{}
	ctx, cut := context.WithCancel(context.Background())
	count := s3test.CountingTransport{Parts: func(n int) {
		mu.Lock()
		defer mu.Unlock()
		sent[n]++
		if n == 3 {
			cut() // the power goes while part 3 is on its way
		}
	}}
	b := bucketOf(t, s, s3store.Config{PartSize: 5 << 20, Transport: count})
	var kept s3store.Upload
	keep := func(u s3store.Upload) error { kept = u; return nil }
	if _, err := b.PutParts(ctx, key, bytes.NewReader(body), int64(len(body)), "video/mp4", s3store.Upload{}, keep); err == nil {
		t.Fatal("the cut upload succeeded")
	}
	if kept.ID == "" || kept.Key != key {
		t.Fatalf("the upload was not kept before its parts: %+v", kept)
	}
	// The next attempt, after the restart.
	b = bucketOf(t, s, s3store.Config{PartSize: 5 << 20, Transport: count})
	kept2 := kept
	o, err := b.PutParts(context.Background(), key, bytes.NewReader(body), int64(len(body)), "video/mp4", kept,
		func(u s3store.Upload) error { kept2 = u; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if kept2 != kept {
		t.Errorf("the resumed upload started another: %+v", kept2)
	}
	if o.Size != int64(len(body)) {
		t.Errorf("size %d", o.Size)
	}
	again := 0
	for n := 1; n <= 4; n++ {
		if sent[n] > 1 {
			again += sent[n] - 1
		}
		if sent[n] == 0 {
			t.Errorf("part %d never sent", n)
		}
	}
	t.Logf("parts sent: %v; sent again: %d", sent, again)
	if sent[1] != 1 || sent[2] != 1 || again > 1 {
		t.Errorf("parts sent %v: only the cut part may go twice", sent)
	}
	got, err := s3test.Objects(context.Background(), s, key)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got[key], body) {
		t.Errorf("read back %d bytes, want the %d sent", len(got[key]), len(body))
	}
}

// refuse is a proxy in front of a server that answers status to the
// requests of one method.
func refuse(t testing.TB, s s3test.Server, method string, status int) s3test.Server {
	t.Helper()
	srv := newProxy(t, s.Endpoint, func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != method || strings.Contains(r.URL.RawQuery, "location") {
			return false
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(status)
		code := "AccessDenied"
		if status >= 500 {
			code = "InternalError"
		}
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + code + `</Code><Message>refused by the test</Message></Error>`))
		return true
	})
	s.Endpoint = srv
	return s
}

// settingsTestSteps: the settings test writes, reads
// back and removes one object, and says which of the three failed, in
// the store's words.
func settingsTestSteps(t *testing.T, s s3test.Server) {
	for _, tc := range []struct {
		name   string
		method string
		status int
		step   string
	}{
		{"all three steps pass", "", 0, ""},
		{"the write is refused", http.MethodPut, 403, s3store.StepWrite},
		{"the read back fails", http.MethodGet, 500, s3store.StepRead},
		{"the removal is refused", http.MethodDelete, 403, s3store.StepDelete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := s
			if tc.method != "" {
				target = refuse(t, s, tc.method, tc.status)
			}
			err := bucketOf(t, target, s3store.Config{}).Test(context.Background(), "boxes/box-07")
			if tc.step == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var e *s3store.Error
			if !errors.As(err, &e) || e.Op != tc.step || e.Status != tc.status || !strings.Contains(err.Error(), "refused by the test") {
				t.Fatalf("got %v (%#v), want the step %q with %d and the store's words", err, e, tc.step, tc.status)
			}
		})
	}
}

// changedBodies: a byte of an object, or of a part, changed between the
// box and the store (a proxy flips it, the length kept) is refused by
// the store, which checks the Content-MD5 and the signed SHA-256 each
// goes with: the write fails with a 400 and nothing is stored. (The real
// stores check the SHA-256 first, XAmzContentSHA256Mismatch; gofakes3
// the MD5, BadDigest.)
func changedBodies(t *testing.T, s s3test.Server) {
	for _, tc := range []struct {
		name string
		size int
	}{
		{"an object in one request", 70_000},
		{"a part of a multipart upload", 5<<20 + 999},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := s
			target.Endpoint = newProxy(t, s.Endpoint, func(w http.ResponseWriter, r *http.Request) bool {
				if r.Method == http.MethodPut && r.ContentLength > 0 {
					body, err := io.ReadAll(r.Body)
					if err != nil {
						http.Error(w, err.Error(), http.StatusBadGateway)
						return true
					}
					body[len(body)/2] ^= 0x20
					r.Body = io.NopCloser(bytes.NewReader(body))
				}
				return false
			})
			body := data(tc.size, 9)
			key := "boxes/box-07/changed/" + strings.ReplaceAll(tc.name, " ", "-")
			b := bucketOf(t, target, s3store.Config{PartSize: 5 << 20})
			var err error
			if b.Large(int64(len(body))) {
				_, err = b.PutParts(t.Context(), key, bytes.NewReader(body), int64(len(body)), "", s3store.Upload{},
					func(s3store.Upload) error { return nil })
			} else {
				_, err = b.Put(t.Context(), key, bytes.NewReader(body), int64(len(body)), "")
			}
			var e *s3store.Error
			if !errors.As(err, &e) || e.Status != http.StatusBadRequest {
				t.Fatalf("the changed body got %v (%#v), want the store's 400", err, e)
			}
			t.Logf("the store said %s: %s", e.Code, e.Words)
			got, err := s3test.Objects(t.Context(), s, key)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 0 {
				t.Errorf("the store kept %d objects of the changed body", len(got))
			}
		})
	}
}
