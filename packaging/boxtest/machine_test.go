package boxtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// cardImage is the image under test, or a skip.
func cardImage(t *testing.T) string {
	t.Helper()
	image := os.Getenv("EVENTBOX_IMAGE")
	if image == "" {
		t.Skip("EVENTBOX_IMAGE is not set: no card image to boot (make image, then make boxtest)")
	}
	if os.Geteuid() != 0 {
		t.Fatal("EVENTBOX_IMAGE is set but the box test needs root")
	}
	for _, tool := range []string{"qemu-system-aarch64", "debugfs", "mcopy", "sfdisk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s not found (apt-get install qemu-system-arm e2fsprogs mtools fdisk)", tool)
		}
	}
	abs, err := filepath.Abs(image)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

var agentOnce struct {
	sync.Once
	path string
	err  error
}

// boxagent builds the in-machine agent for arm64 once per test binary.
func boxagent(t *testing.T) string {
	t.Helper()
	agentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "boxagent")
		if err != nil {
			agentOnce.err = err
			return
		}
		agentOnce.path = filepath.Join(dir, "boxagent")
		cmd := exec.Command("go", "build", "-trimpath", "-o", agentOnce.path, "./boxagent")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=arm64")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentOnce.err = fmt.Errorf("building boxagent: %v: %s", err, out)
		}
	})
	if agentOnce.err != nil {
		t.Fatal(agentOnce.err)
	}
	return agentOnce.path
}

var hostAgentOnce struct {
	sync.Once
	path string
	err  error
}

// hostAgent builds the agent for the host once per test binary (its pipe
// joins the machine to the test's servers).
func hostAgent(t *testing.T) string {
	t.Helper()
	hostAgentOnce.Do(func() {
		dir, err := os.MkdirTemp("", "boxagent-host")
		if err != nil {
			hostAgentOnce.err = err
			return
		}
		hostAgentOnce.path = filepath.Join(dir, "boxagent")
		cmd := exec.Command("go", "build", "-trimpath", "-o", hostAgentOnce.path, "./boxagent")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			hostAgentOnce.err = fmt.Errorf("building boxagent for the host: %v: %s", err, out)
		}
	})
	if hostAgentOnce.err != nil {
		t.Fatal(hostAgentOnce.err)
	}
	return hostAgentOnce.path
}

// partition is one partition of a card, in bytes.
type partition struct {
	start, size int64
}

