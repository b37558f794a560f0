package web

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"syscall"

	"eventbox/store"
)

// Error is an answer other than success: a status, a code from the spec
// and, for bad input, a message per field.
type Error struct {
	Status  int
	Code    string
	Details map[string]string
	// Message is the human text some answers carry (webhook_failed,
	// smtp_failed); never internal error text.
	Message string
	// RetryAfter, in seconds, is sent as Retry-After with rate_limited.
	RetryAfter int
}

// Error is the code, with the details when there are some.
func (e *Error) Error() string {
	if len(e.Details) > 0 {
		return fmt.Sprintf("%s %v", e.Code, e.Details)
	}
	return e.Code
}

// BadRequest is a 400 bad_request with a message per field.
func BadRequest(details map[string]string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "bad_request", Details: details}
}

// Field is a 400 bad_request naming one field and what is wrong with it.
func Field(field, msg string) *Error { return BadRequest(map[string]string{field: msg}) }

// The spec's error codes, with their statuses, declared once. They are
// never changed: With makes a copy that carries details.
var (
	ErrUnauthorized  = &Error{Status: http.StatusUnauthorized, Code: "unauthorized"}
	ErrInvalidCode   = &Error{Status: http.StatusUnauthorized, Code: "invalid_code"}
	ErrForbidden     = &Error{Status: http.StatusForbidden, Code: "forbidden"}
	ErrUploadsClosed = &Error{Status: http.StatusForbidden, Code: "uploads_closed"}
	ErrQuotaReached  = &Error{Status: http.StatusForbidden, Code: "quota_reached"}
	ErrVideosOff     = &Error{Status: http.StatusForbidden, Code: "videos_off"}
	ErrNotFound      = &Error{Status: http.StatusNotFound, Code: "not_found"}
	ErrTooLarge      = &Error{Status: http.StatusRequestEntityTooLarge, Code: "too_large"}
	ErrVideoTooLong  = &Error{Status: http.StatusRequestEntityTooLarge, Code: "video_too_long"}
	ErrInvalidImage  = &Error{Status: http.StatusUnsupportedMediaType, Code: "invalid_image"}
	ErrInvalidVideo  = &Error{Status: http.StatusUnsupportedMediaType, Code: "invalid_video"}
	ErrMethod        = &Error{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed"}
	ErrInternal      = &Error{Status: http.StatusInternalServerError, Code: "internal"}
	// ErrUnavailable and ErrInsufficientStorage are the box's own faults
	// (docs/design.md, "Server faults are retryable"): a server-side I/O error,
	// and a full card. The guest page keeps the file and tries again.
	ErrUnavailable         = &Error{Status: http.StatusServiceUnavailable, Code: "unavailable"}
	ErrInsufficientStorage = &Error{Status: http.StatusInsufficientStorage, Code: "insufficient_storage"}

	// ErrMisdirected answers an API request whose Host is not one of the
	// box's own names (docs/decisions.md, "The box's own names").
	ErrMisdirected = &Error{Status: http.StatusMisdirectedRequest, Code: "misdirected"}
	// ErrBodyTimeout answers an upload whose body stalled or came too
	// slowly (docs/decisions.md, "Slow and concurrent uploads").
	ErrBodyTimeout = &Error{Status: http.StatusRequestTimeout, Code: "timeout"}
)

// With returns a copy of a declared error that carries details.
func (e *Error) With(details map[string]string) *Error {
	c := *e
	c.Details = details
	return &c
}

// WebhookFailed answers a webhook test the receiver did not take;
// message is its answer (status and text) or why it could not be reached.
func WebhookFailed(message string) *Error {
	return &Error{Status: http.StatusBadGateway, Code: "webhook_failed", Message: message}
}

// RateLimited is the 429 rate_limited answer, with Retry-After in seconds.
func RateLimited(retryAfter int) *Error {
	return &Error{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: retryAfter}
}

// Answerer is an error of a service below the areas that knows its
// answer (the uploads' errors, daemon/ingest): the kernel answers it
// without importing the service.
type Answerer interface {
	error
	Answer() *Error
}

// ToError maps any error a handler returns to the answer the client
// gets. It is the one place where domain errors meet HTTP.
func ToError(err error) *Error {
	var (
		ae *Error
		an Answerer
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, store.ErrNotFound):
		return ErrNotFound
	case errors.Is(err, store.ErrQuota):
		return ErrQuotaReached
	case errors.Is(err, store.ErrBadPath):
		return ErrNotFound
	case errors.As(err, &an):
		return an.Answer()
	case NoSpace(err):
		return ErrInsufficientStorage
	case IOFault(err):
		return ErrUnavailable
	default:
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return ErrTooLarge
		}
		return ErrInternal
	}
}

// NoSpace reports whether err comes from a full file system (or a full
// quota) on the box's side.
func NoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// IOFault reports whether err is a failure of the box's own disk: a file
// operation that failed (opening, writing, syncing, renaming) or an I/O
// error from the device. A network error is not one: reading a client's
// body that stops is the client's fault, and the upload handlers turn it
// into a 400 before it gets here.
func IOFault(err error) bool {
	var ne *net.OpError
	if errors.As(err, &ne) {
		return false
	}
	var pe *fs.PathError
	var le *os.LinkError
	var se *os.SyscallError
	return errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) ||
		errors.Is(err, syscall.EIO) || errors.Is(err, syscall.EROFS)
}
