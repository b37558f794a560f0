package scenarios_test

import (
	"bytes"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"eventbox/imaging"
	"eventbox/imaging/imagingtest"
	"eventbox/internal/testtool"
	"eventbox/store"
)

// TestAlbumShowsTheCamerasPreviewUntilTheThumb: GET /api/media/:id?v=preview
// answers at once, while the box has not made the photo's thumb, with the
// camera's own preview from the EXIF block (never cached), to viewers who
// may have the original; once the thumb is made it answers the thumb; a
// photo without a preview, or a viewer without the original, gets the
// placeholder. The photo's answers say whether the thumb is ready.
func TestAlbumShowsTheCamerasPreviewUntilTheThumb(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "albumShared": true})
	slug, eventID := ev["slug"].(string), ev["id"].(string)
	guest, other := h.guest(slug), h.guest(slug)
	sh, _ := createShare(t, owner, eventID, map[string]any{"allowDownload": false})
	visitor := h.client()
	visitor.do("GET", "/api/g/"+sh["token"].(string), nil).expect(t, 200, "")

	// A photo whose variants cannot be made yet: its first attempt fails.
	stuck := guest.upload(slug, imagingtest.PhoneJPEG(t, true), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)
	if stuck["thumbReady"] != false {
		t.Fatalf("a photo just sent says thumbReady %v, want false", stuck["thumbReady"])
	}
	sid := stuck["id"].(string)
	waitFailedAttempts(t, h, sid, 1)

	for _, c := range []struct {
		name   string
		viewer *client
	}{{"its uploader", guest}, {"another guest", other}, {"a host", owner}} {
		t.Run(c.name+" gets the camera's preview", func(t *testing.T) {
			r := c.viewer.do("GET", "/api/media/"+sid+"?v=preview", nil).expect(t, 200, "")
			if r.Header.Get("ETag") != `"`+sid+`-preview"` || r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Content-Type") != "image/jpeg" {
				t.Fatalf("preview headers %v", r.Header)
			}
			cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body))
			if err != nil || cfg.Width != 160 || cfg.Height != 120 {
				t.Fatalf("preview is %+v (%v), want a 160×120 JPEG", cfg, err)
			}
		})
	}
	t.Run("a gallery link without downloads gets the placeholder", func(t *testing.T) {
		expectPlaceholder(t, visitor.do("GET", "/api/media/"+sid+"?v=preview", nil))
	})
	t.Run("the thumb itself is the placeholder until its retry", func(t *testing.T) {
		expectPlaceholder(t, guest.do("GET", "/api/media/"+sid+"?v=thumb", nil))
	})

	t.Run("once the thumb is made, preview answers the thumb", func(t *testing.T) {
		p := guest.upload(slug, imagingtest.PhoneJPEG(t, false), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)
		pid := p["id"].(string)
		thumb := guest.do("GET", "/api/media/"+pid+"?v=thumb", nil).expect(t, 200, "")
		r := guest.do("GET", "/api/media/"+pid+"?v=preview", nil).expect(t, 200, "")
		if r.Header.Get("ETag") != `"`+pid+`-thumb"` || !bytes.Equal(r.Body, thumb.Body) || !strings.Contains(r.Header.Get("Cache-Control"), "immutable") {
			t.Fatalf("preview after the thumb: ETag %q, Cache-Control %q, same bytes %v", r.Header.Get("ETag"), r.Header.Get("Cache-Control"), bytes.Equal(r.Body, thumb.Body))
		}
		list := guest.do("GET", "/api/e/"+slug+"/photos", nil).expect(t, 200, "")
		for _, it := range list.JSON["photos"].([]any) {
			it := it.(map[string]any)
			if want := it["id"] == pid; it["thumbReady"] != want {
				t.Errorf("photo %v says thumbReady %v, want %v", it["id"], it["thumbReady"], want)
			}
		}
	})
	t.Run("a photo without a preview gets the placeholder", func(t *testing.T) {
		png := guest.upload(slug, undecodablePNG(), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
		waitFailedAttempts(t, h, png, 1)
		expectPlaceholder(t, guest.do("GET", "/api/media/"+png+"?v=preview", nil))
	})
}

