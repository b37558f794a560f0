//go:build eventbox_crashtest

package variants

import (
	"bytes"
	"io"
	"os"
)

// crashTestMarker, found in the first 64 KiB of an original, makes a
// binary built with the eventbox_crashtest tag exit at once when it starts
// making that photo's variants, as if the decoder had run the process out
// of memory. Only cmd/eventbox's crash-loop test builds with the tag; the
// shipped binary has no such hook (crashtest_off.go).
const crashTestMarker = "eventbox-crash-test: exit while decoding"

// crashTestExitCode is the exit status of such a crash.
const crashTestExitCode = 86

func crashTestHook(r io.ReaderAt, size int64) {
	head := make([]byte, min(size, 64<<10))
	n, _ := r.ReadAt(head, 0)
	if bytes.Contains(head[:n], []byte(crashTestMarker)) {
		os.Exit(crashTestExitCode)
	}
}
