package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Lease is what the hotspot's DHCP server handed out.
type Lease struct {
	IP     net.IP `json:"ip"`
	Mask   net.IP `json:"mask"`
	Router net.IP `json:"router"`
	DNS    net.IP `json:"dns"`
	Server net.IP `json:"server"`
}

// dhcp asks for an address on iface as a phone does (DISCOVER, OFFER,
// REQUEST, ACK, broadcast replies), over a UDP socket bound to the
// interface: the interface has no address yet.
func dhcp(iface string, timeout time.Duration) (*Lease, error) {
	ifi, err := net.InterfaceByName(iface)
	if err != nil {
		return nil, err
	}
	// The server's replies come from an address the interface has no
	// route to yet: no reverse-path filter in the phone's namespace.
	for _, p := range []string{"all", "default", iface} {
		_ = os.WriteFile("/proc/sys/net/ipv4/conf/"+p+"/rp_filter", []byte("0"), 0o644)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, unix.IPPROTO_UDP)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	for _, o := range []struct{ level, opt int }{{unix.SOL_SOCKET, unix.SO_REUSEADDR}, {unix.SOL_SOCKET, unix.SO_BROADCAST}} {
		if err := unix.SetsockoptInt(fd, o.level, o.opt, 1); err != nil {
			return nil, err
		}
	}
	if err := unix.BindToDevice(fd, iface); err != nil {
		return nil, fmt.Errorf("binding to %s: %w", iface, err)
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: 68}); err != nil {
		return nil, fmt.Errorf("binding port 68: %w", err)
	}
	tv := unix.NsecToTimeval(int64(2 * time.Second))
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		return nil, err
	}
	var xidb [4]byte
	_, _ = rand.Read(xidb[:])
	xid := binary.BigEndian.Uint32(xidb[:])
	bcast := &unix.SockaddrInet4{Port: 67, Addr: [4]byte{255, 255, 255, 255}}
	deadline := time.Now().Add(timeout)

	exchange := func(msg []byte, want byte) (yiaddr net.IP, opts map[byte][]byte, err error) {
		for time.Now().Before(deadline) {
			if err := unix.Sendto(fd, msg, 0, bcast); err != nil {
				return nil, nil, fmt.Errorf("sending: %w", err)
			}
			buf := make([]byte, 1500)
			for {
				n, _, err := unix.Recvfrom(fd, buf, 0)
				if err != nil {
					break // timed out: send again
				}
				ip, o, ok := parseDHCP(buf[:n], xid)
				if ok && len(o[53]) == 1 && o[53][0] == want {
					return ip, o, nil
				}
			}
		}
		return nil, nil, fmt.Errorf("no DHCP answer of type %d on %s in %s", want, iface, timeout)
	}
	offered, offer, err := exchange(dhcpMessage(xid, ifi.HardwareAddr, 1, nil, nil), 2)
	if err != nil {
		return nil, err
	}
	server := offer[54]
	acked, opts, err := exchange(dhcpMessage(xid, ifi.HardwareAddr, 3, offered, server), 5)
	if err != nil {
		return nil, err
	}
	return &Lease{IP: acked, Mask: net.IP(opts[1]), Router: first4(opts[3]), DNS: first4(opts[6]), Server: net.IP(server)}, nil
}

func first4(b []byte) net.IP {
	if len(b) < 4 {
		return nil
	}
	return net.IP(b[:4])
}

// dhcpMessage is a BOOTREQUEST of the given DHCP type; the requested
// address and server go in options 50 and 54.
func dhcpMessage(xid uint32, mac net.HardwareAddr, typ byte, requested net.IP, server []byte) []byte {
	m := make([]byte, 240, 300)
	m[0], m[1], m[2] = 1, 1, 6
	binary.BigEndian.PutUint32(m[4:], xid)
	binary.BigEndian.PutUint16(m[10:], 0x8000) // replies broadcast
	copy(m[28:], mac)
	copy(m[236:], []byte{99, 130, 83, 99})
	m = append(m, 53, 1, typ)
	if requested != nil {
		m = append(m, 50, 4)
		m = append(m, requested.To4()...)
	}
	if server != nil {
		m = append(m, 54, byte(len(server)))
		m = append(m, server...)
	}
	m = append(m, 12, 5, 'p', 'h', 'o', 'n', 'e')
	m = append(m, 55, 3, 1, 3, 6, 255)
	return m
}

// parseDHCP reads a BOOTREPLY for xid: the offered address and the
// options (the address also under key 0).
func parseDHCP(b []byte, xid uint32) (net.IP, map[byte][]byte, bool) {
	if len(b) < 240 || b[0] != 2 || binary.BigEndian.Uint32(b[4:]) != xid {
		return nil, nil, false
	}
	yi := net.IPv4(b[16], b[17], b[18], b[19]).To4()
	opts := map[byte][]byte{0: yi}
	for i := 240; i < len(b); {
		code := b[i]
		if code == 255 {
			break
		}
		if code == 0 {
			i++
			continue
		}
		if i+1 >= len(b) || i+2+int(b[i+1]) > len(b) {
			break
		}
		opts[code] = b[i+2 : i+2+int(b[i+1])]
		i += 2 + int(b[i+1])
	}
	return yi, opts, true
}

// configure gives iface the lease's address and a default route through
// its router, with the old ioctls (the image has no ip(8)).
func configure(iface string, l *Lease) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	set := func(req uint, ip net.IP) error {
		ifr, err := unix.NewIfreq(iface)
		if err != nil {
			return err
		}
		if err := ifr.SetInet4Addr(ip.To4()); err != nil {
			return err
		}
		return unix.IoctlIfreq(fd, req, ifr)
	}
	if err := set(unix.SIOCSIFADDR, l.IP); err != nil {
		return fmt.Errorf("setting %s's address: %w", iface, err)
	}
	if l.Mask != nil {
		if err := set(unix.SIOCSIFNETMASK, l.Mask); err != nil {
			return fmt.Errorf("setting %s's netmask: %w", iface, err)
		}
	}
	if err := up(fd, "lo"); err != nil {
		return err
	}
	if l.Router == nil {
		return nil
	}
	return addDefaultRoute(fd, iface, l.Router)
}

func up(fd int, iface string) error {
	ifr, err := unix.NewIfreq(iface)
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// rtentry is struct rtentry of <net/route.h> for 64-bit Linux.
type rtentry struct {
	pad1    uint64
	dst     unix.RawSockaddrInet4
	gateway unix.RawSockaddrInet4
	genmask unix.RawSockaddrInet4
	flags   uint16
	pad2    int16
	pad3    uint64
	pad4    uintptr
	metric  int16
	dev     *byte
	mtu     uint64
	window  uint64
	irtt    uint16
}

func addDefaultRoute(fd int, iface string, gw net.IP) error {
	dev, err := unix.BytePtrFromString(iface)
	if err != nil {
		return err
	}
	rt := rtentry{flags: unix.RTF_UP | unix.RTF_GATEWAY, dev: dev}
	rt.dst.Family, rt.gateway.Family, rt.genmask.Family = unix.AF_INET, unix.AF_INET, unix.AF_INET
	copy(rt.gateway.Addr[:], gw.To4())
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCADDRT, uintptr(unsafe.Pointer(&rt))); e != 0 && !errors.Is(e, unix.EEXIST) {
		return fmt.Errorf("adding the default route via %s: %w", gw, e)
	}
	return nil
}
