package albums_test

import (
	"strings"
	"testing"
	"time"

	"eventbox/daemon/albums"
	"eventbox/daemon/archive"
)

// The album's cover and guestbook.txt write a day the same way in every
// language.
func TestTheAlbumAndTheGuestbookWriteDaysAlike(t *testing.T) {
	for _, day := range []string{"2026-06-20", "2026-06-01", "2026-09-05"} {
		for _, locale := range []string{"en", "fr", "it", "es", "de", ""} {
			d, err := time.ParseInLocation(time.DateOnly, day, time.Local)
			if err != nil {
				t.Fatal(err)
			}
			cover := albums.CoverDate(day, locale)
			book := archive.LocalTime(d.Add(15*time.Hour+4*time.Minute), locale)
			if cover == "" || book != cover+", 15:04" {
				t.Errorf("%s in %q: the album says %q, the guestbook %q", day, locale, cover, book)
			}
		}
	}
	if got := albums.CoverDate("2026-06-20", "es"); !strings.Contains(got, "junio") {
		t.Errorf("a Spanish cover reads %q", got)
	}
}
