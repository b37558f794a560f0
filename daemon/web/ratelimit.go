package web

import (
	"sync"
	"time"
)

// RateLimiter counts requests per key in fixed windows. It is safe for
// concurrent use; the clock is injected so tests control time.
type RateLimiter struct {
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

// NewRateLimiter allows limit requests per key in each window.
func NewRateLimiter(limit int, window time.Duration, now func() time.Time) *RateLimiter {
	return &RateLimiter{limit: limit, window: window, now: now, windows: map[string]rateWindow{}}
}

// Allow counts one request for key. When the key is over its limit it
// answers false and the whole seconds until its window ends (at least 1).
func (l *RateLimiter) Allow(key string) (bool, int) {
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
func (l *RateLimiter) sweep(now time.Time) {
	for k, w := range l.windows {
		if now.Sub(w.start) >= l.window {
			delete(l.windows, k)
		}
	}
}

// GuessGuard slows the guessing of one secret shared by many people or
// kept by one account (an account's password and second factor, an
// event's access code, a gallery link's password) without letting a
// guesser lock the people who know it out (docs/decisions.md, "Guessing
// and lock-out"). Each key (username, event id, link id) has a budget of
// failures per fixed window. Once the budget is spent, only addresses
// that have themselves failed on that key in the window are held until
// it ends; an address with no failure still gets its attempt, so the
// right secret from a fresh address always opens, and a guesser spread
// over many addresses gets one try per address per window. It is safe
// for concurrent use; the clock is injected.
type GuessGuard struct {
	budget int
	window time.Duration
	now    func() time.Time

	mu   sync.Mutex
	keys map[string]*guessWindow
}

type guessWindow struct {
	start    time.Time
	failures int
	failed   map[string]struct{} // addresses that failed in this window
}

// NewGuessGuard allows budget failures per key in each window before it
// holds the addresses that failed.
func NewGuessGuard(budget int, window time.Duration, now func() time.Time) *GuessGuard {
	return &GuessGuard{budget: budget, window: window, now: now, keys: map[string]*guessWindow{}}
}

// Allow reports whether addr may try the secret of key now. When it may
// not, it also answers the whole seconds until the key's window ends (at
// least 1), for Retry-After.
func (g *GuessGuard) Allow(key, addr string) (bool, int) {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	w, ok := g.keys[key]
	if !ok || now.Sub(w.start) >= g.window || w.failures < g.budget {
		return true, 0
	}
	if _, failed := w.failed[addr]; !failed {
		return true, 0
	}
	left := w.start.Add(g.window).Sub(now)
	return false, max(int((left+time.Second-1)/time.Second), 1)
}

// Fail counts a wrong secret for key from addr.
func (g *GuessGuard) Fail(key, addr string) {
	now := g.now()
	g.mu.Lock()
	defer g.mu.Unlock()
	w, ok := g.keys[key]
	if !ok || now.Sub(w.start) >= g.window {
		if len(g.keys) > 10000 {
			g.sweep(now)
		}
		w = &guessWindow{start: now, failed: map[string]struct{}{}}
		g.keys[key] = w
	}
	w.failures++
	w.failed[addr] = struct{}{}
}

// sweep drops finished windows so the map stays small.
func (g *GuessGuard) sweep(now time.Time) {
	for k, w := range g.keys {
		if now.Sub(w.start) >= g.window {
			delete(g.keys, k)
		}
	}
}
