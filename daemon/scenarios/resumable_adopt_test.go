package scenarios_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"eventbox/daemon"
)

// writeBytes is this process's bytes sent to the storage layer so far
// (/proc/self/io write_bytes); ok is false where the kernel does not say.
func writeBytes(t *testing.T) (int64, bool) {
	t.Helper()
	f, err := os.Open("/proc/self/io")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "write_bytes: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// TestResumableUploadAdoptsTheFile: the finished upload's file becomes the
// stored file (the same inode, renamed into place), so a file sent
// resumably is written to the card once, not once more by the route.
func TestResumableUploadAdoptsTheFile(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.MaxVideoSeconds = 60; c.MaxVideoMB = 32 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	eventID, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	poster := photoJPEG(t, 64, 36, 0, false, 5)
	pURL, _ := g.tusSend(slug, poster, map[string]string{"kind": "poster", "filetype": "image/jpeg"}, 1<<20)
	pid := pURL[strings.LastIndex(pURL, "/")+1:]

	for _, tc := range []struct {
		name   string
		data   []byte
		meta   map[string]string
		stored string // the stored file's suffix
	}{
		{"a 20 MB video", bigMP4(20<<20, 30), map[string]string{"filetype": "video/mp4", "filename": "v.mp4", "poster": pid}, ".video"},
		{"a photo", photoJPEG(t, 1600, 1200, 0, false, 9), map[string]string{"filetype": "image/jpeg", "filename": "a.jpg"}, ".orig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, measured := writeBytes(t)
			url := g.tusCreate(slug, len(tc.data), tc.meta).expect(t, 201, "").Header.Get("Location")
			id := url[strings.LastIndex(url, "/")+1:]
			last := len(tc.data) - 1
			for off := 0; off < last; off += 4 << 20 {
				g.tusPatch(url, off, tc.data[off:min(off+4<<20, last)]).expect(t, 204, "")
			}
			upload, err := os.Stat(filepath.Join(h.cfg.DataDir, "uploads", id, "data"))
			if err != nil {
				t.Fatal(err)
			}
			res := g.tusPatch(url, last, tc.data[last:]).expect(t, 204, "")
			photoID, ok := strings.CutPrefix(res.Header.Get("Upload-Result"), "photo ")
			if !ok {
				t.Fatalf("Upload-Result %q", res.Header.Get("Upload-Result"))
			}
			after, _ := writeBytes(t)
			stored, err := os.Stat(filepath.Join(h.cfg.DataDir, "media", eventID, photoID+tc.stored))
			if err != nil {
				t.Fatal(err)
			}
			if stored.Size() != int64(len(tc.data)) {
				t.Fatalf("stored %d bytes, sent %d", stored.Size(), len(tc.data))
			}
			if measured {
				t.Logf("%s: %.2f bytes written per byte stored", tc.name, float64(after-before)/float64(stored.Size()))
			}
			if !os.SameFile(upload, stored) {
				t.Fatal("the stored file is a copy of the finished upload, not the upload's file: every byte was written twice")
			}
		})
	}
}
