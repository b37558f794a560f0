#!/bin/bash
# check.sh IMAGE: checks a card image made by build.sh, as root, read-only:
# its partition table, the firmware, kernel, initrd, device trees,
# config.txt, cmdline.txt and the settings file's example on the boot
# partition, the root's /etc/fstab (read-only root, data partition, memory
# for logs), the eventbox unit enabled, NetworkManager, avahi and dnsmasq
# present, DATA_DIR on the data partition, and the arm64 `eventbox version`
# run inside the root (through qemu-user's binfmt handler). Prints one line
# per check and "N passed, N failed" at the end; exits 1 on a failure.
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 IMAGE" >&2
	exit 2
fi
image=$1
[ "$(id -u)" = 0 ] || { echo "check.sh: run as root (loop devices and mounts)" >&2; exit 2; }

passed=0 failed=0
ok() { echo "ok   $*"; passed=$((passed + 1)); }
bad() { echo "FAIL $*"; failed=$((failed + 1)); }
check() { # check NAME COMMAND...: ok when the command succeeds
	local name=$1
	shift
	if "$@" >/dev/null 2>&1; then ok "$name"; else bad "$name"; fi
}

table=$(sfdisk -d "$image")
echo "$table"
diskid=$(sfdisk --disk-id "$image" | sed 's/^0x//')
check "msdos partition table" grep -q '^label: dos$' <<<"$table"
check "three partitions" test "$(grep -c "^$image" <<<"$table")" = 3
check "partition 1 is FAT32 (LBA), bootable, starts at 4 MiB" grep -Eq "^${image}1 : start= *8192, .*type=c, bootable" <<<"$table"
check "partitions 2 and 3 are Linux" test "$(grep -Ec "^${image}[23] : .*type=83" <<<"$table")" = 2

mnt=$(mktemp -d)
loop=$(losetup --find --show --read-only --partscan "$image")
cleanup() {
	umount "$mnt/boot" "$mnt/root" "$mnt/data" 2>/dev/null || true
	losetup -d "$loop"
	rm -rf "$mnt"
}
trap cleanup EXIT
mkdir -p "$mnt/boot" "$mnt/root" "$mnt/data"
udevadm settle 2>/dev/null || true
mount -o ro "${loop}p1" "$mnt/boot"
mount -o ro,noload "${loop}p2" "$mnt/root"
mount -o ro,noload "${loop}p3" "$mnt/data"
check "boot partition labelled bootfs" test "$(blkid -s LABEL -o value "${loop}p1")" = bootfs
check "data partition labelled eventbox-data" test "$(blkid -s LABEL -o value "${loop}p3")" = eventbox-data

b=$mnt/boot
for f in bootcode.bin start.elf fixup.dat start4.elf fixup4.dat config.txt cmdline.txt eventbox.txt.example; do
	check "boot: $f" test -s "$b/$f"
done
for dtb in bcm2837-rpi-3-b.dtb bcm2837-rpi-3-b-plus.dtb bcm2837-rpi-zero-2-w.dtb bcm2711-rpi-4-b.dtb bcm2712-rpi-5-b.dtb; do
	check "boot: device tree $dtb" test -s "$b/$dtb"
done
check "boot: a kernel" compgen -G "$b/vmlinuz-*-arm64"
check "boot: an initrd" compgen -G "$b/initrd.img-*-arm64"
check "boot: config.txt names the kernel and initrd" grep -q '^kernel=vmlinuz-' "$b/config.txt"
check "boot: config.txt runs the kernel in 64 bits" grep -q '^arm_64bit=1' "$b/config.txt"
check "boot: cmdline.txt roots on partition 2 by PARTUUID" grep -q "root=PARTUUID=$diskid-02" "$b/cmdline.txt"
check "boot: cmdline.txt mounts the root read-only" grep -Eq '(^| )ro( |$)' "$b/cmdline.txt"
check "boot: eventbox.txt.example is packaging/eventbox.txt.example" cmp "$b/eventbox.txt.example" "$(dirname "$0")/../eventbox.txt.example"
check "boot: no eventbox.txt (a host writes it)" test ! -e "$b/eventbox.txt"
echo "config.txt: $(grep -v '^#' "$b/config.txt" | grep . | tr '\n' ' ')"
echo "cmdline.txt: $(cat "$b/cmdline.txt")"

