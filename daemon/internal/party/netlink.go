package party

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
)

// Shape is the radio the guests share, as the kernel's traffic control
// plays it on the guests' side of a veth pair: a rate (each way), a
// one-way delay with its jitter, and a loss rate (each way).
type Shape struct {
	// RateMbit is the link's rate each way, in Mbit/s.
	RateMbit float64
	// DelayMs and JitterMs are each way's delay: DelayMs ± JitterMs.
	DelayMs, JitterMs float64
	// LossPct is the share of packets dropped each way, in percent.
	LossPct float64
}

// String says the shape in the words of the report.
func (s Shape) String() string {
	return fmt.Sprintf("%.0f Mbit/s each way (the kernel's htb), %.1f±%.0f ms each way (round trip %.0f–%.0f ms; the tool's connections), %.1f %% of packets lost each way (nftables)",
		s.RateMbit, s.DelayMs, s.JitterMs, 2*(s.DelayMs-s.JitterMs), 2*(s.DelayMs+s.JitterMs), s.LossPct)
}

// Link is the party's network: the box in a network namespace of its own,
// reached by the guests through a shaped veth pair (each guest from an
// address of its own on the host's end) and by the operator (the hosts
// at home: the end of the party, the checks) through a second veth pair
// that is not shaped. Nothing of the machine's own network changes.
type Link struct {
	// NS is the box's network namespace.
	NS string
	// Box is the box's address on the guests' link, Home its address on
	// the unshaped one, HomeHost the host's address there (where the home
	// servers listen for the box).
	Box, Home, HomeHost net.IP
	// Guests are the addresses the guests' phones send from.
	Guests []net.IP
	// Watchers are the addresses of the consoles, walls and the health
	// sampler, on the shaped link too.
	Watchers []net.IP
	undo     []func()
}

