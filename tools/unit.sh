#!/usr/bin/env bash
# unit.sh: the tests of `make unit` (and so of `make test`), in streams that
# run side by side, each printing its output when it ends:
#   alone     ALONE_TESTS: the test that times other requests while a
#             daemon decodes image bombs; every other stream runs under
#             `nice -n 10`, so this one keeps the CPU it asks for (its
#             latency bounds hold) and the others fill what it leaves idle
#   daemon-norace  the daemon's NORACE_TESTS without -race (the same test
#             binary as alone, built once)
#   norace    NORACE_PKGS but ./e2e without -race (pixel loops)
#   e2e       the browser tests E2E_QUICK names, without -race
#   daemon    once the daemon's raced test binary is built (which compiles
#             nearly every package with the detector, once): the race
#             stream, every package with -race but the daemon's
#             (FIRST_PKGS first), beside DAEMON_SHARDS processes of that
#             binary, each with every DAEMON_SHARDS-th test (its tests
#             mostly wait on servers, timers and child processes: one
#             process at a time left a core idle)
# LONG_TESTS and LONG_NORACE_TESTS are left to make longtest. Settings
# come from the Makefile's variables.
set -uo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
shards=${DAEMON_SHARDS:-3}
export GORACE=atexit_sleep_ms=0

norace=$($GO list $NORACE_PKGS) && all=$($GO list ./...) && first=$($GO list $FIRST_PKGS) || exit 1
race=$(printf '%s\n' "$first"; printf '%s\n' "$all" | grep -vxF "$norace" | grep -vxF "$first" | grep -vxF eventbox/daemon)
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

echo "go test -race: $(echo $race | wc -w) packages and the daemon's tests in $shards processes; without -race: $(echo $norace | wc -w) packages and the daemon's unraced tests; side by side"

# A name in E2E_QUICK or the long lists that no test has any more fails
# the run rather than quietly running fewer tests.
names_exist() {
	local list=$1 dir name
	shift
	for name in $(printf '%s' "$list" | tr -d '^$()' | tr '|' ' '); do
		for dir in "$@"; do
			grep -q "^func $name(" "$dir"/*_test.go && continue 2
		done
		echo "unit: the Makefile names $name, which no test in $* has"
		return 1
	done
}
names_exist "$E2E_QUICK" e2e && names_exist "$LONG_TESTS" daemon cmd/eventbox &&
	names_exist "$LONG_NORACE_TESTS" daemon daemon/imaging daemon/qr || exit 1

# The daemon's test binary is built once without -race for the two streams
# that run it, and once with -race (which compiles nearly every package of
# the module with the detector) before the raced streams start: started
# side by side, each go command compiled the same packages again.
$GO test -c -o "$tmp/daemon-norace.test" ./daemon/ || exit 1
low="nice -n 10"

# in_daemon CMD...: runs CMD in the daemon's folder, where its tests run.
in_daemon() { (cd daemon && "$@"); }

# The test timing other requests starts first, at normal priority.
stream alone in_daemon "$tmp/daemon-norace.test" -test.count=1 -test.v -test.timeout=10m -test.run "$ALONE_TESTS"
stream daemon-norace in_daemon $low "$tmp/daemon-norace.test" -test.count=1 -test.timeout=15m -test.run "$NORACE_TESTS" -test.skip "$LONG_NORACE_TESTS"
stream norace $low $GO test -count=1 -timeout 15m -skip "$LONG_NORACE_TESTS" $(printf '%s\n' "$norace" | grep -vxF eventbox/e2e)
if printf '%s\n' "$norace" | grep -qxF eventbox/e2e; then
	stream e2e $low $GO test -count=1 -timeout 15m -run "$E2E_QUICK" ./e2e
else
	echo 0 >"$tmp/e2e.rc"
fi

daemon_shards() {
	local names
	names=$(in_daemon "$tmp/daemon.test" -test.list '.*' | grep '^Test' | grep -vE "$ALONE_TESTS|$NORACE_TESTS|$LONG_TESTS") || return 1
	local i pids=() rc=0
	for ((i = 0; i < shards; i++)); do
		local run
		run="^($(printf '%s\n' "$names" | awk -v n="$shards" -v i="$i" 'NR % n == i' | paste -sd'|'))\$"
		in_daemon $low "$tmp/daemon.test" -test.count=1 -test.timeout=15m -test.run "$run" >"$tmp/daemon-$i.out" 2>&1 &
		pids+=($!)
	done
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || rc=1
		echo "--- daemon tests, process $((i + 1)) of $shards"
		cat "$tmp/daemon-$i.out"
	done
	return $rc
}
raced() {
	$low $GO test -race -c -o "$tmp/daemon.test" ./daemon/ || {
		echo 1 >"$tmp/race.rc"
		return 1
	}
	stream race $low $GO test -race -count=1 -timeout 15m -skip "$LONG_TESTS" $race
	local rc=0
	daemon_shards || rc=1
	wait # for the race stream, which keeps its own exit code
	return $rc
}
stream daemon raced

wait
rc=0
for s in alone race norace e2e daemon-norace daemon; do
	[ "$(cat "$tmp/$s.rc" 2>/dev/null)" = 0 ] || { echo "unit: the $s tests failed"; rc=1; }
done
exit $rc
