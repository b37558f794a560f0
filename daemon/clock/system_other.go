//go:build !linux

package clock

import (
	"errors"
	"time"
)

// errNotLinux: only Linux boxes read and set the kernel's clock.
var errNotLinux = errors.New("the system clock is only read and set on Linux")

// KernelSynced answers false elsewhere than on Linux.
func KernelSynced() (bool, error) { return false, errNotLinux }

// SetSystemClock refuses elsewhere than on Linux.
func SetSystemClock(time.Time) error { return errNotLinux }
