package netsetup

import (
	"fmt"
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// SetRTOMin puts d under c's retransmission timeout (TCP_RTO_MIN_US,
// Linux 6.15 and later). On an older kernel it fails with an error
// wrapping unix.ENOPROTOOPT, and c keeps the kernel's floor (200 ms).
func SetRTOMin(c *net.TCPConn, d time.Duration) error {
	rc, err := c.SyscallConn()
	if err != nil {
		return fmt.Errorf("setting the retransmission floor: %w", err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_RTO_MIN_US, int(d.Microseconds()))
	}); err != nil {
		return fmt.Errorf("setting the retransmission floor: %w", err)
	}
	if serr != nil {
		return fmt.Errorf("setting the retransmission floor to %s: %w", d, serr)
	}
	return nil
}
