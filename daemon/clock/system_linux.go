package clock

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// The kernel's NTP state (include/uapi/linux/timex.h), which x/sys does
// not name.
const (
	staUnsync = 0x0040 // STA_UNSYNC: the clock is not synchronised
	timeError = 5      // TIME_ERROR, adjtimex's answer for an unsynchronised clock
	// maxErrorUs is the largest error, in µs, a synchronised clock may
	// claim: the kernel's NTP_PHASE_LIMIT is 16 s, past which it sets
	// STA_UNSYNC itself.
	maxErrorUs = 16_000_000
)

// KernelSynced reads the kernel's synchronisation state with adjtimex(2)
// (a read only: no privilege needed): synchronised when an NTP client
// (systemd-timesyncd, chrony) keeps the clock and its error is bounded.
func KernelSynced() (bool, error) {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return false, fmt.Errorf("reading the kernel's clock state: %w", err)
	}
	return synced(state, tx.Status, int64(tx.Maxerror)), nil
}

// synced tells adjtimex's answer for a synchronised clock.
func synced(state int, status int32, maxError int64) bool {
	return state != timeError && status&staUnsync == 0 && maxError < maxErrorUs
}

// SetSystemClock sets CLOCK_REALTIME to t with clock_settime(2); the
// process needs CAP_SYS_TIME.
func SetSystemClock(t time.Time) error {
	ts := unix.NsecToTimespec(t.UnixNano())
	if err := unix.ClockSettime(unix.CLOCK_REALTIME, &ts); err != nil {
		return fmt.Errorf("clock_settime: %w", err)
	}
	return nil
}
