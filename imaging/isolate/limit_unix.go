//go:build unix

package isolate

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// limitSelf bounds the process's data segment to bytes (RLIMIT_DATA:
// since Linux 4.7 every private writable mapping, which is where the Go
// heap and the decoder's memory live; unlike RLIMIT_AS it does not count
// the address space Go reserves without using). It also makes the process
// the out-of-memory killer's first choice and lowers its CPU priority.
func limitSelf(bytes int64) error {
	// Best effort: not every system has these files or allows the nice.
	_ = os.WriteFile("/proc/self/oom_score_adj", []byte("1000"), 0)
	_ = unix.Setpriority(unix.PRIO_PROCESS, 0, 10)
	lim := &unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	if err := unix.Setrlimit(unix.RLIMIT_DATA, lim); err != nil {
		return fmt.Errorf("setting RLIMIT_DATA to %d MiB: %w", bytes>>20, err)
	}
	return nil
}
