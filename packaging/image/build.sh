#!/bin/bash
# build.sh DEB OUT: a flashable card image for Raspberry Pi 3, 4, 5 and Zero 2 W
# (arm64), made from Debian's packages the way Debian's own Raspberry Pi
# images are (an msdos partition table, a FAT partition that the Pi's
# firmware reads, raspi-firmware laying out config.txt, cmdline.txt, the
# kernel, initrd and device trees on it), with the eventbox package DEB
# installed, written to OUT.
#
# Runs as root (mmdebstrap, chroot through qemu-user's binfmt handler). No
# loop device is needed: each filesystem is made from a directory
# (mkfs.ext4 -d, mcopy) and copied into the image at its offset.
#
# The card (docs/decisions/backups-updates.md, "The card image"):
#   p1 FAT   "bootfs"        /boot/firmware  firmware, kernel, eventbox.txt
#   p2 ext4  "rootfs"        /               read-only
#   p3 ext4  "eventbox-data" /data           grown to fill the card at first boot;
#                                            /data/eventbox is DATA_DIR (/var/lib/eventbox),
#                                            /data/system/etc the changes made to /etc
#
# Settings (environment): IMAGE_SUITE (trixie), IMAGE_MIRROR, IMAGE_WORK (a
# scratch directory, removed at the end unless IMAGE_KEEP=1), IMAGE_BOOT_MB
# (256), IMAGE_DATA_MB (64, the data partition before it is grown).
set -euo pipefail

