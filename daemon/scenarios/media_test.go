package scenarios_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	_ "image/jpeg"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// countFiles counts the files in dir whose names end with suffix.
func countFiles(t *testing.T, dir string, suffix ...string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if len(suffix) == 0 || strings.HasSuffix(e.Name(), suffix[0]) {
			n++
		}
	}
	return n
}

func TestMediaVariantsAndAccess(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	otherEvent := h.createEvent(owner, map[string]any{"name": "Other"})["id"].(string)
	author, friend := h.guest(slug), h.guest(slug)
	photo := author.upload(slug, photoJPEG(t, 2100, 1400, 6, true, 7), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)
	pid := photo["id"].(string)

	t.Run("variants are made in the background, bounded, without metadata", func(t *testing.T) {
		for _, tt := range []struct {
			v        string
			longSide int
		}{{"thumb", 400}, {"display", 1920}} {
			r := author.do("GET", "/api/media/"+pid+"?v="+tt.v, nil).expect(t, 200, "")
			if r.Header.Get("Content-Type") != "image/jpeg" {
				t.Fatalf("%s content type %q", tt.v, r.Header.Get("Content-Type"))
			}
			cfg, _, err := image.DecodeConfig(bytes.NewReader(r.Body))
			if err != nil {
				t.Fatalf("%s does not decode: %v", tt.v, err)
			}
			// 2100×1400 turned by orientation 6 is 1400×2100 as displayed.
			wantW := (tt.longSide*1400 + 1050) / 2100
			if cfg.Height != tt.longSide || cfg.Width < wantW-1 || cfg.Width > wantW+1 {
				t.Errorf("%s is %d×%d, want %d×%d", tt.v, cfg.Width, cfg.Height, wantW, tt.longSide)
			}
			if bytes.Contains(r.Body, []byte("Exif")) || bytes.Contains(r.Body, []byte("MM\x00\x2a")) {
				t.Errorf("%s carries EXIF (GPS) metadata", tt.v)
			}
			if r.Header.Get("ETag") == "" || !strings.Contains(r.Header.Get("Cache-Control"), "max-age=31536000") {
				t.Errorf("%s caching headers: %v", tt.v, r.Header)
			}
			again := author.do("GET", "/api/media/"+pid+"?v="+tt.v, nil, "If-None-Match", r.Header.Get("ETag"))
			if again.Status != 304 {
				t.Errorf("%s revalidation = %d", tt.v, again.Status)
			}
		}
	})
	t.Run("the original is served whole with Range and as a download", func(t *testing.T) {
		full := author.do("GET", "/api/media/"+pid+"?v=original", nil).expect(t, 200, "")
		if !bytes.Contains(full.Body, []byte("Exif")) {
			t.Error("the original lost its metadata")
		}
		part := author.do("GET", "/api/media/"+pid+"?v=original", nil, "Range", "bytes=0-99")
		if part.Status != 206 || len(part.Body) != 100 || part.Header.Get("Content-Range") == "" {
			t.Fatalf("range answer %d, %d bytes, %q", part.Status, len(part.Body), part.Header.Get("Content-Range"))
		}
		dl := author.do("GET", "/api/media/"+pid+"?v=original&download=1", nil).expect(t, 200, "")
		cd := dl.Header.Get("Content-Disposition")
		if !strings.HasPrefix(cd, "attachment") || !strings.Contains(cd, pid) || !strings.Contains(cd, ".jpg") {
			t.Errorf("Content-Disposition = %q", cd)
		}
	})
	org := h.organizer("planner", otherEvent)
	tests := []struct {
		name   string
		c      *client
		status int
	}{
		{"the author sees it", author, 200},
		{"another guest of the shared album sees a visible photo", friend, 200},
		{"the owner sees it", owner, 200},
		{"a stranger does not", h.client(), 404},
		{"an organizer of another event does not", org, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.c.do("GET", "/api/media/"+pid+"?v=thumb", nil).expect(t, tt.status, map[bool]string{true: "", false: "not_found"}[tt.status == 200])
		})
	}
	t.Run("a pending photo is only for its author and the hosts", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"moderation": "pre"}).expect(t, 200, "")
		pending := author.upload(slug, photoJPEG(t, 50, 50, 0, false, 8), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
		author.do("GET", "/api/media/"+pending+"?v=thumb", nil).expect(t, 200, "")
		owner.do("GET", "/api/media/"+pending+"?v=thumb", nil).expect(t, 200, "")
		friend.do("GET", "/api/media/"+pending+"?v=thumb", nil).expect(t, 404, "not_found")
	})
	t.Run("a bad variant name is refused", func(t *testing.T) {
		author.do("GET", "/api/media/"+pid+"?v=huge", nil).expect(t, 400, "bad_request")
		author.do("GET", "/api/media/"+pid+"?v=play", nil).expect(t, 404, "not_found")
	})
}

func TestVariantsSurviveARestart(t *testing.T) {
	h := newHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "P"})
	g := h.guest(ev["slug"].(string))
	pid := g.upload(ev["slug"].(string), photoJPEG(t, 300, 200, 0, false, 1), nil, "").expect(t, 201, "").JSON["photo"].(map[string]any)["id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		p, err := h.st.Photos().Get(ctx, pid)
		if err != nil {
			t.Fatal(err)
		}
		if p.Variants {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the background worker did not make the variants within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The photo is marked just before its attempt is recorded as ended.
	waitVariants(t, h)
}

// TestKilledUploadLeavesNothing runs in a testing/synctest bubble over an
// in-memory network: synctest.Wait is "the server has taken in the half
// body and waits for more", with no sleep.
func TestKilledUploadLeavesNothing(t *testing.T) {
	synctest.Test(t, testKilledUploadLeavesNothing)
}

func testKilledUploadLeavesNothing(t *testing.T) {
	h := newBubbleHarness(t)
	ev := h.createEvent(h.owner(), map[string]any{"name": "P"})
	slug, id := ev["slug"].(string), ev["id"].(string)
	g := h.guest(slug)
	u, _ := url.Parse(h.srv.URL)
	var cookie string
	for _, c := range g.hc.Jar.Cookies(u) {
		cookie += c.Name + "=" + c.Value + "; "
	}
	ct, body := multipartBody(t, "photo", "a.jpg", photoJPEG(t, 800, 600, 0, false, 1), nil)
	conn, err := h.dial()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(conn, "POST /api/e/%s/photos HTTP/1.1\r\nHost: %s\r\nOrigin: %s\r\nCookie: %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		slug, u.Host, h.srv.URL, cookie, ct, len(body))
	conn.Write(body[:len(body)/2])
	synctest.Wait()
	if n := countFiles(t, filepath.Join(h.cfg.DataDir, "tmp")); n != 1 {
		t.Fatalf("%d temp files while the upload is being received, want 1", n)
	}
	conn.Close()
	deadline := time.Now().Add(5 * time.Second)
	for countFiles(t, filepath.Join(h.cfg.DataDir, "tmp")) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a temp file remains after the client went away")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := countFiles(t, filepath.Join(h.cfg.DataDir, "media", id)); n != 0 {
		t.Fatalf("%d media files after a killed upload", n)
	}
	counts, _ := h.st.Events().Counts(context.Background(), id)
	if counts.Photos != 0 {
		t.Fatalf("a record was made: %+v", counts)
	}
}
