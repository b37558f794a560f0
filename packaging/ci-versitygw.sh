#!/usr/bin/env bash
# ci-versitygw.sh: the Versity S3 gateway's versitygw command
# (tools/s3gateway) in the cache folder, built by make s3gateway only when
# the folder has none for this tools/s3gateway (its go.mod and go.sum,
# compared by their content, not their date: a fresh clone's files are
# newer than any cached binary). Prints the command's path.
#
# Both of CI's lanes need it: the box lane's power cuts during an S3 export
# (make boxtest, packaging/ci-box.sh boot) and the packaging checks' make
# s3gatewaytest (packaging/ci-check.sh). .ci/run starts it with the box
# lane, beside the card image; a lock makes a second caller wait for that
# build and take it, never build it again. Measured from an empty build
# cache on two shared cores: about 15 s to download its modules, then 259
# CPU-seconds (200 s user, 59 s system; 4 min 46 s at nice 19 beside other
# work), 650 MB of memory at its peak, a 61 MB binary.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
vgw="${VERSITYGW:-${XDG_CACHE_HOME:-$HOME/.cache}/eventbox-s3/versitygw}"
mkdir -p "$(dirname "$vgw")"
exec 9>"$vgw.lock"
flock 9
sum=$(cat tools/s3gateway/go.mod tools/s3gateway/go.sum | sha256sum | cut -d' ' -f1)
if [ -x "$vgw" ] && [ "$(cat "$vgw.sum" 2>/dev/null)" = "$sum" ]; then
	touch "$vgw" # newer than the clone's go.mod: make keeps it
else
	rm -f "$vgw" "$vgw.sum"
	t0=$SECONDS
	make --no-print-directory s3gateway VERSITYGW="$vgw" >&2
	echo "$sum" >"$vgw.sum"
	echo "ci-versitygw: built $vgw in $((SECONDS - t0)) s" >&2
fi
echo "$vgw"
