package booth_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"eventbox/booth"
)

// The tests that wait run inside a testing/synctest bubble: time.Sleep, the
// device's timers and tickers and the fake pins' edge timeouts then run on the
// bubble's clock, which jumps ahead whenever every goroutine is waiting, so the
// timings below are exact and take no real time.

// rig is a GPIO device on fake pins, running until the test ends.
type rig struct {
	button *gpiotest.Pin
	led    *gpiotest.Pin
	dev    *booth.GPIO
}

// newRig starts a device on fake pins. edges false gives a button without
// edge detection, which the device must poll.
func newRig(t *testing.T, edges bool) *rig {
	t.Helper()
	r := &rig{
		button: &gpiotest.Pin{N: "GPIO17", Num: 17},
		led:    &gpiotest.Pin{N: "GPIO27", Num: 27},
	}
	if edges {
		r.button.EdgesChan = make(chan gpio.Level, 64)
	}
	dev, err := booth.NewGPIO(r.button, r.led, booth.Config{})
	if err != nil {
		t.Fatalf("NewGPIO: %v", err)
	}
	r.dev = dev
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dev.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run returned %v", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return within 5s of cancel")
		}
		if err := dev.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return r
}

// level sets the button's raw level: through an edge when the pin has edge
// detection, else directly.
func (r *rig) level(l gpio.Level) {
	if r.button.EdgesChan != nil {
		r.button.EdgesChan <- l
		return
	}
	_ = r.button.Out(l)
}

// bounce simulates a press or release whose contacts chatter before settling
// on final.
func (r *rig) bounce(final gpio.Level) {
	for range 4 {
		r.level(final)
		time.Sleep(time.Millisecond)
		r.level(!final)
		time.Sleep(time.Millisecond)
	}
	r.level(final)
}

// presses collects the presses that arrive within d.
func (r *rig) presses(d time.Duration) []booth.Press {
	var got []booth.Press
	deadline := time.After(d)
	for {
		select {
		case p, ok := <-r.dev.Presses():
			if !ok {
				return got
			}
			got = append(got, p)
		case <-deadline:
			return got
		}
	}
}

func TestGPIOButton(t *testing.T) {
	tests := []struct {
		name  string
		edges bool
		act   func(r *rig)
		wait  time.Duration
		want  int
	}{
		{
			name:  "a bouncing press gives one trigger",
			edges: true,
			act:   func(r *rig) { r.bounce(gpio.Low); time.Sleep(200 * time.Millisecond); r.bounce(gpio.High) },
			wait:  time.Second,
			want:  1,
		},
		{
			name:  "a held button gives one trigger",
			edges: true,
			act:   func(r *rig) { r.bounce(gpio.Low) },
			wait:  1500 * time.Millisecond,
			want:  1,
		},
		{
			name:  "two presses half a second apart give two triggers",
			edges: true,
			act: func(r *rig) {
				r.bounce(gpio.Low)
				time.Sleep(200 * time.Millisecond)
				r.bounce(gpio.High)
				time.Sleep(300 * time.Millisecond)
				r.bounce(gpio.Low)
			},
			wait: 1500 * time.Millisecond,
			want: 2,
		},
		{
			name:  "a glitch of a few milliseconds gives no trigger",
			edges: true,
			act:   func(r *rig) { r.level(gpio.Low); time.Sleep(3 * time.Millisecond); r.level(gpio.High) },
			wait:  500 * time.Millisecond,
			want:  0,
		},
		{
			name:  "a pin without edge detection is polled and a held button gives one trigger",
			edges: false,
			// Give Run time to take its first sample with the button up:
			// a button already down at start does not count.
			act:  func(r *rig) { time.Sleep(100 * time.Millisecond); r.level(gpio.Low) },
			wait: time.Second,
			want: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, tt.edges)
				start := time.Now()
				tt.act(r)
				got := r.presses(tt.wait)
				if len(got) != tt.want {
					t.Fatalf("got %d presses (%v), want %d", len(got), got, tt.want)
				}
				for _, p := range got {
					if p.At.Before(start) || p.At.After(time.Now()) {
						t.Errorf("press at %v, outside the test's run from %v", p.At, start)
					}
				}
			})
		})
	}
}

func TestGPIOButtonPullUp(t *testing.T) {
	r := newRig(t, true)
	if r.button.Pull() != gpio.PullUp {
		t.Errorf("button pull = %v, want PullUp", r.button.Pull())
	}
	if r.button.Read() != gpio.High {
		t.Errorf("idle button reads %v, want High", r.button.Read())
	}
}

