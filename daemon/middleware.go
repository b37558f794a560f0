package daemon

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventbox/daemon/access"
	"eventbox/daemon/api/portal"
	"eventbox/daemon/web"
)

// middleware is the global chain, outermost first: recover → log →
// restore gate → "connected" to the probes of a phone that went through
// the portal page → the box's own names → each client address's activity
// (for the crowd watch: a phone's own captive-portal probes, answered
// before, do not make it busy) → body pacing → same-origin rule →
// captive-portal probes.
func (s *Server) middleware(next http.Handler) http.Handler {
	return s.recoverPanics(s.logRequests(s.box.RestoreGate(portal.Connected(s.portal.Passes(),
		s.ownHost(s.activity.Middleware(s.paceBodies(s.sameOrigin(portal.Middleware(s.portalTarget, next)))))))))
}

// ownHost serves only requests whose Host names the box (ownNames). Any
// other Host is a page pointed at the box by DNS: a phone's captive-portal
// probe under the hotspot's catch-all DNS, or a DNS-rebinding attack whose
// page would otherwise share the box's origin. Pages get the captive
// portal's redirect to the box's own address; the API answers 421
// misdirected, before any cookie is read. A request under the box's own
// name carries its phone's captive-portal pass (portal.Passes.Seen).
func (s *Server) ownHost(next http.Handler) http.Handler {
	toPortal := portal.Redirect(s.portalTarget)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case s.names.own(r):
			s.portal.Passes().SeenRequest(r) // a phone still using the box keeps its pass
			if !portal.InMiniBrowser(r) {
				s.network.NAT().Observe(r) // several browsers behind one address: an access point's NAT
			}
			next.ServeHTTP(w, r)
		case web.IsAPIPath(r.URL.Path):
			s.writeError(w, r, web.ErrMisdirected)
		default:
			toPortal.ServeHTTP(w, r)
		}
	})
}

// portalTarget is where a phone's captive-portal sheet opens: the
// first-run setup page while it is open, else the portal page in a
// captive mini-browser (which says how to open the event in the phone's
// own browser), else the event (eventTarget).
func (s *Server) portalTarget(r *http.Request) string {
	if s.setup.Open(r.Context()) {
		return "/setup" // a box nobody set up: its first-run page (daemon/setup)
	}
	if portal.InMiniBrowser(r) {
		return portal.PagePath
	}
	return s.eventTarget(r)
}

// eventTarget is the guest page of the one event that is open, else the
// start page (which offers a choice).
func (s *Server) eventTarget(r *http.Request) string {
	events, err := s.store.Events().List(r.Context())
	if err != nil {
		s.log.WarnContext(r.Context(), "listing events for the portal", "error", err)
		return "/"
	}
	now := s.now().UnixMilli()
	slug := ""
	for _, e := range events {
		if access.UploadsOpen(access.EventRules(e), now) {
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

// api adapts a web.HandlerFunc to http.Handler.
func (s *Server) api(h web.HandlerFunc) http.Handler {
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
					slog.Group("req", "method", r.Method, "path", web.LogPath(r)))
				s.writeError(w, r, web.ErrInternal)
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
		if !web.IsAPIPath(r.URL.Path) {
			return
		}
		level := slog.LevelDebug
		if rec.status >= 500 {
			level = slog.LevelWarn
		}
		// The query is left out: it can carry tokens.
		s.log.Log(r.Context(), level, "request",
			slog.Group("req", "method", r.Method, "path", web.LogPath(r), "status", rec.status,
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
				s.writeError(w, r, web.ErrForbidden)
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
func (s *Server) rate(l *web.RateLimiter, h web.HandlerFunc) web.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		if ok, retry := l.Allow(web.ClientIP(r)); !ok {
			return web.RateLimited(retry)
		}
		return h(w, r)
	}
}

// writeError sends the { error, details } answer for err, logging a
// server fault with the daemon's logger (web.WriteError).
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	web.WriteError(s.log, w, r, err)
}
