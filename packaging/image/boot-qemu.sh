#!/bin/bash
# boot-qemu.sh IMAGE [PORT]: boots a card image made by build.sh in
# qemu-system-aarch64 (the virt machine, full emulation), with the kernel
# and initrd of its own boot partition and its own root, on a copy of the
# image (the card's first boot grows the data partition: the copy is grown
# by 1 GiB first, as a bigger card would be). The box's port 80 is forwarded
# to PORT (18080) on the host. Waits until /api/health answers, prints how
# long that took, and leaves the machine running when BOOT_KEEP=1 (its pid
# in $work/qemu.pid), else powers it off.
#
# What this cannot show: the Pi's firmware boot (config.txt, the device
# trees); the virt machine's kernel command line is this script's.
set -euo pipefail

if [ $# -lt 1 ]; then
	echo "usage: $0 IMAGE [PORT]" >&2
	exit 2
fi
image=$1
port=${2:-18080}
timeout=${BOOT_TIMEOUT:-1800}
work=${BOOT_WORK:-$(mktemp -d /var/tmp/eventbox-boot.XXXXXX)}
command -v qemu-system-aarch64 >/dev/null || { echo "boot-qemu.sh: apt-get install qemu-system-arm" >&2; exit 1; }

cp --sparse=always "$image" "$work/card.img"
truncate -s +1G "$work/card.img"
diskid=$(sfdisk --disk-id "$work/card.img" | sed 's/^0x//')
# The boot partition's kernel and initrd, read with mtools at its offset.
start=$(sfdisk -d "$work/card.img" | awk -F'[=,]' '/^[^ ]*1 :/ { gsub(/ /, "", $2); print $2 }')
fat="$work/card.img@@$((start * 512))"
kernel=$(mdir -b -i "$fat" :: | sed -n 's#^::/##p' | grep '^vmlinuz-' | head -n1)
initrd=$(mdir -b -i "$fat" :: | sed -n 's#^::/##p' | grep '^initrd.img-' | head -n1)
mcopy -o -i "$fat" "::$kernel" "$work/vmlinuz"
mcopy -o -i "$fat" "::$initrd" "$work/initrd.img"
echo "boot-qemu.sh: $kernel, $initrd, root PARTUUID=$diskid-02, port $port -> 80, serial log $work/console.log"

begin=$(date +%s)
nice -n 19 qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 1024 \
	-kernel "$work/vmlinuz" -initrd "$work/initrd.img" \
	-append "root=PARTUUID=$diskid-02 ro fsck.repair=yes net.ifnames=0 console=ttyAMA0 rootwait" \
	-drive "file=$work/card.img,if=virtio,format=raw,cache=unsafe" \
	-netdev "user,id=net0,hostfwd=tcp:127.0.0.1:$port-:80" -device virtio-net-pci,netdev=net0 \
	-device virtio-rng-pci \
	-display none -serial "file:$work/console.log" -monitor none \
	-daemonize -pidfile "$work/qemu.pid"
pid=$(cat "$work/qemu.pid")
stop() {
	if [ "${BOOT_KEEP:-0}" != 1 ]; then kill "$pid" 2>/dev/null || true; fi
}
trap stop EXIT

while :; do
	elapsed=$(($(date +%s) - begin))
	if body=$(curl -fsS -m 5 "http://127.0.0.1:$port/api/health" 2>/dev/null); then
		echo "boot-qemu.sh: /api/health answered after ${elapsed} s: $body"
		break
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "boot-qemu.sh: the machine stopped after ${elapsed} s; its console:" >&2
		tail -n 40 "$work/console.log" >&2
		exit 1
	fi
	if [ "$elapsed" -ge "$timeout" ]; then
		echo "boot-qemu.sh: no answer from /api/health after ${elapsed} s; the console:" >&2
		tail -n 40 "$work/console.log" >&2
		exit 1
	fi
	sleep 10
done
