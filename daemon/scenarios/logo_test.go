package scenarios_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"
	"testing"

	"eventbox/internal/testtool"
	"eventbox/store"
)

// uploadLogo sends a logo file as an admin.
func (c *client) uploadLogo(eventID string, data []byte) response {
	c.h.t.Helper()
	ct, body := multipartBody(c.h.t, "logo", "logo.png", data, nil)
	return c.do("POST", "/api/admin/events/"+eventID+"/logo", body, "Content-Type", ct)
}

// logoVersion reads logoVersion of an event answer (0 for null).
func logoVersion(t *testing.T, r response) int64 {
	t.Helper()
	v, _ := r.JSON["event"].(map[string]any)["logoVersion"].(float64)
	return int64(v)
}

// decodePNG decodes a PNG answer.
func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	m, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("answer is not a PNG: %v", err)
	}
	return m
}

// hugePNG is a two-colour PNG of w×h pixels: small on the wire, many
// pixels.
func hugePNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.White, color.Black})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLogoUpload(t *testing.T) {
	testtool.Unraced(t, "scaling logos")
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	webp, err := os.ReadFile("../../imaging/testdata/quadrants.webp")
	if err != nil {
		t.Fatal(err)
	}
	tooBig := make([]byte, 10<<20+1)
	copy(tooBig, pngWithAlpha(t))

	tests := []struct {
		name         string
		data         []byte
		status       int
		code         string
		wantW, wantH int
	}{
		{"a PNG with alpha is kept at its size", pngWithAlpha(t), 200, "", 64, 48},
		{"a large JPEG is scaled to 1024 px on its longest side", photoJPEG(t, 1200, 600, 0, false, 1), 200, "", 1024, 512},
		{"a JPEG turned by EXIF stands upright", photoJPEG(t, 300, 200, 6, false, 2), 200, "", 200, 300},
		{"a WebP is taken", webp, 200, "", 0, 0},
		{"a GIF is refused", gifImage(t), 415, "invalid_image", 0, 0},
		{"a text file is refused", []byte("not a logo, only words"), 415, "invalid_image", 0, 0},
		{"an image over 40 megapixels is refused", hugePNG(t, 8000, 5001), 415, "invalid_image", 0, 0},
		{"a file over 10 MB is too large", tooBig, 413, "too_large", 0, 0},
	}
	last := int64(0)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := owner.uploadLogo(id, tt.data).expect(t, tt.status, tt.code)
			if tt.status != 200 {
				if tt.status == 415 {
					if _, ok := r.details()["logo"]; !ok {
						t.Errorf("details %v do not name logo", r.details())
					}
				}
				return
			}
			v := logoVersion(t, r)
			if v <= last {
				t.Fatalf("logoVersion %d did not grow past %d", v, last)
			}
			last = v
			got := h.client().do("GET", fmt.Sprintf("/api/e/%s/logo?v=%d", slug, v), nil).expect(t, 200, "")
			if ct := got.Header.Get("Content-Type"); ct != "image/png" {
				t.Errorf("Content-Type %q", ct)
			}
			m := decodePNG(t, got.Body)
			if tt.wantW != 0 && (m.Bounds().Dx() != tt.wantW || m.Bounds().Dy() != tt.wantH) {
				t.Errorf("stored logo is %v, want %dx%d", m.Bounds().Size(), tt.wantW, tt.wantH)
			}
		})
	}

	t.Run("a form without the logo field names it", func(t *testing.T) {
		ct, body := multipartBody(t, "photo", "x.png", pngWithAlpha(t), nil)
		r := owner.do("POST", "/api/admin/events/"+id+"/logo", body, "Content-Type", ct).expect(t, 400, "bad_request")
		if _, ok := r.details()["logo"]; !ok {
			t.Errorf("details %v", r.details())
		}
	})
	t.Run("only the current logo file is kept", func(t *testing.T) {
		entries, err := os.ReadDir(h.cfg.DataDir + "/media/" + id)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 1 || entries[0].Name() != "logo-"+strconv.FormatInt(last, 10)+".png" {
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			t.Errorf("media folder holds %v", names)
		}
	})
	t.Run("the public event carries the version", func(t *testing.T) {
		pub := h.client().do("GET", "/api/e/"+slug, nil).expect(t, 200, "")
		if v := pub.JSON["event"].(map[string]any)["logoVersion"]; v != float64(last) {
			t.Errorf("public logoVersion %v, want %d", v, last)
		}
	})
	t.Run("the current version is cached for good, any other briefly", func(t *testing.T) {
		cur := h.client().do("GET", fmt.Sprintf("/api/e/%s/logo?v=%d", slug, last), nil).expect(t, 200, "")
		if cc := cur.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("current version: Cache-Control %q", cc)
		}
		for _, q := range []string{"", "?v=1", "?v=abc"} {
			old := h.client().do("GET", "/api/e/"+slug+"/logo"+q, nil).expect(t, 200, "")
			if cc := old.Header.Get("Cache-Control"); cc != "public, max-age=300" {
				t.Errorf("%q: Cache-Control %q", q, cc)
			}
			if !bytes.Equal(old.Body, cur.Body) {
				t.Errorf("%q: not the current logo", q)
			}
		}
	})
	t.Run("deleting the logo clears the version and the file", func(t *testing.T) {
		r := owner.do("DELETE", "/api/admin/events/"+id+"/logo", nil).expect(t, 200, "")
		if v := r.JSON["event"].(map[string]any)["logoVersion"]; v != nil {
			t.Errorf("logoVersion %v after delete", v)
		}
		h.client().do("GET", "/api/e/"+slug+"/logo", nil).expect(t, 404, "not_found")
		if h.st.Media().Exists(store.LogoName(id, last)) {
			t.Error("the logo file is still there")
		}
		owner.do("DELETE", "/api/admin/events/"+id+"/logo", nil).expect(t, 200, "")
	})
	t.Run("an unknown slug has no logo", func(t *testing.T) {
		h.client().do("GET", "/api/e/zzzzzz/logo", nil).expect(t, 404, "not_found")
	})
}

func TestLogoScope(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	mine := h.createEvent(owner, map[string]any{"name": "Mine"})["id"].(string)
	other := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	org := h.organizer("olga", mine)
	logo := pngWithAlpha(t)
	tests := []struct {
		name   string
		c      *client
		method string
		event  string
		status int
		code   string
	}{
		{"an organizer sets the logo of an event of theirs", org, "POST", mine, 200, ""},
		{"an organizer cannot reach another event's logo", org, "POST", other, 404, "not_found"},
		{"an organizer removes the logo of an event of theirs", org, "DELETE", mine, 200, ""},
		{"an organizer cannot remove another event's logo", org, "DELETE", other, 404, "not_found"},
		{"a visitor is not signed in", h.client(), "POST", mine, 401, "unauthorized"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.method == "POST" {
				tt.c.uploadLogo(tt.event, logo).expect(t, tt.status, tt.code)
				return
			}
			tt.c.do("DELETE", "/api/admin/events/"+tt.event+"/logo", nil).expect(t, tt.status, tt.code)
		})
	}
}
