package ingest

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"eventbox/imaging"
	"eventbox/probe"
	"eventbox/store"
)

// MaxPosterBytes caps the poster frame of a video upload.
const MaxPosterBytes = 10 << 20

// VideoLimits are the limits of a video upload.
type VideoLimits struct {
	// MaxBytes is the most bytes of the video, poster not counted.
	MaxBytes int64
	// MaxDuration is the longest video taken.
	MaxDuration time.Duration
}

// Video streams a video upload to disk and stores it as p. The body is
// the poster JPEG (X-Poster-Bytes long) followed by the video, not
// multipart, so the video streams straight to its temp file; both are
// fingerprinted together. The poster must be a JPEG and the video an
// MP4, MOV or WebM with a video track within lim.MaxDuration. quota > 0
// limits the guest's photos (store.ErrQuota).
func (in *Ingester) Video(w http.ResponseWriter, r *http.Request, p store.Photo, quota int, lim VideoLimits) (Result, error) {
	posterSize, err := strconv.ParseInt(r.Header.Get("X-Poster-Bytes"), 10, 64)
	if err != nil || posterSize <= 0 || posterSize > MaxPosterBytes {
		return Result{}, &InvalidVideoError{Field: "X-Poster-Bytes", Reason: fmt.Sprintf("must be the poster's size in bytes, 1 to %d", MaxPosterBytes)}
	}
	limit := lim.MaxBytes + posterSize
	src, adopting := fileOf(r.Context())
	if r.ContentLength > limit || adopting && src.size > lim.MaxBytes {
		return Result{}, ErrTooLarge
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	h := newFingerprinter()

	poster, err := in.media.CreateTemp()
	if err != nil {
		return Result{}, err
	}
	defer poster.Abort()
	n, err := Receive(io.MultiWriter(poster, h), io.LimitReader(body, posterSize), "body")
	if err != nil {
		return Result{}, err
	}
	if n != posterSize {
		return Result{}, &InvalidVideoError{Field: "poster", Reason: "the body is shorter than X-Poster-Bytes"}
	}
	info, err := imaging.Check(poster.File, posterSize)
	if err != nil || info.Format != imaging.JPEG {
		return Result{}, &InvalidVideoError{Field: "poster", Reason: "must be a JPEG of exactly X-Poster-Bytes bytes"}
	}

	var video *store.TempFile
	var size int64
	if adopting {
		// The video is a finished upload's file (WithFile): adopted, not
		// copied; the body ends with the poster.
		n, err := Receive(io.Discard, body, "body")
		if err != nil {
			return Result{}, err
		}
		if n != 0 {
			return Result{}, &InvalidVideoError{Field: "poster", Reason: "the body is longer than X-Poster-Bytes"}
		}
		if video, _, err = in.adopt(r.Context(), src, h); err != nil {
			return Result{}, err
		}
		size = src.size
	} else {
		if video, err = in.media.CreateTemp(); err != nil {
			return Result{}, err
		}
		if size, err = Receive(io.MultiWriter(video, h), body, "body"); err != nil {
			video.Abort()
			return Result{}, err
		}
	}
	defer video.Abort()
	res, err := probe.Video(r.Context(), video.File, size)
	if errors.Is(err, probe.ErrInvalid) {
		return Result{}, &InvalidVideoError{Field: "video", Reason: "must be an MP4, MOV or WebM video"}
	}
	if err != nil {
		return Result{}, fmt.Errorf("probing video: %w", err)
	}
	if res.Duration > lim.MaxDuration {
		return Result{}, &VideoTooLongError{Max: lim.MaxDuration}
	}
	p.Width, p.Height, p.Format, p.Size = info.Width, info.Height, string(info.Format), posterSize
	if p.Fingerprint, err = h.sum(video.File, size); err != nil {
		return Result{}, fmt.Errorf("reading the upload back: %w", err)
	}
	p.Video = &store.VideoInfo{DurationMs: res.Duration.Milliseconds(), MIME: res.MIME, Size: size}
	return in.store(r.Context(), p, quota, []pending{
		{poster, store.Photo.OriginalName},
		{video, store.Photo.VideoName},
	})
}
