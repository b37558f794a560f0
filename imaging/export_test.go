package imaging

// MemoryEstimate is memoryEstimate for the tests: the share of the memory
// budget Pool.Make reserves for info's image.
func MemoryEstimate(info Info) int64 { return memoryEstimate(info) }

// HoldMemory takes n bytes of the pool's image memory, as an image being
// made would, until the returned function is called.
func HoldMemory(p *Pool, n int64) (release func()) {
	if !p.mem.TryAcquire(n) {
		panic("HoldMemory: the image memory is in use")
	}
	return func() { p.mem.Release(n) }
}
