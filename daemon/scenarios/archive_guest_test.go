package scenarios_test

import (
	"bytes"
	"image/jpeg"
	"mime"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"

	"eventbox/imaging"
	"eventbox/internal/testtool"
)

// TestArchiveNamesSayWhatTheyHold: each ZIP's Content-Disposition names
// the event, its date and what the ZIP holds, in a name valid on every
// file system (UTF-8 filename* and an ASCII fallback), whatever the
// event's name holds.
func TestArchiveNamesSayWhatTheyHold(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	tests := []struct {
		name, event, date string
		want              string // the name without " - <what>.zip"
	}{
		{"accents are kept", "Léa & Zoë", "2026-06-20", "Léa & Zoë - 2026-06-20"},
		{"slashes and colons become spaces", "A/B\\C: the party", "2026-06-20", "A B C the party - 2026-06-20"},
		{"emoji go", "Ana 💍 Ben 🎉", "", "Ana Ben"},
		{"other scripts are kept", "結婚式 Свадьба", "2026-07-01", "結婚式 Свадьба - 2026-07-01"},
		{"quotes, angle brackets and trailing dots go", `"Big" <day>...`, "", "Big day"},
		{"a Windows device name gets an underscore", "con.txt", "", "_con.txt"},
		{"nothing left gives a plain word", "🎉/🎉", "", "Photos"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fields := map[string]any{"name": tt.event}
			if tt.date != "" {
				fields["eventDate"] = tt.date
			}
			id := h.createEvent(owner, fields)["id"].(string)
			fav, _ := createShare(t, owner, id, map[string]any{"allowDownload": true, "favoritesOnly": true})
			all, _ := createShare(t, owner, id, map[string]any{"allowDownload": true})
			for _, c := range []struct {
				what string
				c    *client
				url  string
			}{
				{"all photos", owner, "/api/admin/events/" + id + "/archive"},
				{"favourites", owner, "/api/admin/events/" + id + "/archive?favorites=1"},
				{"all photos incl. hidden and pending", owner, "/api/admin/events/" + id + "/archive?all=1"},
				{"favourites", h.client(), "/api/g/" + fav["token"].(string) + "/archive"},
				{"all photos", h.client(), "/api/g/" + all["token"].(string) + "/archive"},
			} {
				r := c.c.do("GET", c.url, nil).expect(t, 200, "")
				cd := r.Header.Get("Content-Disposition")
				want := tt.want + " - " + c.what + ".zip"
				_, params, err := mime.ParseMediaType(cd)
				if err != nil {
					t.Fatalf("%s: %q: %v", c.url, cd, err)
				}
				if params["filename"] != want {
					t.Errorf("%s: file name %q, want %q (%s)", c.url, params["filename"], want, cd)
				}
				ascii, _, _ := strings.Cut(strings.TrimPrefix(cd, `attachment; filename="`), `"`)
				for _, r := range ascii {
					if r > unicode.MaxASCII || r < 0x20 || strings.ContainsRune(`/\:*?"<>|`, r) {
						t.Errorf("%s: the ASCII fallback %q holds %q", c.url, ascii, r)
					}
				}
			}
		})
	}
}

// TestGuestArchivesOfferHEICAsJPEG: in a gallery link's ZIP a phone's
// HEIC photo is its JPEG copy, which decodes and carries no position; the
// hosts' ZIP keeps the HEIC as sent.
func TestGuestArchivesOfferHEICAsJPEG(t *testing.T) {
	testtool.Long(t, "HEIC photos turned into JPEG")
	testtool.Unraced(t, "decoding HEIC")
	if !imaging.HEICSupported() {
		t.Skip("no HEIC in this build")
	}
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding"})
	slug, id := ev["slug"].(string), ev["id"].(string)
	sent, err := os.ReadFile(filepath.Join("..", "..", "imaging", "testdata", "phone-gps.heic"))
	if err != nil {
		t.Fatal(err)
	}
	g := h.guest(slug)
	ct, body := multipartBody(t, "photo", "IMG_0001.HEIC", sent, nil)
	p := g.do("POST", "/api/e/"+slug+"/photos", body, "Content-Type", ct).expect(t, 201, "").JSON["photo"].(map[string]any)
	photo := p["id"].(string)
	takenAt, ok := p["takenAt"].(float64)
	if !ok {
		t.Fatalf("the phone's HEIC has no takenAt: %v", p)
	}
	// Entries are named by when the photo was taken, not when it came.
	taken := time.UnixMilli(int64(takenAt)).UTC().Format("20060102-150405")
	waitVariants(t, h)
	sh, _ := createShare(t, owner, id, map[string]any{"allowDownload": true})

	files, _ := readZip(t, h.client().do("GET", "/api/g/"+sh["token"].(string)+"/archive", nil).expect(t, 200, ""))
	if len(files) != 1 {
		t.Fatalf("gallery ZIP holds %v", sortedKeys(files))
	}
	for name, data := range files {
		if !strings.HasPrefix(name, taken+"-") || !strings.HasSuffix(name, "-"+photo+".jpg") {
			t.Errorf("gallery ZIP entry %q, want a .jpg named %s-…-%s.jpg", name, taken, photo)
		}
		img, err := jpeg.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("gallery ZIP entry %q is no JPEG: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() == 0 || b.Dy() == 0 {
			t.Errorf("an empty JPEG: %v", b)
		}
		if hasPosition(t, data, imaging.JPEG) {
			t.Errorf("gallery ZIP entry %q carries the position", name)
		}
	}

	files, _ = readZip(t, owner.do("GET", "/api/admin/events/"+id+"/archive", nil).expect(t, 200, ""))
	if len(files) != 1 {
		t.Fatalf("admin ZIP holds %v", sortedKeys(files))
	}
	for name, data := range files {
		if !strings.HasPrefix(name, taken+"-") || !strings.HasSuffix(name, "-"+photo+".heic") || !bytes.Equal(data, sent) {
			t.Errorf("admin ZIP entry %q (%d bytes) is not the HEIC as sent", name, len(data))
		}
	}
}
