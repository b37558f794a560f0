package outbox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// routeTable is the routing table PollRoutes reads when netlink fails.
const routeTable = "/proc/net/route"

// pollEvery is the fallback poll's interval.
const pollEvery = 30 * time.Second

// RouteChanges watches the kernel's routing and interface messages
// (netlink: links, addresses and routes, IPv4 and IPv6), and falls back
// to polling /proc/net/route when netlink cannot be opened.
func RouteChanges(ctx context.Context) (<-chan struct{}, error) {
	ch, err := netlinkChanges(ctx)
	if err == nil {
		return ch, nil
	}
	pch, perr := PollRoutes(routeTable, pollEvery)(ctx)
	if perr != nil {
		return nil, errors.Join(err, perr)
	}
	return pch, nil
}

func netlinkChanges(ctx context.Context) (<-chan struct{}, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil, fmt.Errorf("opening a netlink socket: %w", err)
	}
	groups := uint32(unix.RTMGRP_LINK | unix.RTMGRP_IPV4_IFADDR | unix.RTMGRP_IPV4_ROUTE |
		unix.RTMGRP_IPV6_IFADDR | unix.RTMGRP_IPV6_ROUTE)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK, Groups: groups}); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("binding the netlink socket: %w", err)
	}
	// A receive timeout lets the reader see ctx end without closing the
	// socket under a blocked read.
	tv := unix.Timeval{Sec: 1}
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("setting the netlink timeout: %w", err)
	}
	ch := make(chan struct{}, 1)
	go func() {
		defer close(ch)
		defer unix.Close(fd)
		buf := make([]byte, 16<<10)
		for ctx.Err() == nil {
			n, _, err := unix.Recvfrom(fd, buf, 0)
			switch {
			case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR):
				continue
			case errors.Is(err, unix.ENOBUFS):
				// Messages were dropped: something changed all the same.
				signal(ch)
			case err != nil:
				return
			case n > 0:
				signal(ch)
			}
		}
	}()
	return ch, nil
}
