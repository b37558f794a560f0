package scenarios_test

import (
	"encoding/json"
	"testing"

	"eventbox/daemon"
)

// TestPublicEventCarriesTheLimits: the public event names the box's
// limits for the page (image and video size in bytes, video length in
// seconds) and how many photos this browser may still send.
func TestPublicEventCarriesTheLimits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, func(c *daemon.Config) { c.MaxUploadMB = 25; c.MaxVideoMB = 200; c.MaxVideoSeconds = 60 })
	owner := h.owner()
	quota := h.createEvent(owner, map[string]any{"name": "Quota", "allowVideos": true, "maxPhotosPerGuest": 3})["slug"].(string)
	free := h.createEvent(owner, map[string]any{"name": "Free", "allowVideos": false, "maxPhotosPerGuest": 0})["slug"].(string)
	sent := h.guest(quota)
	sent.upload(quota, photoJPEG(t, 40, 30, 1, false, 1), nil, "").expect(t, 201, "")

	type limits struct {
		ImageBytes   int64 `json:"imageBytes"`
		VideoBytes   int64 `json:"videoBytes"`
		VideoSeconds int   `json:"videoSeconds"`
		PhotosLeft   *int  `json:"photosLeft"`
	}
	left := func(n int) *int { return &n }
	tests := []struct {
		name string
		c    *client
		slug string
		want limits
	}{
		{"a visitor who has not joined has the whole quota", h.client(), quota, limits{25 << 20, 200 << 20, 60, left(3)}},
		{"a guest with one photo has two left", sent, quota, limits{25 << 20, 200 << 20, 60, left(2)}},
		{"an event of photos only without a quota", h.guest(free), free, limits{25 << 20, 0, 0, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.c.do("GET", "/api/e/"+tt.slug, nil).expect(t, 200, "")
			var body struct {
				Event struct {
					Limits *limits `json:"limits"`
				} `json:"event"`
			}
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatal(err)
			}
			got := body.Event.Limits
			if got == nil {
				t.Fatalf("the public event has no limits: %s", r.Body)
			}
			same := got.ImageBytes == tt.want.ImageBytes && got.VideoBytes == tt.want.VideoBytes &&
				got.VideoSeconds == tt.want.VideoSeconds && (got.PhotosLeft == nil) == (tt.want.PhotosLeft == nil) &&
				(got.PhotosLeft == nil || *got.PhotosLeft == *tt.want.PhotosLeft)
			if !same {
				t.Fatalf("limits = %s", r.Body)
			}
		})
	}
}
