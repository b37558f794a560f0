package ingest

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"eventbox/daemon/web"
)

// The errors of this file are answered by web.ToError through their
// Answer method (web.Answerer): the HTTP kernel does not know the
// services whose errors it answers.

// ErrTooLarge is a body, or its file part, over its limit. It is cut off
// while streaming, before the rest is read.
var ErrTooLarge error = tooLargeError{}

// tooLargeError is the type of ErrTooLarge.
type tooLargeError struct{}

func (tooLargeError) Error() string { return "upload over its size limit" }

// Answer is the 413 answer.
func (tooLargeError) Answer() *web.Error { return web.ErrTooLarge }

// FieldError is the client's fault with a form or a body: a missing or
// empty file, a text field too long, a body that is not a readable
// multipart form, or one that stopped arriving. Field names the part
// (or "body"), Message says what is wrong with it.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// Answer is the 400 naming the field.
func (e *FieldError) Answer() *web.Error { return web.Field(e.Field, e.Message) }

// InvalidImageError is a received file that is not a whole image of a
// kind the box takes, or one with too many pixels. Err is the
// imaging error behind it.
type InvalidImageError struct {
	Field  string
	Reason string
	Err    error
}

func (e *InvalidImageError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Answer is the invalid_image answer naming the field.
func (e *InvalidImageError) Answer() *web.Error {
	return web.ErrInvalidImage.With(map[string]string{e.Field: e.Reason})
}

// Unwrap returns the imaging error.
func (e *InvalidImageError) Unwrap() error { return e.Err }

// InvalidVideoError is a video upload whose poster size, poster or video
// is not acceptable. Field names the header or the part.
type InvalidVideoError struct {
	Field  string
	Reason string
}

func (e *InvalidVideoError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Answer is the invalid_video answer naming the field.
func (e *InvalidVideoError) Answer() *web.Error {
	return web.ErrInvalidVideo.With(map[string]string{e.Field: e.Reason})
}

// VideoTooLongError is a video longer than the box takes.
type VideoTooLongError struct {
	Max time.Duration
}

func (e *VideoTooLongError) Error() string {
	return fmt.Sprintf("video: must be at most %d seconds", int(e.Max/time.Second))
}

// Answer is the video_too_long answer with the longest the box takes.
func (e *VideoTooLongError) Answer() *web.Error {
	return web.ErrVideoTooLong.With(map[string]string{"video": fmt.Sprintf("must be at most %d seconds", int(e.Max/time.Second))})
}

// tooLarge turns the body limit's error into ErrTooLarge and leaves any
// other error alone.
func tooLarge(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return ErrTooLarge
	}
	return err
}

// clientFault keeps a body-limit error as ErrTooLarge and names the field
// for any other read failure.
func clientFault(err error, field, msg string) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return ErrTooLarge
	}
	return &FieldError{Field: field, Message: msg}
}
