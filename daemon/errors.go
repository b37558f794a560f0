package daemon

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"syscall"
	"time"

	"eventbox/daemon/ingest"
	"eventbox/store"
)

// apiError is an answer other than success: a status, a code from the spec
// and, for bad input, a message per field.
type apiError struct {
	Status  int
	Code    string
	Details map[string]string
	// Message is the human text some answers carry (webhook_failed,
	// smtp_failed); never internal error text.
	Message string
	// RetryAfter, in seconds, is sent as Retry-After with rate_limited.
	RetryAfter int
}

func (e *apiError) Error() string {
	if len(e.Details) > 0 {
		return fmt.Sprintf("%s %v", e.Code, e.Details)
	}
	return e.Code
}

// The spec's error codes, with their statuses, declared once.
func errBadRequest(details map[string]string) *apiError {
	return &apiError{Status: http.StatusBadRequest, Code: "bad_request", Details: details}
}
func errField(field, msg string) *apiError { return errBadRequest(map[string]string{field: msg}) }

var (
	errUnauthorized  = &apiError{Status: http.StatusUnauthorized, Code: "unauthorized"}
	errInvalidCode   = &apiError{Status: http.StatusUnauthorized, Code: "invalid_code"}
	errForbidden     = &apiError{Status: http.StatusForbidden, Code: "forbidden"}
	errUploadsClosed = &apiError{Status: http.StatusForbidden, Code: "uploads_closed"}
	errQuotaReached  = &apiError{Status: http.StatusForbidden, Code: "quota_reached"}
	errVideosOff     = &apiError{Status: http.StatusForbidden, Code: "videos_off"}
	errNotFound      = &apiError{Status: http.StatusNotFound, Code: "not_found"}
	errTooLarge      = &apiError{Status: http.StatusRequestEntityTooLarge, Code: "too_large"}
	errVideoTooLong  = &apiError{Status: http.StatusRequestEntityTooLarge, Code: "video_too_long"}
	errInvalidImage  = &apiError{Status: http.StatusUnsupportedMediaType, Code: "invalid_image"}
	errInvalidVideo  = &apiError{Status: http.StatusUnsupportedMediaType, Code: "invalid_video"}
	errMethod        = &apiError{Status: http.StatusMethodNotAllowed, Code: "method_not_allowed"}
	errInternal      = &apiError{Status: http.StatusInternalServerError, Code: "internal"}
	// errUnavailable and errInsufficientStorage are the box's own faults
	// (docs/design.md, "Server faults are retryable"): a server-side I/O error,
	// and a full card. The guest page keeps the file and tries again.
	errUnavailable         = &apiError{Status: http.StatusServiceUnavailable, Code: "unavailable"}
	errInsufficientStorage = &apiError{Status: http.StatusInsufficientStorage, Code: "insufficient_storage"}

	// errMisdirected answers an API request whose Host is not one of the
	// box's own names (docs/decisions.md, "The box's own names").
	errMisdirected = &apiError{Status: http.StatusMisdirectedRequest, Code: "misdirected"}
	// errBodyTimeout answers an upload whose body stalled or came too
	// slowly (docs/decisions.md, "Slow and concurrent uploads").
	errBodyTimeout = &apiError{Status: http.StatusRequestTimeout, Code: "timeout"}
)

// with returns a copy of a declared error that carries details.
func (e *apiError) with(details map[string]string) *apiError {
	c := *e
	c.Details = details
	return &c
}

// errWebhookFailed answers a webhook test the receiver did not take;
// message is its answer (status and text) or why it could not be reached.
func errWebhookFailed(message string) *apiError {
	return &apiError{Status: http.StatusBadGateway, Code: "webhook_failed", Message: message}
}

func errRateLimited(retryAfter int) *apiError {
	return &apiError{Status: http.StatusTooManyRequests, Code: "rate_limited", RetryAfter: retryAfter}
}

// toAPIError maps any error a handler returns to the answer the client
// gets. It is the one place where domain errors meet HTTP.
func toAPIError(err error) *apiError {
	var (
		ae *apiError
		fe *ingest.FieldError
		ie *ingest.InvalidImageError
		ve *ingest.InvalidVideoError
		te *ingest.VideoTooLongError
	)
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, store.ErrNotFound):
		return errNotFound
	case errors.Is(err, store.ErrQuota):
		return errQuotaReached
	case errors.Is(err, store.ErrBadPath):
		return errNotFound
	case errors.Is(err, ingest.ErrTooLarge):
		return errTooLarge
	case errors.As(err, &fe):
		return errField(fe.Field, fe.Message)
	case errors.As(err, &ie):
		return errInvalidImage.with(map[string]string{ie.Field: ie.Reason})
	case errors.As(err, &ve):
		return errInvalidVideo.with(map[string]string{ve.Field: ve.Reason})
	case errors.As(err, &te):
		return errVideoTooLong.with(map[string]string{"video": fmt.Sprintf("must be at most %d seconds", int(te.Max/time.Second))})
	case noSpace(err):
		return errInsufficientStorage
	case ioFault(err):
		return errUnavailable
	default:
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return errTooLarge
		}
		return errInternal
	}
}

// noSpace reports whether err comes from a full file system (or a full
// quota) on the box's side.
func noSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// ioFault reports whether err is a failure of the box's own disk: a file
// operation that failed (opening, writing, syncing, renaming) or an I/O
// error from the device. A network error is not one: reading a client's
// body that stops is the client's fault, and the upload handlers turn it
// into a 400 before it gets here.
func ioFault(err error) bool {
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
