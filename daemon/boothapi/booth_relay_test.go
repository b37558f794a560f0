package boothapi

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"eventbox/booth"
	"eventbox/daemon/web"
)

// fakeDevice is a booth button and LED in memory.
type fakeDevice struct {
	presses chan booth.Press
	mu      sync.Mutex
	leds    []booth.State
	closed  bool
}

func newFakeDevice() *fakeDevice { return &fakeDevice{presses: make(chan booth.Press, 4)} }

func (d *fakeDevice) Run(ctx context.Context) error {
	<-ctx.Done()
	close(d.presses)
	return nil
}
func (d *fakeDevice) Presses() <-chan booth.Press { return d.presses }
func (d *fakeDevice) SetLED(s booth.State) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.leds = append(d.leds, s)
}
func (d *fakeDevice) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return nil
}
func (d *fakeDevice) led() booth.State {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.leds) == 0 {
		return booth.Off
	}
	return d.leds[len(d.leds)-1]
}

// The relay as a service, without the router: a press with no page is
// ignored; with a page connected it becomes a trigger and the LED goes
// ready, countdown, busy, and back to ready when the photo is in; when
// its context ends Run returns nil, the device is closed, the page's
// stream ends and a new one is refused.
func TestRelayRunsTheDevice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dev := newFakeDevice()
		b := NewRelay(RelayConfig{Device: dev, Countdown: 3 * time.Second})
		ctx, stop := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- b.Run(ctx) }()

		dev.presses <- booth.Press{At: boothAt}
		synctest.Wait()
		if got := dev.led(); got != booth.Off {
			t.Fatalf("LED %v after a press with no page, want off", got)
		}

		// The page stays: only the relay's end may end its stream.
		pageCtx, leave := context.WithCancel(context.Background())
		defer leave()
		body, pw := io.Pipe()
		w := &pipeWriter{header: http.Header{}, w: pw}
		served := make(chan error, 1)
		go func() {
			err := b.Serve(w, httptest.NewRequestWithContext(pageCtx, http.MethodGet, "/api/e/x/booth/events", nil), "ev1")
			pw.Close()
			served <- err
		}()
		events := make(chan string, 16)
		go func() {
			sc := bufio.NewScanner(body)
			for sc.Scan() {
				if name, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
					events <- name
				}
			}
			close(events)
		}()
		synctest.Wait()
		if got := dev.led(); got != booth.Ready {
			t.Fatalf("LED %v with a page connected, want ready", got)
		}
		dev.presses <- booth.Press{At: boothAt}
		synctest.Wait()
		if got := dev.led(); got != booth.Countdown {
			t.Fatalf("LED %v after a press, want countdown", got)
		}
		time.Sleep(3 * time.Second)
		synctest.Wait()
		if got := dev.led(); got != booth.Busy {
			t.Fatalf("LED %v after the countdown, want busy", got)
		}
		b.Captured()
		if got := dev.led(); got != booth.Ready {
			t.Fatalf("LED %v once the photo is in, want ready", got)
		}

		stop()
		if err := <-ran; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve = %v once the relay stopped", err)
			}
		case <-time.After(time.Minute):
			leave()
			<-served
			t.Fatal("the page's stream outlived the relay")
		}
		var got []string
		for name := range events {
			got = append(got, name)
		}
		if want := []string{"status", booth.TypeTrigger, "status", "status", "status"}; strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("the page got %v, want %v", got, want)
		}
		dev.mu.Lock()
		closed := dev.closed
		dev.mu.Unlock()
		if !closed {
			t.Error("the device is still open after Run")
		}
		err := b.Serve(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/api/e/x/booth/events", nil), "ev1")
		if !errors.Is(err, web.ErrUnavailable) {
			t.Errorf("Serve after Run = %v, want unavailable", err)
		}
	})
}
