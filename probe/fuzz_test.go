package probe_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"eventbox/probe"
)

// Run with, for example:
//
//	go test -run '^$' -fuzz '^FuzzVideo$' -fuzztime 10s ./probe
//	go test -run '^$' -fuzz '^FuzzAudio$' -fuzztime 10s ./probe

func FuzzVideo(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkProbe(t, probe.Video, b, false)
	})
}

func FuzzAudio(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		checkProbe(t, probe.Audio, b, true)
	})
}

// addSeeds seeds a fuzzer with the built fixtures and the real files in
// testdata.
func addSeeds(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	files, err := filepath.Glob(filepath.Join("testdata", "*.*"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		if filepath.Ext(name) == ".md" {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// checkProbe asserts the contract on any input: no panic, only ErrInvalid
// as an error (an in-memory reader cannot fail), and a result that keeps
// the documented promises.
func checkProbe(t *testing.T, fn func(context.Context, io.ReaderAt, int64) (probe.Result, error), b []byte, audio bool) {
	res, err := fn(context.Background(), bytes.NewReader(b), int64(len(b)))
	if err != nil {
		if !errors.Is(err, probe.ErrInvalid) {
			t.Fatalf("error does not wrap ErrInvalid: %v", err)
		}
		if res != (probe.Result{}) {
			t.Fatalf("error with a non-zero result %+v", res)
		}
		return
	}
	if res.Duration < 0 || res.Duration > 100*time.Hour {
		t.Fatalf("duration %v out of range", res.Duration)
	}
	wantMIME := map[string]string{"mp4": "video/mp4", "mov": "video/quicktime", "webm": "video/webm"}
	if audio {
		wantMIME = map[string]string{"m4a": "audio/mp4", "webm": "audio/webm", "ogg": "audio/ogg", "mp3": "audio/mpeg"}
	}
	if m, ok := wantMIME[res.Container]; !ok || m != res.MIME {
		t.Fatalf("container %q with MIME %q", res.Container, res.MIME)
	}
	if res.HasVideo == audio || (audio && !res.HasAudio) {
		t.Fatalf("audio=%v probe with HasVideo=%v HasAudio=%v", audio, res.HasVideo, res.HasAudio)
	}
}
