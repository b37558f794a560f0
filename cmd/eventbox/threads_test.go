package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"eventbox/internal/testtool"
)

func TestThreadsForKeepsOneForRequests(t *testing.T) {
	for _, c := range []struct{ gomaxprocs, want int }{{1, 2}, {2, 2}, {4, 4}} {
		if got := threadsFor(c.gomaxprocs); got != c.want {
			t.Errorf("threadsFor(%d) = %d, want %d", c.gomaxprocs, got, c.want)
		}
	}
}

// The daemon on one CPU (taskset) runs Go code on two threads and says
// so; the image pool still counts one core (imaging's cores).
func TestOnOneCPUTheDaemonKeepsAThreadForRequests(t *testing.T) {
	testtool.Need(t, "util-linux", "taskset")
	bin := buildBinary(t)
	pinned := t.TempDir() + "/eventbox-on-one-cpu"
	script := "#!/bin/sh\nexec taskset -c 0 " + bin + " \"$@\"\n"
	if err := os.WriteFile(pinned, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	p := startDaemon(t, pinned, t.TempDir(), "LOG_LEVEL=info")
	if out, _ := exec.Command("taskset", "-c", "0", "nproc").Output(); strings.TrimSpace(string(out)) != "1" {
		t.Skipf("taskset -c 0 does not leave one CPU here: nproc says %s", out)
	}
	if !strings.Contains(p.stderr.String(), "one CPU: Go code runs on two threads") || !strings.Contains(p.stderr.String(), "threads=2") {
		t.Errorf("the daemon on one CPU did not keep a second thread; its log:\n%s", p.stderr.String())
	}
}
