package piprofile

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func needGroups(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("control groups need root")
	}
	if _, err := os.Stat(root); err != nil {
		t.Skip("no control groups on this machine")
	}
}

// readQuota reads the group's quota and period, in microseconds, as the
// kernel holds them.
func readQuota(t *testing.T, g *Group) string {
	t.Helper()
	for _, d := range g.dirs {
		if b, err := os.ReadFile(filepath.Join(d, "cpu.max")); err == nil {
			return strings.TrimSpace(string(b))
		}
		q, err1 := os.ReadFile(filepath.Join(d, "cpu.cfs_quota_us"))
		p, err2 := os.ReadFile(filepath.Join(d, "cpu.cfs_period_us"))
		if err1 == nil && err2 == nil {
			return strings.TrimSpace(string(q)) + " " + strings.TrimSpace(string(p))
		}
	}
	t.Fatal("no CPU quota in the group")
	return ""
}

func TestTheQuotaIsCountedOverItsPeriod(t *testing.T) {
	needGroups(t)
	for _, c := range []struct {
		name string
		p    Profile
		want string
	}{
		{"pi4 over the default period", Profiles[0], "100000 100000"},
		{"pi3 over the default period", Profiles[1], "50000 100000"},
		{"pi4 over a 10 ms period", Profile{Name: "pi4", CPU: 1, Period: 10 * time.Millisecond, MemoryBytes: 1 << 30}, "10000 10000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := c.p.NewGroup("test")
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			if got := readQuota(t, g); got != c.want {
				t.Errorf("quota and period %q, want %q", got, c.want)
			}
		})
	}
}

// A command that wants a whole core in a group allowed a fifth of one is
// held back in most periods, and Throttling says so.
func TestThrottlingCountsTheStalls(t *testing.T) {
	needGroups(t)
	g, err := Profile{Name: "test", CPU: 0.2, MemoryBytes: 64 << 20}.NewGroup("throttling")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	before, err := g.Throttling()
	if err != nil {
		t.Fatal(err)
	}
	cmd := g.Command("sh", "-c", "while :; do :; done")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The loop runs for as long as it takes the kernel to count twenty
	// periods (it counts only those in which the group ran).
	deadline := time.Now().Add(30 * time.Second)
	var got Throttling
	for time.Now().Before(deadline) {
		if got, err = g.Throttling(); err != nil || got.Periods >= 20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if before.Periods != 0 || before.Throttled != 0 {
		t.Errorf("a new group says %+v", before)
	}
	if got.Periods < 20 || got.Throttled < got.Periods/2 || got.Held < time.Duration(got.Throttled)*DefaultPeriod/2 {
		t.Errorf("a busy loop at a fifth of a core: %+v; want it held back in most of its periods, for most of each", got)
	}
}

func TestAProfileIsPinnedToTheCPUsItsShareRoundsUpTo(t *testing.T) {
	for _, c := range []struct {
		cpu  float64
		ncpu int
		want string
	}{
		{1, 2, "1"},
		{0.5, 2, "1"},
		{1, 4, "3"},
		{1.5, 4, "2-3"},
		{2, 2, ""},
		{1, 1, ""},
	} {
		if got := (Profile{CPU: c.cpu}).CPUs(c.ncpu); got != c.want {
			t.Errorf("%.1f core on %d CPUs: %q, want %q", c.cpu, c.ncpu, got, c.want)
		}
	}
}

// A command in a pi4 group sees one CPU (nproc, as Go's runtime does
// to choose GOMAXPROCS), not the machine's.
func TestACommandInAGroupSeesItsCPUs(t *testing.T) {
	needGroups(t)
	if runtime.NumCPU() < 2 {
		t.Skip("a machine of one CPU: nothing to pin")
	}
	g, err := Profiles[0].NewGroup("cpus")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	out, err := g.Command("nproc").Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != "1" {
		t.Errorf("nproc in a pi4 group says %s, want 1", got)
	}
}
