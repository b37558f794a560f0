package scenarios_test

import (
	"bytes"
	"os"
	"strconv"
	"testing"

	"eventbox/daemon"
	"eventbox/internal/fakemp4"
)

// box builds an ISO-BMFF box.
var box = fakemp4.Box

// mp4OfSeconds builds a small MP4 (moov at the end, as phones write it)
// with a video track that lasts the given seconds.
func mp4OfSeconds(seconds int) []byte { return fakemp4.Make(seconds, make([]byte, 512)) }

func (c *client) uploadVideo(slug string, poster, video []byte, posterBytes string) response {
	c.h.t.Helper()
	body := append(append([]byte{}, poster...), video...)
	return c.do("POST", "/api/e/"+slug+"/photos", body,
		"Content-Type", "application/vnd.service.video", "X-Poster-Bytes", posterBytes)
}

func TestVideoUpload(t *testing.T) {
	h := newHarness(t, func(c *daemon.Config) { c.MaxVideoSeconds = 60; c.MaxVideoMB = 1 })
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P"})
	id, slug := ev["id"].(string), ev["slug"].(string)
	g := h.guest(slug)
	poster := photoJPEG(t, 64, 36, 0, false, 5)
	n := strconv.Itoa(len(poster))
	phoneMP4, err := os.ReadFile("../../probe/testdata/moov-at-end.mp4")
	if err != nil {
		t.Fatal(err)
	}
	mov, err := os.ReadFile("../../probe/testdata/quicktime.mov")
	if err != nil {
		t.Fatal(err)
	}
	webm, err := os.ReadFile("../../probe/testdata/streamed.webm")
	if err != nil {
		t.Fatal(err)
	}
	voice, err := os.ReadFile("../../probe/testdata/voice.m4a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		poster      []byte
		video       []byte
		posterBytes string
		wantStatus  int
		wantCode    string
		wantMs      float64
	}{
		{"an MP4 from ffmpeg is taken", poster, phoneMP4, n, 201, "", 1000},
		{"a MOV is taken", poster, mov, n, 201, "", 1000},
		{"a WebM without a duration header is taken", poster, webm, n, 201, "", 1000},
		{"a built MP4 of 30 s is taken", poster, mp4OfSeconds(30), n, 201, "", 30000},
		{"a video over MAX_VIDEO_SECONDS is too long", poster, mp4OfSeconds(61), n, 413, "video_too_long", 0},
		{"audio only is not a video", poster, voice, n, 415, "invalid_video", 0},
		{"a truncated MP4 is refused", poster, phoneMP4[:len(phoneMP4)/3], n, 415, "invalid_video", 0},
		{"a poster that is not a JPEG is refused", pngWithAlpha(t), phoneMP4, strconv.Itoa(len(pngWithAlpha(t))), 415, "invalid_video", 0},
		{"a missing X-Poster-Bytes is refused", poster, phoneMP4, "", 415, "invalid_video", 0},
		{"X-Poster-Bytes larger than the body is refused", poster, nil, strconv.Itoa(len(poster) + 10), 415, "invalid_video", 0},
		{"a video over MAX_VIDEO_MB is too large", poster, bytes.Repeat([]byte{1}, 1<<20+1), n, 413, "too_large", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := g.uploadVideo(slug, tt.poster, tt.video, tt.posterBytes).expect(t, tt.wantStatus, tt.wantCode)
			if tt.wantStatus != 201 {
				return
			}
			p := r.JSON["photo"].(map[string]any)
			v, ok := p["video"].(map[string]any)
			if !ok {
				t.Fatalf("photo without video: %v", p)
			}
			if d := v["durationMs"].(float64); d < tt.wantMs-60 || d > tt.wantMs+60 {
				t.Errorf("durationMs = %v, want about %v", d, tt.wantMs)
			}
			if p["width"] != float64(64) || p["height"] != float64(36) {
				t.Errorf("size = %v×%v, want the poster's 64×36", p["width"], p["height"])
			}
		})
	}
	t.Run("the video plays back with Range and its type", func(t *testing.T) {
		other := photoJPEG(t, 64, 36, 0, false, 99)
		r := g.uploadVideo(slug, other, phoneMP4, strconv.Itoa(len(other)))
		r.expect(t, 201, "")
		pid := r.JSON["photo"].(map[string]any)["id"].(string)
		for _, v := range []string{"play", "original"} {
			part := g.do("GET", "/api/media/"+pid+"?v="+v, nil, "Range", "bytes=0-15")
			if part.Status != 206 || part.Header.Get("Content-Type") != "video/mp4" || !bytes.Equal(part.Body, phoneMP4[:16]) {
				t.Errorf("%s: %d %q %q", v, part.Status, part.Header.Get("Content-Type"), part.Header.Get("Content-Range"))
			}
		}
		thumb := g.do("GET", "/api/media/"+pid+"?v=thumb", nil).expect(t, 200, "")
		if thumb.Header.Get("Content-Type") != "image/jpeg" {
			t.Errorf("thumb of a video is %q", thumb.Header.Get("Content-Type"))
		}
		h.guest(slug).do("GET", "/api/media/"+pid+"?v=play", nil).expect(t, 200, "")
	})
	t.Run("an event without videos answers videos_off", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"allowVideos": false}).expect(t, 200, "")
		g.uploadVideo(slug, poster, phoneMP4, n).expect(t, 403, "videos_off")
	})
	t.Run("videos count towards the quota", func(t *testing.T) {
		owner.do("PATCH", "/api/admin/events/"+id, map[string]any{"allowVideos": true, "maxPhotosPerGuest": 5}).expect(t, 200, "")
		g.uploadVideo(slug, poster, mp4OfSeconds(2), n).expect(t, 403, "quota_reached")
	})
	t.Run("refused videos leave no file behind", func(t *testing.T) {
		waitVariants(t, h)
		if c := countFiles(t, h.cfg.DataDir+"/tmp"); c != 0 {
			t.Fatalf("%d files in the temp area", c)
		}
		if videos, origs := countFiles(t, h.cfg.DataDir+"/media/"+id, ".video"), countFiles(t, h.cfg.DataDir+"/media/"+id, ".orig"); videos != 5 || origs != 5 {
			t.Fatalf("%d videos and %d posters on disk, want 5 of each", videos, origs)
		}
	})
}
