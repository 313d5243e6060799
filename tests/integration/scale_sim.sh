#!/usr/bin/env bash
# The coordinator at scale, against simulated agents (tests/tools/simagents:
# one process answering the real control protocol, with the shared token
# and sealed frames, on N loopback ports; it moves no data and reports
# synthetic figures it logs). A latency and bandwidth mesh over them must
# measure every pair over one control connection per agent, hold one
# descriptor per agent (and one epoll set), and give back, in its matrix,
# exactly the figures the simulator logged for each pair, which are the
# ones it was told to report (--lat, --bw and --spread: a per-pair step).
. "${top_srcdir:-.}/tests/lib.sh"

N=${IX_SCALE_SIM_N:-256}
SIM=${SIMAGENTS:-$(dirname "$IXPERF")/tests/tools/simagents}
J=$IX_TMP
LAT=25000
BW=40e9
SPREAD=8
[ -x "$SIM" ] || ix_skip "no simulated agents at $SIM (make check builds them)"
command -v jq >/dev/null || ix_need "jq"

head -c 48 /dev/urandom | base64 >"$J/token"
chmod 600 "$J/token"
"$SIM" -n "$N" --token-file "$J/token" --lat "$LAT" --bw "$BW" --spread "$SPREAD" \
	--hosts "$J/hosts" --log "$J/sent.jsonl" >"$J/sim.out" 2>"$J/sim.err" &
SIM_PID=$!
IX_PIDS+=("$SIM_PID")
ix_wait_log "$J/sim.out" "^simulated agents: $N on " || { cat "$J/sim.err"; exit 99; }
check "the simulator listens on $N distinct ports" \
	test "$(sort -u "$J/hosts" | wc -l)" = "$N"

ulimit -n $((N + 256)) 2>/dev/null || true
"$IXPERF" mesh --test both -t 0.01 -w 0 -n 5 --no-retest --token-file "$J/token" \
	--connect-timeout 30 -J -o "$J/mesh.json" "@$J/hosts" 2>"$J/mesh.err" &
MESH_PID=$!
IX_PIDS+=("$MESH_PID")
# The coordinator's sockets and epoll sets, sampled while it runs.
peak_sockets=0
peak_epoll=0
while kill -0 "$MESH_PID" 2>/dev/null; do
	links=$(find "/proc/$MESH_PID/fd" -mindepth 1 -maxdepth 1 -printf '%l\n' 2>/dev/null || true)
	s=$(grep -c '^socket:' <<<"$links" || true)
	e=$(grep -c 'eventpoll' <<<"$links" || true)
	[ "$s" -gt "$peak_sockets" ] && peak_sockets=$s
	[ "$e" -gt "$peak_epoll" ] && peak_epoll=$e
	sleep 0.05
done
wait "$MESH_PID"
rc=$?
kill -TERM "$SIM_PID"
wait "$SIM_PID"
cat "$J/sim.err"
pairs=$((N * (N - 1) / 2))
check "the mesh exits 0" test "$rc" = 0 || head -5 "$J/mesh.err"
check "all $pairs pairs measured, none failed" jq_true "$J/mesh.json" \
	".results[0].pairs.measured == $pairs and .results[0].pairs.failed == 0"
# Oracle: the simulator's own count of the connections it accepted.
check "the simulator took one control connection per agent: $N, all at once" \
	grep -q "^simagents: $N connections, $N at most at once, $((2 * pairs)) simulated reports, 0 refusals" "$J/sim.err"
check "the coordinator held one socket per agent at most ($peak_sockets, the simulator's $N)" \
	test "$peak_sockets" = "$N"
check "and one epoll set ($peak_epoll)" test "$peak_epoll" = 1
# The simulator was told LAT, BW and SPREAD: pair a -> b reports step
# (7a + 13b) mod 8 of 7 across SPREAD percent, above LAT and below BW.
check "the simulator sent what it was told: $pairs latency and $pairs bandwidth figures" \
	jq -s -e --argjson lat "$LAT" --argjson bw "$BW" --argjson sp "$SPREAD" --argjson p "$pairs" '
	  def k: ((.from * 7 + .to * 13) % 8) / 7 * $sp / 100;
	  ([.[] | select(.kind == "lat")] | length == $p and
	     all(.p50_ns == ($lat * (1 + k) | round))) and
	  ([.[] | select(.kind == "bw")] | length == $p and
	     all((.bps - $bw * (1 - k)) | fabs < 1e-3))' "$J/sent.jsonl"
# The matrix keeps figures as 32-bit floats: 1e-6 relative covers that.
check "every pair's matrix cell is the figure sent for it (latency p50 and bandwidth)" \
	jq -n -e --slurpfile m "$J/mesh.json" '
	  [inputs] as $sent | $m[0].results[0].matrix as $x |
	  ($sent | length) == 2 * ($x.lat_p50_ns | length) * (($x.lat_p50_ns | length) - 1) / 2 and
	  ($sent | all(
	    if .kind == "lat" then ($x.lat_p50_ns[.from][.to] - .p50_ns | fabs) <= .p50_ns * 1e-6
	    else ($x.bw_bps[.from][.to] - .bps | fabs) <= .bps * 1e-6 end))' "$J/sent.jsonl"
check "the fleet names them as simulated agents" jq_true "$J/mesh.json" \
	"[.results[0].fleet.nodes[] | .hostname // .inventory.hostname] | length == $N and all(startswith(\"simulated-agent-\"))"
ix_done
