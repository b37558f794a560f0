#!/bin/sh
# raspi-boot.sh ROOT ROOTPART: the card's boot files, run by build.sh once
# the tree is set up (with /proc mounted in it, so raspi-firmware knows it
# is in a chroot). raspi-firmware writes cmdline.txt and
# config.txt and copies the kernel, initrd and device trees to
# /boot/firmware from its settings, when a kernel or initrd is installed:
# the root by PARTUUID, read-only, the filesystems checked and repaired at
# boot (a power cut is how a box is switched off). The initrd is made here,
# once (build.sh set update-initramfs aside while the packages went in).
set -eu
root=$1
rootpart=$2
die() { echo "raspi-boot.sh: $*" >&2; exit 1; }

sed -i "s|^#\?ROOTPART=.*|ROOTPART=$rootpart|" "$root/etc/default/raspi-firmware"
grep -q "^ROOTPART=$rootpart\$" "$root/etc/default/raspi-firmware" || die "ROOTPART not set in /etc/default/raspi-firmware"
# No cma= for all models: one image serves the Pi 4 too, where Debian's
# cma=64M can keep it from booting, and the box drives no screen.
sed -i "s|^#\?CMA=.*|CMA=0|" "$root/etc/default/raspi-firmware"
# raspi-firmware writes rw; the last of ro and rw counts.
echo ro >"$root/etc/default/raspi-extra-cmdline"

if [ -L "$root/usr/sbin/update-initramfs" ]; then
	rm "$root/usr/sbin/update-initramfs"
	chroot "$root" dpkg-divert --local --rename --remove /usr/sbin/update-initramfs
fi
if ls "$root"/boot/initrd.img-* >/dev/null 2>&1; then
	chroot "$root" update-initramfs -u -k all
else
	chroot "$root" update-initramfs -c -k all
fi
chroot "$root" env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware
for f in cmdline.txt config.txt; do
	[ -s "$root/boot/firmware/$f" ] || die "raspi-firmware wrote no /boot/firmware/$f"
done
ls "$root"/boot/firmware/initrd.img-* >/dev/null 2>&1 || die "no initrd on /boot/firmware"
