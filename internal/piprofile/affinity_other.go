//go:build !linux

package piprofile

// KeepOff does nothing where there are no control groups: no group is
// pinned.
func (p Profile) KeepOff() (string, error) { return "", nil }
