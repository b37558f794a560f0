#!/usr/bin/env bash
# lanes.sh PATTERN: every box scenario (make boxtest), as two lanes side by
# side with one machine at a time in each: the scenarios PATTERN matches in
# the first, all the others in the second. Go's own -parallel would start
# the scenarios in any order and could leave the longest for last; the two
# lanes are made about as long as each other (packaging/image/README.md
# has each scenario's time). Each lane's lines are prefixed with it; the
# run fails if either lane fails, and then ends with what failed: for each
# failed test, its failure messages (lanelog; a long log's end is often
# all one sees of it, as in CI).
# EVENTBOX_IMAGE names the image.
set -uo pipefail
cd "$(dirname "$0")"
lane=${1:?usage: lanes.sh PATTERN}
bin=$(mktemp /tmp/eventbox-boxtest.XXXXXX)
logs=$(mktemp -d /tmp/eventbox-boxtest-logs.XXXXXX)
trap 'rm -rf "$bin" "$logs"' EXIT
go test -c -o "$bin" . || exit 1
go build -o "$logs/lanelog" ./lanelog || exit 1
# Two boxes run at once, each with a qemu thread per emulated core
# (BOXTEST_MACHINES is left unset): on two host cores, one thread per box
# (BOXTEST_MACHINES=2) boots the pair faster, but starves the crowd's box,
# which runs 30 phones' wpa_supplicants inside it (a handshake timed out in
# a whole run; tcgAccel in machine_test.go).

run() { # run NAME -test.run|-test.skip PATTERN
	"$bin" -test.count=1 -test.v=test2json -test.timeout 90m -test.parallel 1 "$2" "$3" 2>&1 |
		go tool test2json | "$logs/lanelog" -prefix "[$1] " -digest "$logs/${1// /-}.digest"
}
run "lane 1" -test.run "$lane" &
one=$!
run "lane 2" -test.skip "$lane" &
two=$!
rc=0
wait "$one" || { rc=1; echo "boxtest: lane 1 failed (its lines start with [lane 1])"; }
wait "$two" || { rc=1; echo "boxtest: lane 2 failed (its lines start with [lane 2])"; }
if [ "$rc" = 0 ]; then
	echo "boxtest: both lanes passed"
else
	echo "boxtest: what failed:"
	cat "$logs"/*.digest | tail -n 30
fi
exit "$rc"
