package booth

import "time"

// Default debounce timings, chosen for a mechanical arcade-style button.
const (
	// DefaultStable is how long the button must stay down before a press
	// counts; contact bounce settles well within it.
	DefaultStable = 30 * time.Millisecond
	// DefaultLockout is the minimum time between two presses; a second
	// press within it is ignored.
	DefaultLockout = 300 * time.Millisecond
)

// Debouncer turns raw button samples into presses. It is a pure state
// machine: it reads no clock and touches no hardware, and the caller feeds it
// (down, time) samples in time order. A press is reported once when the
// button has been seen down for at least Stable, and only if Lockout has
// passed since the previous press; a button held down gives one press, and
// the button must be seen up for Stable before it can give another.
//
// The first sample only sets the initial state: a button already down when
// sampling starts gives no press until it has been released.
//
// The zero value is not usable; use [NewDebouncer]. A Debouncer is not safe
// for concurrent use.
type Debouncer struct {
	stable  time.Duration
	lockout time.Duration

	started   bool
	down      bool      // debounced state
	candidate bool      // last raw state
	since     time.Time // when the raw state became candidate
	pressed   bool      // a press has been reported
	lastPress time.Time
}

// NewDebouncer returns a Debouncer requiring a level to hold for stable
// before it counts and at least lockout between presses. A non-positive
// stable or lockout uses [DefaultStable] or [DefaultLockout].
func NewDebouncer(stable, lockout time.Duration) *Debouncer {
	if stable <= 0 {
		stable = DefaultStable
	}
	if lockout <= 0 {
		lockout = DefaultLockout
	}
	return &Debouncer{stable: stable, lockout: lockout}
}

// Sample feeds the raw button state at time at (down is true while the
// button is pressed) and reports whether this sample completes a press. The
// returned Press carries the time the button went down for good (the start of
// the stable period), not the time of this sample.
//
// A level only counts once a sample of that same level arrives at least
// Stable after the level began: a gap between samples never turns a bounce
// into a press.
func (d *Debouncer) Sample(down bool, at time.Time) (Press, bool) {
	if !d.started {
		d.started = true
		d.down, d.candidate, d.since = down, down, at
		return Press{}, false
	}
	if down != d.candidate {
		d.candidate, d.since = down, at
		return Press{}, false
	}
	if d.candidate == d.down || at.Sub(d.since) < d.stable {
		return Press{}, false
	}
	d.down = d.candidate
	if !d.down {
		return Press{}, false
	}
	if d.pressed && d.since.Sub(d.lastPress) < d.lockout {
		return Press{}, false
	}
	d.pressed, d.lastPress = true, d.since
	return Press{At: d.since}, true
}

// Deadline reports the time by which the caller should sample again for a
// pending change of state to settle, and false when nothing is pending (the
// caller may then wait for the next edge as long as it likes).
func (d *Debouncer) Deadline() (time.Time, bool) {
	if !d.started || d.candidate == d.down {
		return time.Time{}, false
	}
	return d.since.Add(d.stable), true
}
