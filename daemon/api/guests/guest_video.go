package guests

import (
	"net/http"
	"time"

	"eventbox/daemon/ingest"
	"eventbox/store"
)

const (
	// videoContentType marks a video upload: the body is the poster JPEG
	// (X-Poster-Bytes long) followed by the video, not multipart, so the
	// video streams straight to disk.
	videoContentType = "application/vnd.service.video"
)

// receiveVideo has ingest stream a video upload (the poster JPEG, then
// the video) to disk, check and store it.
func (a *API) receiveVideo(w http.ResponseWriter, r *http.Request, p store.Photo, quota int) error {
	defer a.cfg.Variants.Receive()()
	res, err := a.cfg.Ingest.Video(w, r, p, quota, ingest.VideoLimits{
		MaxBytes:    int64(a.cfg.MaxVideoMB) << 20,
		MaxDuration: time.Duration(a.cfg.MaxVideoSeconds) * time.Second,
	})
	if err != nil {
		return err
	}
	return a.writeStored(w, r, p, res)
}
