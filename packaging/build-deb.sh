#!/bin/sh
# build-deb.sh VERSION DEBIAN-ARCH BINARY OUTDIR
# Lays out the eventbox package around BINARY and builds
# OUTDIR/eventbox_VERSION_ARCH.deb with dpkg-deb. VERSION may be what
# `git describe` prints: a leading v goes, dashes become plus signs, and a
# version that does not start with a digit becomes 0.0.0+git<it>. Files are owned by root;
# their times come from SOURCE_DATE_EPOCH (default: the last commit), so the
# same input gives the same package.
set -eu
if [ $# -ne 4 ]; then
	echo "usage: $0 VERSION DEBIAN-ARCH BINARY OUTDIR" >&2
	exit 2
fi
version=$1 arch=$2 binary=$3 outdir=$4
here=$(cd "$(dirname "$0")" && pwd)
command -v dpkg-deb >/dev/null || { echo "build-deb.sh: dpkg-deb not found (Debian package dpkg)" >&2; exit 1; }
[ -x "$binary" ] || { echo "build-deb.sh: $binary is not an executable" >&2; exit 1; }
version=$(printf '%s' "${version#v}" | tr -- '-' '+')
case $version in [0-9]*) ;; *) version="0.0.0+git$version" ;; esac
if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH=$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)
fi
export SOURCE_DATE_EPOCH

root=$(mktemp -d)
chmod 0755 "$root"
trap 'rm -rf "$root"' EXIT
umask 022
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/default" "$root/etc/eventbox" "$root/usr/share/doc/eventbox"
install -m 0755 "$binary" "$root/usr/bin/eventbox"
# The one unit text, with the path kardianos/service would fill in.
sed 's#{{Path | cmdEscape}}#/usr/bin/eventbox#g' "$here/eventbox.service" > "$root/lib/systemd/system/eventbox.service"
chmod 0644 "$root/lib/systemd/system/eventbox.service"
if grep -q '{{' "$root/lib/systemd/system/eventbox.service"; then
	echo "build-deb.sh: the unit still holds a template expression" >&2
	exit 1
fi
# The Network screen: polkit lets the eventbox user change NetworkManager's
# connections and start the unit that sets the Wi-Fi country (and no other).
install -d "$root/usr/share/polkit-1/rules.d"
install -m 0644 "$here/eventbox-network.rules" "$root/usr/share/polkit-1/rules.d/50-eventbox-network.rules"
install -m 0644 "$here/eventbox-wifi-country@.service" "$root/lib/systemd/system/eventbox-wifi-country@.service"
install -m 0644 "$here/eventbox-let-go@.service" "$root/lib/systemd/system/eventbox-let-go@.service"
# A lost packet on the hotspot is sent again sooner (netsetup.RTOMin),
# applied by systemd-sysctl at boot.
install -d "$root/usr/lib/sysctl.d"
install -m 0644 "$here/eventbox-sysctl.conf" "$root/usr/lib/sysctl.d/60-eventbox.conf"
# Settings may hold secrets (ADMIN_PASSWORD): readable by root only; systemd
# reads it before it drops to the eventbox user.
install -m 0600 "$here/debian/default" "$root/etc/default/eventbox"
# Further trusted release keys: root's, writable by root only (eventbox
# refuses the file otherwise); shipped with comments and no key.
install -m 0644 "$here/debian/release-keys" "$root/etc/eventbox/release-keys"
install -m 0644 "$here/README.md" "$root/usr/share/doc/eventbox/README.md"
# eventbox's licence, and what the binary bundles from others under theirs.
install -m 0644 "$here/../LICENSE" "$root/usr/share/doc/eventbox/copyright"
install -m 0644 "$here/../THIRD_PARTY_NOTICES.md" "$root/usr/share/doc/eventbox/THIRD_PARTY_NOTICES.md"
for script in postinst prerm postrm; do
	install -m 0755 "$here/debian/$script" "$root/DEBIAN/$script"
done
printf '/etc/default/eventbox\n/etc/eventbox/release-keys\n' > "$root/DEBIAN/conffiles"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" "$here/debian/control.in" > "$root/DEBIAN/control"
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

mkdir -p "$outdir"
out="$outdir/eventbox_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$out" >/dev/null
echo "$out"
