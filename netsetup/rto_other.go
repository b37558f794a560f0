//go:build !linux

package netsetup

import (
	"errors"
	"net"
	"time"
)

// SetRTOMin puts d under c's retransmission timeout, on Linux only;
// elsewhere it fails with errors.ErrUnsupported.
func SetRTOMin(c *net.TCPConn, d time.Duration) error { return errors.ErrUnsupported }
