//go:build !eventbox_crashtest

package variants

import "io"

// crashTestHook does nothing outside the crash test build
// (crashtest_on.go).
func crashTestHook(io.ReaderAt, int64) {}
