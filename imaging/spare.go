package imaging

import (
	"context"
	"runtime"
	"runtime/metrics"

	"golang.org/x/sync/semaphore"
)

// spareCapacity is what a pool lends one image's work beyond its worker
// slot: the part of the memory budget no image holds, taken one decoder
// instance at a time, and the cores no goroutine is waiting for. A grid
// HEIC decodes its tiles side by side with it (decodeHEIFGrid).
type spareCapacity struct {
	mem *semaphore.Weighted
	// free says whether a core is free (cpuFree when nil).
	free func() bool
}

// coresFree asks s.free, or cpuFree.
func (s *spareCapacity) coresFree() bool {
	if s.free != nil {
		return s.free()
	}
	return cpuFree()
}

// spareKey carries a pool's spareCapacity in the context of its Make.
type spareKey struct{}

func withSpare(ctx context.Context, s *spareCapacity) context.Context {
	return context.WithValue(ctx, spareKey{}, s)
}

// spareFor returns the spare capacity lent to ctx's image, nil when none
// (an image made outside a pool, or in a process of its own).
func spareFor(ctx context.Context) *spareCapacity {
	s, _ := ctx.Value(spareKey{}).(*spareCapacity)
	return s
}

// extraDecoders reserves the memory of up to want more decoder instances
// of bytes each, fewer when the budget or the free cores do not allow, and
// answers how many it reserved with the function that gives them back. A
// core is free when more than one may run Go code and no goroutine is
// waiting for one (cpuFree): uploads and requests go first.
func (s *spareCapacity) extraDecoders(want int, bytes int64) (n int, release func()) {
	if s == nil || want <= 0 || !s.coresFree() {
		return 0, func() {}
	}
	want = min(want, cores()-1)
	for n < want && s.mem.TryAcquire(bytes) {
		n++
	}
	return n, func() { s.mem.Release(int64(n) * bytes) }
}

// cpuFree says whether Go code may run on more than one core and no
// goroutine is waiting for a core.
func cpuFree() bool {
	return cores() >= 2 && !GoroutinesWaitForCPU()
}

// cores is how many of the machine's CPUs Go code may run on at once:
// GOMAXPROCS, but no more than the CPUs there are. The daemon runs two
// threads on a machine of one CPU, one of them for the requests that
// come while an image is made (cmd/eventbox's threadsFor); that second
// thread is no core to decode on.
func cores() int {
	return min(runtime.GOMAXPROCS(0), runtime.NumCPU())
}

// GoroutinesWaitForCPU reports whether the Go runtime has goroutines
// ready to run but waiting for a CPU (runtime/metrics' runnable count):
// the measure by which image work gives way to uploads, whose handlers
// wait so when receiving keeps every CPU the process may use busy (on a
// Pi's hotspot they wait for the network instead).
func GoroutinesWaitForCPU() bool {
	s := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	metrics.Read(s)
	return s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() > 0
}
