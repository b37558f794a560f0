// Package piprofile runs a command as on a Raspberry Pi stand-in: in a
// control group of its own with a CPU quota and a memory limit (cgroup v2,
// or v1's cpu and memory hierarchies), so the load tools can give figures
// for a box-sized machine on a bigger one, and pinned to as many of the
// machine's CPUs as the share rounds up to. docs/decisions.md, "Pi
// stand-in profiles", says how each profile's CPU share was chosen.
//
// A command is started through /bin/sh, which moves itself into the group
// and then execs the command: every byte and cycle of the command is
// counted, whichever cgroup version the machine has. It needs root.
package piprofile

import (
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Profile is a CPU share and a memory limit.
type Profile struct {
	// Name is the profile's name: pi4 or pi3.
	Name string
	// CPU is the share of one of this machine's cores the group may use
	// (1 is one core, 0.5 half of one), as a CFS quota over Period.
	CPU float64
	// Period is what the quota is counted over; 0 is DefaultPeriod.
	Period time.Duration
	// MemoryBytes is the group's memory limit; swap is not allowed.
	MemoryBytes int64
}

// DefaultPeriod is the quota's period: the kernel's own default. A party
// measured with a 10 ms period had the same health latency.
const DefaultPeriod = 100 * time.Millisecond

// Profiles are the stand-ins the load tools know.
var Profiles = []Profile{
	{Name: "pi4", CPU: 1, MemoryBytes: 1 << 30},
	{Name: "pi3", CPU: 0.5, MemoryBytes: 1 << 30},
}

// EnvVar is the environment variable the load tools read a profile's name
// from.
const EnvVar = "PROFILE"

// Lookup returns the profile called name; "" and "none" return ok false.
func Lookup(name string) (p Profile, ok bool, err error) {
	if name == "" || name == "none" {
		return Profile{}, false, nil
	}
	for _, p := range Profiles {
		if p.Name == name {
			return p, true, nil
		}
	}
	return Profile{}, false, fmt.Errorf("unknown profile %q (known: pi4, pi3, none)", name)
}

// FromEnv returns the profile named by $PROFILE.
func FromEnv() (Profile, bool, error) { return Lookup(os.Getenv(EnvVar)) }

// String describes the profile.
func (p Profile) String() string {
	pinned := ""
	if cpus := p.CPUs(runtime.NumCPU()); cpus != "" {
		pinned = ", on CPU " + cpus
	}
	return fmt.Sprintf("%s (%.2g core%s, %d MiB)", p.Name, p.CPU, pinned, p.MemoryBytes>>20)
}

// CPUs is the list of CPUs (taskset's form, "1" or "2-3") a group of p
// runs on, on a machine of ncpu: the last ones, as many as the share
// rounds up to; "" when that is every CPU. A command pinned so sees as
// many CPUs as it may use: a Go program runs as many threads at once
// (GOMAXPROCS) and sizes its pools by them, as on a machine of that
// many cores, where under the quota alone it ran two threads on one
// core's share and stood still, all of it, whenever they had used the
// share up (docs/performance.md, "The stand-in's one core").
func (p Profile) CPUs(ncpu int) string {
	first, ok := p.firstCPU(ncpu)
	switch {
	case !ok:
		return ""
	case first == ncpu-1:
		return strconv.Itoa(first)
	}
	return fmt.Sprintf("%d-%d", first, ncpu-1)
}

// firstCPU is the first of the CPUs a group of p runs on (the rest up to
// the last CPU); ok is false when that is every CPU (CPUs answers "").
func (p Profile) firstCPU(ncpu int) (first int, ok bool) {
	n := int(math.Ceil(p.CPU))
	if n < 1 || n >= ncpu {
		return 0, false
	}
	return ncpu - n, true
}

func (p Profile) period() time.Duration {
	if p.Period <= 0 {
		return DefaultPeriod
	}
	return p.Period
}

// Group is a control group made for one profile. Close removes it once
// its processes have ended.
type Group struct {
	dirs  []string // one per hierarchy (one on cgroup v2)
	procs []string
	v2    bool
	cpus  string // Profile.CPUs: taskset's list, "" for every CPU
}

// root is where cgroup hierarchies are mounted.
const root = "/sys/fs/cgroup"

// NewGroup makes a control group named label (made unique by the pid),
// under the cgroup this process is in, with p's limits.
func (p Profile) NewGroup(label string) (*Group, error) {
	name := fmt.Sprintf("eventbox-%s-%s-%d", p.Name, label, os.Getpid())
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("reading this process's cgroup: %w", err)
	}
	period := p.period().Microseconds()
	quota := int64(p.CPU * float64(period))
	g := &Group{cpus: p.CPUs(runtime.NumCPU())}
	if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
		g.v2 = true
		// cgroup v2: the group goes at the root, where the cpu and memory
		// controllers are enabled for children.
		dir := filepath.Join(root, name)
		if err := g.mkdir(dir); err != nil {
			return nil, err
		}
		err := g.write(dir, map[string]string{
			"cpu.max":         fmt.Sprintf("%d %d", quota, period),
			"memory.max":      strconv.FormatInt(p.MemoryBytes, 10),
			"memory.swap.max": "0",
		}, "memory.swap.max")
		if err != nil {
			g.Close()
			return nil, err
		}
		return g, nil
	}
	for _, ctl := range []string{"cpu", "memory"} {
		dir := filepath.Join(root, ctl, ownPath(string(own), ctl), name)
		if err := g.mkdir(dir); err != nil {
			g.Close()
			return nil, err
		}
		var files map[string]string
		if ctl == "cpu" {
			files = map[string]string{"cpu.cfs_period_us": strconv.FormatInt(period, 10), "cpu.cfs_quota_us": strconv.FormatInt(quota, 10)}
		} else {
			files = map[string]string{"memory.limit_in_bytes": strconv.FormatInt(p.MemoryBytes, 10),
				"memory.memsw.limit_in_bytes": strconv.FormatInt(p.MemoryBytes, 10)}
		}
		if err := g.write(dir, files, "memory.memsw.limit_in_bytes"); err != nil {
			g.Close()
			return nil, err
		}
	}
	return g, nil
}

