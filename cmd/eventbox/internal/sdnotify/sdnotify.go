// Package sdnotify speaks systemd's notify protocol (sd_notify(3)) in
// plain Go: datagrams such as "READY=1" and "WATCHDOG=1" to the unix
// socket named by $NOTIFY_SOCKET. Outside systemd (no socket) every call
// does nothing, so the daemon runs the same by hand.
package sdnotify

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

// Notifier sends notifications to the service manager. The zero value,
// and nil, send nothing.
type Notifier struct {
	socket   string
	watchdog time.Duration
}

// FromEnv reads NOTIFY_SOCKET, and WATCHDOG_USEC when WATCHDOG_PID is
// unset or names this process (systemd sets both for Type=notify units
// with WatchdogSec; an exec keeps the process, so they stay right).
func FromEnv(getenv func(string) string) *Notifier {
	n := &Notifier{socket: getenv("NOTIFY_SOCKET")}
	if pid := getenv("WATCHDOG_PID"); pid == "" || pid == strconv.Itoa(os.Getpid()) {
		if usec, err := strconv.ParseInt(getenv("WATCHDOG_USEC"), 10, 64); err == nil && usec > 0 {
			n.watchdog = time.Duration(usec) * time.Microsecond
		}
	}
	return n
}

// Enabled reports whether a service manager listens.
func (n *Notifier) Enabled() bool { return n != nil && n.socket != "" }

// Watchdog is the service manager's watchdog period: WATCHDOG=1 must
// come more often than that. Zero: no watchdog.
func (n *Notifier) Watchdog() time.Duration {
	if !n.Enabled() {
		return 0
	}
	return n.watchdog
}

// Send sends state, e.g. "READY=1" or "WATCHDOG=1"; without a service
// manager it does nothing. An address starting with "@" is an abstract
// socket (Go's net package maps it).
func (n *Notifier) Send(state string) error {
	if !n.Enabled() {
		return nil
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: n.socket, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("reaching the service manager: %w", err)
	}
	defer c.Close()
	if _, err := c.Write([]byte(state)); err != nil {
		return fmt.Errorf("telling the service manager %s: %w", state, err)
	}
	return nil
}
