package party

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"eventbox/internal/piprofile"
)

// Box is the daemon under test: the real binary on a fresh DATA_DIR, in
// the box's network namespace and (with a profile) the Pi stand-in's
// control group, killed with SIGKILL and started again as systemd does
// (the unit's Restart=always, RestartSec=2).
type Box struct {
	bin, dir, token, password string
	link                      *Link
	group                     *piprofile.Group
	env                       []string

	mu  sync.Mutex
	cmd *exec.Cmd
	// written sums the write_bytes of the processes before the running
	// one.
	written int64
	// Starts counts the daemon's starts.
	starts int
	exited chan struct{}
}

// Port is where the daemon listens, on both of its links.
const Port = 8080

// BarePort is where a bare HTTP server answers beside the daemon, on the
// same link, for the health check's reference (Env.BareURL).
const BarePort = 8090

// NewBox prepares the daemon: its data folder, its profile's control
// group (nil for none) and its environment; Start starts it.
func NewBox(bin, dir string, link *Link, prof *piprofile.Profile, env ...string) (*Box, error) {
	b := &Box{bin: bin, dir: dir, link: link, token: "party-metrics-token", password: "party-owner-password"}
	if prof != nil {
		g, err := prof.NewGroup("party")
		if err != nil {
			return nil, err
		}
		b.group = g
	}
	b.env = append(append(os.Environ(), "LISTEN_ADDR=0.0.0.0:"+strconv.Itoa(Port), "DATA_DIR="+dir,
		"ADMIN_PASSWORD="+b.password, "METRICS_TOKEN="+b.token, "MDNS_NAME=off", "LOG_LEVEL="+cmp.Or(os.Getenv("PARTY_LOG_LEVEL"), "warn")), env...)
	return b, nil
}

// GuestURL and HomeURL are the daemon's address on the guests' link and
// on the unshaped one.
func (b *Box) GuestURL() string { return fmt.Sprintf("http://%s:%d", b.link.Box, Port) }

// HomeURL is the daemon's address on the unshaped link.
func (b *Box) HomeURL() string { return fmt.Sprintf("http://%s:%d", b.link.Home, Port) }

// Start starts the daemon and waits until it answers its health check.
func (b *Box) Start(ctx context.Context) error {
	b.mu.Lock()
	args := []string{"serve"}
	var cmd *exec.Cmd
	cmd = b.link.Command(b.bin, args...)
	if b.group != nil {
		// Into the group first: ip netns exec mounts a sysfs of the
		// namespace's own, without the control groups.
		cmd = b.group.Command(cmd.Path, cmd.Args[1:]...)
	}
	cmd.Env = b.env
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		b.mu.Unlock()
		return fmt.Errorf("starting the daemon: %w", err)
	}
	b.cmd, b.starts = cmd, b.starts+1
	exited := make(chan struct{})
	b.exited = exited
	go func() { cmd.Wait(); close(exited) }()
	b.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	c := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		if res, err := c.Get(b.HomeURL() + "/api/health"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-exited:
			return errors.New("the daemon exited while starting")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return errors.New("the daemon did not answer its health check within 60 s")
}

// Kill kills the daemon with SIGKILL (a crash, a watchdog's kill) after
// reading how much it wrote, waits for it to be gone and starts it again
// after systemd's RestartSec; it answers how long the daemon did not
// answer.
func (b *Box) Kill(ctx context.Context) (time.Duration, error) {
	start := time.Now()
	b.mu.Lock()
	if w, err := b.writeBytes(); err == nil {
		b.written += w
	}
	b.cmd.Process.Kill() // ip netns exec and sh exec into the daemon: the same process
	exited := b.exited
	b.mu.Unlock()
	<-exited
	select {
	case <-time.After(2 * time.Second):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	err := b.Start(ctx)
	return time.Since(start), err
}

// Stop ends the daemon gently and answers what it wrote in all.
func (b *Box) Stop() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cmd == nil {
		return b.written
	}
	if w, err := b.writeBytes(); err == nil {
		b.written += w
	}
	b.cmd.Process.Signal(os.Interrupt)
	select {
	case <-b.exited:
	case <-time.After(30 * time.Second):
		b.cmd.Process.Kill()
		<-b.exited
	}
	b.cmd = nil
	if b.group != nil {
		b.group.Close()
	}
	return b.written
}

// Throttling is what the profile's CPU quota did to the daemon so far;
// ok is false without a profile or when the kernel does not say.
func (b *Box) Throttling() (t piprofile.Throttling, ok bool) {
	if b.group == nil {
		return t, false
	}
	t, err := b.group.Throttling()
	return t, err == nil
}

// Written is what the daemon's processes have written to the disk so
// far (/proc/<pid>/io write_bytes, summed over restarts).
func (b *Box) Written() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	w, _ := b.writeBytes()
	return b.written + w
}

// Starts is how many times the daemon started.
func (b *Box) Starts() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.starts
}

func (b *Box) writeBytes() (int64, error) {
	if b.cmd == nil || b.cmd.Process == nil {
		return 0, errors.New("not running")
	}
	return procNumber(b.cmd.Process.Pid, "io", "write_bytes")
}

// Vitals are the daemon's figures at one moment, from its metrics.
type Vitals struct {
	RSS        int64
	Goroutines int
	// Variants is the image work waiting (outbox_pending of kind
	// variants), Sharpen the HEICs waiting for their sharp variants (kind
	// sharpen).
	Variants, Sharpen int
}

// Vitals reads the daemon's metrics (process RSS, goroutines, the image
// work waiting) over the unshaped link.
func (b *Box) Vitals(ctx context.Context, c *http.Client) (Vitals, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", b.HomeURL()+"/api/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+b.token)
	res, err := c.Do(req)
	if err != nil {
		return Vitals{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		return Vitals{}, fmt.Errorf("metrics answered %d", res.StatusCode)
	}
	var v Vitals
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		name, val, ok := strings.Cut(line, " ")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		f, _ := strconv.ParseFloat(strings.TrimSpace(val), 64)
		switch {
		case name == "process_resident_memory_bytes":
			v.RSS = int64(f)
		case name == "go_goroutines":
			v.Goroutines = int(f)
		case strings.HasPrefix(name, "eventbox_outbox_pending{") && strings.Contains(name, `kind="variants"`):
			v.Variants = int(f)
		case strings.HasPrefix(name, "eventbox_outbox_pending{") && strings.Contains(name, `kind="sharpen"`):
			v.Sharpen = int(f)
		}
	}
	return v, sc.Err()
}

// procNumber reads the number after "key:" in /proc/<pid>/<file>.
func procNumber(pid int, file, key string) (int64, error) {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/%s", key, pid, file)
}
