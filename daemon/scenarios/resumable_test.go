package scenarios_test

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/daemon"
)

// tusMeta encodes Upload-Metadata.
func tusMeta(kv map[string]string) string {
	var parts []string
	for k, v := range kv {
		parts = append(parts, k+" "+base64.StdEncoding.EncodeToString([]byte(v)))
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// tusCreate starts a resumable upload and answers its address.
func (c *client) tusCreate(slug string, size int, meta map[string]string) response {
	c.h.t.Helper()
	return c.do("POST", "/api/e/"+slug+"/uploads", nil, "Tus-Resumable", "1.0.0",
		"Upload-Length", strconv.Itoa(size), "Upload-Metadata", tusMeta(meta))
}

// tusPatch sends b at offset.
func (c *client) tusPatch(url string, offset int, b []byte) response {
	c.h.t.Helper()
	return c.do("PATCH", url, b, "Tus-Resumable", "1.0.0", "Content-Type", "application/offset+octet-stream",
		"Upload-Offset", strconv.Itoa(offset))
}

// tusSend uploads data whole through the resumable route in pieces of
// piece bytes and answers the GET of the finished upload.
func (c *client) tusSend(slug string, data []byte, meta map[string]string, piece int) (string, response) {
	c.h.t.Helper()
	url := c.tusCreate(slug, len(data), meta).expect(c.h.t, 201, "").Header.Get("Location")
	for off := 0; off < len(data); off += piece {
		end := min(off+piece, len(data))
		c.tusPatch(url, off, data[off:end]).expect(c.h.t, 204, "")
	}
	return url, c.do("GET", url, nil)
}

// TestResumableUploads: every guest file goes up through the tus route
// under the spec's rules, in pieces, resumes at the box's offset, and is
// one photo however often it is sent.
func TestResumableUploads(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.MaxVideoSeconds = 60; c.MaxVideoMB = 1; c.MaxUploadMB = 1 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "guestbookEnabled": true, "guestbookVoice": true})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	photo := photoJPEG(t, 640, 480, 0, false, 1)
	poster := photoJPEG(t, 64, 36, 0, false, 5)
	video, err := os.ReadFile("../../probe/testdata/moov-at-end.mp4")
	if err != nil {
		t.Fatal(err)
	}
	ogg, err := os.ReadFile("../../probe/testdata/voice.ogg")
	if err != nil {
		t.Fatal(err)
	}

	t.Run("a photo in pieces is stored whole, byte for byte", func(t *testing.T) {
		url, res := g.tusSend(slug, photo, map[string]string{"filename": "a.jpg", "filetype": "image/jpeg"}, 1000)
		res.expect(t, 201, "")
		p := res.JSON["photo"].(map[string]any)
		orig := g.do("GET", "/api/media/"+p["id"].(string)+"?v=original", nil).expect(t, 200, "")
		if !bytes.Equal(orig.Body, photo) {
			t.Fatalf("the stored original (%d bytes) is not the photo sent (%d bytes)", len(orig.Body), len(photo))
		}
		if h := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0"); h.Status != 200 || h.Header.Get("Upload-Offset") != strconv.Itoa(len(photo)) {
			t.Fatalf("HEAD of a finished upload: %d offset %q", h.Status, h.Header.Get("Upload-Offset"))
		}
	})

	t.Run("a stale offset is 409 and the upload resumes at the box's", func(t *testing.T) {
		other := photoJPEG(t, 640, 480, 0, false, 2)
		url := g.tusCreate(slug, len(other), map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		g.tusPatch(url, 0, other[:3000]).expect(t, 204, "")
		// The same piece again (its answer was lost): refused, nothing doubled.
		r := g.tusPatch(url, 0, other[:3000]).expect(t, 409, "conflict")
		if r.Header.Get("Upload-Offset") != "3000" {
			t.Fatalf("409 names offset %q, want 3000", r.Header.Get("Upload-Offset"))
		}
		head := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0")
		if head.Header.Get("Upload-Offset") != "3000" || head.Header.Get("Upload-Expires") == "" {
			t.Fatalf("HEAD: offset %q expires %q", head.Header.Get("Upload-Offset"), head.Header.Get("Upload-Expires"))
		}
		g.tusPatch(url, 3000, other[3000:]).expect(t, 204, "")
		res := g.do("GET", url, nil).expect(t, 201, "")
		if res.JSON["photo"].(map[string]any)["id"] == "" {
			t.Fatal("no photo")
		}
	})

	t.Run("the same file sent twice, by two uploads, is one photo", func(t *testing.T) {
		dup := photoJPEG(t, 320, 240, 0, false, 3)
		_, first := g.tusSend(slug, dup, map[string]string{"filetype": "image/jpeg"}, 4096)
		_, second := g.tusSend(slug, dup, map[string]string{"filetype": "image/jpeg"}, 4096)
		first.expect(t, 201, "")
		second.expect(t, 200, "")
		if first.JSON["photo"].(map[string]any)["id"] != second.JSON["photo"].(map[string]any)["id"] {
			t.Fatal("two photos for one file")
		}
		// And the spec's own route agrees: a retry of the same bytes.
		old := g.upload(slug, dup, nil, "").expect(t, 200, "")
		if old.JSON["photo"].(map[string]any)["id"] != first.JSON["photo"].(map[string]any)["id"] {
			t.Fatal("the multipart route stored the file again")
		}
	})

	t.Run("a video goes up after its poster, as one photo with its video", func(t *testing.T) {
		pURL, _ := g.tusSend(slug, poster, map[string]string{"kind": "poster", "filetype": "image/jpeg"}, 1<<20)
		pid := pURL[strings.LastIndex(pURL, "/")+1:]
		_, res := g.tusSend(slug, video, map[string]string{"filetype": "video/mp4", "filename": "v.mp4", "poster": pid}, 700)
		res.expect(t, 201, "")
		p := res.JSON["photo"].(map[string]any)
		if p["video"] == nil {
			t.Fatalf("the photo has no video: %v", p)
		}
		got := g.do("GET", "/api/media/"+p["id"].(string)+"?v=play", nil).expect(t, 200, "")
		if !bytes.Equal(got.Body, video) {
			t.Fatal("the stored video is not the one sent")
		}
		// The poster's upload went with it.
		if r := g.do("HEAD", pURL, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
			t.Fatalf("HEAD of the poster's upload: %d, want 404", r.Status)
		}
	})

	t.Run("a voice note becomes a message", func(t *testing.T) {
		_, res := g.tusSend(slug, ogg, map[string]string{"filetype": "audio/ogg", "seconds": "0.8", "text": "Bravo"}, 2048)
		res.expect(t, 201, "")
		m := res.JSON["message"].(map[string]any)
		if m["hasAudio"] != true || m["text"] != "Bravo" {
			t.Fatalf("message %v", m)
		}
	})

	t.Run("a file the route refuses is refused at its last byte with the route's code", func(t *testing.T) {
		junk := bytes.Repeat([]byte("not an image "), 100)
		url := g.tusCreate(slug, len(junk), map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		g.tusPatch(url, 0, junk).expect(t, 415, "invalid_image")
		g.do("GET", url, nil).expect(t, 415, "invalid_image")
	})

	t.Run("refusals answer at creation, before a byte", func(t *testing.T) {
		stranger := h.client()
		stranger.tusCreate(slug, 100, map[string]string{"filetype": "image/jpeg"}).expect(t, 403, "forbidden")
		g.tusCreate(slug, 2<<20, map[string]string{"filetype": "image/jpeg"}).expect(t, 413, "too_large")
		g.tusCreate(slug, 2<<20, map[string]string{"filetype": "video/mp4", "poster": "nope"}).expect(t, 400, "bad_request")
		g.do("POST", "/api/e/"+slug+"/uploads", nil, "Upload-Length", "100").expect(t, 412, "tus_version")
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": false}).expect(t, 200, "")
		g.tusCreate(slug, 100, map[string]string{"filetype": "image/jpeg"}).expect(t, 403, "uploads_closed")
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"uploadsOpen": true}).expect(t, 200, "")
		// Another guest's upload is not there for this one.
		url := g.tusCreate(slug, 100, map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		if r := h.guest(slug).do("HEAD", url, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
			t.Fatalf("another guest's HEAD: %d, want 404", r.Status)
		}
		h.guest(slug).do("DELETE", url, nil, "Tus-Resumable", "1.0.0").expect(t, 404, "not_found")
		g.do("DELETE", url, nil, "Tus-Resumable", "1.0.0").expect(t, 204, "")
		if r := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
			t.Fatalf("HEAD after DELETE: %d, want 404", r.Status)
		}
	})

	t.Run("an abandoned upload expires and its pieces go", func(t *testing.T) {
		url := g.tusCreate(slug, len(photo), map[string]string{"filetype": "image/jpeg"}).expect(t, 201, "").Header.Get("Location")
		g.tusPatch(url, 0, photo[:500]).expect(t, 204, "")
		upID := url[strings.LastIndex(url, "/")+1:]
		dir := filepath.Join(h.cfg.DataDir, "uploads", upID)
		if _, err := os.Stat(filepath.Join(dir, "data")); err != nil {
			t.Fatalf("the pieces are not in the uploads area: %v", err)
		}
		h.clock.Advance(25 * time.Hour)
		if r := g.do("HEAD", url, nil, "Tus-Resumable", "1.0.0"); r.Status != 404 {
			t.Fatalf("HEAD of an expired upload: %d, want 404", r.Status)
		}
		if n, err := h.d.SweepUploads(); err != nil || n < 1 {
			t.Fatalf("sweep removed %d: %v", n, err)
		}
		if _, err := os.Stat(dir); !os.IsNotExist(err) {
			t.Fatalf("the expired upload's folder is still there: %v", err)
		}
	})
}
