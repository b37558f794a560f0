// Package boxtest boots the card image of `make image` in
// qemu-system-aarch64 (the virt machine, full emulation) and tries it as
// the box it is: its hotspot on a virtual radio, a guest's phone on a
// second radio in a network namespace of its own, the hosts' home Wi-Fi on
// a third, a crowd of phones on as many more radios as it has phones (one
// namespace each, all driven by one agent process), a venue's access point
// bridged to a second network port of the box with its own phones behind
// it, and power cuts that lose what the disk was not told to flush.
//
// The tests run only when EVENTBOX_IMAGE names a built image (`make
// boxtest` does that); they need root (debugfs on the card's copy, qemu).
// The command in boxagent is the test's hands inside the machine: it is
// written into the test's own copy of the card, never into the image.
//
// Each scenario boots its own copy of the card and runs beside the others
// (t.Parallel; `make boxtest` runs BOXTEST_PARALLEL of them at once, 2 by
// default): a machine under full emulation spends much of its time waiting
// on its own timers and on the test, so two keep a two-core machine busy
// where one left a core idle.
//
// What this cannot show is the Pi's own firmware boot (config.txt, the
// device trees, the SD controller): the virt machine boots the card's
// kernel and initrd directly, with the card's cmdline.txt.
package boxtest
