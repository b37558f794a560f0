package booth

import (
	"context"
	"time"
)

// Press is one debounced press of the shutter button.
type Press struct {
	// At is when the button went down (the start of the stable period).
	At time.Time
}

// State is what the status LED shows.
type State int

// The LED states. On a single LED they read as: Off dark; Ready steady on;
// Countdown a fast blink (4 Hz, 125 ms on, 125 ms off); Busy a slow blink
// (1 Hz, 500 ms on, 500 ms off).
const (
	Off State = iota
	Ready
	Countdown
	Busy
)

// String returns the state's lower-case name ("off", "ready", "countdown",
// "busy"), the same word the booth page receives in status messages.
func (s State) String() string {
	switch s {
	case Off:
		return "off"
	case Ready:
		return "ready"
	case Countdown:
		return "countdown"
	case Busy:
		return "busy"
	}
	return "unknown"
}

// Blink periods of the LED patterns.
const (
	countdownHalfPeriod = 125 * time.Millisecond
	busyHalfPeriod      = 500 * time.Millisecond
	ledTick             = countdownHalfPeriod
)

// lit reports whether the LED is on in state s at tick n of a [ledTick]
// clock counted from the state change.
func (s State) lit(n int) bool {
	switch s {
	case Ready:
		return true
	case Countdown:
		return n%2 == 0
	case Busy:
		ticks := int(busyHalfPeriod / ledTick)
		return (n/ticks)%2 == 0
	}
	return false
}

// Device is the booth hardware as the daemon sees it.
type Device interface {
	// Run reads the button and drives the LED until ctx ends, then returns
	// nil. It closes the Presses channel when it returns. Run may be called
	// once; a second call returns an error at once.
	Run(ctx context.Context) error
	// Presses delivers debounced presses while Run runs. It is buffered;
	// when the reader falls behind, presses are dropped (and logged) rather
	// than delaying the button loop. It is closed when Run returns.
	Presses() <-chan Press
	// SetLED sets what the LED shows. It never blocks, is safe for
	// concurrent use, and takes effect within one LED tick while Run runs.
	SetLED(s State)
	// Close turns the LED off and releases the pins. Call it after Run has
	// returned. It is idempotent.
	Close() error
}
