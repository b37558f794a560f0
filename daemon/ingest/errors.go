package ingest

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// ErrTooLarge is a body, or its file part, over its limit. It is cut off
// while streaming, before the rest is read.
var ErrTooLarge = errors.New("upload over its size limit")

// FieldError is the client's fault with a form or a body: a missing or
// empty file, a text field too long, a body that is not a readable
// multipart form, or one that stopped arriving. Field names the part
// (or "body"), Message says what is wrong with it.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Message) }

// InvalidImageError is a received file that is not a whole image of a
// kind the box takes, or one with too many pixels. Err is the
// imaging error behind it.
type InvalidImageError struct {
	Field  string
	Reason string
	Err    error
}

func (e *InvalidImageError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// Unwrap returns the imaging error.
func (e *InvalidImageError) Unwrap() error { return e.Err }

// InvalidVideoError is a video upload whose poster size, poster or video
// is not acceptable. Field names the header or the part.
type InvalidVideoError struct {
	Field  string
	Reason string
}

func (e *InvalidVideoError) Error() string { return fmt.Sprintf("%s: %s", e.Field, e.Reason) }

// VideoTooLongError is a video longer than the box takes.
type VideoTooLongError struct {
	Max time.Duration
}

func (e *VideoTooLongError) Error() string {
	return fmt.Sprintf("video: must be at most %d seconds", int(e.Max/time.Second))
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
