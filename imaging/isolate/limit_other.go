//go:build !unix

package isolate

import "errors"

// limitSelf has no limit to set outside Unix systems.
func limitSelf(int64) error { return errors.New("not on this system") }
