package daemon

import (
	"sync"
	"time"
)

// rateLimiter counts requests per key in fixed windows. It is safe for
// concurrent use; the clock is injected so tests control time.
type rateLimiter struct {
	limit  int
	window time.Duration
	now    func() time.Time

	mu      sync.Mutex
	windows map[string]rateWindow
}

type rateWindow struct {
	start time.Time
	count int
}

// newRateLimiter allows limit requests per key in each window.
func newRateLimiter(limit int, window time.Duration, now func() time.Time) *rateLimiter {
	return &rateLimiter{limit: limit, window: window, now: now, windows: map[string]rateWindow{}}
}

// allow counts one request for key. When the key is over its limit it
// answers false and the whole seconds until its window ends (at least 1).
func (l *rateLimiter) allow(key string) (bool, int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	w, ok := l.windows[key]
	if !ok || now.Sub(w.start) >= l.window {
		if len(l.windows) > 10000 {
			l.sweep(now)
		}
		l.windows[key] = rateWindow{start: now, count: 1}
		return true, 0
	}
	if w.count >= l.limit {
		left := w.start.Add(l.window).Sub(now)
		secs := int((left + time.Second - 1) / time.Second)
		return false, max(secs, 1)
	}
	w.count++
	l.windows[key] = w
	return true, 0
}

// sweep drops finished windows so the map stays small.
func (l *rateLimiter) sweep(now time.Time) {
	for k, w := range l.windows {
		if now.Sub(w.start) >= l.window {
			delete(l.windows, k)
		}
	}
}
