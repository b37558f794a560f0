package web

import (
	"log/slog"
	"net/http"
)

// AbortStream ends a streamed answer (a ZIP, a PDF) that failed after its
// first byte: it logs the cause unless the client went away, then panics
// with http.ErrAbortHandler, which makes the server cut the connection,
// so the client sees an incomplete download rather than a
// complete-looking one. It never returns; its result type lets a handler
// write `return web.AbortStream(log, r, err)`.
func AbortStream(log *slog.Logger, r *http.Request, err error) error {
	if r.Context().Err() == nil {
		log.WarnContext(r.Context(), "streamed answer cut off", "path", LogPath(r), "error", err)
	}
	panic(http.ErrAbortHandler)
}
