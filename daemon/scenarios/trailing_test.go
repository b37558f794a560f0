package scenarios_test

import (
	"bytes"
	"crypto/rand"
	"image/jpeg"
	"testing"
)

// TestJPEGTrailingDataIsCut sends JPEGs with megabytes after their end
// marker, as motion photos append their video: the photo is taken, and
// its original is the JPEG alone, byte for byte.
func TestJPEGTrailingDataIsCut(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Motion"})
	slug := ev["slug"].(string)
	g := h.guest(slug)

	video := append(box("ftyp", []byte("mp42"), make([]byte, 4), []byte("isommp42")), box("mdat", randomBytes(t, 3<<20))...)
	second := photoJPEG(t, 320, 240, 0, false, 12)
	tests := []struct {
		name     string
		trailing []byte
	}{
		{"a motion photo's video after the JPEG is cut off", video},
		{"a second image after the JPEG (MPO) is cut off", second},
		{"random bytes with 0xFF markers after the JPEG are cut off", append(randomBytes(t, 1<<20), 0xff, 0xd9)},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			img := photoJPEG(t, 640, 480, 6, false, 20+i)
			sent := append(append([]byte{}, img...), tt.trailing...)
			r := g.upload(slug, sent, nil, "").expect(t, 201, "")
			p := r.JSON["photo"].(map[string]any)
			id := p["id"].(string)
			if p["width"] != 480.0 || p["height"] != 640.0 {
				t.Errorf("size %vx%v; want 480x640 (orientation 6)", p["width"], p["height"])
			}
			orig := g.do("GET", "/api/media/"+id+"?v=original", nil).expect(t, 200, "")
			if !bytes.Equal(orig.Body, img) {
				t.Fatalf("original is %d bytes; want the %d bytes of the JPEG alone (sent %d)", len(orig.Body), len(img), len(sent))
			}
			waitVariants(t, h)
			for _, v := range []string{"thumb", "display"} {
				res := g.do("GET", "/api/media/"+id+"?v="+v, nil).expect(t, 200, "")
				if _, err := jpeg.Decode(bytes.NewReader(res.Body)); err != nil {
					t.Errorf("%s does not decode: %v", v, err)
				}
			}
			// A retry of the same bytes finds the same photo.
			again := g.upload(slug, sent, nil, "").expect(t, 200, "")
			if again.JSON["photo"].(map[string]any)["id"] != id {
				t.Errorf("a retry made another photo")
			}
		})
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}
