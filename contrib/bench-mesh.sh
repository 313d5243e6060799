#!/usr/bin/env bash
# Scale benchmark of the mesh coordinator: N agents on loopback, a latency
# mesh with small counts, the coordinator's wall time and peak RSS, and a
# projection to 1024 and 4096 hosts. Loopback only; every agent is stopped
# by PID on exit.
#
#   contrib/bench-mesh.sh PATH/TO/ixperf [N]     (N defaults to 64)
set -euo pipefail

IXPERF=${1:?usage: bench-mesh.sh PATH/TO/ixperf [N]}
N=${2:-64}
ITERS=${BENCH_ITERS:-50}
WORK=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$WORK"
}
trap cleanup EXIT
command -v /usr/bin/time >/dev/null || { echo "bench-mesh: needs GNU time (apt-get install time)" >&2; exit 1; }

hosts=
for ((i = 1; i <= N; i++)); do
	"$IXPERF" server -B 127.0.0.1 -p 0 -q --max-tests 64 >"$WORK/a$i.out" 2>/dev/null &
	PIDS+=($!)
done
for ((i = 1; i <= N; i++)); do
	for _ in $(seq 1 100); do
		port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$WORK/a$i.out")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "bench-mesh: agent $i did not start" >&2; exit 1; }
	hosts="${hosts:+$hosts,}127.0.0.1:$port"
done

echo "== mesh over $N agents on loopback: latency, $ITERS round trips per pair"
/usr/bin/time -f '%e %M' -o "$WORK/time" "$IXPERF" mesh --test lat -n "$ITERS" -w 0 --no-retest \
	-J -o "$WORK/mesh.json" "$hosts" 2>"$WORK/mesh.err" || true
read -r wall rss < <(tail -n 1 "$WORK/time")
rounds=$(jq -r '.results[0].rounds' "$WORK/mesh.json")
measured=$(jq -r '.results[0].pairs.measured' "$WORK/mesh.json")
planned=$(jq -r '.results[0].pairs.planned' "$WORK/mesh.json")
echo "pairs measured:      $measured of $planned"
echo "rounds:              $rounds"
echo "coordinator wall:    $wall s ($(echo "scale=3; $wall / $rounds" | bc) s per round)"
echo "coordinator peak RSS: $rss KiB"
echo
echo "== projection (one thread, one connection per agent, O(N^2) matrix of 16-byte cells)"
per_round=$(echo "scale=6; $wall / $rounds" | bc)
for n in 1024 4096; do
	r=$((n - 1))
	cells_mib=$(echo "scale=1; $n * $n * 16 / 1048576" | bc)
	# A bandwidth mesh at the defaults: -t 2 -w 0.5 per pair, plus the
	# per-round cost measured above.
	echo "N=$n: $r rounds; latency mesh as above $(echo "scale=0; $r * $per_round / 1" | bc) s;" \
		"bw mesh at -t 2 -w 0.5 $(echo "scale=0; $r * (2.5 + $per_round) / 60" | bc) min;" \
		"matrix $cells_mib MiB"
done
