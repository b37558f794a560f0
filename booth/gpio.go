package booth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// pressBuffer is how many presses wait for a slow reader before new ones are
// dropped.
const pressBuffer = 8

// Button loop timings. WaitForEdge always gets a finite, positive timeout:
// gpioioctl reads 0 as "forever" and -1 as "already expired", and periph's
// gpiotest fake the other way round.
const (
	edgePoll    = 200 * time.Millisecond // longest wait for an edge before checking ctx
	levelPoll   = 10 * time.Millisecond  // sampling period when the pin has no edge detection
	minEdgeWait = time.Millisecond
)

// GPIO is the [Device] of a booth with real (or fake) pins. Build it with
// [NewGPIO] or [Open].
type GPIO struct {
	button gpio.PinIn  // nil: no button
	led    gpio.PinOut // nil: no LED
	edges  bool        // button edge detection is on
	log    *slog.Logger
	now    func() time.Time

	presses chan Press
	state   atomic.Int32
	nudge   chan struct{}

	runOnce   sync.Once
	closeOnce sync.Once
	closeErr  error
}

var _ Device = (*GPIO)(nil)

// NewGPIO sets up button as an input with pull-up and edge detection on both
// edges (falling back to polling its level every 10 ms when the pin cannot
// detect edges) and led as an output, low. Either pin may be nil: that part
// of the booth is then absent. Only cfg.Logger and cfg.Now are used; the pin
// names are ignored. It fails when a pin cannot be set up.
//
// Tests pass periph's gpiotest pins here, so that nothing touches periph's
// global pin registry.
func NewGPIO(button gpio.PinIn, led gpio.PinOut, cfg Config) (*GPIO, error) {
	g := &GPIO{
		button:  button,
		led:     led,
		log:     cfg.logger(),
		now:     cfg.clock(),
		presses: make(chan Press, pressBuffer),
		nudge:   make(chan struct{}, 1),
	}
	if button != nil {
		err := button.In(gpio.PullUp, gpio.BothEdges)
		if err == nil {
			g.edges = true
		} else {
			g.log.Warn("button edge detection unavailable, polling", "pin", button.Name(), "error", err)
			if err := button.In(gpio.PullUp, gpio.NoEdge); err != nil {
				return nil, fmt.Errorf("setting up button pin %s: %w", button.Name(), err)
			}
		}
	}
	if led != nil {
		if err := led.Out(gpio.Low); err != nil {
			return nil, fmt.Errorf("setting up led pin %s: %w", led.Name(), err)
		}
	}
	return g, nil
}

// Presses implements [Device].
func (g *GPIO) Presses() <-chan Press { return g.presses }

// SetLED implements [Device].
func (g *GPIO) SetLED(s State) {
	if State(g.state.Swap(int32(s))) == s {
		return
	}
	select {
	case g.nudge <- struct{}{}:
	default:
	}
}

// Run implements [Device].
func (g *GPIO) Run(ctx context.Context) error {
	first := false
	g.runOnce.Do(func() { first = true })
	if !first {
		return errors.New("booth: run called twice")
	}
	defer close(g.presses)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	if g.led != nil {
		wg.Go(func() { g.driveLED(ctx) })
	}
	if g.button != nil {
		// Halt unblocks a pending WaitForEdge on real lines at once; the
		// finite timeouts bound the wait on pins where Halt does nothing.
		stop := context.AfterFunc(ctx, func() { _ = g.button.Halt() })
		defer stop()
		g.readButton(ctx)
	} else {
		<-ctx.Done()
	}
	cancel()
	wg.Wait()
	return nil
}

// readButton samples the button after every edge (and at least every
// edgePoll, or every levelPoll without edge detection), feeds a Debouncer and
// sends its presses, until ctx ends.
func (g *GPIO) readButton(ctx context.Context) {
	deb := NewDebouncer(DefaultStable, DefaultLockout)
	deb.Sample(g.button.Read() == gpio.Low, g.now())
	for ctx.Err() == nil {
		wait := edgePoll
		if !g.edges {
			wait = levelPoll
		}
		if dl, ok := deb.Deadline(); ok {
			wait = min(wait, max(dl.Sub(g.now()), minEdgeWait))
		}
		if g.edges {
			g.button.WaitForEdge(wait)
		} else if !sleep(ctx, wait) {
			return
		}
		if ctx.Err() != nil {
			return
		}
		p, ok := deb.Sample(g.button.Read() == gpio.Low, g.now())
		if !ok {
			continue
		}
		select {
		case g.presses <- p:
			g.log.DebugContext(ctx, "button pressed", "at", p.At)
		default:
			g.log.WarnContext(ctx, "button press dropped, reader is behind")
		}
	}
}

// driveLED shows the current state on the LED until ctx ends.
func (g *GPIO) driveLED(ctx context.Context) {
	t := time.NewTicker(ledTick)
	defer t.Stop()
	shown := State(g.state.Load())
	n := 0
	var level gpio.Level
	set := func(l gpio.Level, force bool) {
		if l == level && !force {
			return
		}
		if err := g.led.Out(l); err != nil {
			g.log.WarnContext(ctx, "setting led", "error", err)
			return
		}
		level = l
	}
	set(gpio.Level(shown.lit(0)), true)
	for {
		select {
		case <-ctx.Done():
			return
		case <-g.nudge:
			shown, n = State(g.state.Load()), 0
			t.Reset(ledTick)
		case <-t.C:
			n++
		}
		set(gpio.Level(shown.lit(n)), false)
	}
}

// Close implements [Device]: the LED goes off and the lines are released.
func (g *GPIO) Close() error {
	g.closeOnce.Do(func() {
		var errs []error
		if g.led != nil {
			if err := g.led.Out(gpio.Low); err != nil {
				errs = append(errs, fmt.Errorf("turning led off: %w", err))
			}
			release(g.led)
		}
		if g.button != nil {
			if err := g.button.Halt(); err != nil {
				errs = append(errs, fmt.Errorf("halting button: %w", err))
			}
			release(g.button)
		}
		g.closeErr = errors.Join(errs...)
	})
	return g.closeErr
}

// release closes the line's file descriptor when the pin has one (gpioioctl
// lines do), so another process may take the line.
func release(p any) {
	if c, ok := p.(interface{ Close() }); ok {
		c.Close()
	}
}

// sleep waits for d or until ctx ends, and reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
