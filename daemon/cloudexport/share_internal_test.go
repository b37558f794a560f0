package cloudexport

import (
	"testing"
	"time"
)

// TestPresignedEnding: a presigned link kept for the guests' mails is
// made anew when it ends within a day, never before; a link that is not
// presigned (a share, a public address) is kept.
func TestPresignedEnding(t *testing.T) {
	signed := time.Date(2026, 6, 21, 9, 0, 0, 0, time.UTC)
	link := "https://s3.example.org/parties/a/guests.html?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Date=20260621T090000Z&X-Amz-Expires=604800&X-Amz-Signature=ab"
	for _, tc := range []struct {
		name string
		link string
		now  time.Time
		want bool
	}{
		{"just made", link, signed.Add(time.Minute), false},
		{"five days on", link, signed.Add(5 * 24 * time.Hour), false},
		{"within a day of its end", link, signed.Add(6*24*time.Hour + time.Hour), true},
		{"ended", link, signed.Add(8 * 24 * time.Hour), true},
		{"a share, not presigned", "https://cloud.example.org/s/abc", signed.Add(30 * 24 * time.Hour), false},
		{"a public address", "https://photos.example.org/rentals/box/e/index.html", signed.Add(30 * 24 * time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := presignedEnding(tc.link, tc.now); got != tc.want {
				t.Errorf("presignedEnding = %v, want %v", got, tc.want)
			}
		})
	}
}
