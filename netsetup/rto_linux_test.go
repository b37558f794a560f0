package netsetup

import (
	"errors"
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// The connections RTOListener accepts carry RTOMin as their
// retransmission floor (the kernel keeps it in ticks: up to one tick
// more).
func TestRTOListenerLowersTheRetransmissionFloor(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &RTOListener{TCPListener: ln.(*net.TCPListener)}
	defer l.Close()
	dialed := make(chan net.Conn, 1)
	go func() {
		c, _ := net.Dial("tcp", ln.Addr().String())
		dialed <- c
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	d := <-dialed
	if d == nil {
		t.Fatal("the dial failed")
	}
	defer d.Close()
	// The kernel's support, asked on the other end.
	if err := SetRTOMin(d.(*net.TCPConn), RTOMin); errors.Is(err, unix.ENOPROTOOPT) {
		t.Skipf("this kernel has no TCP_RTO_MIN_US (Linux 6.15): %v", err)
	}
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var got int
	var gerr error
	rc.Control(func(fd uintptr) { got, gerr = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_RTO_MIN_US) })
	if gerr != nil {
		t.Fatal(gerr)
	}
	want := int(RTOMin.Microseconds())
	if got < want || got > want+10000 {
		t.Errorf("an accepted connection's retransmission floor is %d µs, want %d (the kernel's is 200000)", got, want)
	}
}