// ledLevels samples the LED every 10 ms for d and returns how many samples
// were on and off.
func ledLevels(led *gpiotest.Pin, d time.Duration) (on, off int) {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if led.Read() == gpio.High {
			on++
		} else {
			off++
		}
	}
	return on, off
}

func TestGPIOLED(t *testing.T) {
	tests := []struct {
		name     string
		state    booth.State
		steadyOn bool
		blinks   bool
	}{
		{name: "ready is steady on", state: booth.Ready, steadyOn: true},
		{name: "off is dark", state: booth.Off},
		{name: "countdown blinks", state: booth.Countdown, blinks: true},
		{name: "busy blinks", state: booth.Busy, blinks: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				r := newRig(t, true)
				// Start from the opposite of what is expected, so a state
				// that is never applied shows.
				if tt.steadyOn {
					r.dev.SetLED(booth.Off)
				} else {
					r.dev.SetLED(booth.Ready)
				}
				time.Sleep(200 * time.Millisecond)
				r.dev.SetLED(tt.state)
				time.Sleep(200 * time.Millisecond)
				on, off := ledLevels(r.led, 900*time.Millisecond)
				switch {
				case tt.blinks && (on == 0 || off == 0):
					t.Errorf("LED on %d and off %d of the samples, want both", on, off)
				case !tt.blinks && tt.steadyOn && off != 0:
					t.Errorf("LED off in %d of %d samples, want always on", off, on+off)
				case !tt.blinks && !tt.steadyOn && on != 0:
					t.Errorf("LED on in %d of %d samples, want always off", on, on+off)
				}
			})
		})
	}
}

func TestGPIOCountdownBlinksFasterThanBusy(t *testing.T) {
	synctest.Test(t, testCountdownBlinksFasterThanBusy)
}

func testCountdownBlinksFasterThanBusy(t *testing.T) {
	changes := func(s booth.State) int {
		r := newRig(t, true)
		r.dev.SetLED(s)
		time.Sleep(100 * time.Millisecond)
		n, last := 0, r.led.Read()
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
			if l := r.led.Read(); l != last {
				n, last = n+1, l
			}
		}
		return n
	}
	countdown, busy := changes(booth.Countdown), changes(booth.Busy)
	// Nominally 16 and 4 changes in two seconds.
	if countdown < 8 || busy > 6 || busy < 2 {
		t.Errorf("LED changed %d times in countdown and %d in busy over 2s; want about 16 and 4", countdown, busy)
	}
}

// TestGPIOLifecycle runs in one bubble, so its checks are labelled rather
// than subtests (T.Run cannot be called inside a bubble).
func TestGPIOLifecycle(t *testing.T) {
	synctest.Test(t, testGPIOLifecycle)
}

func testGPIOLifecycle(t *testing.T) {
	button := &gpiotest.Pin{N: "GPIO17", EdgesChan: make(chan gpio.Level, 8)}
	led := &gpiotest.Pin{N: "GPIO27"}
	dev, err := booth.NewGPIO(button, led, booth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = dev.Run(ctx) })
	time.Sleep(50 * time.Millisecond)

	// A second Run fails at once.
	errc := make(chan error, 1)
	go func() { errc <- dev.Run(ctx) }()
	select {
	case err := <-errc:
		if err == nil {
			t.Error("a second Run fails at once: second Run returned nil")
		}
	case <-time.After(2 * time.Second):
		t.Error("a second Run fails at once: second Run blocked")
	}

	dev.SetLED(booth.Ready)
	time.Sleep(300 * time.Millisecond)
	cancel()
	waited := make(chan struct{})
	go func() { wg.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of cancel")
	}

	if runErr != nil {
		t.Errorf("Run returns nil when its context ends: Run = %v", runErr)
	}
	select {
	case _, ok := <-dev.Presses():
		if ok {
			t.Error("Presses is closed when Run returns: received a press")
		}
	case <-time.After(time.Second):
		t.Error("Presses is closed when Run returns: Presses still open")
	}
	// Close turns the LED off and is idempotent.
	if led.Read() != gpio.High {
		t.Fatal("LED was not on before Close, the test proves nothing")
	}
	if err := errors.Join(dev.Close(), dev.Close()); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if led.Read() != gpio.Low {
		t.Error("Close turns the LED off: LED still on after Close")
	}
}

func TestGPIOWithoutPins(t *testing.T) {
	synctest.Test(t, testGPIOWithoutPins)
}

func testGPIOWithoutPins(t *testing.T) {
	dev, err := booth.NewGPIO(nil, nil, booth.Config{})
	if err != nil {
		t.Fatal(err)
	}
	dev.SetLED(booth.Countdown)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := dev.Run(ctx); err != nil {
		t.Errorf("Run = %v", err)
	}
	if err := dev.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}
