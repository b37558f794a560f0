#!/usr/bin/env bash
# unit.sh: the tests of `make unit` (and so of `make test`), in streams that
# run side by side, each printing its output when it ends:
#   race      every package with -race but daemon/scenarios and
#             NORACE_PKGS (FIRST_PKGS first: they mostly wait)
#   daemon    the route-level scenarios (daemon/scenarios) without -race,
#             in DAEMON_SHARDS processes of one test binary, each with
#             every DAEMON_SHARDS-th test (they mostly wait on servers,
#             timers and child processes). The detector made them four
#             times the CPU (103 s against 27 s), the largest share of
#             make test's: make longtest runs them all under -race
#   norace    NORACE_PKGS but ./e2e, without -race (pixel loops)
#   unraced   the tests that mark themselves testtool.Unraced, without
#             -race, in the raced packages that hold them
#   e2e       the browser tests that mark themselves testtool.Quick
# Which test goes where is said by the tests themselves (internal/testtool's
# markers, read by tools/testmarks): the tests marked testtool.Long skip
# themselves here and run in make longtest. The package lists come from the
# Makefile's variables.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
shards=${DAEMON_SHARDS:-3}
export GORACE=atexit_sleep_ms=0

marks=$($GO run ./tools/testmarks) || exit 1
eval "$marks"
norace=$($GO list $NORACE_PKGS) && all=$($GO list ./...) && first=$($GO list $FIRST_PKGS) || exit 1
race=$(printf '%s\n' "$first"; printf '%s\n' "$all" | grep -vxF "$norace" | grep -vxF "$first" | grep -vxF eventbox/daemon/scenarios)
# The unraced stream runs the marked tests of raced packages; those of
# unraced packages run with the rest of their package.
# (daemon/scenarios runs whole, unraced, in the daemon stream).
unraced_pkgs=$(for p in $UNRACED_PKGS; do $GO list "$p"; done | grep -vxF "$norace" | grep -vxF eventbox/daemon/scenarios)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# stream NAME CMD...: runs CMD in the background, its output held in a file
# and printed when it ends, its exit code kept.
stream() {
	local name=$1
	shift
	{
		"$@" >"$tmp/$name.out" 2>&1
		echo $? >"$tmp/$name.rc"
		cat "$tmp/$name.out"
		echo "unit: the $name stream ended after $SECONDS s"
	} &
}

# The daemon the black-box tests run (cmd/eventbox's own, the image
# memory's and outbound memory's scenarios), built once for every stream
# (testtool.BinariesEnv): each test process that needs it built it again,
# two whole compiles side by side on a fresh machine.
mkdir -p "$tmp/bin"
CGO_ENABLED=0 $GO build -o "$tmp/bin/eventbox" ./cmd/eventbox || exit 1
export EVENTBOX_TEST_BINARIES="$tmp/bin"

echo "go test -race: $(echo $race | wc -w) packages; without -race: $(echo $norace | wc -w) packages, the tests marked Unraced and the daemon's scenarios in $shards processes; side by side"

# in_scenarios CMD...: runs CMD in daemon/scenarios, where its tests run.
in_scenarios() { (cd daemon/scenarios && "$@"); }

stream norace $GO test -count=1 -timeout 15m $(printf '%s\n' "$norace" | grep -vxF eventbox/e2e)
if [ -n "$unraced_pkgs" ]; then
	stream unraced $GO test -count=1 -timeout 15m -run "$UNRACED" $unraced_pkgs
else
	echo 0 >"$tmp/unraced.rc"
fi
if printf '%s\n' "$norace" | grep -qxF eventbox/e2e; then
	stream e2e $GO test -count=1 -timeout 15m -run "$QUICK" ./e2e
else
	echo 0 >"$tmp/e2e.rc"
fi

daemon_shards() {
	$GO test -c -o "$tmp/scenarios.test" ./daemon/scenarios/ || return 1
	local names
	names=$(in_scenarios "$tmp/scenarios.test" -test.list '.*' | grep '^Test' | grep -vE "$LONG_RACED|$LONG_UNRACED") || return 1
	local i pids=() rc=0
	for ((i = 0; i < shards; i++)); do
		local run
		run="^($(printf '%s\n' "$names" | awk -v n="$shards" -v i="$i" 'NR % n == i' | paste -sd'|'))\$"
		in_scenarios "$tmp/scenarios.test" -test.count=1 -test.timeout=15m -test.run "$run" >"$tmp/daemon-$i.out" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
		echo "--- daemon/scenarios, process $((i + 1)) of $shards"
		cat "$tmp/daemon-$i.out"
	done
	return $rc
}
stream race $GO test -race -count=1 -timeout 15m $race
stream daemon daemon_shards

wait
rc=0
for s in race norace unraced e2e daemon; do
	[ "$(cat "$tmp/$s.rc" 2>/dev/null)" = 0 ] || { echo "unit: the $s tests failed"; rc=1; }
done
exit $rc
