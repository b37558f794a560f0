package piprofile

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// KeepOff moves every thread of this process off the CPUs a group of p
// runs on (Profile.CPUs), so that a load tool measuring a daemon under p
// does not take the stand-in's own CPU from it: pinned, the daemon can
// use only that CPU, and the kernel would also run the tool's threads
// there. Threads started later inherit the mask of the one that starts
// them. It returns the CPUs this process now runs on, taskset's form, or
// "" when p pins nothing and the process is left as it was.
func (p Profile) KeepOff() (string, error) {
	ncpu := runtime.NumCPU()
	first, ok := p.firstCPU(ncpu)
	if !ok {
		return "", nil
	}
	own := p.CPUs(ncpu)
	var set unix.CPUSet
	var others []string
	for c := range first {
		set.Set(c)
		others = append(others, strconv.Itoa(c))
	}
	// A thread may start while the list is read: read it until a pass
	// finds every thread already moved.
	for pass := 0; pass < 10; pass++ {
		tasks, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return "", fmt.Errorf("listing this process's threads: %w", err)
		}
		moved := 0
		for _, task := range tasks {
			tid, err := strconv.Atoi(task.Name())
			if err != nil {
				continue
			}
			var had unix.CPUSet
			if err := unix.SchedGetaffinity(tid, &had); err == nil && had == set {
				continue
			}
			if err := unix.SchedSetaffinity(tid, &set); err != nil {
				if err == unix.ESRCH {
					continue // the thread has ended
				}
				return "", fmt.Errorf("moving thread %d off CPU %s: %w", tid, own, err)
			}
			moved++
		}
		if moved == 0 {
			return strings.Join(others, ","), nil
		}
	}
	return "", fmt.Errorf("moving this process off CPU %s: threads kept starting", own)
}
