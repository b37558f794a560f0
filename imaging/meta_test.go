package imaging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/imaging"
	"eventbox/internal/testtool"
	"eventbox/probe"
)

// patchedBytes reads the whole file through its location patches.
func patchedBytes(t *testing.T, path string, patches []imaging.Patch) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	// Small reads, so patches are laid over reads that cut through them.
	p := imaging.NewPatched(f, patches)
	buf := make([]byte, 97)
	for {
		n, err := p.Read(buf)
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return out.Bytes()
}

// exiftoolTags reads every tag of a file with exiftool, by group:name.
func exiftoolTags(t *testing.T, exiftool string, data []byte, ext string) map[string]any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "photo"+ext)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exiftool, "-j", "-G1", "-a", path).Output()
	if err != nil {
		t.Fatalf("exiftool: %v", err)
	}
	var tags []map[string]any
	if err := json.Unmarshal(out, &tags); err != nil || len(tags) != 1 {
		t.Fatalf("exiftool output: %v %s", err, out)
	}
	return tags[0]
}

func gpsTags(tags map[string]any) []string {
	var out []string
	for k := range tags {
		if strings.Contains(k, "GPS") {
			out = append(out, k)
		}
	}
	return out
}

// TestLocationIsRemovedAndCaptureTimeRead: on phone files with a position
// in EXIF and XMP (testdata/phone-gps.*, README.md), the patches remove
// every GPS tag (read back with ReadMetadata itself and, where installed,
// exiftool), keep the size, the pixels and the other tags, and the capture
// time is read.
func TestLocationIsRemovedAndCaptureTimeRead(t *testing.T) {
	exiftool := ""
	if testtool.Has(t, "libimage-exiftool-perl", "exiftool") {
		exiftool, _ = exec.LookPath("exiftool")
	}
	paris := time.FixedZone("CEST", 2*3600)
	tests := []struct {
		file   string
		format imaging.Format
		taken  time.Time
	}{
		{"phone-gps.jpg", imaging.JPEG, time.Date(2026, 6, 20, 18, 40, 0, 0, paris)},
		{"phone-gps.heic", imaging.HEIC, time.Date(2026, 6, 20, 18, 42, 7, 0, paris)},
		{"phone-gps.png", imaging.PNG, time.Date(2026, 6, 20, 18, 41, 0, 0, paris)},
		{"phone-gps.webp", imaging.WebP, time.Date(2026, 6, 20, 18, 43, 0, 0, paris)},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			m, err := imaging.ReadMetadata(bytes.NewReader(orig), int64(len(orig)), tt.format, paris)
			if err != nil {
				t.Fatal(err)
			}
			if got := time.UnixMilli(m.TakenAt); !got.Equal(tt.taken) {
				t.Errorf("taken at %v, want %v", got, tt.taken)
			}
			if len(m.Location) == 0 {
				t.Fatal("no location found")
			}
			clean := patchedBytes(t, path, m.Location)
			if len(clean) != len(orig) {
				t.Fatalf("%d bytes, want %d", len(clean), len(orig))
			}
			again, err := imaging.ReadMetadata(bytes.NewReader(clean), int64(len(clean)), tt.format, paris)
			if err != nil {
				t.Fatal(err)
			}
			if len(again.Location) != 0 || bytes.Contains(clean, []byte("GPSLatitude")) {
				t.Errorf("the patched file still holds a position: %v", again.Location)
			}
			if again.TakenAt != m.TakenAt {
				t.Errorf("the patched file lost its capture time")
			}
			if _, err := imaging.Check(bytes.NewReader(clean), int64(len(clean))); err != nil {
				t.Errorf("the patched file no longer checks: %v", err)
			}
			if tt.format != imaging.HEIC {
				if _, _, err := image.Decode(bytes.NewReader(clean)); err != nil && tt.format != imaging.WebP {
					t.Errorf("the patched file no longer decodes: %v", err)
				}
			}
			if exiftool == "" {
				return
			}
			if gps := gpsTags(exiftoolTags(t, exiftool, orig, filepath.Ext(tt.file))); len(gps) == 0 {
				t.Fatalf("exiftool finds no GPS tag in the fixture")
			}
			tags := exiftoolTags(t, exiftool, clean, filepath.Ext(tt.file))
			if os.Getenv("DUMP") != "" {
				t.Logf("%v", tags)
			}
			if gps := gpsTags(tags); len(gps) != 0 {
				t.Errorf("exiftool still reads %v", gps)
			}
			if tags["ExifIFD:DateTimeOriginal"] == nil {
				t.Errorf("exiftool lost DateTimeOriginal: %v", tags)
			}
			if w, ok := tags["ExifTool:Warning"]; ok {
				t.Errorf("exiftool warns: %v", w)
			}
		})
	}
}

// TestVideoLocationIsRemoved: the position of an Android-style MP4 (©xyz)
// and an iPhone-style MOV (QuickTime location key) is gone through the
// patches, read back with exiftool where installed, and the video still
// probes.
func TestVideoLocationIsRemoved(t *testing.T) {
	exiftool := ""
	if testtool.Has(t, "libimage-exiftool-perl", "exiftool") {
		exiftool, _ = exec.LookPath("exiftool")
	}
	for _, file := range []string{"phone-gps.mp4", "phone-gps.mov"} {
		t.Run(file, func(t *testing.T) {
			path := filepath.Join("testdata", file)
			orig, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			patches, err := imaging.VideoLocation(bytes.NewReader(orig), int64(len(orig)))
			if err != nil {
				t.Fatal(err)
			}
			if len(patches) == 0 {
				t.Fatal("no location found")
			}
			clean := patchedBytes(t, path, patches)
			if len(clean) != len(orig) {
				t.Fatalf("%d bytes, want %d", len(clean), len(orig))
			}
			if res, err := probe.Video(context.Background(), bytes.NewReader(clean), int64(len(clean))); err != nil || res.Duration <= 0 {
				t.Fatalf("the patched video no longer probes: %v %v", res, err)
			}
			if again, _ := imaging.VideoLocation(bytes.NewReader(clean), int64(len(clean))); len(again) != 0 && bytes.Contains(clean, []byte("location.ISO6709")) {
				t.Errorf("the patched video still names a location")
			}
			if exiftool == "" {
				return
			}
			if gps := gpsTags(exiftoolTags(t, exiftool, orig, filepath.Ext(file))); len(gps) == 0 {
				t.Fatal("exiftool finds no GPS tag in the fixture")
			}
			tags := exiftoolTags(t, exiftool, clean, filepath.Ext(file))
			if gps := gpsTags(tags); len(gps) != 0 {
				t.Errorf("exiftool still reads %v", gps)
			}
			if w, ok := tags["ExifTool:Warning"]; ok {
				t.Errorf("exiftool warns: %v", w)
			}
		})
	}
}