// ownPath is this process's path in a v1 hierarchy, from /proc/self/cgroup.
func ownPath(procCgroup, ctl string) string {
	for _, l := range strings.Split(procCgroup, "\n") {
		parts := strings.SplitN(l, ":", 3)
		if len(parts) == 3 && strings.Contains(","+parts[1]+",", ","+ctl+",") {
			return parts[2]
		}
	}
	return "/"
}

func (g *Group) mkdir(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return fmt.Errorf("making control group %s (needs root): %w", dir, err)
	}
	g.dirs = append(g.dirs, dir)
	g.procs = append(g.procs, filepath.Join(dir, "cgroup.procs"))
	return nil
}

// write writes files in dir in a fixed order; optional may be missing
// (swap accounting is not always compiled in).
func (g *Group) write(dir string, files map[string]string, optional string) error {
	// Period before quota on v1, limits in any order.
	for _, k := range []string{"cpu.cfs_period_us", "cpu.cfs_quota_us", "cpu.max", "memory.limit_in_bytes", "memory.memsw.limit_in_bytes", "memory.max", "memory.swap.max"} {
		v, ok := files[k]
		if !ok {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil && k != optional {
			return fmt.Errorf("setting %s of %s: %w", k, dir, err)
		}
	}
	return nil
}

// Command returns a command that runs name with args inside the group:
// /bin/sh joins the group and execs it, through taskset on the group's
// CPUs when it has some.
func (g *Group) Command(name string, args ...string) *exec.Cmd {
	script := `p=$$; while [ "$1" != -- ]; do echo "$p" > "$1" || exit 125; shift; done; shift; exec "$@"`
	a := append([]string{"-c", script, "sh"}, g.procs...)
	a = append(a, "--")
	if g.cpus != "" {
		a = append(a, "taskset", "-c", g.cpus)
	}
	a = append(a, name)
	return exec.Command("/bin/sh", append(a, args...)...)
}

// Peak returns the group's peak memory use in bytes.
func (g *Group) Peak() (int64, error) {
	for _, d := range g.dirs {
		for _, f := range []string{"memory.peak", "memory.max_usage_in_bytes"} {
			if b, err := os.ReadFile(filepath.Join(d, f)); err == nil {
				return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			}
		}
	}
	return 0, errors.New("no peak memory file in the control group")
}

// Throttling is what the group's CPU quota did: of Periods in which its
// processes ran, in Throttled they ran out of the quota and stood still
// until the next one, for Held in all.
type Throttling struct {
	Periods, Throttled int64
	Held               time.Duration
}

// Throttling reads the group's cpu.stat.
func (g *Group) Throttling() (Throttling, error) {
	for _, d := range g.dirs {
		b, err := os.ReadFile(filepath.Join(d, "cpu.stat"))
		if err != nil {
			continue
		}
		var t Throttling
		for _, l := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(l, " ")
			if !ok {
				continue
			}
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			switch k {
			case "nr_periods":
				t.Periods = n
			case "nr_throttled":
				t.Throttled = n
			case "throttled_usec": // v2
				t.Held = time.Duration(n) * time.Microsecond
			case "throttled_time": // v1, in nanoseconds
				t.Held = time.Duration(n)
			}
		}
		return t, nil
	}
	return Throttling{}, errors.New("no cpu.stat in the control group")
}

// OOMKills returns how many processes of the group the kernel's OOM killer
// ended (-1 if the kernel does not say).
func (g *Group) OOMKills() int {
	for _, d := range g.dirs {
		for _, f := range []string{"memory.events", "memory.oom_control"} {
			b, err := os.ReadFile(filepath.Join(d, f))
			if err != nil {
				continue
			}
			for _, l := range strings.Split(string(b), "\n") {
				if v, ok := strings.CutPrefix(l, "oom_kill "); ok {
					n, _ := strconv.Atoi(strings.TrimSpace(v))
					return n
				}
			}
		}
	}
	return -1
}

// Close removes the group; its processes must have ended.
func (g *Group) Close() error {
	var errs []error
	for _, d := range g.dirs {
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("removing control group %s: %w", d, err))
		}
	}
	g.dirs = nil
	return errors.Join(errs...)
}

// Reexec runs this program again inside a group of profile p, with the
// same arguments and $PROFILE cleared in the child, and returns its exit
// code; a tool whose own work is the measured side calls it first. It
// prints the group's peak memory and OOM kills to stderr at the end.
func Reexec(p Profile, label string) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("finding this program: %w", err)
	}
	g, err := p.NewGroup(label)
	if err != nil {
		return 0, err
	}
	defer g.Close()
	cmd := g.Command(self, os.Args[1:]...)
	cmd.Env = append(os.Environ(), EnvVar+"=none")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	fmt.Fprintf(os.Stderr, "piprofile: running under %s\n", p)
	err = cmd.Run()
	code := 0
	if ee, ok := errors.AsType[*exec.ExitError](err); ok {
		code, err = ee.ExitCode(), nil
	}
	if err != nil {
		return 0, fmt.Errorf("running %s under %s: %w", self, p.Name, err)
	}
	peak, _ := g.Peak()
	fmt.Fprintf(os.Stderr, "piprofile: %s: peak memory %.1f MiB, OOM kills %d, exit %d\n", p.Name, float64(peak)/(1<<20), g.OOMKills(), code)
	return code, nil
}