if [ $# -ne 2 ]; then
	echo "usage: $0 EVENTBOX-ARM64.deb OUT.img" >&2
	exit 2
fi
deb=$(realpath "$1")
out=$2
here=$(cd "$(dirname "$0")" && pwd)
suite=${IMAGE_SUITE:-trixie}
mirror=${IMAGE_MIRROR:-http://deb.debian.org/debian}
boot_mb=${IMAGE_BOOT_MB:-256}
data_mb=${IMAGE_DATA_MB:-64}

die() { echo "build.sh: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (mmdebstrap, chroot and file ownership need it)"
for tool in mmdebstrap sfdisk mkfs.vfat mkfs.ext4 mcopy dpkg-deb; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install mmdebstrap fdisk dosfstools e2fsprogs mtools)"
done
[ "$(dpkg-deb -f "$deb" Architecture)" = arm64 ] || die "$deb is not an arm64 package"
# chroot into an arm64 tree needs qemu-user's binfmt handler (qemu-user-static
# and binfmt-support register it; in a container binfmt_misc may need mounting).
if [ "$(uname -m)" != aarch64 ] && ! grep -qs '^enabled' /proc/sys/fs/binfmt_misc/qemu-aarch64; then
	die "no binfmt handler for arm64: apt-get install qemu-user-static binfmt-support (and mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc)"
fi
# The processor qemu-user emulates for every program run in the tree (the
# package scripts, dpkg, depmod, update-initramfs): the Pi 4's own core.
# qemu-user's default, "max", has pointer authentication, which Debian's
# arm64 programs use in nearly every function (they are built with branch
# protection) and which qemu computes in software: perl, which runs most
# package scripts (debconf, deb-systemd-helper), is about 30 times slower
# under it (a loop of two million additions: 15.6 s against 0.53 s). On a
# Cortex-A72 those instructions are hints that do nothing, as on a Pi 3 or 4.
export QEMU_CPU=${QEMU_CPU:-cortex-a72}

work=${IMAGE_WORK:-$(mktemp -d /var/tmp/eventbox-image.XXXXXX)}
mkdir -p "$work"
cleanup() {
	if [ "${IMAGE_KEEP:-0}" != 1 ]; then rm -rf "$work"; fi
}
trap cleanup EXIT
root=$work/root
rm -rf "${work:?}/boot" "${work:?}/data"
if [ "${IMAGE_REUSE_ROOT:-0}" = 1 ] && [ -x "$root/usr/bin/eventbox" ]; then
	reuse=1
else
	reuse=0
	rm -rf "${root:?}"
fi

# The disk's identifier names its partitions (PARTUUID=<id>-01, -02, -03) in
# cmdline.txt and /etc/fstab: a label such as "rootfs" would also match a USB
# stick with Raspberry Pi OS on it.
diskid=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
part() { printf 'PARTUUID=%s-%02d' "$diskid" "$1"; }

if [ "$reuse" = 1 ]; then
	# IMAGE_REUSE_ROOT=1 with the IMAGE_WORK of an earlier build kept with
	# IMAGE_KEEP=1: the packages stay as they are (the new DEB goes in), the
	# card's settings and partitions are made again. For work on this script.
	echo "build.sh: reusing the tree in $root"
	cp "$deb" "$root/tmp/" && chroot "$root" dpkg -i "/tmp/$(basename "$deb")" >/dev/null && rm -f "$root"/tmp/*.deb
else
echo "build.sh: debian $suite arm64 from $mirror into $root"
# minbase plus what the box runs. raspi-firmware and firmware-brcm80211 are
# in non-free-firmware. The eventbox package is installed by apt from its
# file, so its dependencies come from the archive.
packages=(
	systemd-sysv udev kmod initramfs-tools linux-image-arm64
	raspi-firmware firmware-brcm80211 wireless-regdb
	network-manager wpasupplicant dnsmasq-base iw iproute2 rfkill ethtool avahi-daemon libnss-mdns
	polkitd adduser systemd-timesyncd ca-certificates tzdata
	e2fsprogs dosfstools fdisk util-linux zstd
	cups printer-driver-gutenprint ipp-usb
)
include=$(IFS=,; echo "${packages[*]}")
# The initrd is made once, at the end: while the packages are installed,
# update-initramfs is set aside (each kernel, udev and firmware package
# would otherwise make it again, minutes each under qemu-user). So is
# update-ca-certificates: its shell loop starts several programs for each
# of the ~150 certificates, three to four minutes under qemu-user, and it
# runs twice; its links and bundle are made after (ca_certificates).
# dpkg's unsafe-io: the tree is a scratch directory copied into the image
# at the end, so syncing each unpacked file buys nothing.
mmdebstrap --architectures=arm64 --variant=minbase \
	--components="main non-free-firmware" \
	--dpkgopt=force-unsafe-io \
	--aptopt='Acquire::Languages "none"' \
	--essential-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-initramfs && ln -s /bin/true "$1/usr/sbin/update-initramfs"' \
	--essential-hook='chroot "$1" dpkg-divert --local --rename --add /usr/sbin/update-ca-certificates && ln -s /bin/true "$1/usr/sbin/update-ca-certificates"' \
	--include="$include" \
	--customize-hook="copy-in '$deb' /tmp" \
	--customize-hook="chroot \"\$1\" apt-get install -y --no-install-recommends /tmp/$(basename "$deb")" \
	--customize-hook="rm -f \"\$1\"/tmp/*.deb" \
	"$suite" "$root" "$mirror"
fi

install -d "$root/boot/firmware" "$root/data"

# ca_certificates: what update-ca-certificates makes in /etc/ssl/certs, made
# with this machine's shell and openssl from the root's files: a link
# NAME.pem to each certificate ca-certificates.conf enables, a link
# HASH.N to each (openssl's subject hash, as `openssl rehash` names them),
# and the bundle ca-certificates.crt that Go and most programs read. The
# real script is put back: a later upgrade on the box finds its work done.
ca_certificates() {
	local certs=$root/etc/ssl/certs share=$root/usr/share/ca-certificates crt pem h n count=0
	if [ -L "$root/usr/sbin/update-ca-certificates" ]; then
		rm "$root/usr/sbin/update-ca-certificates"
		chroot "$root" dpkg-divert --local --rename --remove /usr/sbin/update-ca-certificates
	fi
	install -d "$certs"
	: >"$certs/.bundle"
	while read -r crt; do
		[ -f "$share/$crt" ] || die "ca-certificates.conf names $crt, which is not in /usr/share/ca-certificates"
		pem=$(basename "$crt" .crt | sed -e 's/ /_/g' -e 's/[()]/=/g' -e 's/,/_/g').pem
		ln -sfn "/usr/share/ca-certificates/$crt" "$certs/$pem"
		sed -e '$a\' "$share/$crt" >>"$certs/.bundle"
		h=$(openssl x509 -subject_hash -noout -in "$share/$crt") || die "openssl cannot read $crt"
		n=0
		while [ -L "$certs/$h.$n" ] && [ "$(readlink "$certs/$h.$n")" != "$pem" ]; do n=$((n + 1)); done
		ln -sfn "$pem" "$certs/$h.$n"
		count=$((count + 1))
	done < <(sed -e '/^$/d' -e '/^#/d' -e '/^!/d' "$root/etc/ca-certificates.conf")
	[ "$count" -gt 100 ] || die "only $count CA certificates enabled in ca-certificates.conf"
	# Certificates other packages put there as files (ssl-cert's own) get
	# their hash link too, as `openssl rehash` gives them.
	for pem in "$certs"/*.pem; do
		[ -f "$pem" ] && [ ! -L "$pem" ] || continue
		h=$(openssl x509 -subject_hash -noout -in "$pem") || continue
		n=0
		while [ -L "$certs/$h.$n" ] && [ "$(readlink "$certs/$h.$n")" != "${pem##*/}" ]; do n=$((n + 1)); done
		ln -sfn "${pem##*/}" "$certs/$h.$n"
	done
	chmod 0644 "$certs/.bundle"
	mv "$certs/.bundle" "$certs/ca-certificates.crt"
	echo "build.sh: $count CA certificates linked and bundled"
}
command -v openssl >/dev/null || die "openssl not found (apt-get install openssl)"
ca_certificates

