package scenarios_test

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventbox/imaging"
	"eventbox/internal/testtool"
)

// hasPosition reads a file back for a position: with imaging.ReadMetadata,
// and with exiftool where it is installed.
func hasPosition(t *testing.T, data []byte, f imaging.Format) bool {
	t.Helper()
	m, err := imaging.ReadMetadata(bytes.NewReader(data), int64(len(data)), f, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	found := len(m.Location) > 0
	if testtool.Has(t, "libimage-exiftool-perl", "exiftool") {
		exiftool, _ := exec.LookPath("exiftool")
		path := filepath.Join(t.TempDir(), "photo."+string(f))
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(exiftool, "-s", "-a", "-G1", path).Output()
		if err != nil {
			t.Fatalf("exiftool: %v", err)
		}
		if byExiftool := strings.Contains(string(out), "GPS"); byExiftool != found {
			t.Fatalf("exiftool finds a position: %v, ReadMetadata: %v\n%s", byExiftool, found, out)
		}
	}
	return found
}

// TestOthersGetOriginalsWithoutPosition: a guest's phone photo with a GPS
// position (EXIF and XMP) is served to another guest, to a gallery link's
// visitor and in the gallery's ZIP without it; its uploader and the hosts
// get the bytes as sent; a Range request reads the same bytes as the whole.
func TestOthersGetOriginalsWithoutPosition(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "Wedding", "albumShared": true, "galleryLinkDownload": true})
	slug, id := ev["slug"].(string), ev["id"].(string)
	sh, _ := createShare(t, owner, id, map[string]any{"allowDownload": true})
	token := sh["token"].(string)
	visitor := h.client()
	visitor.do("GET", "/api/g/"+token, nil).expect(t, 200, "")

	for _, file := range []struct {
		name   string
		format imaging.Format
	}{
		// HEIC is left to imaging's test: its variants take long
		// under -race, past the harness's shutdown wait.
		{"phone-gps.jpg", imaging.JPEG}, {"phone-gps.png", imaging.PNG}, {"phone-gps.webp", imaging.WebP},
	} {
		t.Run(file.name, func(t *testing.T) {
			sent, err := os.ReadFile(filepath.Join("..", "..", "imaging", "testdata", file.name))
			if err != nil {
				t.Fatal(err)
			}
			uploader := h.guest(slug)
			ct, body := multipartBody(t, "photo", file.name, sent, nil)
			r := uploader.do("POST", "/api/e/"+slug+"/photos", body, "Content-Type", ct).expect(t, 201, "")
			photo := r.JSON["photo"].(map[string]any)["id"].(string)
			original := "/api/media/" + photo + "?v=original"

			for _, as := range []struct {
				who    string
				c      *client
				asSent bool
			}{
				{"its uploader", uploader, true},
				{"the owner", owner, true},
				{"another guest", h.guest(slug), false},
				{"a gallery visitor", visitor, false},
			} {
				got := as.c.do("GET", original, nil).expect(t, 200, "").Body
				if as.asSent {
					if !bytes.Equal(got, sent) {
						t.Errorf("%s gets %d bytes other than those sent", as.who, len(got))
					}
					continue
				}
				if len(got) != len(sent) {
					t.Errorf("%s gets %d bytes, want %d", as.who, len(got), len(sent))
				}
				if hasPosition(t, got, file.format) {
					t.Errorf("%s gets the position", as.who)
				}
				part := as.c.do("GET", original, nil, "Range", "bytes=10-").expect(t, 206, "").Body
				if !bytes.Equal(part, got[10:]) {
					t.Errorf("%s: a range differs from the whole", as.who)
				}
			}
			if !hasPosition(t, sent, file.format) {
				t.Fatal("the fixture has no position")
			}
		})
	}
	for _, file := range []string{"phone-gps.mp4", "phone-gps.mov"} {
		t.Run(file, func(t *testing.T) {
			sent, err := os.ReadFile(filepath.Join("..", "..", "imaging", "testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			uploader := h.guest(slug)
			poster := photoJPEG(t, 40, 30, 1, false, 3)
			r := uploader.uploadVideo(slug, poster, sent, strconv.Itoa(len(poster))).expect(t, 201, "")
			photo := r.JSON["photo"].(map[string]any)["id"].(string)
			for _, v := range []string{"original", "play"} {
				path := "/api/media/" + photo + "?v=" + v
				if got := uploader.do("GET", path, nil).expect(t, 200, "").Body; !bytes.Equal(got, sent) {
					t.Errorf("%s: the uploader gets other bytes than sent", v)
				}
				if got := owner.do("GET", path, nil).expect(t, 200, "").Body; !bytes.Equal(got, sent) {
					t.Errorf("%s: the owner gets other bytes than sent", v)
				}
				for who, c := range map[string]*client{"another guest": h.guest(slug), "a gallery visitor": visitor} {
					got := c.do("GET", path, nil).expect(t, 200, "").Body
					if len(got) != len(sent) {
						t.Errorf("%s, %s: %d bytes, want %d", v, who, len(got), len(sent))
					}
					if patches, _ := imaging.VideoLocation(bytes.NewReader(got), int64(len(got))); len(patches) != 0 && bytes.Contains(got, []byte("location.ISO6709")) {
						t.Errorf("%s, %s: the video still names a location", v, who)
					}
					if bytes.Contains(got, []byte("\xa9xyz")) || bytes.Contains(got, []byte("loci")) || bytes.Contains(got, []byte("+48.8584")) {
						t.Errorf("%s, %s: the video still holds a position", v, who)
					}
				}
			}
		})
	}
	t.Run("the gallery's ZIP", func(t *testing.T) {
		raw := visitor.do("GET", "/api/g/"+token+"/archive", nil).expect(t, 200, "").Body
		zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
		if err != nil {
			t.Fatal(err)
		}
		if len(zr.File) != 5 {
			t.Fatalf("%d files in the ZIP", len(zr.File))
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatal(err)
			}
			format, isImage := imaging.Sniff(data)
			if !isImage {
				if bytes.Contains(data, []byte("+48.8584")) {
					t.Errorf("%s in the gallery's ZIP has the position", f.Name)
				}
				continue
			}
			if hasPosition(t, data, format) {
				t.Errorf("%s in the gallery's ZIP has the position", f.Name)
			}
		}
	})
}