r=$mnt/root
fstab=$(grep -v '^#' "$r/etc/fstab")
check "fstab: root read-only by PARTUUID" grep -Eq "^PARTUUID=$diskid-02 +/ +ext4 +ro," <<<"$fstab"
check "fstab: boot partition at /boot/firmware" grep -Eq "^PARTUUID=$diskid-01 +/boot/firmware +vfat " <<<"$fstab"
check "fstab: data partition at /data, grown" grep -Eq "^PARTUUID=$diskid-03 +/data +ext4 +rw,.*x-systemd.growfs" <<<"$fstab"
check "fstab: DATA_DIR /var/lib/eventbox on the data partition" grep -Eq '^/data/eventbox +/var/lib/eventbox +none +bind' <<<"$fstab"
check "initrd script: /data and the overlay on /etc before systemd" grep -q 'upperdir=/run/eventbox-data/system/etc' "$r/etc/initramfs-tools/scripts/local-bottom/eventbox-data-etc"
for m in /tmp /var/tmp /var/log /var/lib/NetworkManager /var/lib/systemd; do
	check "fstab: $m in memory" grep -Eq "^tmpfs +$m +tmpfs " <<<"$fstab"
done
check "journal in memory" grep -q '^Storage=volatile' "$r/etc/systemd/journald.conf.d/eventbox.conf"
check "resolv.conf in /run" test "$(readlink "$r/etc/resolv.conf")" = /run/NetworkManager/resolv.conf
check "eventbox unit installed" test -f "$r/lib/systemd/system/eventbox.service"
check "eventbox unit enabled" test -L "$r/etc/systemd/system/multi-user.target.wants/eventbox.service"
check "grow unit enabled" test -L "$r/etc/systemd/system/local-fs-pre.target.wants/eventbox-grow-data.service"
check "grow unit names partition 3" grep -qx "PARTUUID=$diskid-03" "$r/etc/eventbox/data-partition"
check "NetworkManager installed" test -x "$r/usr/sbin/NetworkManager"
check "NetworkManager enabled" test -L "$r/etc/systemd/system/multi-user.target.wants/NetworkManager.service"
check "dnsmasq installed" test -x "$r/usr/sbin/dnsmasq"
check "avahi-daemon installed" test -x "$r/usr/sbin/avahi-daemon"
check "Wi-Fi firmware (brcm) installed" compgen -G "$r/lib/firmware/brcm/brcmfmac43455-sdio.*"
check "hostname eventbox" grep -qx eventbox "$r/etc/hostname"
check "machine id made at first boot" test ! -s "$r/etc/machine-id"
check "/etc and /var stamped up to date (no ldconfig at boot)" sh -c "test ! '$r/usr' -nt '$r/etc/.updated' && test ! '$r/usr' -nt '$r/var/.updated'"
check "CA certificates: the bundle holds more than 100" test "$(grep -c 'BEGIN CERTIFICATE' "$r/etc/ssl/certs/ca-certificates.crt" 2>/dev/null || echo 0)" -gt 100
check "CA certificates: hash links" compgen -G "$r/etc/ssl/certs/*.0"
check "update-ca-certificates put back (no diversion)" sh -c "test -f '$r/usr/sbin/update-ca-certificates' && test ! -L '$r/usr/sbin/update-ca-certificates'"
check "root password locked" grep -q '^root:!' "$r/etc/shadow"
check "/var/lib/eventbox an empty mount point" test -z "$(ls -A "$r/var/lib/eventbox")"
check "/boot/firmware an empty mount point" test -z "$(ls -A "$r/boot/firmware")"
ebuid=$(awk -F: '$1 == "eventbox" { print $3 }' "$r/etc/passwd")
check "data: eventbox/ owned by the eventbox user" test "$(stat -c %u "$mnt/data/eventbox")" = "$ebuid"
check "data: system/etc and system/etc.work" test -d "$mnt/data/system/etc" -a -d "$mnt/data/system/etc.work"

if out=$(chroot "$r" /usr/bin/eventbox version 2>&1); then
	ok "arm64 eventbox version in the root: $out"
else
	bad "arm64 eventbox version in the root: $out"
fi
check "arm64 binary" sh -c "file -b '$r/usr/bin/eventbox' | grep -q 'ARM aarch64'"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
