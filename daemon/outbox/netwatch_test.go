package outbox_test

import (
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/daemon/outbox"
)

func TestNetWatcherWakesOnceTheChangesSettle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		changes := make(chan struct{}, 1)
		var wakes atomic.Int32
		w := outbox.NetWatcher{
			Changes: func(ctx context.Context) (<-chan struct{}, error) { return changes, nil },
			Wake:    func(ctx context.Context) { wakes.Add(1) },
			Settle:  2 * time.Second,
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- w.Run(ctx) }()

		// The start counts as a change: the network may be up already.
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := wakes.Load(); n != 1 {
			t.Fatalf("woke %d times after the start, want 1", n)
		}
		// An interface coming up: a burst of changes, 500 ms apart.
		for range 4 {
			changes <- struct{}{}
			time.Sleep(500 * time.Millisecond)
		}
		synctest.Wait()
		if n := wakes.Load(); n != 1 {
			t.Fatalf("woke %d times before the changes settled", n-1)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if n := wakes.Load(); n != 2 {
			t.Fatalf("woke %d times after one settled burst, want 1", n-1)
		}
		changes <- struct{}{}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if n := wakes.Load(); n != 3 {
			t.Fatalf("woke %d times after a second change, want 2", n-1)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("run: %v", err)
		}
	})
}

func TestNetWatcherFailsWhenTheWatchBreaks(t *testing.T) {
	changes := make(chan struct{})
	close(changes)
	w := outbox.NetWatcher{
		Changes: func(ctx context.Context) (<-chan struct{}, error) { return changes, nil },
		Wake:    func(ctx context.Context) {},
	}
	if err := w.Run(context.Background()); err == nil {
		t.Fatal("a broken watch ended without an error; the service group would not restart it")
	}
}

const (
	routesNone = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
		"wlan0\t0032A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
	routesDefault = routesNone +
		"eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
	routesDown = routesNone +
		"eth0\t00000000\t0101A8C0\t0002\t0\t0\t100\t00000000\t0\t0\t0\n"
)

func TestHasDefaultRoute(t *testing.T) {
	for _, tt := range []struct {
		name, table string
		want        bool
	}{
		{"only the hotspot's own network", routesNone, false},
		{"a default route through the uplink", routesDefault, true},
		{"a default route that is not up", routesDown, false},
		{"an empty table", "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := outbox.HasDefaultRoute([]byte(tt.table)); got != tt.want {
				t.Fatalf("HasDefaultRoute = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestPollRoutesSignalsWhenADefaultRouteAppears(t *testing.T) {
	path := filepath.Join(t.TempDir(), "route")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(routesNone)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ch, err := outbox.PollRoutes(path, time.Second)(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pending := func() bool {
			select {
			case <-ch:
				return true
			default:
				return false
			}
		}
		write(routesDown)
		time.Sleep(1500 * time.Millisecond)
		if pending() {
			t.Fatal("signalled a change without a usable default route")
		}
		write(routesDefault)
		time.Sleep(time.Second)
		if !pending() {
			t.Fatal("no signal after a default route appeared")
		}
		time.Sleep(3 * time.Second)
		if pending() {
			t.Fatal("signalled again without a change")
		}
	})
}
