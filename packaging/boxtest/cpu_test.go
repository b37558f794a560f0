package boxtest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuUse is the CPU time this test process has used and the time its
// programs have (the emulators above all: a part's boots, cuts and guests
// are what costs a two-core CI machine its time, so each part's line says
// how much of it went where).
type cpuUse struct{ test, programs time.Duration }

// cpuNow reads the CPU used so far: this process's own, and its programs'
// (those ended, as the kernel totals them, and the running machine's
// emulator, from /proc).
func cpuNow(running *machine) cpuUse {
	var self, children syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children)
	u := cpuUse{
		test:     rusageCPU(self),
		programs: rusageCPU(children),
	}
	// An emulator already reaped is in the children's count; its /proc
	// entry is gone then, and procCPU answers 0.
	if running != nil && running.qemu != nil && running.qemu.Process != nil {
		u.programs += procCPU(running.qemu.Process.Pid)
	}
	return u
}

func rusageCPU(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// procCPU is a running process's user and system time from
// /proc/PID/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ")".
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// since says how much CPU went where since u.
func (u cpuUse) since(running *machine) string {
	now := cpuNow(running)
	return fmt.Sprintf("CPU: the emulator and tools %s, the test %s",
		(now.programs - u.programs).Round(time.Second), (now.test - u.test).Round(time.Second))
}

// busiest lists the box's processes that used the most CPU since it
// booted, for a part's log: what the emulated machine spent its time on.
func (m *machine) busiest() string {
	r, err := m.try([]string{"sh", "-c", "ps -eo time,comm --sort=-time | head -n 9"}, "")
	if err != nil {
		return err.Error()
	}
	return strings.TrimSpace(r.Stdout)
}
