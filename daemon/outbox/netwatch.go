package outbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"time"
)

// Changes starts watching the network and answers a channel that gets a
// value (at least one, perhaps fewer than there were) after each change
// of the routing table or of an interface. The channel is closed when ctx
// ends or the watch breaks.
type Changes func(ctx context.Context) (<-chan struct{}, error)

// NoChanges is a network that never changes, for a box that must not be
// woken by its own (tests): only the start wakes the outbox, after Settle.
func NoChanges(context.Context) (<-chan struct{}, error) { return nil, nil }

// DefaultSettle is how long NetWatcher waits for the network to settle.
const DefaultSettle = 3 * time.Second

// NetWatcher wakes the outbox's waiting jobs when the network changes:
// the hotspot's uplink comes back, a cable is plugged in, a phone's
// tethering appears. It is a service.Service.
type NetWatcher struct {
	// Changes is the source of changes; nil means RouteChanges.
	Changes Changes
	// Wake is called once the changes have settled; must not be nil.
	Wake func(ctx context.Context)
	// Settle is the quiet time after a change before Wake: an interface
	// coming up brings a burst of changes, and its address and route a
	// moment after. Zero means DefaultSettle.
	Settle time.Duration
	// Logger receives the watcher's events; nil discards them.
	Logger *slog.Logger
}

// Run wakes once when it starts, then after each settled burst of
// changes, until ctx ends. A watch that breaks is an error (the service
// group starts it again).
func (w NetWatcher) Run(ctx context.Context) error {
	changes, settle, log := w.Changes, w.Settle, w.Logger
	if changes == nil {
		changes = RouteChanges
	}
	if settle <= 0 {
		settle = DefaultSettle
	}
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	ch, err := changes(ctx)
	if err != nil {
		return err
	}
	// The start counts as a change: the box may have been switched off
	// at the party and on at home, and no message tells of a network
	// that was already up.
	timer := time.NewTimer(settle)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-ch:
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return errors.New("the network watch stopped")
			}
			timer.Reset(settle)
		case <-timer.C:
			log.DebugContext(ctx, "network changed; waking the outbox")
			w.Wake(ctx)
		}
	}
}

// PollRoutes watches by reading the routing table file path (Linux's
// /proc/net/route) every interval and signalling when it changed and has
// a default route: the fallback where netlink is not available.
func PollRoutes(path string, every time.Duration) Changes {
	return func(ctx context.Context) (<-chan struct{}, error) {
		last, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		ch := make(chan struct{}, 1)
		go func() {
			defer close(ch)
			t := time.NewTicker(every)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				cur, err := os.ReadFile(path)
				if err != nil || bytes.Equal(cur, last) {
					continue
				}
				last = cur
				if HasDefaultRoute(cur) {
					signal(ch)
				}
			}
		}()
		return ch, nil
	}
}

// HasDefaultRoute reports whether the routing table in the format of
// Linux's /proc/net/route has a default route (destination and mask 0)
// that is up.
func HasDefaultRoute(table []byte) bool {
	lines := bytes.Split(table, []byte("\n"))
	for _, l := range lines[min(1, len(lines)):] {
		f := bytes.Fields(l)
		// Iface Destination Gateway Flags RefCnt Use Metric Mask ...
		if len(f) < 8 {
			continue
		}
		if string(f[1]) == "00000000" && string(f[7]) == "00000000" && flagsUp(f[3]) {
			return true
		}
	}
	return false
}

// flagsUp reports whether the hex route flags have RTF_UP.
func flagsUp(hex []byte) bool {
	var v uint64
	for _, c := range hex {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uint64(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uint64(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | uint64(c-'A'+10)
		default:
			return false
		}
	}
	return v&1 != 0
}

// signal sends on ch without blocking: one pending value stands for any
// number of changes.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}
