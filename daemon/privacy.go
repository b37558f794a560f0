package daemon

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/imaging"
	"eventbox/store"
)

// asSent reports whether this request gets a photo's original as it was
// sent: its uploader (the guest of this browser who sent it) and the
// hosts (an account that reaches the event). Everyone else, other guests
// and gallery visitors, gets it without its position (docs/decisions.md,
// "No position in the originals others get").
func (s *Server) asSent(r *http.Request, p store.Photo) bool {
	v := s.visitors.Viewer(r, p.EventID)
	if v.Account != nil && access.Reaches(*v.Account, p.EventID) {
		return true
	}
	return p.GuestID != "" && v.Guests[p.EventID] == p.GuestID
}

// stripFor is the photo to serve without its position to this request,
// or nil when it gets the file as sent (asSent).
func (s *Server) stripFor(r *http.Request, p store.Photo) *store.Photo {
	if s.asSent(r, p) {
		return nil
	}
	return &p
}

// withoutLocation lays over an original the patches that remove its
// position (imaging.ReadMetadata): the stored file is untouched, and the
// answer keeps its size, so Range requests work as on the file.
// For a video, f is its video file (imaging.VideoLocation).
func withoutLocation(f *os.File, size int64, p store.Photo) (io.ReadSeeker, error) {
	var patches []imaging.Patch
	if p.Video != nil {
		var err error
		if patches, err = imaging.VideoLocation(f, size); err != nil {
			return nil, fmt.Errorf("reading the position of video %s: %w", p.ID, err)
		}
	} else {
		m, err := imaging.ReadMetadata(f, size, imaging.Format(p.Format), time.UTC)
		if err != nil {
			return nil, fmt.Errorf("reading the position of photo %s: %w", p.ID, err)
		}
		patches = m.Location
	}
	if len(patches) == 0 {
		return f, nil
	}
	return imaging.NewPatched(f, patches), nil
}