# The box's name, and sources that name the components it was built from.
echo eventbox >"$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\teventbox\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://security.debian.org/debian-security
Suites: $suite-security
Components: main non-free-firmware
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
rm -f "$root/etc/apt/sources.list"

# Filesystems: the root read-only, DATA_DIR and the changes to /etc on the
# data partition, what the system writes in normal running in memory.
sed "s/@BOOT@/$(part 1)/; s/@ROOT@/$(part 2)/; s/@DATA@/$(part 3)/" "$here/fstab.in" >"$root/etc/fstab"
# NetworkManager writes resolv.conf at every change of network: in /run.
ln -sfn /run/NetworkManager/resolv.conf "$root/etc/resolv.conf"
install -d "$root/etc/systemd/journald.conf.d"
install -m 0644 "$here/journald.conf" "$root/etc/systemd/journald.conf.d/eventbox.conf"
install -m 0755 "$here/grow-data" "$root/usr/local/sbin/eventbox-grow-data"
install -m 0644 "$here/eventbox-grow-data.service" "$root/etc/systemd/system/eventbox-grow-data.service"
install -d "$root/etc/systemd/system/local-fs-pre.target.wants"
ln -sfn ../eventbox-grow-data.service "$root/etc/systemd/system/local-fs-pre.target.wants/eventbox-grow-data.service"
printf '%s\n' "$(part 3)" >"$root/etc/eventbox/data-partition"
# The settings file on the boot partition is applied by the package's own
# unit, as root before the daemon (its ExecStartPre lines).
# Each card makes its own machine id at its first boot (DHCP client ids and
# NetworkManager's stable addresses derive from it).
: >"$root/etc/machine-id"
ln -sfn /etc/machine-id "$root/var/lib/dbus/machine-id"
# No password login: the box is driven from its console in a browser, and
# whoever holds the card can read and change it anyway.
chroot "$root" passwd --lock root >/dev/null

