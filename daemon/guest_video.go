package daemon

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"eventbox/daemon/imaging"
	"eventbox/daemon/probe"
	"eventbox/store"
)

const (
	// videoContentType marks a video upload: the body is the poster JPEG
	// (X-Poster-Bytes long) followed by the video, not multipart, so the
	// video streams straight to disk.
	videoContentType = "application/vnd.service.video"
	// maxPosterBytes caps the poster frame.
	maxPosterBytes = 10 << 20
)

func invalidVideo(field, msg string) *apiError {
	return errInvalidVideo.with(map[string]string{field: msg})
}

// receiveVideo streams a video upload to disk: the poster to one temp
// file, the video to another, both hashed together; then checks the
// poster is a JPEG and the video an MP4, MOV or WebM with a video track
// within MAX_VIDEO_SECONDS.
func (s *Server) receiveVideo(w http.ResponseWriter, r *http.Request, e store.Event, p store.Photo, quota int) error {
	defer s.variants.receive()()
	posterSize, err := strconv.ParseInt(r.Header.Get("X-Poster-Bytes"), 10, 64)
	if err != nil || posterSize <= 0 || posterSize > maxPosterBytes {
		return invalidVideo("X-Poster-Bytes", fmt.Sprintf("must be the poster's size in bytes, 1 to %d", maxPosterBytes))
	}
	limit := int64(s.cfg.MaxVideoMB)<<20 + posterSize
	if r.ContentLength > limit {
		return errTooLarge
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	h := newFingerprinter()
	media := s.store.Media()

	poster, err := media.CreateTemp()
	if err != nil {
		return err
	}
	defer poster.Abort()
	n, err := receive(io.MultiWriter(poster, h), io.LimitReader(body, posterSize), "body")
	if err != nil {
		return err
	}
	if n != posterSize {
		return invalidVideo("poster", "the body is shorter than X-Poster-Bytes")
	}
	info, err := imaging.Check(poster.File, posterSize)
	if err != nil || info.Format != imaging.JPEG {
		return invalidVideo("poster", "must be a JPEG of exactly X-Poster-Bytes bytes")
	}

	video, err := media.CreateTemp()
	if err != nil {
		return err
	}
	defer video.Abort()
	size, err := receive(io.MultiWriter(video, h), body, "body")
	if err != nil {
		return err
	}
	res, err := probe.Video(r.Context(), video.File, size)
	if errors.Is(err, probe.ErrInvalid) {
		return invalidVideo("video", "must be an MP4, MOV or WebM video")
	}
	if err != nil {
		return fmt.Errorf("probing video: %w", err)
	}
	if res.Duration > time.Duration(s.cfg.MaxVideoSeconds)*time.Second {
		return errVideoTooLong.with(map[string]string{"video": fmt.Sprintf("must be at most %d seconds", s.cfg.MaxVideoSeconds)})
	}
	p.Width, p.Height, p.Format, p.Size = info.Width, info.Height, string(info.Format), posterSize
	if p.Fingerprint, err = h.sum(video.File, size); err != nil {
		return fmt.Errorf("reading the upload back: %w", err)
	}
	p.Video = &store.VideoInfo{DurationMs: res.Duration.Milliseconds(), MIME: res.MIME, Size: size}
	return s.storePhoto(w, r, p, quota, []pendingFile{
		{poster, store.Photo.OriginalName},
		{video, store.Photo.VideoName},
	})
}
