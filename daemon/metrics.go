package daemon

import (
	"context"
	"net/http"
	"time"

	"eventbox/daemon/metrics"
)

// newMetrics builds the daemon's registry (daemon/metrics): the outbox
// gauge counts the unfinished jobs of every kind the runner works.
func (s *Server) newMetrics() (*metrics.Metrics, error) {
	cfg := metrics.Config{DataDir: s.cfg.DataDir, SysRoot: s.cfg.SysRoot, Now: s.now,
		Logger: s.log.With("component", "metrics"), Pending: s.pendingJobs}
	if s.updateBackups != nil {
		cfg.LastBackup = s.updateBackups.LastBackup
	}
	return metrics.New(cfg)
}

// pendingMax bounds the jobs counted per kind at one scrape.
const pendingMax = 10000

// pendingJobs counts the unfinished jobs (queued or running) by kind.
func (s *Server) pendingJobs(ctx context.Context) (map[string]int, error) {
	out := map[string]int{}
	for _, kind := range s.jobs.Kinds() {
		js, err := s.store.Jobs().Unfinished(ctx, kind, pendingMax)
		if err != nil {
			return out, err
		}
		out[kind] = len(js)
	}
	return out, nil
}

// routed names the route pattern a request matched, for the request
// metrics: the statusRecorder of logRequests carries it, so naming costs
// nothing per request.
func routed(pattern string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rec, ok := w.(*statusRecorder); ok {
			rec.route = pattern
		}
		next.ServeHTTP(w, r)
	})
}

// unrouted is the route label of a request no route matched: pages,
// assets, and the API's 404s and 405s.
const unrouted = "other"

// observe counts a finished request in the metrics.
func (s *Server) observe(rec *statusRecorder, d time.Duration) {
	route, code := rec.route, rec.status
	if route == "" {
		route = unrouted
	}
	if code == 0 {
		code = http.StatusOK
	}
	s.metrics.Request(route, code, d)
}
