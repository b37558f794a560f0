package netsetup

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"sync"
	"testing"
	"time"
)

// fakeWorld stands in for the interfaces and the responders.
type fakeWorld struct {
	mu      sync.Mutex
	ifaces  []iface
	failing bool
	starts  [][]string // interface names of each start
	open    int        // responders started and not closed
	changed chan struct{}
}

func (w *fakeWorld) list() ([]iface, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]iface(nil), w.ifaces...), nil
}

func (w *fakeWorld) start(_ MDNSConfig, ifaces []iface) (io.Closer, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		select {
		case w.changed <- struct{}{}:
		default:
		}
	}()
	if w.failing {
		w.starts = append(w.starts, nil)
		return nil, errors.New("address already in use")
	}
	w.starts = append(w.starts, interfaceNames(ifaces))
	w.open++
	return closerFunc(func() error {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.open--
		return nil
	}), nil
}

func (w *fakeWorld) set(f func()) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f()
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

func fakeIface(index int, name, addr string) iface {
	return iface{Interface: net.Interface{Index: index, Name: name}, addrs: []netip.Addr{netip.MustParseAddr(addr)}}
}

// waitStart waits for the next start attempt, or fails the test after 5 s.
func (w *fakeWorld) waitStart(t *testing.T) {
	t.Helper()
	select {
	case <-w.changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no responder start within 5 s")
	}
}

func TestAdvertiserRestartsWhenAnInterfaceComesUpAndStopsWithTheContext(t *testing.T) {
	w := &fakeWorld{ifaces: []iface{fakeIface(2, "eth0", "192.168.1.20")}, changed: make(chan struct{}, 1024)}
	a, err := NewAdvertiser(MDNSConfig{Name: "eventbox", Port: 80, PollInterval: 10 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	a.list, a.start = w.list, w.start
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()

	w.waitStart(t)
	// Polls with nothing changed must not restart.
	time.Sleep(50 * time.Millisecond)
	// The hotspot comes up.
	w.set(func() { w.ifaces = append(w.ifaces, fakeIface(3, "wlan0", "10.42.0.1")) })
	w.waitStart(t)
	// The responders cannot start for a while (port taken), then can.
	w.set(func() { w.failing = true; w.ifaces = w.ifaces[1:] })
	w.waitStart(t)
	w.waitStart(t) // retried at the next poll
	w.set(func() { w.failing = false })
	for ok := false; !ok; {
		w.waitStart(t)
		w.set(func() { ok = w.starts[len(w.starts)-1] != nil })
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run returned %v, want nil after cancel", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5 s of cancel")
	}
	w.set(func() {
		if w.open != 0 {
			t.Errorf("%d responders left open", w.open)
		}
		// Failed starts are retried at each poll: collapse them into one.
		var got [][]string
		for i, s := range w.starts {
			if s == nil && i > 0 && w.starts[i-1] == nil {
				continue
			}
			got = append(got, s)
		}
		want := [][]string{{"eth0"}, {"eth0", "wlan0"}, nil, {"wlan0"}}
		if len(got) != len(want) {
			t.Fatalf("starts = %q, want %q (failures collapsed)", got, want)
		}
		for i := range want {
			if !slicesEqual(got[i], want[i]) {
				t.Errorf("start %d on %q, want %q (all: %q)", i, got[i], want[i], w.starts)
			}
		}
	})
}

func TestNewAdvertiserRejectsBadConfig(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name string
		cfg  MDNSConfig
	}{
		{"a name with a dot", MDNSConfig{Name: "event.box", Port: 80, Logger: log}},
		{"an empty name", MDNSConfig{Name: "", Port: 80, Logger: log}},
		{"a name ending in a dash", MDNSConfig{Name: "eventbox-", Port: 80, Logger: log}},
		{"port zero", MDNSConfig{Name: "eventbox", Port: 0, Logger: log}},
		{"no logger", MDNSConfig{Name: "eventbox", Port: 80}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := NewAdvertiser(tc.cfg); err == nil {
				t.Error("NewAdvertiser accepted it")
			}
		})
	}
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
