package netsetup

import (
	"log/slog"
	"net"
	"sync"
	"time"
)

// RTOMin is the floor the box puts under the retransmission timeout of
// the connections it accepts. Linux's own floor is 200 ms: a packet the
// radio loses is sent again no sooner than 200 ms later, and a lone lost
// answer (one packet in flight) waits for a probe at two round trips plus
// that floor. On the hotspot a round trip takes 5–30 ms, so a lost answer
// cost a phone seven times its round trip. Linux still sets each
// connection's timeout from its measured round trip and how much that
// varies (the round trip plus at least four times its variation), so a
// phone whose radio sleeps between beacons keeps a longer timeout; the
// floor only stops a steady link from waiting 200 ms
// (docs/decisions.md, "A lost answer is sent again sooner").
const RTOMin = 50 * time.Millisecond

// RTOListener accepts TCP connections with RTOMin under their
// retransmission timeout. A kernel that cannot (before Linux 6.15) is
// logged once, and its connections keep the kernel's floor.
type RTOListener struct {
	*net.TCPListener
	Logger *slog.Logger
	once   sync.Once
}

// Accept waits for the next connection and sets its floor.
func (l *RTOListener) Accept() (net.Conn, error) {
	c, err := l.AcceptTCP()
	if err != nil {
		return nil, err
	}
	if err := SetRTOMin(c, RTOMin); err != nil && l.Logger != nil {
		l.once.Do(func() {
			l.Logger.Info("the kernel keeps its own retransmission floor", "error", err)
		})
	}
	return c, nil
}
