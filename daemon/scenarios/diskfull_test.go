package scenarios_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"eventbox/daemon"
	"eventbox/store"
)

// smallDisk mounts a tmpfs of size bytes on a fresh directory and returns
// it, unmounted when the test ends. It skips the test when mounting is not
// permitted (not root, or no mount namespace).
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+strconv.Itoa(size)); err != nil {
		t.Skipf("a small file system is needed and mounting a tmpfs is not permitted here (%v): run as root to test a full card", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmounting %s: %v", dir, err)
		}
	})
	return dir
}

// fillDisk writes a file in dir until the file system is full and returns
// its path; removing it gives the space back.
func fillDisk(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "filler")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatalf("filling the disk: %v", err)
		}
	}
	// Fill the last partial block too.
	for {
		if _, err := f.Write(chunk[:512]); err != nil {
			break
		}
	}
	return path
}

// blindGuard makes the storage guard see a roomy card, so that a write
// meets the full card itself: what happens when the card fills between
// the guard's look and the write (storage_guard_test.go tests the guard).
func blindGuard(c *daemon.Config) {
	c.Statfs = func(string) (int64, error) { return 1 << 40, nil }
}

// mediaFiles lists every file under the media and temp areas of dir.
func mediaFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, area := range []string{"media", "tmp"} {
		root := filepath.Join(dir, area)
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestDiskFullUploads fills DATA_DIR (a small tmpfs) and sends a photo, a
// video, an admin import, a logo and a voice note: each answers 507 insufficient_storage, the cause
// is logged, and neither a temp file, a media file nor a record is left.
// Once space is back the same upload is taken.
func TestDiskFullUploads(t *testing.T) {
	dir := smallDisk(t, 4<<20)
	logs := &logBuffer{}
	h := newHarness(t, withLogs(logs), blindGuard, func(c *daemon.Config) { c.DataDir = dir; c.MaxVideoMB = 1 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Full card"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)

	photo := photoJPEG(t, 640, 480, 0, false, 1)
	poster := photoJPEG(t, 64, 36, 0, false, 2)
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		send   func() response
		stored func() int
	}{
		{"a photo", func() response { return g.upload(slug, photo, nil, "") }, func() int { return countPhotos(t, h.st, id) }},
		{"a video", func() response {
			return g.uploadVideo(slug, poster, mp4OfSeconds(3), strconv.Itoa(len(poster)))
		}, func() int { return countPhotos(t, h.st, id) }},
		{"an admin import", func() response {
			ct, body := multipartBody(t, "photo", "scan.jpg", photoJPEG(t, 640, 480, 0, false, 3), nil)
			return owner.do("POST", "/api/admin/events/"+id+"/photos/import", body, "Content-Type", ct)
		}, func() int { return countPhotos(t, h.st, id) }},
		{"a logo", func() response { return owner.uploadLogo(id, pngWithAlpha(t)) }, func() int {
			e, err := h.st.Events().Get(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			return int(min(e.LogoVersion, 1))
		}},
		{"a voice note", func() response { return g.postMessage(slug, "", ogg, "0.8") }, func() int {
			page, err := h.st.Messages().List(context.Background(), store.MessageQuery{EventID: id, Limit: 100})
			if err != nil {
				t.Fatal(err)
			}
			return len(page.Items)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name+" on a full card answers 507 and leaves nothing", func(t *testing.T) {
			waitVariants(t, h)
			kept := mediaFiles(t, dir)
			filler := fillDisk(t, dir)
			before := tt.stored()
			logged := strings.Count(logs.String(), "no space left on device")
			tt.send().expect(t, 507, "insufficient_storage")
			if got := strings.Count(logs.String(), "no space left on device"); got <= logged {
				t.Errorf("the full card is not in the log:\n%s", logs.String())
			}
			if files := mediaFiles(t, dir); !slices.Equal(files, kept) {
				t.Errorf("files after the refused upload: %v; want %v", files, kept)
			}
			if n := tt.stored(); n != before {
				t.Errorf("%d records after the refused upload; want %d", n, before)
			}
			if err := os.Remove(filler); err != nil {
				t.Fatal(err)
			}
			r := tt.send()
			if r.Status != 201 && r.Status != 200 {
				t.Fatalf("with space back: got %d %s, want 201", r.Status, r.Body)
			}
			if n := tt.stored(); n != before+1 {
				t.Errorf("%d records after the upload; want %d", n, before+1)
			}
		})
	}
}

// TestDiskFullRecord leaves room for the photo's file but not for its
// record: the file is written and moved into place, the database commit
// fails with ENOSPC, and the answer is 507 with the file removed again and
// the database still working once space is back.
func TestDiskFullRecord(t *testing.T) {
	dir := smallDisk(t, 4<<20)
	logs := &logBuffer{}
	h := newHarness(t, withLogs(logs), blindGuard, func(c *daemon.Config) { c.DataDir = dir })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Full card"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	photo := photoJPEG(t, 640, 480, 0, false, 40)

	filler := fillDisk(t, dir)
	st, err := os.Stat(filler)
	if err != nil {
		t.Fatal(err)
	}
	room := int64((len(photo) + 4095) / 4096 * 4096)
	if err := os.Truncate(filler, st.Size()-room); err != nil {
		t.Fatal(err)
	}
	g.upload(slug, photo, nil, "").expect(t, 507, "insufficient_storage")
	if !strings.Contains(logs.String(), "adding photo") || !strings.Contains(logs.String(), "no space left on device") {
		t.Errorf("the failed commit is not in the log:\n%s", logs.String())
	}
	if files := mediaFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind: %v", files)
	}
	if n := countPhotos(t, h.st, id); n != 0 {
		t.Errorf("%d photos stored; want 0", n)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	g.upload(slug, photo, nil, "").expect(t, 201, "")
	if n := countPhotos(t, h.st, id); n != 1 {
		t.Errorf("%d photos stored; want 1", n)
	}
}

func countPhotos(t *testing.T, st *store.Store, eventID string) int {
	t.Helper()
	page, err := st.Photos().List(context.Background(), store.PhotoQuery{EventID: eventID, Limit: 1000, AlsoVisible: true})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Items)
}

// TestFullCardRefusalsReachAClientThatKeepsSending: a client that sends
// its whole body before it reads (Python's http.client, a browser's fetch
// of a file) reads the 507 insufficient_storage of a full card, whether
// the storage guard refused the upload before its body or a write met the
// full card in the middle of it: the box reads and discards the rest, as
// for its other refusals, and then closes. Before, the box closed with the
// body still arriving and the client's next write met a reset.
func TestFullCardRefusalsReachAClientThatKeepsSending(t *testing.T) {
	const mb = 1 << 20
	const form = "multipart/form-data; boundary=x"
	const part = "--x\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"IMG_0001.JPG\"\r\nContent-Type: image/jpeg\r\n\r\n"
	const audio = "--x\r\nContent-Disposition: form-data; name=\"audio\"; filename=\"voice.ogg\"\r\nContent-Type: audio/ogg\r\n\r\n"
	const video = "application/vnd.service.video"
	jpeg := string(photoJPEG(t, 40, 30, 1, false, 2))
	poster := fmt.Sprintf("X-Poster-Bytes: %d\r\n", len(jpeg))

	dir := smallDisk(t, 4<<20)
	free := int64(1 << 40) // what the guard sees
	var mu sync.Mutex
	h := newHarness(t, func(c *daemon.Config) {
		c.DataDir = dir
		c.MaxUploadMB, c.MaxVideoMB = 25, 25
		c.Statfs = func(string) (int64, error) {
			mu.Lock()
			defer mu.Unlock()
			return free, nil
		}
	})
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Full card", "allowVideos": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	fillDisk(t, dir)

	tests := []struct {
		name, path, ct, extra, prefix string
		chunked                       bool
	}{
		{"a photo", "/api/e/" + slug + "/photos", form, "", part, false},
		{"a photo sent chunked", "/api/e/" + slug + "/photos", form, "", part, true},
		{"a video", "/api/e/" + slug + "/photos", video, poster, jpeg, false},
		{"a voice note", "/api/e/" + slug + "/messages", form, "", audio, false},
		{"an admin import", "/api/admin/events/" + id + "/photos/import", form, "", part, false},
	}
	for _, when := range []struct {
		name  string
		guard int64
	}{
		{"mid-body, a write meets the full card", 1 << 40},
		{"before the body, the storage guard", 0},
	} {
		mu.Lock()
		free = when.guard
		mu.Unlock()
		for _, tt := range tests {
			t.Run(when.name+"/"+tt.name, func(t *testing.T) {
				c := g
				if strings.HasPrefix(tt.path, "/api/admin/") {
					c = owner
				}
				res := sendWholeBody(t, c, tt.path, tt.ct, tt.extra, tt.prefix, 20*mb, tt.chunked)
				if got := errorCode(t, res); res.StatusCode != 507 || got != "insufficient_storage" {
					t.Fatalf("got %d %q, want 507 insufficient_storage", res.StatusCode, got)
				}
			})
		}
	}
}