func partitions(t *testing.T, card string) []partition {
	t.Helper()
	out, err := exec.Command("sfdisk", "-J", card).Output()
	if err != nil {
		t.Fatalf("sfdisk -J %s: %v", card, err)
	}
	var v struct {
		Partitiontable struct {
			ID         string `json:"id"`
			Partitions []struct {
				Start int64 `json:"start"`
				Size  int64 `json:"size"`
			} `json:"partitions"`
		} `json:"partitiontable"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatal(err)
	}
	var ps []partition
	for _, p := range v.Partitiontable.Partitions {
		ps = append(ps, partition{p.Start * 512, p.Size * 512})
	}
	if len(ps) != 3 {
		t.Fatalf("%s has %d partitions, want boot, root and data", card, len(ps))
	}
	return ps
}

// card is the test's own copy of the image, grown as a bigger card would
// be, with the agent written into its root.
type card struct {
	path  string
	parts []partition
	dir   string
	// reach names servers the test runs on the host that the machine may
	// reach, by the address it dials in the user network (IP:PORT) and
	// the host's address it reaches (reachHost).
	reach map[string]string
	// owner, when set, is the test whose end powers off the machines
	// booted from the card, whichever of its subtests booted them.
	owner *testing.T
}

// reachHost lets the machine reach the host's server at hostAddr by
// dialling guestAddr (in qemu's user network, for example
// 10.0.2.100:80), from its next boot on; nothing else of the host is
// reachable. qemu runs the agent's pipe on the host for each connection.
func (c *card) reachHost(t *testing.T, guestAddr, hostAddr string) {
	t.Helper()
	if c.reach == nil {
		c.reach = map[string]string{}
	}
	c.reach[guestAddr] = hostAddr
}

// newCard copies the image into dir, grows it by 1 GiB, writes the agent
// and its units into the root, and settings
// (when not empty) as eventbox.txt on the boot partition. The rig has
// three virtual radios: the box's, a phone's and the home's.
func newCard(t *testing.T, image, dir, settings string) *card {
	t.Helper()
	return newCardWith(t, image, dir, settings, cardOptions{})
}

// cardOptions are a card's differences from newCard's.
type cardOptions struct {
	// Radios is how many virtual radios the rig has (3 when 0): those
	// beyond the third are the crowd's phones (boxagent radios).
	Radios int
	// Env lines (KEY=value) are added to the service's settings,
	// /etc/default/eventbox.
	Env []string
}

// newCardWith is newCard with opts.
func newCardWith(t *testing.T, image, dir, settings string, opts cardOptions) *card {
	t.Helper()
	radios := max(opts.Radios, 3)
	path := filepath.Join(dir, "card.img")
	run(t, "cp", "--sparse=always", image, path)
	run(t, "truncate", "-s", "+1G", path)
	c := &card{path: path, parts: partitions(t, path), dir: dir}
	agent := boxagent(t)
	files := map[string]string{
		"boxtest-radios.service": `[Unit]
Description=box test: the phone's and home's radios in their namespaces
Before=NetworkManager.service eventbox.service
[Service]
# The agent holds the namespaces: it stays, and says when the radios are in.
Type=notify
NotifyAccess=main
ExecStart=/usr/local/lib/boxtest/boxagent radios ` + fmt.Sprint(radios) + `
[Install]
WantedBy=multi-user.target
`,
		"boxtest-agent.service": `[Unit]
Description=box test: the test's control channel
[Service]
ExecStart=/usr/local/lib/boxtest/boxagent serve :7000
Restart=always
[Install]
WantedBy=multi-user.target
`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmds := []string{
		"mkdir /usr/local/lib/boxtest",
		"write " + agent + " /usr/local/lib/boxtest/boxagent",
		"sif /usr/local/lib/boxtest/boxagent mode 0100755",
		"write " + filepath.Join(dir, "boxtest-radios.service") + " /etc/systemd/system/boxtest-radios.service",
		"write " + filepath.Join(dir, "boxtest-agent.service") + " /etc/systemd/system/boxtest-agent.service",
		"mkdir /etc/systemd/system/multi-user.target.wants",
		"symlink /etc/systemd/system/multi-user.target.wants/boxtest-radios.service /etc/systemd/system/boxtest-radios.service",
		"symlink /etc/systemd/system/multi-user.target.wants/boxtest-agent.service /etc/systemd/system/boxtest-agent.service",
	}
	if len(opts.Env) > 0 {
		old, err := exec.Command("debugfs", "-R", "cat /etc/default/eventbox", fmt.Sprintf("%s?offset=%d", path, c.parts[1].start)).Output()
		if err != nil {
			t.Fatalf("reading the card's /etc/default/eventbox: %v", err)
		}
		f := filepath.Join(dir, "eventbox.env")
		if err := os.WriteFile(f, []byte(string(old)+"\n"+strings.Join(opts.Env, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, "rm /etc/default/eventbox", "write "+f+" /etc/default/eventbox", "sif /etc/default/eventbox mode 0100600")
	}
	// BOXTEST_EVENTBOX puts another arm64 build of the daemon in the card
	// (for example one with an fsync taken out, to see the power cuts
	// find it).
	if bin := os.Getenv("BOXTEST_EVENTBOX"); bin != "" {
		cmds = append(cmds, "rm /usr/bin/eventbox", "write "+bin+" /usr/bin/eventbox", "sif /usr/bin/eventbox mode 0100755")
		t.Logf("the card runs %s as /usr/bin/eventbox (BOXTEST_EVENTBOX)", bin)
	}
	script := filepath.Join(dir, "debugfs.cmds")
	if err := os.WriteFile(script, []byte(strings.Join(cmds, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := run(t, "debugfs", "-w", "-f", script, fmt.Sprintf("%s?offset=%d", path, c.parts[1].start))
	if strings.Contains(out, "Filesystem opened read/only") || strings.Contains(out, "No such file") {
		t.Fatalf("debugfs on the card's root:\n%s", out)
	}
	if settings != "" {
		f := filepath.Join(dir, "eventbox.txt")
		if err := os.WriteFile(f, []byte(settings), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, "mcopy", "-o", "-i", c.boot(), f, "::eventbox.txt")
	}
	return c
}

// boot names the boot partition for mtools.
func (c *card) boot() string { return fmt.Sprintf("%s@@%d", c.path, c.parts[0].start) }

// readBoot reads a file of the boot partition.
func (c *card) readBoot(t *testing.T, name string) []byte {
	t.Helper()
	out, err := exec.Command("mcopy", "-n", "-i", c.boot(), "::"+name, "-").Output()
	if err != nil {
		t.Fatalf("reading %s from the boot partition: %v", name, err)
	}
	return out
}

func run(t *testing.T, argv ...string) string {
	t.Helper()
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// machine is a running virtual box.
type machine struct {
	t       *testing.T
	card    *card
	qemu    *exec.Cmd
	done    chan error
	http    string // the box's port 80, forwarded: http://127.0.0.1:N
	agent   string // the agent's port
	console string // the serial console's log
	booted  time.Duration
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// bootMachine boots the card with its own kernel, initrd and command line
// and waits until the agent and the box's /api/health answer. The wired
// network is qemu's restricted user network: the machine reaches nothing
// outside but the test's servers the card names (reachHost), and only the
// forwarded ports reach in.
func bootMachine(t *testing.T, c *card, drive string) *machine {
	t.Helper()
	kernel, initrd := "", ""
	for _, line := range strings.Split(run(t, "mdir", "-b", "-i", c.boot(), "::"), "\n") {
		name := strings.TrimPrefix(strings.TrimSpace(line), "::/")
		switch {
		case strings.HasPrefix(name, "vmlinuz-") && kernel == "":
			kernel = name
		case strings.HasPrefix(name, "initrd.img-") && initrd == "":
			initrd = name
		}
	}
	if kernel == "" || initrd == "" {
		t.Fatal("no vmlinuz-* or initrd.img-* on the boot partition")
	}
	for _, f := range []string{kernel, initrd} {
		if err := os.WriteFile(filepath.Join(c.dir, f), c.readBoot(t, f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The card's own command line, its consoles replaced by the virt
	// machine's serial port.
	var args []string
	for _, a := range strings.Fields(string(c.readBoot(t, "cmdline.txt"))) {
		if !strings.HasPrefix(a, "console=") {
			args = append(args, a)
		}
	}
	// Full emulation on a busy machine is many times slower than a Pi:
	// systemd's waits for devices and jobs are made long enough for it.
	args = append(args, "console=ttyAMA0", "systemd.default_device_timeout_sec=900", "systemd.default_timeout_start_sec=900")
	m := &machine{t: t, card: c, done: make(chan error, 1), console: filepath.Join(c.dir, "console.log")}
	hp, ap := freePort(t), freePort(t)
	m.http, m.agent = fmt.Sprintf("http://127.0.0.1:%d", hp), fmt.Sprintf("http://127.0.0.1:%d", ap)
	if drive == "" {
		drive = "file=" + c.path + ",format=raw,cache=unsafe"
	}
	netdev := fmt.Sprintf("user,id=net0,restrict=on,hostfwd=tcp:127.0.0.1:%d-:80,hostfwd=tcp:127.0.0.1:%d-:7000", hp, ap)
	for guest, host := range c.reach {
		netdev += fmt.Sprintf(",guestfwd=tcp:%s-cmd:%s pipe %s", guest, hostAgent(t), host)
	}
	accel := tcgAccel()
	m.qemu = exec.Command("qemu-system-aarch64", "-accel", accel, "-M", "virt", "-cpu", "cortex-a72", "-smp", "2", "-m", "1024",
		"-kernel", filepath.Join(c.dir, kernel), "-initrd", filepath.Join(c.dir, initrd),
		"-append", strings.Join(args, " "),
		"-drive", "if=virtio,"+drive,
		"-netdev", netdev,
		"-device", "virtio-net-pci,netdev=net0",
		"-device", "virtio-rng-pci",
		"-display", "none", "-monitor", "none", "-serial", "file:"+m.console)
	m.qemu.Stdout, m.qemu.Stderr = os.Stderr, os.Stderr
	start := time.Now()
	if err := m.qemu.Start(); err != nil {
		t.Fatalf("starting qemu: %v", err)
	}
	go func() { m.done <- m.qemu.Wait() }()
	owner := t
	if c.owner != nil {
		owner = c.owner
	}
	owner.Cleanup(func() {
		// BOXTEST_HOLD=20m keeps the machine running that long after its
		// test, to look inside it through the agent (its port is logged).
		if d, err := time.ParseDuration(os.Getenv("BOXTEST_HOLD")); err == nil {
			owner.Logf("holding the machine for %s: agent %s, box %s", d, m.agent, m.http)
			time.Sleep(d)
		}
		m.powerOff()
	})
	deadline := time.Now().Add(bootTimeout())
	health, agent := "not asked", "not asked" // the last answers, for the failure
	for {
		if time.Now().After(deadline) {
			m.fail("the box did not answer /api/health in %s (its last answer: %s; the agent's: %s)", bootTimeout(), health, agent)
		}
		select {
		case err := <-m.done:
			m.done <- err
			m.fail("the machine stopped while booting: %v", err)
		case <-time.After(3 * time.Second):
		}
		if b, _ := os.ReadFile(m.console); bytes.Contains(b, []byte("Emergency Mode")) {
			m.fail("the box booted into emergency mode")
		}
		st, b := m.get("/api/health")
		health = fmt.Sprintf("%d %.200s", st, b)
		if st == http.StatusOK {
			_, err := m.try([]string{"true"}, "")
			if err == nil {
				break
			}
			agent = err.Error()
		}
	}
	m.booted = time.Since(start)
	t.Logf("the box answered /api/health %s after power on (qemu -accel %s)", m.booted.Round(time.Second), accel)
	// Where the boot's time went, as systemd saw it (the emulated machine
	// is many times slower than a Pi: its boot is most of a scenario).
	if r, err := m.try([]string{"systemd-analyze", "critical-chain", "--no-pager", "eventbox.service"}, ""); err == nil {
		t.Logf("the boot's critical chain to eventbox.service:\n%s", strings.TrimSpace(r.Stdout))
	}
	if r, err := m.try([]string{"sh", "-c", "systemd-analyze --no-pager; systemd-analyze blame --no-pager | head -n 8"}, ""); err == nil {
		t.Logf("the boot's split and its slowest units:\n%s", strings.TrimSpace(r.Stdout))
	}
	return m
}

// tcgAccel is how qemu runs the box's two emulated cores: each on a thread
// of its own ("multi") where the machine has a core for every emulated core
// of the boxes running at once (BOXTEST_MACHINES, 1 when unset), else both
// on one thread, taking turns ("single"). With more emulated cores than the
// machine's, the threads wait on each other: a core that flushes the
// others' TLBs (every exec and munmap) stops until each of them has run,
// and they are not running. Measured on two cores, two boxes booting at
// once took 5m18s and 5m25s with a thread per core (627 CPU seconds for
// both) against 3m3s and 3m23s on one thread each (377); a box alone boots
// in 1m44s with a thread per core and 3m2s on one. BOXTEST_TCG overrides
// (e.g. "tcg,thread=multi").
func tcgAccel() string {
	if s := os.Getenv("BOXTEST_TCG"); s != "" {
		return s
	}
	machines := 1
	if n, err := strconv.Atoi(os.Getenv("BOXTEST_MACHINES")); err == nil && n > 0 {
		machines = n
	}
	if runtime.NumCPU() >= 2*machines {
		return "tcg,thread=multi"
	}
	return "tcg,thread=single"
}

func bootTimeout() time.Duration {
	if s := os.Getenv("BOXTEST_BOOT_TIMEOUT"); s != "" {
		if d, err := time.ParseDuration(s); err == nil {
			return d
		}
	}
	return 15 * time.Minute
}

// fail ends the test with the last lines of the machine's console.
func (m *machine) fail(format string, args ...any) {
	m.t.Helper()
	b, _ := os.ReadFile(m.console)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	m.t.Fatalf("FAILED: %s\nthe console's last lines:\n%s", fmt.Sprintf(format, args...), strings.Join(lines, "\n"))
}

// powerOff pulls the plug: the process ends without the guest's knowing.
func (m *machine) powerOff() {
	if m.qemu.Process != nil {
		_ = m.qemu.Process.Kill()
		<-m.done
		m.done <- nil
	}
}

func (m *machine) get(path string) (int, []byte) {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(m.http + path)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// execResult mirrors boxagent's answer.
type execResult struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

func (m *machine) try(argv []string, netns string) (execResult, error) {
	body, _ := json.Marshal(map[string]any{"argv": argv, "netns": netns})
	c := &http.Client{Timeout: 10 * time.Minute}
	resp, err := c.Post(m.agent+"/exec", "application/json", bytes.NewReader(body))
	if err != nil {
		return execResult{}, err
	}
	defer resp.Body.Close()
	var r execResult
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return execResult{}, fmt.Errorf("agent answered %s: %w", resp.Status, err)
	}
	return r, nil
}

// tryBackground starts a command in the machine that keeps running (its
// output in /run/boxtest/NAME.log).
func (m *machine) tryBackground(name, netns string, argv ...string) (execResult, error) {
	body, _ := json.Marshal(map[string]any{"argv": argv, "netns": netns, "background": name})
	resp, err := http.Post(m.agent+"/exec", "application/json", bytes.NewReader(body))
	if err != nil {
		return execResult{}, err
	}
	defer resp.Body.Close()
	var r execResult
	return r, json.NewDecoder(resp.Body).Decode(&r)
}

// sh runs a command in the machine (in netns when not empty) and fails the
// test when it fails.
func (m *machine) sh(netns string, argv ...string) string {
	m.t.Helper()
	r, err := m.try(argv, netns)
	if err != nil {
		m.fail("%s: %v", strings.Join(argv, " "), err)
	}
	if r.Code != 0 {
		m.fail("%s: exit %d\n%s%s", strings.Join(argv, " "), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// put copies a host file into the machine.
func (m *machine) put(local, remote string) {
	m.t.Helper()
	b, err := os.ReadFile(local)
	if err != nil {
		m.t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, m.agent+"/file?mode=644&path="+remote, bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		m.fail("putting %s: %v %v", remote, err, resp)
	}
	resp.Body.Close()
}

// host is a signed-in console session through the forwarded port.
type host struct {
	t    *testing.T
	base string
	c    *http.Client
}

func (m *machine) signIn(user, password string) *host {
	m.t.Helper()
	h := m.signInless()
	h.json("POST", "/api/admin/login", map[string]any{"username": user, "password": password}, http.StatusOK)
	return h
}

// signInless is a browser with its own cookies that outlive the box's
// restarts (the forwarded port changes at each boot, cookies do not).
func (m *machine) signInless() *host {
	jar, _ := cookiejar.New(nil)
	return &host{t: m.t, base: m.http, c: &http.Client{Jar: jar, Timeout: 2 * time.Minute}}
}

func (h *host) do(method, path string, body io.Reader, ctype string) (int, []byte) {
	h.t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, h.base+path, body)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Origin", h.base)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := h.c.Do(req)
	if err != nil {
		h.t.Fatalf("FAILED: %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

func (h *host) json(method, path string, body any, want int) map[string]any {
	h.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	st, b := h.do(method, path, r, "application/json")
	if st != want {
		h.t.Fatalf("%s %s = %d %s, want %d", method, path, st, b, want)
	}
	var v map[string]any
	_ = json.Unmarshal(b, &v)
	return v
}
