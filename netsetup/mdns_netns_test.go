package netsetup_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"eventbox/internal/testtool"
	"eventbox/netsetup"
)

// The mDNS test re-runs this test binary inside a network namespace as the
// responder; these variables tell it so.
const (
	helperNameEnv = "EVENTBOX_MDNS_HELPER_NAME"
	helperPortEnv = "EVENTBOX_MDNS_HELPER_PORT"
)

func TestMain(m *testing.M) {
	if name := os.Getenv(helperNameEnv); name != "" {
		os.Exit(runResponder(name))
	}
	os.Exit(m.Run())
}

// runResponder advertises name until SIGTERM, for TestMDNSAnswersARealResolver.
func runResponder(name string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	port, _ := strconv.Atoi(os.Getenv(helperPortEnv))
	a, err := netsetup.NewAdvertiser(netsetup.MDNSConfig{Name: name, Port: port, PollInterval: 300 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if err := a.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestMDNSAnswersARealResolver runs the Advertiser in one network namespace
// and avahi in another, joined by a veth pair, and checks that avahi
// resolves <name>.local on a cold cache and browses the service, then that
// the same holds on a link that comes up after the Advertiser started.
func TestMDNSAnswersARealResolver(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root for network namespaces")
	}
	testtool.Need(t, "iproute2, util-linux, dbus, avahi-daemon, avahi-utils", "ip", "unshare", "dbus-daemon", "avahi-daemon", "avahi-resolve", "avahi-browse")
	n := &netns{t: t, dir: t.TempDir(), id: strconv.Itoa(os.Getpid() % 100000)}
	booth, client := "ebm-b"+n.id, "ebm-c"+n.id
	n.addNamespace(booth)
	n.addNamespace(client)
	n.link(booth, "ebb"+n.id, "192.168.77.1/24", client, "ebc"+n.id, "192.168.77.2/24")
	bus := n.startBus()

	name := "eventbox-test" + n.id
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	n.start("responder", []string{helperNameEnv + "=" + name, helperPortEnv + "=8080"},
		"ip", "netns", "exec", booth, exe, "-test.run=^$")

	// zeroconf's announcements carry the address record, so a resolver
	// that hears them would answer from its cache. Start avahi after they
	// are over (about 3.5 s) so that its cache is cold and only a direct
	// answer to the address query can satisfy avahi-resolve.
	const announcements = 4500 * time.Millisecond
	time.Sleep(announcements)

	t.Run("avahi resolves the host name and browses the service", func(t *testing.T) {
		stop := n.startAvahi(client, "ebc"+n.id, bus)
		defer stop()
		n.expect(client, bus, []string{"avahi-resolve", "-4", "-n", name + ".local"}, name+".local\t192.168.77.1")
		n.expect(client, bus, []string{"avahi-browse", "-rtp", "_http._tcp"},
			`=;ebc`+n.id+`;IPv4;eventbox;Web Site;local;`+name+`.local;192.168.77.1;8080;"path=/"`)
	})

	t.Run("a link that comes up later is answered on too", func(t *testing.T) {
		n.link(booth, "ebb2"+n.id, "192.168.78.1/24", client, "ebc2"+n.id, "192.168.78.2/24")
		time.Sleep(announcements) // a poll (0.3 s) plus the new announcements
		stop := n.startAvahi(client, "ebc2"+n.id, bus)
		defer stop()
		n.expect(client, bus, []string{"avahi-resolve", "-4", "-n", name + ".local"}, name+".local\t192.168.78.1")
		n.expect(client, bus, []string{"avahi-browse", "-rtp", "_http._tcp"},
			`=;ebc2`+n.id+`;IPv4;eventbox;Web Site;local;`+name+`.local;192.168.78.1;8080;"path=/"`)
	})
}

// netns sets up and tears down the namespaces and processes of the test.
type netns struct {
	t   *testing.T
	dir string
	id  string
}

func (n *netns) run(args ...string) {
	n.t.Helper()
	if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		n.t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (n *netns) addNamespace(name string) {
	n.run("ip", "netns", "add", name)
	n.t.Cleanup(func() { _ = exec.Command("ip", "netns", "del", name).Run() })
	n.run("ip", "-n", name, "link", "set", "lo", "up")
}

func (n *netns) link(nsA, ifA, addrA, nsB, ifB, addrB string) {
	n.run("ip", "link", "add", ifA, "netns", nsA, "type", "veth", "peer", "name", ifB, "netns", nsB)
	n.run("ip", "-n", nsA, "addr", "add", addrA, "dev", ifA)
	n.run("ip", "-n", nsB, "addr", "add", addrB, "dev", ifB)
	n.run("ip", "-n", nsA, "link", "set", ifA, "up")
	n.run("ip", "-n", nsB, "link", "set", ifB, "up")
}

// start runs a process until the test ends, then stops it with SIGTERM.
func (n *netns) start(label string, env []string, args ...string) *exec.Cmd {
	n.t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	logPath := filepath.Join(n.dir, label+".log")
	logFile, err := os.Create(logPath)
	if err != nil {
		n.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		n.t.Fatalf("starting %s: %v", label, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	n.t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = logFile.Close()
		if n.t.Failed() {
			log, _ := os.ReadFile(logPath)
			n.t.Logf("%s log:\n%s", label, log)
		}
	})
	return cmd
}

// startBus starts a private system bus for avahi and returns its address.
func (n *netns) startBus() string {
	sock := filepath.Join(n.dir, "bus")
	n.start("dbus", nil, "dbus-daemon", "--system", "--nofork", "--nopidfile", "--address=unix:path="+sock)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(sock); err == nil {
			return "unix:path=" + sock
		}
		if time.Now().After(deadline) {
			n.t.Fatal("dbus-daemon did not create its socket within 10 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// startAvahi runs avahi-daemon in ns on iface only, with a fresh cache and
// its own /run/avahi-daemon; stop ends it.
func (n *netns) startAvahi(ns, iface, bus string) (stop func()) {
	n.t.Helper()
	conf := filepath.Join(n.dir, "avahi-"+iface+".conf")
	text := "[server]\nhost-name=eb-client" + n.id + "\nuse-ipv4=yes\nuse-ipv6=no\nallow-interfaces=" + iface +
		"\nenable-dbus=yes\ndisallow-other-stacks=no\n[wide-area]\nenable-wide-area=no\n" +
		"[publish]\npublish-hinfo=no\npublish-workstation=no\n"
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		n.t.Fatal(err)
	}
	cmd := exec.Command("ip", "netns", "exec", ns, "unshare", "-m", "sh", "-c",
		"mkdir -p /run/avahi-daemon && mount -t tmpfs tmpfs /run/avahi-daemon && "+
			"exec avahi-daemon -f \"$1\" --no-chroot --no-drop-root --no-rlimits", "sh", conf)
	cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+bus)
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		n.t.Fatalf("starting avahi-daemon: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if n.t.Failed() {
			n.t.Logf("avahi-daemon log:\n%s", log.String())
		}
	}
	// Ready when its startup is complete (it has probed its own host name).
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(log.String(), "Server startup complete") {
		if time.Now().After(deadline) {
			stop()
			n.t.Fatal("avahi-daemon did not start within 15 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
	return stop
}

// lockedBuffer collects the output of a running process, which os/exec
// writes from its own goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// expect runs a resolver command in ns every second until one of its output
// lines equals want, failing after 20 s.
func (n *netns) expect(ns, bus string, argv []string, want string) {
	n.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var last []byte
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		cmd := exec.CommandContext(ctx, "ip", append([]string{"netns", "exec", ns}, argv...)...)
		cmd.Env = append(os.Environ(), "DBUS_SYSTEM_BUS_ADDRESS="+bus)
		last, _ = cmd.CombinedOutput()
		cancel()
		sc := bufio.NewScanner(bytes.NewReader(last))
		for sc.Scan() {
			if sc.Text() == want {
				return
			}
		}
		time.Sleep(time.Second)
	}
	n.t.Errorf("%s never printed %q within 20 s; last output:\n%s", strings.Join(argv, " "), want, last)
}
