package daemon

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/portal"
)

// handlerFunc is an API handler: it writes its success answer itself and
// returns an error for anything else, which the adapter turns into the
// { error, details } answer.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// middleware is the global chain, outermost first: recover → log → the
// box's own names → body pacing → same-origin rule → captive-portal
// probes.
func (s *Server) middleware(next http.Handler) http.Handler {
	return s.recoverPanics(s.logRequests(s.restoreGate(s.ownHost(s.paceBodies(s.sameOrigin(portal.Middleware(s.portalTarget, next)))))))
}

// ownHost serves only requests whose Host names the box (ownNames). Any
// other Host is a page pointed at the box by DNS: a phone's captive-portal
// probe under the hotspot's catch-all DNS, or a DNS-rebinding attack whose
// page would otherwise share the box's origin. Pages get the captive
// portal's redirect to the box's own address; the API answers 421
// misdirected, before any cookie is read.
func (s *Server) ownHost(next http.Handler) http.Handler {
	toPortal := portal.Redirect(s.portalTarget)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case s.names.own(r):
			next.ServeHTTP(w, r)
		case isAPIPath(r.URL.Path):
			s.writeError(w, r, errMisdirected)
		default:
			toPortal.ServeHTTP(w, r)
		}
	})
}

// portalTarget is where a phone's captive-portal sheet opens: the guest
// page of the one event that is open, else the start page (which offers a
// choice).
func (s *Server) portalTarget(r *http.Request) string {
	events, err := s.store.Events(r.Context())
	if err != nil {
		s.log.WarnContext(r.Context(), "listing events for the portal", "error", err)
		return "/"
	}
	now := s.now().UnixMilli()
	slug := ""
	for _, e := range events {
		if access.UploadsOpen(eventRules(e), now) {
			if slug != "" {
				return "/"
			}
			slug = e.Slug
		}
	}
	if slug == "" {
		return "/"
	}
	return "/e/" + slug
}

// api adapts a handlerFunc to http.Handler.
func (s *Server) api(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "handler panicked", "panic", v,
					slog.Group("req", "method", r.Method, "path", logPath(r)))
				s.writeError(w, r, errInternal)
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// statusRecorder remembers the status for the request log. It passes
// Flush through for streamed answers.
type statusRecorder struct {
	http.ResponseWriter
	status int
	// route is the pattern the request matched (routed), for the
	// request metrics.
	route string
}

func (w *statusRecorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusRecorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusRecorder) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		s.observe(rec, time.Since(start))
		if !isAPIPath(r.URL.Path) {
			return
		}
		level := slog.LevelDebug
		if rec.status >= 500 {
			level = slog.LevelWarn
		}
		// The query is left out: it can carry tokens.
		s.log.Log(r.Context(), level, "request",
			slog.Group("req", "method", r.Method, "path", logPath(r), "status", rec.status,
				"ms", time.Since(start).Milliseconds()))
	})
}

// sameOrigin refuses a mutating request whose Origin header is missing or
// names another origin than the request's own (403 forbidden).
func (s *Server) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
			if !s.isSameOrigin(r) {
				s.writeError(w, r, errForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) isSameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return strings.EqualFold(u.Scheme, scheme) && strings.EqualFold(u.Host, r.Host)
}

// rate applies a limiter keyed by the client's address (RemoteAddr only:
// X-Forwarded-For is the client's to invent).
func (s *Server) rate(l *rateLimiter, h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if ok, retry := l.allow(clientIP(r)); !ok {
			return errRateLimited(retry)
		}
		return h(w, r)
	}
}

func clientIP(r *http.Request) string {
	host := r.RemoteAddr
	if i := strings.LastIndexByte(host, ':'); i >= 0 {
		host = host[:i]
	}
	return strings.Trim(host, "[]")
}

// ctxKey is the private type of this package's context keys.
type ctxKey int

const (
	ctxAccount ctxKey = iota
	ctxSessionToken
)

func withValue(r *http.Request, k ctxKey, v any) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), k, v))
}

// logPath is the request path as logs may show it, with the credential
// of a link replaced by "…". One rule covers every route and page with a
// secret in its path: the segment after g, invite or wall, the first
// segment after an optional api and admin, is a token (routes.go's
// /api/g/:token…, /api/admin/invite/:token, /api/wall/:token…, and the
// pages /g/, /invite/ and /wall/). TestLogsRedactEveryTokenRoute walks
// routes.go's :token routes.
func logPath(r *http.Request) string {
	segs := strings.Split(r.URL.Path, "/")
	for i, seg := range segs {
		switch seg {
		case "", "api", "admin":
			continue
		case "g", "invite", "wall":
			if i+1 < len(segs) && segs[i+1] != "" {
				segs[i+1] = "…"
				return strings.Join(segs, "/")
			}
		}
		break
	}
	return r.URL.Path
}
