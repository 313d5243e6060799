#!/usr/bin/env bash
# The flake hunt: the whole suite (make check, then make check-sanitize)
# run RUNS times in a row, then make -j2 check STRESS_RUNS times under full
# CPU contention (stress-ng, a worker per core, for the length of each
# run). Every failing test's log is kept under OUT/run-K/, and a table of
# the runs ends it; the exit status is 1 when any run failed.
#
#   tests/flake-hunt.sh [BUILD_DIR]      (make flake-hunt in a build tree)
#   RUNS=5 STRESS_RUNS=2 SAN=1 OUT=flake-hunt
#   JOBS=1      make -jJOBS for the runs in a row (2: tests beside each other)
#   TESTS="..."  only these tests (make's TESTS), to hunt one flake
set -u
build=$(cd "${1:-_build}" && pwd) || { echo "flake-hunt: no build tree ${1:-_build}" >&2; exit 2; }
RUNS=${RUNS:-5}
STRESS_RUNS=${STRESS_RUNS:-2}
SAN=${SAN:-1}
JOBS=${JOBS:-1}
OUT=$(mkdir -p "${OUT:-$build/flake-hunt}" && cd "${OUT:-$build/flake-hunt}" && pwd)
STRESS_PID=
ROWS=()
BAD=0

stop_stress() {
	[ -n "$STRESS_PID" ] || return 0
	kill -TERM "$STRESS_PID" 2>/dev/null
	wait "$STRESS_PID" 2>/dev/null
	STRESS_PID=
}
trap stop_stress EXIT
trap 'exit 130' INT TERM

# failed TREE: the tests whose .trs says FAIL, XPASS or ERROR.
failed() {
	find "$1" -name '*.trs' -newer "$OUT/.mark" 2>/dev/null |
		xargs -r grep -lE '^:test-result: (FAIL|XPASS|ERROR)' | sed "s|^$1/||; s|\.trs\$||" | sort
}

# one K KIND TARGET [MAKEFLAGS...]: a run, its time and its failures.
one() {
	local k=$1 kind=$2 target=$3 t0 rc tree=$build fails
	shift 3
	[ "$target" = check-sanitize ] && tree=$build/san-build
	touch "$OUT/.mark"
	sleep 1 # .trs files of this run are newer than the mark
	t0=$(date +%s)
	if [ -n "${TESTS:-}" ] && [ "$target" = check ]; then
		make -C "$build" "$@" "$target" TESTS="$TESTS" >"$OUT/run-$k.$target.log" 2>&1
	else
		make -C "$build" "$@" "$target" >"$OUT/run-$k.$target.log" 2>&1
	fi
	rc=$?
	fails=$(failed "$tree")
	if [ "$rc" != 0 ] || [ -n "$fails" ]; then
		BAD=$((BAD + 1))
		mkdir -p "$OUT/run-$k"
		for t in $fails; do cp "$tree/$t.log" "$OUT/run-$k/$(echo "$t" | tr / _).log" 2>/dev/null; done
	fi
	ROWS+=("$(printf '%-3s %-26s %-15s %5ss  exit %-3s %s' "$k" "$kind" "$target" \
		$(($(date +%s) - t0)) "$rc" "${fails:-}" | tr '\n' ' ')")
	echo "flake-hunt: ${ROWS[-1]}"
}

k=0
for ((i = 1; i <= RUNS; i++)); do
	k=$((k + 1))
	one "$k" "in a row ($i/$RUNS), -j$JOBS" check -j"$JOBS"
	if [ "$SAN" = 1 ]; then
		one "$k" "in a row ($i/$RUNS), -j$JOBS" check-sanitize -j"$JOBS"
	fi
done
if ((STRESS_RUNS > 0)) && ! command -v stress-ng >/dev/null; then
	echo "flake-hunt: stress-ng is not installed (Debian package stress-ng): no contended runs" >&2
	STRESS_RUNS=0
	BAD=$((BAD + 1))
fi
for ((i = 1; i <= STRESS_RUNS; i++)); do
	k=$((k + 1))
	stress-ng --cpu 0 --cpu-method all --timeout 3h >/dev/null 2>&1 &
	STRESS_PID=$!
	one "$k" "stress-ng, -j2 ($i/$STRESS_RUNS)" check -j2
	stop_stress
done

echo
echo "flake hunt: $k run(s), $BAD failing (logs of failed tests under $OUT)"
printf '%-3s %-26s %-15s %6s  %-8s %s\n' "#" "how" "target" "time" "status" "failed tests"
printf '%s\n' "${ROWS[@]}"
[ "$BAD" = 0 ]
