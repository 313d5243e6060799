#!/usr/bin/env bash
# Scale benchmark of the mesh coordinator against SIMULATED agents
# (tests/tools/simagents: one process answering the control protocol on N
# loopback ports, with the shared token and sealed frames, moving no data
# and reporting synthetic figures after each job's own duration). What it
# measures is the coordinator alone, at sizes real agents on one machine
# cannot reach (contrib/bench-mesh.sh runs real ones): for each N, a
# latency mesh of ITERS round trips per pair, and per run the wall time per
# round outside the (simulated) tests, the coordinator's own CPU per round,
# its peak memory and, apart, the bytes of the mesh's cell matrix
# (N * N * sizeof(struct ix_cell)), and its peak descriptors. With --base,
# an older coordinator's figures beside, the two runs alternating; every
# figure is the median of RUNS runs. Every simulator is stopped by PID.
#
#   contrib/bench-scale.sh IXPERF SIMAGENTS [--base OLD_IXPERF] [--runs R] [N...]
#       (N defaults to 512 1024 2048 4096, R to 3; BENCH_ITERS round trips
#       per pair, default 5; BENCH_TIMEOUT seconds per mesh, default 1200)
set -euo pipefail
. "$(dirname "$0")/bench-lib.sh"

usage() {
	echo "usage: bench-scale.sh IXPERF SIMAGENTS [--base OLD_IXPERF] [--runs R] [N...]" >&2
	exit 2
}
IXPERF=${1:-}
SIM=${2:-}
[ -x "$IXPERF" ] && [ -x "$SIM" ] || usage
shift 2
BASE=
RUNS=3
SIZES=()
while [ $# -gt 0 ]; do
	case $1 in
	--base) BASE=${2:-}; [ -x "$BASE" ] || usage; shift 2 ;;
	--runs) RUNS=${2:-}; [[ $RUNS =~ ^[1-9][0-9]?$ ]] || usage; shift 2 ;;
	*) [[ $1 =~ ^[1-9][0-9]*$ ]] && [ "$1" -ge 2 ] || usage; SIZES+=("$1"); shift ;;
	esac
done
[ ${#SIZES[@]} -gt 0 ] || SIZES=(512 1024 2048 4096)
ITERS=${BENCH_ITERS:-5}
LAT_NS=20000
TIMEOUT=${BENCH_TIMEOUT:-1200}
WORK=$(mktemp -d)
SIM_PID=
stop_sim() {
	if [ -n "$SIM_PID" ]; then
		kill -TERM "$SIM_PID" 2>/dev/null || true
		wait "$SIM_PID" 2>/dev/null || true
	fi
	SIM_PID=
}
trap 'stop_sim; rm -rf "$WORK"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench-scale: needs GNU time (apt-get install time)" >&2; exit 1; }
command -v jq >/dev/null || { echo "bench-scale: needs jq" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || true
CELL=$("$SIM" --cell-bytes)
head -c 48 /dev/urandom | base64 >"$WORK/token"
chmod 600 "$WORK/token"

# run VARIANT BINARY N: one mesh; appends "wall rounds outside_ms cpu_ms
# rss_kib fds" to $WORK/VARIANT.N.
run() {
	local variant=$1 bin=$2 n=$3 tpid fds wall rss user sys rounds measured planned
	/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" timeout "$TIMEOUT" "$bin" mesh --test lat \
		-n "$ITERS" -w 0 --no-retest --token-file "$WORK/token" --connect-timeout 120 -J \
		-o "$WORK/mesh.json" "@$WORK/hosts" 2>"$WORK/mesh.err" &
	tpid=$!
	fds=$(bench_peak_fds "$tpid" "$(basename "$bin")")
	wait "$tpid" || true
	read -r wall rss user sys < <(tail -n 1 "$WORK/time")
	rounds=$(jq -r '.results[0].rounds' "$WORK/mesh.json")
	measured=$(jq -r '.results[0].pairs.measured' "$WORK/mesh.json")
	planned=$(jq -r '.results[0].pairs.planned' "$WORK/mesh.json")
	[ "$measured" = "$planned" ] || echo "  ($variant, $n: $measured of $planned pairs measured: $(head -c 300 "$WORK/mesh.err"))" >&2
	# The simulated tests take ITERS round trips at each pair's p50 (the
	# simulator's told latency, up to 5% more): what a round spends
	# beyond the slowest of them is the coordinator's.
	jq -r --argjson n "$ITERS" --argjson w "$wall" --argjson r "$rounds" \
		--argjson u "$user" --argjson s "$sys" --argjson m "$rss" --argjson f "$fds" \
		'([.results[0].matrix.lat_p50_ns[][] | select(. != null)] | max * $n / 1e6) as $t
		 | "\($w) \($r) \(1000 * $w / $r - $t) \(1000 * ($u + $s) / $r) \($m) \($f)"' \
		"$WORK/mesh.json" >>"$WORK/$variant.$n"
}

# median FILE COLUMN
median() {
	sort -g -k "$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

printf '%-6s %-6s %5s %7s %9s %12s %13s %9s %10s %9s\n' agents coord runs rounds "wall s" \
	"outside ms" "CPU ms/round" "peak MiB" "cells MiB" "peak fds"
for N in "${SIZES[@]}"; do
	"$SIM" -n "$N" --lat "$LAT_NS" --token-file "$WORK/token" --hosts "$WORK/hosts" \
		>"$WORK/sim.out" 2>"$WORK/sim.err" &
	SIM_PID=$!
	for _ in $(seq 1 600); do
		grep -q '^simulated agents:' "$WORK/sim.out" && break
		kill -0 "$SIM_PID" 2>/dev/null || { cat "$WORK/sim.err" >&2; exit 1; }
		sleep 0.05
	done
	for ((r = 1; r <= RUNS; r++)); do
		run epoll "$IXPERF" "$N"
		[ -n "$BASE" ] && run base "$BASE" "$N"
	done
	stop_sim
	for v in epoll base; do
		[ -f "$WORK/$v.$N" ] || continue
		printf '%-6s %-6s %5s %7s %9s %12.2f %13.2f %9d %10.1f %9s\n' "$N" "$v" "$RUNS" \
			"$(median "$WORK/$v.$N" 2)" "$(median "$WORK/$v.$N" 1)" \
			"$(median "$WORK/$v.$N" 3)" "$(median "$WORK/$v.$N" 4)" \
			"$(($(median "$WORK/$v.$N" 5) / 1024))" \
			"$(echo "scale=1; $N * $N * $CELL / 1048576" | bc)" "$(median "$WORK/$v.$N" 6)"
	done
done
echo
echo "simulated agents: no data moved; 'outside ms' is a round's wall time beyond its slowest" \
	"simulated test ($ITERS round trips at the simulator's latency), i.e. the coordinator's" \
	"dispatch, start margin (5 ms + the slowest round trip + 20 us a job) and collection;" \
	"cells: N * N * $CELL bytes (struct ix_cell), held for the whole mesh"
