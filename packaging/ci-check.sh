#!/usr/bin/env bash
# Packaging checks for CI, run after `make test` passed. Assumes Debian and
# root. Builds dist/ and the .debs, runs the ARM binaries under qemu-user
# (binfmt_misc may be absent, so qemu is called by name), smoke-tests
# `serve` on arm64, inspects the packages, and installs, upgrades, removes
# and purges the amd64 .deb in a scratch copy of this system (an overlay in a
# private mount namespace), so the host is left as it was. Last, the S3
# export's tests against a real S3-compatible server, the Versity gateway.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"

fail() { echo "ci-check: FAIL: $*" >&2; exit 1; }
step() { echo "ci-check: $*"; }

need=()
command -v qemu-aarch64-static >/dev/null || need+=(qemu-user-static)
command -v curl >/dev/null || need+=(curl)
command -v dpkg-deb >/dev/null || need+=(dpkg)
command -v unshare >/dev/null || need+=(util-linux)
command -v adduser >/dev/null || need+=(adduser)
if [ ${#need[@]} -gt 0 ]; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

step "the plain builds for arm64, armv7 and amd64, each statically linked (make cross)"
make --no-print-directory cross

step "building dist/ and the .deb packages"
rm -rf dist
make --no-print-directory dist deb VERSION=1.0.0-ci >/dev/null
for f in eventbox-linux-arm64 eventbox-linux-armv7 eventbox-linux-armv6 eventbox-linux-amd64 \
	eventbox_1.0.0+ci_arm64.deb eventbox_1.0.0+ci_armhf.deb eventbox_1.0.0+ci_amd64.deb; do
	[ -s "dist/$f" ] || fail "dist/$f was not built"
done

step "running the ARM binaries under qemu-user"
check_version() {
	local out
	out=$("$@" version) || fail "$* version exited $?"
	[ "$out" = "eventbox 1.0.0-ci" ] || fail "$* version printed '$out', want 'eventbox 1.0.0-ci'"
}
check_version qemu-aarch64-static dist/eventbox-linux-arm64
check_version qemu-arm-static dist/eventbox-linux-armv7
check_version qemu-arm-static -cpu arm1176 dist/eventbox-linux-armv6

step "serve smoke test of the arm64 binary under qemu-aarch64-static"
free_port() {
	local p
	for _ in $(seq 100); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	fail "no free port found"
}
port=$(free_port)
data=$(mktemp -d)
log="$data.log"
LISTEN_ADDR="127.0.0.1:$port" DATA_DIR="$data" MDNS_NAME=off \
	qemu-aarch64-static dist/eventbox-linux-arm64 serve >"$log" 2>&1 &
pid=$!
healthy=""
for _ in $(seq 120); do
	if curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/api/health" 2>/dev/null; then
		healthy=yes
		break
	fi
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
if [ -z "$healthy" ]; then
	kill -KILL "$pid" 2>/dev/null || true
	cat "$log" >&2
	fail "GET /api/health never answered 200 within 60 s"
fi
kill -TERM "$pid"
code=0
for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$pid" 2>/dev/null; then
	kill -KILL "$pid" || true
	cat "$log" >&2
	fail "serve did not exit within 30 s of SIGTERM"
fi
wait "$pid" || code=$?
[ "$code" = 0 ] || { cat "$log" >&2; fail "serve exited $code after SIGTERM, want 0"; }
rm -rf "$data" "$log"

step "inspecting the packages"
for arch in arm64 armhf amd64; do
	deb="dist/eventbox_1.0.0+ci_$arch.deb"
	info=$(dpkg-deb -I "$deb")
	for want in "Package: eventbox" "Version: 1.0.0+ci" "Architecture: $arch" "Depends: adduser"; do
		grep -qx " $want" <<<"$info" || fail "$deb: control lacks '$want'"
	done
	[ "$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./conffiles)" = "$(printf '/etc/default/eventbox\n/etc/eventbox/release-keys')" ] ||
		fail "$deb: conffiles is not /etc/default/eventbox and /etc/eventbox/release-keys"
	contents=$(dpkg-deb -c "$deb")
	for want in "-rwxr-xr-x root/root .* ./usr/bin/eventbox" \
		"-rw-r--r-- root/root .* ./lib/systemd/system/eventbox.service" \
		"-rw------- root/root .* ./etc/default/eventbox" \
		"drwxr-xr-x root/root .* ./etc/eventbox/" \
		"-rw-r--r-- root/root .* ./etc/eventbox/release-keys" \
		"-rw-r--r-- root/root .* ./usr/share/polkit-1/rules.d/50-eventbox-network.rules" \
		"-rw-r--r-- root/root .* ./lib/systemd/system/eventbox-wifi-country@.service" \
		"-rw-r--r-- root/root .* ./lib/systemd/system/eventbox-let-go@.service" \
		"-rw-r--r-- root/root .* ./usr/lib/sysctl.d/60-eventbox.conf"; do
		grep -Eq -- "^$want\$" <<<"$contents" || fail "$deb: no file matching '$want'"
	done
	unit=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ./lib/systemd/system/eventbox.service)
	for want in "ExecStart=/usr/bin/eventbox serve" "Type=notify" "NotifyAccess=main" "WatchdogSec=90s" "TimeoutStartSec=2min"; do
		grep -qx "$want" <<<"$unit" || fail "$deb: unit has no $want"
	done
	if command -v systemd-analyze >/dev/null; then
		ud=$(mktemp -d)
		# The unit as installed, run against this build's binary.
		sed "s#^ExecStart=/usr/bin/eventbox #ExecStart=$PWD/dist/eventbox-linux-amd64 #" <<<"$unit" >"$ud/eventbox.service"
		complaints=$(systemd-analyze verify --man=no "$ud/eventbox.service" 2>&1) || fail "$deb: systemd-analyze verify: $complaints"
		[ -z "$complaints" ] || fail "$deb: systemd-analyze verify complains: $complaints"
		rm -rf "$ud"
	fi
done
dpkg-deb --fsys-tarfile dist/eventbox_1.0.0+ci_amd64.deb | tar -xO ./usr/bin/eventbox | cmp -s - dist/eventbox-linux-amd64 ||
	fail "amd64 .deb does not carry dist/eventbox-linux-amd64"
dpkg-deb --fsys-tarfile dist/eventbox_1.0.0+ci_armhf.deb | tar -xO ./usr/bin/eventbox | cmp -s - dist/eventbox-linux-armv6 ||
	fail "armhf .deb does not carry the ARMv6 binary"

step "install, upgrade, remove and purge the amd64 package in a scratch root"
sh packaging/build-deb.sh 1.0.1+ci amd64 dist/eventbox-linux-amd64 dist >/dev/null
host_state=$(dpkg-query -W -f '${Status}' eventbox 2>/dev/null || true)
scratch=$(mktemp -d)
cp dist/eventbox_1.0.0+ci_amd64.deb dist/eventbox_1.0.1+ci_amd64.deb packaging/deb-lifecycle.sh "$scratch/"
unshare --mount --propagation private bash -euo pipefail -c '
	s=$1
	mkdir -p "$s/upper" "$s/work" "$s/root"
	mount -t tmpfs tmpfs "$s/upper"
	mkdir -p "$s/upper/u" "$s/upper/w"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$s/upper/u,workdir=$s/upper/w" "$s/root"
	mount -t proc proc "$s/root/proc"
	mount --rbind /dev "$s/root/dev"
	mkdir -p "$s/root/ci"
	cp "$s"/*.deb "$s/deb-lifecycle.sh" "$s/root/ci/"
	chroot "$s/root" bash /ci/deb-lifecycle.sh /ci
' sh "$scratch" || fail "package lifecycle (see above)"
rm -rf "$scratch"
[ "$(dpkg-query -W -f '${Status}' eventbox 2>/dev/null || true)" = "$host_state" ] ||
	fail "the lifecycle test changed the host's dpkg state"

step "the S3 export against a real store: the ...OnVersityGW tests (make s3gatewaytest)"
# The Versity S3 gateway (tools/s3gateway), kept in the cache folder and
# rebuilt only when its go.mod or go.sum changes (packaging/ci-versitygw.sh,
# which has the build's cost: 259 CPU-seconds from an empty build cache).
# In .ci/run the box lane has built it already, for its power cuts during
# an S3 export, or is building it: this waits for that build and takes it.
# SeaweedFS's weed, which make s3test also runs, costs 850 CPU-seconds and
# is left out of CI. The tests then take about 10 s (7 CPU-seconds) with
# their packages in the build cache, 130 CPU-seconds here with none.
vgw=$(bash packaging/ci-versitygw.sh) || fail "building versitygw (see above)"
make --no-print-directory s3gatewaytest VERSITYGW="$vgw" || fail "the S3 export against versitygw (see above)"

step "all packaging checks passed"
