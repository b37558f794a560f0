package daemon

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"time"
)

// placeholderSize is the side of the placeholder tile, the thumb's size;
// pages scale it like any photo.
const placeholderSize = 400

// placeholderETag names the placeholder's one version. A browser that
// revalidates a variant URL it got the placeholder for sends it back; once
// the real variant exists its own ETag differs, so the photo is sent.
const placeholderETag = `"placeholder-1"`

// makePlaceholder draws the tile served for a thumb or display that is not
// there: a neutral grey square with a picture outline (frame, sun and
// hills) in a darker grey, encoded once, the first time it is served.
func makePlaceholder() ([]byte, error) {
	const n = placeholderSize
	bg, fg := color.Gray{Y: 0xe2}, color.Gray{Y: 0xa8}
	m := image.NewGray(image.Rect(0, 0, n, n))
	// The frame: a 160×120 outline, 8 px thick, in the middle.
	x0, y0, x1, y1 := n/2-80, n/2-60, n/2+80, n/2+60
	for y := range n {
		for x := range n {
			c := bg
			inFrame := x >= x0 && x < x1 && y >= y0 && y < y1
			border := inFrame && (x < x0+8 || x >= x1-8 || y < y0+8 || y >= y1-8)
			sun := (x-(x0+50))*(x-(x0+50))+(y-(y0+40))*(y-(y0+40)) <= 14*14
			// Hills: a triangle rising from the frame's bottom.
			hill := inFrame && y >= y0+50 && abs(x-(x0+95)) <= (y-(y0+50))*5/4
			if border || sun || hill {
				c = fg
			}
			m.SetGray(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, m, &jpeg.Options{Quality: 80}); err != nil {
		return nil, fmt.Errorf("making the placeholder image: %w", err)
	}
	return buf.Bytes(), nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// servePlaceholder answers a thumb or display that cannot be served now
// with the placeholder tile. It is cached for a minute only, so a page
// shows the photo soon after a later attempt makes it.
func (s *Server) servePlaceholder(w http.ResponseWriter, r *http.Request) error {
	b, err := s.placeholder()
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "image/jpeg")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", placeholderETag)
	h.Set("Cache-Control", "private, max-age=60")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	return nil
}
