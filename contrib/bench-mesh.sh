#!/usr/bin/env bash
# Scale benchmark of the mesh coordinator: for each N, N agents on
# loopback (distinct ports), a latency mesh of ITERS round trips per pair,
# and what the coordinator spends: wall time per round outside the tests,
# its own CPU per round, peak memory and peak descriptors; besides, the
# context switches per test across the machine and what one costs here
# (all N agents share this machine's cores: on real hosts each agent has
# its own); then a projection to 4096 hosts. Loopback only; every agent is
# stopped by PID.
#
#   contrib/bench-mesh.sh PATH/TO/ixperf [N...]     (N defaults to 32 128 512)
set -euo pipefail

IXPERF=${1:?usage: bench-mesh.sh PATH/TO/ixperf [N...]}
shift
SIZES=("${@:-32 128 512}")
read -r -a SIZES <<<"${SIZES[*]}"
ITERS=${BENCH_ITERS:-20}
WORK=$(mktemp -d)
PIDS=()
stop_agents() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	PIDS=()
}
trap 'stop_agents; rm -rf "$WORK"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench-mesh: needs GNU time (apt-get install time)" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || true

# /proc/stat: context switches, and busy and all CPU time (ticks).
sys_stat() {
	awk '/^ctxt/ { c = $2 } /^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; idle = $5 + $6 } END { print c, t - idle, t }' /proc/stat
}
printf '%-6s %7s %9s %10s %10s %12s %14s %10s %9s %8s %8s\n' agents rounds "wall s" "round ms" "test ms" "overhead ms" "coord CPU ms" "peak MiB" "peak fds" "cs/test" "us/cs"
for N in "${SIZES[@]}"; do
	hosts=
	for ((i = 1; i <= N; i++)); do
		"$IXPERF" server -B 127.0.0.1 -p 0 -q --idle-timeout 3600 >"$WORK/a$i.out" 2>/dev/null &
		PIDS+=($!)
	done
	for ((i = 1; i <= N; i++)); do
		port=
		for _ in $(seq 1 200); do
			port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$WORK/a$i.out")
			[ -n "$port" ] && break
			sleep 0.05
		done
		[ -n "$port" ] || { echo "bench-mesh: agent $i did not start" >&2; exit 1; }
		hosts="${hosts:+$hosts,}127.0.0.1:$port"
	done
	echo "$hosts" | tr ',' '\n' >"$WORK/hosts"
	read -r cs0 busy0 _ < <(sys_stat)
	/usr/bin/time -f '%e %M %U %S' -o "$WORK/time" "$IXPERF" mesh --test lat -n "$ITERS" -w 0 \
		--no-retest --connect-timeout 60 -J -o "$WORK/mesh.json" "@$WORK/hosts" \
		2>"$WORK/mesh.err" &
	tpid=$!
	# The coordinator's descriptors, sampled every 50 ms.
	peak_fds=0
	while kill -0 "$tpid" 2>/dev/null; do
		c=$(pgrep -P "$tpid" -x ixperf | head -1 || true)
		if [ -n "$c" ]; then
			n=$(find "/proc/$c/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l || true)
			[ "$n" -gt "$peak_fds" ] && peak_fds=$n
		fi
		sleep 0.05
	done
	wait "$tpid" || true
	read -r cs1 busy1 _ < <(sys_stat)
	read -r wall rss user sys < <(tail -n 1 "$WORK/time")
	rounds=$(jq -r '.results[0].rounds' "$WORK/mesh.json")
	measured=$(jq -r '.results[0].pairs.measured' "$WORK/mesh.json")
	planned=$(jq -r '.results[0].pairs.planned' "$WORK/mesh.json")
	# The tests themselves: ITERS round trips at the pairs' median latency
	# (the overhead is what a round takes beyond them); the coordinator's
	# own CPU time per round besides.
	test_ms=$(jq -r --argjson n "$ITERS" \
		'[.results[0].matrix.lat_p50_ns[][] | select(. != null)] | sort | .[length / 2 | floor] // 0 | . * 2 * $n / 1e6' \
		"$WORK/mesh.json")
	cpu_ms=$(echo "scale=2; 1000 * ($user + $sys) / $rounds" | bc)
	round_ms=$(echo "scale=2; 1000 * $wall / $rounds" | bc)
	over_ms=$(echo "scale=2; $round_ms - $test_ms" | bc)
	# Switches per test, and the busy CPU time of the machine per switch.
	cs=$((cs1 - cs0))
	cs_test=$(echo "scale=0; $cs / ($measured + 1)" | bc)
	us_cs=$(echo "scale=1; ($busy1 - $busy0) * 10000 / ($cs + 1)" | bc)
	printf '%-6s %7s %9s %10s %10.2f %12.1f %14s %10s %9s %8s %8s\n' "$N" "$rounds" "$wall" "$round_ms" \
		"$test_ms" "$over_ms" "$cpu_ms" "$((rss / 1024))" "$peak_fds" "$cs_test" "$us_cs"
	[ "$measured" = "$planned" ] || echo "       ($measured of $planned pairs measured; first failures: $(jq -c '[.results[0].failures[:3][] | .error], [.results[0].nodes[] | select(.error != null) | .error][:3]' "$WORK/mesh.json"))"
	echo "$N $rounds $wall $round_ms $test_ms $over_ms $rss $peak_fds $cpu_ms $cs_test $us_cs" >>"$WORK/rows"
	stop_agents
done

echo
echo "== projection to 4096 hosts (4095 rounds, 2048 tests a round), from the largest run"
read -r n rounds wall round_ms test_ms over_ms rss fds cpu_ms cs_test us_cs < <(tail -n 1 "$WORK/rows")
ncores=$(nproc)
echo "here: $n agents share $ncores cores; a test takes $cs_test context switches ($((2 * ITERS)) of them its" \
	"$ITERS round trips), at $us_cs us of busy CPU each: the agents' own work, not the coordinator's, sets" \
	"the round here ($(echo "scale=0; $n / 2 * $cs_test * $us_cs / 1000 / $ncores" | bc) ms a round)"
echo "coordinator CPU: $cpu_ms ms a round at $n agents, $(echo "scale=1; $cpu_ms * 1000 / ($n / 2)" | bc) us a test;" \
	"at 4096: $(echo "scale=0; $cpu_ms * 4096 / $n" | bc) ms a round, $(echo "scale=0; 4095 * $cpu_ms * 4096 / $n / 60000" | bc)" \
	"min of coordinator time for a whole mesh (linear in the tests of a round)"
echo "memory at $n agents: $((rss / 1024)) MiB peak; at 4096 the cells alone take" \
	"$(echo "scale=0; 4096 * 4095 / 2 * 11 / 1048576" | bc) MiB (11 bytes a pair); the JSON document is written from them, not held"
echo "descriptors at $n agents: $fds; at 4096: one per agent plus a few ($((4096 + fds - n))), within the" \
	"hard limit ixperf raises to ($(ulimit -Hn))"