// TestAHEICIsItsThumbnailItemUntilItsSharpVariants: an iPhone's HEIC gets,
// at once, the thumbnail item the phone wrote beside the photo (320×240)
// as its thumb and display (rough variants), where it got the placeholder
// until the whole photo was decoded, seconds to minutes later on a busy
// box. The rough ones carry an ETag of their own and are checked again at
// each use, so a screen gets the sharp ones once they exist. This one's
// tiles cannot be decoded: its sharpen job fails, and the photo keeps its
// thumbnail item.
func TestAHEICIsItsThumbnailItemUntilItsSharpVariants(t *testing.T) {
	testtool.Need(t, "libheif-examples", "heif-enc")
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	h := newHarness(t)
	slug := h.createEvent(h.owner(), map[string]any{"name": "P"})["slug"].(string)
	guest := h.guest(slug)
	id := guest.upload(slug, imagingtest.PhoneHEIC(t, true), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	deadline := time.Now().Add(30 * time.Second)
	for {
		jobs, err := h.st.Jobs().Unfinished(t.Context(), store.SharpenJobKind, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(jobs) == 1 && jobs[0].Key == id && jobs[0].Failures == 1 && jobs[0].Status == store.JobQueued {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the HEIC's sharpen job did not fail once in 30 s: %+v", jobs)
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, v := range []string{"preview", "thumb", "display"} {
		r := guest.do("GET", "/api/media/"+id+"?v="+v, nil).expect(t, 200, "")
		want := `"` + id + "-" + v + `-rough"`
		if v == "preview" {
			want = `"` + id + `-thumb-rough"` // it has a thumb: the preview is it
		}
		if r.Header.Get("ETag") != want || r.Header.Get("Content-Type") != "image/jpeg" || r.Header.Get("Cache-Control") != "private, no-cache" {
			t.Fatalf("%s headers %v, want the rough variant's ETag %s, checked again at each use", v, r.Header, want)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body))
		if err != nil || cfg.Width != 320 || cfg.Height != 240 {
			t.Fatalf("%s is %+v (%v), want the 320×240 thumbnail item as a JPEG", v, cfg, err)
		}
	}
}

// TestPreviewNeverAnswersAnError: ?v=preview of a photo whose thumb is not
// made yet answers a camera preview in 4:4:4 (chroma at full resolution)
// like any other, where it answered 500 "chroma subsampling 1x1 is not
// 4:2:0" (issue 39), and any failure of making a preview (here the
// original gone from the card) answers the placeholder, never an error.
func TestPreviewNeverAnswersAnError(t *testing.T) {
	h := newHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "P"})
	slug := ev["slug"].(string)
	guest := h.guest(slug)
	b444, err := os.ReadFile(filepath.Join("..", "..", "imaging", "internal", "jpegdec", "testdata", "chroma-444.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	// stuck sends file and waits for its variants' first attempt to fail,
	// so that its preview is asked while it has no thumb.
	stuck := func(t *testing.T, file []byte) string {
		t.Helper()
		id := guest.upload(slug, file, nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
		waitFailedAttempts(t, h, id, 1)
		return id
	}
	t.Run("a 4:4:4 camera preview is shown", func(t *testing.T) {
		id := stuck(t, imagingtest.WithOwnPreview(b444, 1, true))
		r := guest.do("GET", "/api/media/"+id+"?v=preview", nil).expect(t, 200, "")
		if r.Header.Get("ETag") != `"`+id+`-preview"` {
			t.Fatalf("preview ETag %q, want the camera's preview, not the placeholder", r.Header.Get("ETag"))
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(r.Body))
		if err != nil || cfg.Width != 133 || cfg.Height != 91 {
			t.Fatalf("preview is %+v (%v), want a 133×91 JPEG", cfg, err)
		}
	})
	t.Run("a preview that cannot be made answers the placeholder", func(t *testing.T) {
		id := stuck(t, imagingtest.PhoneJPEG(t, true))
		p, err := h.st.Photos().Get(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		if err := h.st.Media().Remove(p.OriginalName()); err != nil {
			t.Fatal(err)
		}
		expectPlaceholder(t, guest.do("GET", "/api/media/"+id+"?v=preview", nil))
	})
}
