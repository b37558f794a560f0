package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sys/unix"
)

// radioNamespaces says which virtual radio goes where: wlan0 stays the
// box's own (the Pi's built-in radio), the others play a guest's phone and
// the hosts' home access point, each in a network namespace of its own.
var radioNamespaces = map[string]string{"wlan1": "phone", "wlan2": "home"}

// crowdNamespace names the namespace of the crowd's phone n (from 1):
// radio wlan(n+2) goes there when the rig has more than three radios.
func crowdNamespace(n int) string { return fmt.Sprintf("crowd%02d", n) }

// radios loads mac80211_hwsim with count virtual radios (at least three)
// and moves all but wlan0 into their namespaces: wlan1 and wlan2 as above,
// wlan3 and on each in a crowd phone's own (crowd01, crowd02, ...). It
// runs before NetworkManager, which then manages only wlan0, and stays:
// this process holds the namespaces (holdNetns), and tells systemd it is
// ready (its unit is Type=notify) once every radio is in place.
func radios(args []string) error {
	count := 3
	if len(args) > 0 {
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 3 || n > 100 {
			return fmt.Errorf("radios %q: want a count from 3 to 100", args[0])
		}
		count = n
	}
	where := map[string]string{}
	for iface, ns := range radioNamespaces {
		where[iface] = ns
	}
	for i := 3; i < count; i++ {
		where[fmt.Sprintf("wlan%d", i)] = crowdNamespace(i - 2)
	}
	// The Pi's radio is there from the start; the virtual ones come with
	// their module, loaded here (systemd's module loading gives up after
	// 90 s, which full emulation on a busy machine can take).
	if _, err := os.Stat("/sys/module/mac80211_hwsim"); err != nil {
		if out, err := exec.Command("modprobe", "mac80211_hwsim", fmt.Sprintf("radios=%d", count)).CombinedOutput(); err != nil {
			return fmt.Errorf("loading mac80211_hwsim: %v: %s", err, out)
		}
	}
	// Each radio's namespace is made in this process and the radios are
	// moved a few at a time: an emulated box spends about a second on each
	// program it starts, and the crowd's rig has dozens of radios.
	var g errgroup.Group
	g.SetLimit(4)
	for iface, ns := range where {
		g.Go(func() error {
			if err := holdNetns(ns); err != nil {
				return err
			}
			phy, err := phyOf(iface)
			if err != nil {
				return err
			}
			if out, err := exec.Command("iw", "phy", phy, "set", "netns", "name", ns).CombinedOutput(); err != nil {
				return fmt.Errorf("moving %s (%s) to %s: %v: %s", phy, iface, ns, err, out)
			}
			fmt.Printf("boxagent: %s (%s) is in namespace %s\n", iface, phy, ns)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := notifyReady(); err != nil {
		return err
	}
	// The namespaces live as long as this process: it waits for systemd
	// to stop it.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, unix.SIGTERM, unix.SIGINT)
	<-stop
	return nil
}

// holdNetns makes a named network namespace that this process holds
// open, and names it with a link /run/netns/NAME to the open file
// (/proc/PID/fd/N), where nsenter, iw and the other commands look for it.
// Unlike `ip netns add` (addNetns), it mounts nothing: systemd makes a
// unit of every mount and, in full emulation, a crowd's dozens of them
// cost the box minutes of CPU at boot and after.
func holdNetns(name string) error {
	return newNetns(name, func(self, path string) error {
		// A raw descriptor, not an *os.File, whose finalizer would close
		// it: it stays open (and so the namespace alive) until the
		// process ends.
		fd, err := unix.Open(self, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		return os.Symlink(fmt.Sprintf("/proc/%d/fd/%d", os.Getpid(), fd), path)
	})
}

// notifyReady tells systemd the service is ready (sd_notify's READY=1),
// when it runs under a unit of Type=notify.
func notifyReady() error {
	sock := os.Getenv("NOTIFY_SOCKET")
	if sock == "" {
		return nil
	}
	if sock[0] == '@' {
		sock = "\x00" + sock[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: sock, Net: "unixgram"})
	if err != nil {
		return fmt.Errorf("telling systemd the radios are ready: %w", err)
	}
	defer c.Close()
	_, err = c.Write([]byte("READY=1"))
	return err
}

// addNetns makes a named network namespace as `ip netns add` does: a new
// namespace kept alive by a bind mount at /run/netns/NAME, which outlives
// this process.
func addNetns(name string) error {
	return newNetns(name, func(self, path string) error {
		if err := os.WriteFile(path, nil, 0o444); err != nil {
			return err
		}
		return unix.Mount(self, path, "", unix.MS_BIND, "")
	})
}

// newNetns makes the network namespace /run/netns/NAME unless it is there:
// on a thread of its own, which unshares its network namespace and ends
// with it, keep(self, path) makes it last (self is the thread's namespace
// file under /proc, path /run/netns/NAME).
func newNetns(name string, keep func(self, path string) error) error {
	path := filepath.Join("/run/netns", name)
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if err := os.MkdirAll("/run/netns", 0o755); err != nil {
		return err
	}
	ch := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, in the new namespace, ends with
		// this goroutine.
		runtime.LockOSThread()
		if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
			ch <- fmt.Errorf("making namespace %s: %w", name, err)
			return
		}
		if err := keep(fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid()), path); err != nil {
			ch <- fmt.Errorf("keeping namespace %s at %s: %w", name, path, err)
			return
		}
		ch <- nil
	}()
	return <-ch
}

// phyOf names the wiphy of a network interface.
func phyOf(iface string) (string, error) {
	b, err := os.ReadFile(filepath.Join("/sys/class/net", iface, "phy80211/name"))
	if err != nil {
		return "", fmt.Errorf("no radio %s (is mac80211_hwsim loaded with enough radios?): %w", iface, err)
	}
	return strings.TrimSpace(string(b)), nil
}
