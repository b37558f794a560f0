package web

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
)

// JSON marshals v before writing the header, so that an encoding
// failure can still become a 500.
func JSON(w http.ResponseWriter, r *http.Request, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	if r.Method == http.MethodHead {
		return nil
	}
	_, err = w.Write(append(body, '\n'))
	return err
}

// ErrorBody is the { error, details } answer.
type ErrorBody struct {
	Error   string            `json:"error"`
	Details map[string]string `json:"details,omitempty"`
	Message string            `json:"message,omitempty"`
}

// WriteError sends the { error, details } answer for err. A server fault
// (500 internal, 503 unavailable, 507 insufficient_storage) logs the cause
// and sends only the generic code.
func WriteError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	ae := ToError(err)
	if ae.Status >= 500 && ae != err {
		log.ErrorContext(r.Context(), "request failed", "error", err,
			slog.Group("req", "method", r.Method, "path", LogPath(r)))
	}
	if ae.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(ae.RetryAfter))
	}
	if err := JSON(w, r, ae.Status, ErrorBody{Error: ae.Code, Details: ae.Details, Message: ae.Message}); err != nil {
		log.DebugContext(r.Context(), "writing error answer", "error", err)
	}
}

// OKBody is the { ok: true } answer.
type OKBody struct {
	OK bool `json:"ok"`
}

// OK is { ok: true }.
var OK = OKBody{OK: true}
