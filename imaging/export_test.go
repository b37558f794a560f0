package imaging

// MemoryEstimate is memoryEstimate for the tests: the share of the memory
// budget Pool.Make reserves for info's image.
func MemoryEstimate(info Info) int64 { return memoryEstimate(info) }
