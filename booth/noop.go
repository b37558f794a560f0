package booth

import (
	"context"
	"errors"
	"sync"
)

// noop is the Device of a machine without booth hardware.
type noop struct {
	once    sync.Once
	presses chan Press
}

var _ Device = (*noop)(nil)

// NoOp returns a Device with no hardware: Run waits for its context, no
// press is ever delivered, and SetLED does nothing.
func NoOp() Device {
	return &noop{presses: make(chan Press)}
}

// Run implements [Device]: it waits for ctx to end.
func (n *noop) Run(ctx context.Context) error {
	first := false
	n.once.Do(func() { first = true })
	if !first {
		return errors.New("booth: run called twice")
	}
	defer close(n.presses)
	<-ctx.Done()
	return nil
}

// Presses implements [Device]; nothing is ever sent.
func (n *noop) Presses() <-chan Press { return n.presses }

// SetLED implements [Device]; it does nothing.
func (n *noop) SetLED(State) {}

// Close implements [Device]; it does nothing.
func (n *noop) Close() error { return nil }
