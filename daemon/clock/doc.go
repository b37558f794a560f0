// Package clock knows whether the box's time can be trusted, and lets a
// host set it while it cannot.
//
// A Raspberry Pi has no battery-backed clock, and a venue often has no
// internet: after power-on the box's time is whatever fake-hwclock saved
// at the last shutdown, or worse. The Service answers one of three
// states: Synced (the kernel's clock is kept by NTP), Set (a host set it
// in this boot, from their browser's time or through two consecutive
// authenticator codes, MatchTOTPPair) or Unsure. While unsure, records
// are dated with the box's wrong time; Service.Set moves the system clock
// and asks its Redate to shift what was dated since the box started, so
// that every record ends up as if the clock had been right
// (docs/decisions/trust.md, "A clock the box can trust").
//
// Everything outside the process comes in through Config: the clock, the
// kernel's synchronisation state, the system clock's setter, the boot's
// id and the file the state is kept in across restarts of the daemon.
package clock
