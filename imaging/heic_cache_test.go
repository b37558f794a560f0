package imaging_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/imaging/internal/testimg"
	"eventbox/internal/testtool"
)

// TestHEICDecoderIsCachedOnDisk: a pool with HEICCacheDir keeps the
// decoder's machine code there, and a later pool (a restarted daemon)
// decodes with it; a cache whose files were cut (a power loss) is emptied
// and the decoder compiled again, so HEIC still decodes.
func TestHEICDecoderIsCachedOnDisk(t *testing.T) {
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	heic, err := imagingtest.HEIFEnc(t.TempDir(), testimg.Photo(256, 192, 1), 50)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(t.TempDir(), "cache", "heic")
	files := func() []string {
		var names []string
		filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, p)
			}
			return nil
		})
		return names
	}
	tests := []struct {
		name   string
		before func()
	}{
		{"the first start compiles and keeps the code", func() {}},
		{"a restart loads the kept code", func() {}},
		{"a cache cut short is emptied and the decoder compiled again", func() {
			for _, f := range files() {
				if err := os.WriteFile(f, []byte("cut"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.before()
			p := imaging.NewPool(imaging.PoolConfig{Workers: 1, HEICCacheDir: cache})
			v, err := p.Make(context.Background(), bytes.NewReader(heic), int64(len(heic)))
			if err != nil {
				t.Fatal(err)
			}
			if v.Width != 256 {
				t.Fatalf("display %dx%d, want 256 wide", v.Width, v.Height)
			}
			if len(files()) == 0 {
				t.Fatalf("nothing kept in %s", cache)
			}
		})
	}
}
