#!/usr/bin/env bash
# The box in CI: builds the card image from scratch (make image) and boots
# it in qemu-system-aarch64 for every scenario of packaging/boxtest (make
# boxtest). Assumes Debian and root; installs what it lacks, registers
# qemu-user's arm64 handler with binfmt_misc when the machine has not, and
# prints how long each part took.
#
#   ci-box.sh               all of it, in order
#   ci-box.sh prepare       only the installs and the binfmt registration
#   ci-box.sh image OUT     prepare, then the card image into OUT (niced)
#   ci-box.sh boot IMAGE    prepare, then every box scenario on IMAGE
#
# .ci/run builds the image in the background (image) while the Go tests
# run, then boots it (boot), so the image's downloads and its emulated
# package scripts use what the tests leave idle.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

fail() { echo "ci-box: FAIL: $*" >&2; exit 1; }
step() { echo "ci-box: $*"; }

need=()
command -v mmdebstrap >/dev/null || need+=(mmdebstrap)
# mmdebstrap checks that this machine can run arm64 programs with arch-test
# (a Recommends of mmdebstrap, which --no-install-recommends leaves out).
command -v arch-test >/dev/null || need+=(arch-test)
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v update-binfmts >/dev/null || need+=(binfmt-support)
command -v sfdisk >/dev/null || need+=(fdisk)
command -v mkfs.vfat >/dev/null || need+=(dosfstools)
command -v debugfs >/dev/null || need+=(e2fsprogs)
command -v mcopy >/dev/null || need+=(mtools)
command -v qemu-system-aarch64 >/dev/null || need+=(qemu-system-arm)
# The emulated box's virtio network card boots with iPXE's ROM
# (efi-virtio.rom), a Recommends of qemu-system that --no-install-recommends
# leaves out.
[ -e /usr/lib/ipxe/qemu/efi-virtio.rom ] || need+=(ipxe-qemu)
command -v qemu-io >/dev/null || need+=(qemu-utils)
command -v dpkg-deb >/dev/null || need+=(dpkg)
if [ ${#need[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# The arm64 packages' scripts run in a chroot through qemu-user: the kernel
# must know to hand arm64 programs to it. A container or a machine without
# systemd may have binfmt_misc unmounted or the handler unregistered.
if [ "$(uname -m)" != aarch64 ] && ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
	step "registering qemu-user's arm64 handler with binfmt_misc"
	[ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc ||
		fail "cannot mount binfmt_misc"
	update-binfmts --enable qemu-aarch64 2>/dev/null || true
	if ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
		# Newer qemu-user packages ship a systemd-binfmt file instead.
		conf=/usr/lib/binfmt.d/qemu-aarch64.conf
		[ -f "$conf" ] || fail "no binfmt registration for qemu-aarch64 (update-binfmts failed, $conf missing)"
		grep -v '^#' "$conf" | head -n1 >/proc/sys/fs/binfmt_misc/register
	fi
	grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64 || fail "qemu-aarch64 is not registered with binfmt_misc"
fi

# build_image OUT: the card image from scratch, at the lowest CPU and I/O
# priority (the Go build, the .deb and mmdebstrap): .ci/run raises it once
# make test, which runs beside it, has passed. Run at normal priority the
# image was done 150 s sooner (1721 s against 1871) and make test took
# 1300 s instead of 444. Its .deb is made beside OUT, not in dist/, which
# the packaging checks rebuild while the image is made; OUT.deb-ready says
# the .deb is made (and dist/ no longer read).
build_image() {
	step "building the card image from scratch (make image)"
	local t0 size debdir
	t0=$(date +%s)
	debdir=$(dirname "$1")/image-deb
	IMAGE_DEB_READY=$1.deb-ready nice -n 19 ionice -c3 make --no-print-directory image VERSION=1.0.0-ci IMAGE_OUT="$1" IMAGE_DEB_DIR="$debdir"
	size=$(($(stat -c %s "$1") / 1024 / 1024))
	step "card image built in $(($(date +%s) - t0)) s, $size MiB"
}

# boot IMAGE: every scenario, with fewer cuts than make boxtest's defaults
# (4 during uploads, 2 during a restore, an update and each export, to a
# WebDAV server and to an S3 store): one in each. Each run's cuts land at
# random moments (the seed is logged), so the runs add up; a boot is most
# of a part's time. The power cuts during an S3 export run the Versity S3
# gateway on this machine: its command comes from ci-versitygw.sh (.ci/run
# has it built beside the image; a cached one is taken as it is), and the
# test fails without it (CI=true).
boot() {
	: "${BOXTEST_CUTS:=1}" "${BOXTEST_RESTORE_CUTS:=1}" "${BOXTEST_EXPORT_CUTS:=1}" "${BOXTEST_UPDATE_CUTS:=1}"
	local t0 vgw
	t0=$(date +%s)
	vgw=$(bash packaging/ci-versitygw.sh) || fail "building versitygw for the power cuts during an S3 export"
	step "versitygw ready in $(($(date +%s) - t0)) s: $vgw"
	step "booting the card for every box scenario (make boxtest, cuts: $BOXTEST_CUTS during uploads, $BOXTEST_RESTORE_CUTS during a restore, $BOXTEST_EXPORT_CUTS during each export, $BOXTEST_UPDATE_CUTS during an update)"
	t0=$(date +%s)
	CI=true BOXTEST_CUTS=$BOXTEST_CUTS BOXTEST_RESTORE_CUTS=$BOXTEST_RESTORE_CUTS BOXTEST_EXPORT_CUTS=$BOXTEST_EXPORT_CUTS BOXTEST_UPDATE_CUTS=$BOXTEST_UPDATE_CUTS \
		make --no-print-directory boxtest VERSION=1.0.0-ci BOXTEST_IMAGE="$1" VERSITYGW="$vgw"
	step "box scenarios passed in $(($(date +%s) - t0)) s"
}

case "${1:-all}" in
prepare) ;;
image)
	[ -n "${2:-}" ] || fail "usage: ci-box.sh image OUT"
	build_image "$2"
	;;
boot)
	[ -f "${2:-}" ] || fail "usage: ci-box.sh boot IMAGE (an image made by ci-box.sh image)"
	boot "$2"
	;;
all)
	img=$(mktemp -d /var/tmp/eventbox-ci-box.XXXXXX)
	trap 'rm -rf "$img"' EXIT
	build_image "$img/box.img"
	boot "$img/box.img"
	;;
*) fail "unknown part $1 (prepare, image OUT, boot IMAGE)" ;;
esac
