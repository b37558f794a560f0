package scenarios_test

import (
	"net/http"
	"os"
	"strconv"
	"testing"
)

// TestEventListCountsVideosApart uploads photos and a video to one event:
// the console's event list answers every item in photos and the videos
// among them in videos, so the console can say "2 photos · 1 video"
// rather than "3 photos"; the totals of the statistics agree.
func TestEventListCountsVideosApart(t *testing.T) {
	h := newHarness(t)
	owner := h.owner()
	ev := h.createEvent(owner, map[string]any{"name": "P", "allowVideos": true})
	slug := ev["slug"].(string)
	g := h.guest(slug)
	for i := range 2 {
		g.upload(slug, photoJPEG(t, 64, 48, 0, false, i), nil, "").expect(t, http.StatusCreated, "")
	}
	mp4, err := os.ReadFile("../../probe/testdata/moov-at-end.mp4")
	if err != nil {
		t.Fatal(err)
	}
	poster := photoJPEG(t, 64, 36, 0, false, 9)
	g.uploadVideo(slug, poster, mp4, strconv.Itoa(len(poster))).expect(t, http.StatusCreated, "")

	list := owner.do("GET", "/api/admin/events", nil).expect(t, http.StatusOK, "")
	events, _ := list.JSON["events"].([]any)
	if len(events) != 1 {
		t.Fatalf("events: %v", list.JSON)
	}
	row := events[0].(map[string]any)
	if row["photos"] != 3.0 || row["videos"] != 1.0 {
		t.Errorf("the event's line: photos %v, videos %v; want 3 items of which 1 video", row["photos"], row["videos"])
	}
	stats := owner.do("GET", "/api/admin/stats", nil).expect(t, http.StatusOK, "")
	tot, _ := stats.JSON["totals"].(map[string]any)
	if tot["photos"] != 3.0 || tot["videos"] != 1.0 {
		t.Errorf("the statistics' totals: photos %v, videos %v; want 3 items of which 1 video", tot["photos"], tot["videos"])
	}
}