# The initrd: a fixed list of modules (initramfs.modules) instead of
# Debian's "most" (built under qemu-user, "most" takes many minutes and
# makes an initrd several times the size; each module's dependencies come
# with it), and a script that mounts /data and the overlay on /etc before
# systemd starts.
install -d "$root/etc/initramfs-tools/conf.d" "$root/usr/share/initramfs-tools/modules.d"
install -m 0644 "$here/initramfs.conf" "$root/etc/initramfs-tools/conf.d/eventbox.conf"
install -m 0644 "$here/initramfs.modules" "$root/usr/share/initramfs-tools/modules.d/eventbox"
install -m 0755 "$here/initramfs-data-etc" "$root/etc/initramfs-tools/scripts/local-bottom/eventbox-data-etc"
install -m 0755 "$here/initramfs-hook" "$root/etc/initramfs-tools/hooks/eventbox"
# The boot files, from the settings above (/etc/fstab included: the initrd
# takes its fsck from it). /proc is there for raspi-firmware's scripts.
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"; cleanup' EXIT
sh "$here/raspi-boot.sh" "$root" "$(part 2)"
umount "$root/proc"
trap cleanup EXIT
install -d "$root/boot/firmware"
install -m 0644 "$here/../eventbox.txt.example" "$root/boot/firmware/eventbox.txt.example"

chroot "$root" apt-get clean
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/log/*.log "$root"/var/log/apt/*

# The data partition's first contents: DATA_DIR, owned by the service's
# user (the package made it), and the upper and work directories of /etc.
ebuid=$(chroot "$root" id -u eventbox)
ebgid=$(chroot "$root" id -g eventbox)
install -d -m 0750 -o "$ebuid" -g "$ebgid" "$work/data/eventbox"
install -d -m 0755 "$work/data/system/etc" "$work/data/system/etc.work"
rm -rf "${root:?}/var/lib/eventbox" && install -d -m 0755 "$root/var/lib/eventbox"

# The boot partition's contents leave the root, whose /boot/firmware stays
# as the empty mount point.
mv "$root/boot/firmware" "$work/boot" && install -d "$root/boot/firmware"

# What systemd does once after the packages in /usr change (the
# ConditionNeedsUpdate= units: ldconfig.service, systemd-update-done), done
# here: each card's first boot would spend some 20 s emulated on it, and
# /var is on the read-only root, where systemd-update-done cannot leave its
# stamp, so the units that look at /var would run at every boot.
chroot "$root" ldconfig
touch "$root/etc/.updated" "$root/var/.updated"

# Sizes in MiB: the root with a quarter free (package upgrades, made with
# the root remounted read-write), rounded up to 64 MiB.
used=$(du -sm --apparent-size "$root" | cut -f1)
root_mb=$(( (used * 5 / 4 + 128 + 63) / 64 * 64 ))
total_mb=$(( 4 + boot_mb + root_mb + data_mb ))
echo "build.sh: root uses ${used} MiB: partitions boot ${boot_mb} MiB, root ${root_mb} MiB, data ${data_mb} MiB, image ${total_mb} MiB"

rm -f "$work/boot.img" "$work/root.img" "$work/data.img"
mkfs.vfat -F 32 -n bootfs -C "$work/boot.img" $((boot_mb * 1024)) >/dev/null
mcopy -s -p -m -i "$work/boot.img" "$work/boot"/* ::/
# ext4 defaults for a small card; the data partition gets its inode ratio
# for photos and is grown later (resize_inode leaves room for that).
mkfs.ext4 -q -L rootfs -d "$root" "$work/root.img" "${root_mb}M"
mkfs.ext4 -q -L eventbox-data -i 65536 -d "$work/data" "$work/data.img" "${data_mb}M"

rm -f "$out"
truncate -s "${total_mb}M" "$out"
sfdisk --quiet "$out" <<EOF
label: dos
label-id: 0x$diskid
unit: sectors
start=$((4 * 2048)), size=$((boot_mb * 2048)), type=c, bootable
start=$(((4 + boot_mb) * 2048)), size=$((root_mb * 2048)), type=83
start=$(((4 + boot_mb + root_mb) * 2048)), size=$((data_mb * 2048)), type=83
EOF
dd if="$work/boot.img" of="$out" bs=1M seek=4 conv=notrunc,sparse status=none
dd if="$work/root.img" of="$out" bs=1M seek=$((4 + boot_mb)) conv=notrunc,sparse status=none
dd if="$work/data.img" of="$out" bs=1M seek=$((4 + boot_mb + root_mb)) conv=notrunc,sparse status=none
echo "build.sh: $out ($total_mb MiB, disk id $diskid)"