// run runs a command and wraps its output into the error.
func run(ctx context.Context, stdin string, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

// NewLink makes the namespace and both veth pairs, gives the guests and
// watchers their addresses and shapes the guests' link both ways. It
// needs root (CAP_NET_ADMIN); Close takes everything down.
func NewLink(ctx context.Context, guests, watchers int, s Shape) (*Link, error) {
	if guests+watchers > 250*200 {
		return nil, fmt.Errorf("too many addresses: %d", guests+watchers)
	}
	removeStale(ctx)
	id := os.Getpid() % 100000
	l := &Link{NS: fmt.Sprintf("ebparty%d", id),
		Box: net.IPv4(10, 77, 0, 2), Home: net.IPv4(10, 78, 0, 2), HomeHost: net.IPv4(10, 78, 0, 1)}
	gh, gb := fmt.Sprintf("ebg%dh", id), fmt.Sprintf("ebg%db", id)
	hh, hb := fmt.Sprintf("ebh%dh", id), fmt.Sprintf("ebh%db", id)
	step := func(args ...string) error { return run(ctx, "", "ip", args...) }
	if err := step("netns", "add", l.NS); err != nil {
		return nil, err
	}
	l.undo = append(l.undo, func() { run(context.Background(), "", "ip", "netns", "del", l.NS) })
	in := func(args ...string) error { return step(append([]string{"-n", l.NS}, args...)...) }
	var batch strings.Builder
	for i := range guests + watchers {
		ip := net.IPv4(10, 77, byte(1+i/250), byte(1+i%250))
		if i < guests {
			l.Guests = append(l.Guests, ip)
		} else {
			l.Watchers = append(l.Watchers, ip)
		}
		fmt.Fprintf(&batch, "addr add %s/16 dev %s\n", ip, gh)
	}
	steps := []func() error{
		func() error { return step("link", "add", gh, "type", "veth", "peer", "name", gb) },
		func() error { return step("link", "add", hh, "type", "veth", "peer", "name", hb) },
		func() error { return step("link", "set", gb, "netns", l.NS) },
		func() error { return step("link", "set", hb, "netns", l.NS) },
		func() error { return step("addr", "add", "10.77.0.1/16", "dev", gh) },
		func() error { return run(ctx, batch.String(), "ip", "-batch", "-") },
		func() error { return step("addr", "add", l.HomeHost.String()+"/24", "dev", hh) },
		func() error { return in("addr", "add", l.Box.String()+"/16", "dev", gb) },
		func() error { return in("addr", "add", l.Home.String()+"/24", "dev", hb) },
		func() error { return step("link", "set", gh, "up") },
		func() error { return step("link", "set", hh, "up") },
		func() error { return in("link", "set", gb, "up") },
		func() error { return in("link", "set", hb, "up") },
		func() error { return in("link", "set", "lo", "up") },
		func() error { return shape(ctx, nil, gh, s) },
		func() error { return shape(ctx, []string{"-n", l.NS}, gb, s) },
	}
	l.undo = append(l.undo, func() {
		run(context.Background(), "", "ip", "link", "del", gh)
		run(context.Background(), "", "ip", "link", "del", hh)
	})
	for _, f := range steps {
		if err := f(); err != nil {
			l.Close()
			return nil, fmt.Errorf("making the party's network: %w", err)
		}
	}
	return l, nil
}

// removeStale takes down the network of an earlier party whose process
// is gone (killed before it could clean up): its addresses would shadow
// this party's.
func removeStale(ctx context.Context) {
	out, err := exec.CommandContext(ctx, "ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pid, ok := strings.CutPrefix(f[0], "ebparty")
		if !ok {
			continue
		}
		if _, err := os.Stat("/proc/" + pid); err == nil {
			continue // its party goes on
		}
		if pids, err := exec.CommandContext(ctx, "ip", "netns", "pids", f[0]).Output(); err == nil {
			for _, p := range strings.Fields(string(pids)) {
				run(ctx, "", "kill", "-9", p)
			}
		}
		run(ctx, "", "ip", "netns", "del", f[0])
		run(ctx, "", "ip", "link", "del", "ebg"+pid+"h")
		run(ctx, "", "ip", "link", "del", "ebh"+pid+"h")
	}
}

// shape puts the link's rate on dev's way out (the kernel's htb) and
// drops LossPct of the packets that cross it each way (nftables' random
// numbers, in the namespace given, on the box's end). The delay is not
// the kernel's: this machine's kernels may lack netem, so the party's
// own connections carry it (delayConn).
func shape(ctx context.Context, ns []string, dev string, s Shape) error {
	tc := func(args ...string) error { return run(ctx, "", "tc", append(ns, args...)...) }
	rate := fmt.Sprintf("%.0fkbit", s.RateMbit*1000)
	if err := tc("qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10"); err != nil {
		return err
	}
	if err := tc("class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb", "rate", rate, "ceil", rate); err != nil {
		return err
	}
	if len(ns) == 0 || s.LossPct <= 0 {
		return nil
	}
	per := int(s.LossPct * 100) // in ten-thousandths
	rules := fmt.Sprintf(`table inet party {
	chain in { type filter hook input priority 0; iifname %q numgen random mod 10000 < %d drop; }
	chain out { type filter hook output priority 0; oifname %q numgen random mod 10000 < %d drop; }
}
`, dev, per, dev, per)
	return run(ctx, rules, "ip", "netns", "exec", ns[1], "nft", "-f", "-")
}

// Command is name with args run inside the box's namespace.
func (l *Link) Command(name string, args ...string) *exec.Cmd {
	return exec.Command("ip", append([]string{"netns", "exec", l.NS, name}, args...)...)
}

// Close takes the network down.
func (l *Link) Close() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		l.undo[i]()
	}
	l.undo = nil
}

// Forward accepts on listen and copies each connection both ways to
// target (a server of the host's loopback the box must reach from its
// namespace: the SMTP server); it stops when ctx ends.
func Forward(ctx context.Context, listen, target string) (string, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return "", fmt.Errorf("listening to forward to %s: %w", target, err)
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				t, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer t.Close()
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					io.Copy(t, c)
					t.(*net.TCPConn).CloseWrite()
				}()
				io.Copy(c, t)
				wg.Wait()
			}()
		}
	}()
	return ln.Addr().String(), nil
}
