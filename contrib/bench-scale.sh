#!/usr/bin/env bash
# Scale benchmark of the mesh coordinator against SIMULATED agents
# (tests/tools/simagents: one process answering the control protocol on N
# loopback ports, with the shared token and sealed frames, moving no data
# and reporting synthetic figures after each job's own duration). What it
# measures is the coordinator alone, at sizes real agents on one machine
# cannot reach (contrib/bench-mesh.sh runs real ones): for each N, a
# latency mesh of ITERS round trips per pair, run to its end or for
# BENCH_SECONDS of jobs (a whole mesh of 4096 takes 4095 rounds), and per
# run the wall time per round outside the (simulated) tests, the
# coordinator's own CPU per round, its peak memory and, apart, the bytes of
# the mesh's cells (one slot a pair: simagents --cells-bytes N), and its peak
# descriptors. With --base, an older coordinator's figures beside, the two
# runs alternating; every figure is the median of RUNS runs. Every mesh
# and simulator is stopped by PID.
#
#   contrib/bench-scale.sh IXPERF SIMAGENTS [--base OLD_IXPERF] [--runs R] [N...]
#       (N defaults to 512 1024 2048 4096, R to 3; BENCH_ITERS round trips
#       per pair, default 5; BENCH_SECONDS, default 40)
set -euo pipefail

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
SPREAD=5
SECONDS_CAP=${BENCH_SECONDS:-40}
WORK=$(mktemp -d)
SIM_PID=
MESH_PID=
stop_sim() {
	if [ -n "$SIM_PID" ]; then
		kill -TERM "$SIM_PID" 2>/dev/null || true
		wait "$SIM_PID" 2>/dev/null || true
	fi
	SIM_PID=
}
trap '[ -z "$MESH_PID" ] || kill -TERM "$MESH_PID" 2>/dev/null; stop_sim; rm -rf "$WORK"' EXIT
command -v jq >/dev/null || { echo "bench-scale: needs jq" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || true
head -c 48 /dev/urandom | base64 >"$WORK/token"
chmod 600 "$WORK/token"

# run VARIANT BINARY N: one mesh, watched every 0.2 s until it ends or
# has run BENCH_SECONDS past its first job: its CPU time, peak memory
# (VmHWM) and descriptors from /proc, the jobs it ran from the simulator's
# log (one line a job; N/2 jobs a round). Appends "rounds wall_per_round_ms
# outside_ms cpu_per_round_ms hwm_kib fds connect_s" to $WORK/VARIANT.N.
run() {
	local variant=$1 bin=$2 n=$3 pid t0 now cpu l0 lines k
	local start= c0=0 j0=0 last=0 c1=0 j1=0 hwm=0 fds=0
	l0=$(wc -l <"$WORK/sent")
	"$bin" mesh --test lat -n "$ITERS" -w 0 --no-retest --token-file "$WORK/token" \
		--connect-timeout 120 -J -o "$WORK/mesh.json" "@$WORK/hosts" 2>"$WORK/mesh.err" &
	pid=$!
	MESH_PID=$pid
	t0=$(date +%s.%N)
	while kill -0 "$pid" 2>/dev/null; do
		now=$(date +%s.%N)
		cpu=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || break
		k=$(awk '/^VmHWM/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
		[ "${k:-0}" -gt "$hwm" ] && hwm=$k
		k=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l || true)
		[ "$k" -gt "$fds" ] && fds=$k
		lines=$(($(wc -l <"$WORK/sent") - l0))
		if [ -z "$start" ] && [ "$lines" -gt 0 ]; then
			start=$now c0=$cpu j0=$lines
		fi
		last=$now c1=$cpu j1=$lines
		if [ -n "$start" ] && [ "$(echo "$now - $start > $SECONDS_CAP" | bc)" = 1 ]; then
			kill -TERM "$pid" 2>/dev/null || true
			break
		fi
		sleep 0.2
	done
	wait "$pid" 2>/dev/null || true
	MESH_PID=
	[ -n "$start" ] && [ "$j1" -gt "$j0" ] || {
		echo "  ($variant, $n: no job ran: $(head -c 300 "$WORK/mesh.err"))" >&2
		return 0
	}
	# A simulated test takes ITERS round trips at the pair's latency (the
	# told one, up to SPREAD percent more): what a round spends beyond the
	# slowest is the coordinator's dispatch, start margin and collection.
	echo "$j0 $j1 $n $start $last $c0 $c1 $(getconf CLK_TCK) $hwm $fds $t0" | awk \
		-v iters="$ITERS" -v lat="$LAT_NS" -v sp="$SPREAD" '{
		r = ($2 - $1) / ($3 / 2); w = 1000 * ($5 - $4) / r
		printf "%.1f %.2f %.2f %.2f %d %d %.2f\n", r, w, w - iters * lat * (1 + sp / 100) / 1e6,
			1000 * ($7 - $6) / $8 / r, $9, $10, $4 - $11 }' >>"$WORK/$variant.$n"
}

# median FILE COLUMN
median() {
	sort -g -k "$2,$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

printf '%-6s %-6s %4s %9s %10s %9s %11s %13s %9s %10s %9s\n' agents coord runs "connect s" \
	rounds "round ms" "outside ms" "CPU ms/round" "peak MiB" "cells MiB" "peak fds"
for N in "${SIZES[@]}"; do
	"$SIM" -n "$N" --lat "$LAT_NS" --spread "$SPREAD" --token-file "$WORK/token" \
		--hosts "$WORK/hosts" --log "$WORK/sent" >"$WORK/sim.out" 2>"$WORK/sim.err" &
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
		printf '%-6s %-6s %4s %9s %10s %9s %11s %13s %9d %10.1f %9s\n' "$N" "$v" \
			"$(wc -l <"$WORK/$v.$N")" "$(median "$WORK/$v.$N" 7)" \
			"$(median "$WORK/$v.$N" 1)" "$(median "$WORK/$v.$N" 2)" \
			"$(median "$WORK/$v.$N" 3)" "$(median "$WORK/$v.$N" 4)" \
			"$(($(median "$WORK/$v.$N" 5) / 1024))" \
			"$(echo "scale=1; $("$SIM" --cells-bytes "$N") / 1048576" | bc)" \
			"$(median "$WORK/$v.$N" 6)"
	done
done
echo
echo "simulated agents: no data moved. connect: until the first job's report; rounds: those" \
	"run in the window (the whole mesh, or its first ${SECONDS_CAP} s of jobs); round ms: wall" \
	"time a round; outside ms: beyond its slowest simulated test ($ITERS round trips at" \
	"$LAT_NS ns + $SPREAD%), i.e. the coordinator's dispatch, start margin (5 ms + the slowest" \
	"round trip + 20 us a job) and collection; CPU: the coordinator's own in the window;" \
	"peak MiB: its VmHWM in the window (a whole mesh's end, its JSON document, adds to it)," \
	"of which cells: one slot of $("$SIM" --cells-bytes 2) bytes a pair (ix_cells_bytes), held for the whole mesh. Every figure the median of the runs; this machine's other load shares its cores."
