package piprofile

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// keepOffChild names the child process TestKeepOffLeavesTheGroupsCPU
// runs: moving a process's threads cannot be undone for the rest of a
// test binary.
const keepOffChild = "PIPROFILE_KEEPOFF_CHILD"

// A load tool that keeps off a pi4 group's CPU runs, with every thread
// and every command it starts, on the other CPUs only.
func TestKeepOffLeavesTheGroupsCPU(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("a machine of one CPU: nothing to keep off")
	}
	if os.Getenv(keepOffChild) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKeepOffLeavesTheGroupsCPU$", "-test.v")
		cmd.Env = append(os.Environ(), keepOffChild+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS") {
			t.Fatalf("the child: %v\n%s", err, out)
		}
		return
	}
	p := Profiles[0]
	own := p.CPUs(runtime.NumCPU())
	got, err := p.KeepOff()
	if err != nil {
		t.Fatal(err)
	}
	if got == "" || strings.Contains(","+got+",", ","+own+",") {
		t.Fatalf("kept off CPU %s, now on %q", own, got)
	}
	// Threads started after: one goroutine more than there are threads,
	// each holding a thread of its own until the check is done, so that
	// at least one thread is new.
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	defer close(release)
	locked := make(chan struct{})
	for range len(tasks) + 1 {
		go func() {
			runtime.LockOSThread()
			locked <- struct{}{}
			<-release
		}()
		<-locked
	}
	before := len(tasks)
	if tasks, err = os.ReadDir("/proc/self/task"); err != nil {
		t.Fatal(err)
	}
	if len(tasks) <= before {
		t.Fatalf("%d threads after locking %d goroutines to threads, %d before: none started", len(tasks), before+1, before)
	}
	ownCPU, _ := strconv.Atoi(own)
	for _, task := range tasks {
		tid, _ := strconv.Atoi(task.Name())
		var set unix.CPUSet
		if err := unix.SchedGetaffinity(tid, &set); err != nil {
			continue
		}
		if set.IsSet(ownCPU) {
			t.Errorf("thread %d may still run on CPU %s", tid, own)
		}
	}
	out, err := exec.Command("nproc").Output()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(string(out))); n != runtime.NumCPU()-1 {
		t.Errorf("a command started after sees %d CPUs, want %d", n, runtime.NumCPU()-1)
	}
}
