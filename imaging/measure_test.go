package imaging_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"eventbox/imaging"
)

// TestMeasureDecodePeak reports the peak RSS of one Pool.Make of each file
// named in IMAGING_MEASURE (space-separated), each in a fresh child process
// with GOGC 5, so the peak RSS is close to the peak live memory, with the
// bytes allocated in all and the time taken. It is how docs/decisions.md's
// bytes per pixel were measured:
//
//	IMAGING_MEASURE="a.png b.jpg" go test -run TestMeasureDecodePeak -v ./imaging/
func TestMeasureDecodePeak(t *testing.T) {
	if f := os.Getenv("IMAGING_MEASURE_CHILD"); f != "" {
		debug.SetGCPercent(5)
		r, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := r.Stat()
		pool := imaging.NewPool(imaging.PoolConfig{Workers: 1, MemoryBytes: 1 << 40, MaxPixels: math.MaxInt32})
		info, err := pool.Check(r, st.Size())
		before := status("VmHWM")
		start := time.Now()
		if err == nil {
			_, err = pool.Make(context.Background(), r, st.Size())
		}
		took := time.Since(start)
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		fmt.Printf("MEASURE %s %dx%d %s: VmHWM %s -> %s kB, allocated %d MiB, %v, err %v\n", f, info.Width, info.Height, info.Format, before, status("VmHWM"), ms.TotalAlloc>>20, took.Round(time.Millisecond), err)
		return
	}
	files := os.Getenv("IMAGING_MEASURE")
	if files == "" {
		t.Skip("set IMAGING_MEASURE to the files to measure")
	}
	for _, f := range strings.Fields(files) {
		c := exec.Command(os.Args[0], "-test.run=^TestMeasureDecodePeak$", "-test.v")
		c.Env = append(os.Environ(), "IMAGING_MEASURE_CHILD="+f)
		out, _ := c.CombinedOutput()
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "MEASURE") {
				t.Log(l)
			}
		}
	}
}

func status(field string) string {
	b, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB"))
		}
	}
	return "?"
}
