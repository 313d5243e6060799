#!/usr/bin/env bash
# Benchmark ixperf against the tools it replaces, on loopback (127.0.0.1), and
# through a shaped link between network namespaces it creates and removes.
#
#   contrib/bench.sh PATH/TO/ixperf        (or: make bench)
#
# Measures, with runs of the two tools alternated (ixperf, peer, ixperf, ...)
# and the median of each kept:
#   1. TCP goodput, 1 and 4 streams: ixperf bw vs iperf3, iperf 2 and nuttcp
#      (same duration, same congestion control; goal: ratio >= 1); and one
#      stream with zero-copy sends, ixperf -Z (MSG_ZEROCOPY) vs iperf3 -Z
#      (sendfile).
#   2. CPU seconds per GB moved on every row, measured the same way for every
#      tool from outside: client utime+stime (GNU time) plus server
#      utime+stime (from /proc/PID/stat before and after the run), over the
#      receiver's bytes (goal: ratio <= 1).
#   3. UDP goodput, loss and CPU s/GB with 1472-byte datagrams: ixperf bw
#      --path udp (paced at BENCH_UDP_RATE) vs iperf3 -u -b 0 (goal: 3 x its
#      goodput, loss no higher), iperf 2 -u -b 100G and nuttcp -u at the same
#      rate.
#   4. Accuracy: the same tools through a link of known rate (network
#      namespaces joined by a bridge whose ports tbf shapes to BENCH_TBF_MBIT,
#      as tests/integration/netns.sh): goodput over the shaped rate, TCP with
#      and without zero-copy sends, and UDP offered at 90% of it (goal:
#      ixperf within 5%; iperf3 beside it). Root only; skipped otherwise.
#   5. Ping-pong latency, 64-byte messages, TCP and UDP: ixperf lat vs sockperf
#      ping-pong, one-way (RTT/2) p50 and p99 in usec (goal: ratio <= 1).
#      Both block in receive by default; ixperf --busy-poll is shown for
#      information only.
#
# This is a benchmark, not a test: a MISS still exits 0. The exit status is
# non-zero only when a tool cannot be run or its output cannot be read.
#
# Environment:
#   BENCH_RUNS   runs per tool and measurement (default 5)
#   BENCH_TIME   seconds per run (default 5)
#   BENCH_PORT   first of the 12 consecutive ports used (default 15301)
#   BENCH_CC     TCP congestion control (default: the system's default)
#   BENCH_PIN    CPUs for latency clients,servers (default 0,1; "none" = unpinned)
#   BENCH_UDP_RATE  ixperf's UDP rate (default 10G)
#   BENCH_TBF_MBIT  the shaped link's rate for the accuracy rows (default 500)
set -euo pipefail

usage() {
	echo "usage: $0 PATH/TO/ixperf" >&2
	exit 2
}

[ $# -eq 1 ] || usage
IXPERF=$1
[ -x "$IXPERF" ] || { echo "bench: $IXPERF is not an executable" >&2; exit 2; }
IXPERF=$(cd "$(dirname "$IXPERF")" && pwd)/$(basename "$IXPERF")

RUNS=${BENCH_RUNS:-5}
T=${BENCH_TIME:-5}
PORT=${BENCH_PORT:-15301}
HOST=127.0.0.1
LAT_SIZE=64
LAT_WARMUP=0.5 # ixperf lat warm-up; sockperf discards its own first 400 ms

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_RUNS must be a positive integer" >&2; exit 2; }
[[ $T =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_TIME must be a whole number of seconds" >&2; exit 2; }
if ! [[ $PORT =~ ^[0-9]+$ ]] || ((PORT < 1 || PORT > 65530)); then
	echo "bench: BENCH_PORT must be a port number" >&2
	exit 2
fi

# Ports: one per server so a server that lingers cannot disturb another.
P_IX_BW=$PORT P_IPERF=$((PORT + 1)) P_IX_LAT=$((PORT + 2)) P_SP_TCP=$((PORT + 3)) P_SP_UDP=$((PORT + 4))
P_IPERF2=$((PORT + 5)) P_IPERF2_UDP=$((PORT + 6)) P_NUT=$((PORT + 7)) P_NUT_DATA=$((PORT + 8)) # +8..+11

# A client that has not finished well after its run is hung: give up on it.
CLIENT_TIMEOUT=$((2 * T + 30))

# ---- helpers ----------------------------------------------------------------

die() {
	echo "bench: $*" >&2
	exit 1
}

for tool in iperf3 iperf nuttcp sockperf jq awk ss timeout getconf; do
	command -v "$tool" >/dev/null ||
		die "$tool is missing (apt-get install -y iperf3 iperf nuttcp sockperf jq iproute2)"
done
GNU_TIME=/usr/bin/time
"$GNU_TIME" -f '%U' true >/dev/null 2>&1 || die "GNU time is missing (apt-get install -y time)"
CLK_TCK=$(getconf CLK_TCK)

CC=${BENCH_CC:-$(cat /proc/sys/net/ipv4/tcp_congestion_control)}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/ixperf-bench.XXXXXX")
SERVER_PIDS=() # servers still running, for the EXIT trap
SERVER_PID=    # the one server_up started last

# Stop every server still running (by PID), and keep the work directory only
# when something went wrong so that its logs can be read.
cleanup() {
	local rc=$? pid
	trap - EXIT INT TERM
	for pid in "${SERVER_PIDS[@]}"; do
		stop_pid "$pid"
	done
	declare -F tbf_down >/dev/null && tbf_down
	if [ "$rc" -eq 0 ]; then
		rm -rf "$WORK"
	else
		echo "bench: failed (exit $rc); logs are in $WORK" >&2
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# stop_pid PID: SIGTERM, then SIGKILL if it is still there after 3 s.
stop_pid() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 30; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# server_up NAME PROTO PORT CMD...: start a server in the background (a child
# of this shell, so that it can be stopped and reaped by PID), wait until its
# PROTO (tcp or udp) port is bound. Its PID is left in SERVER_PID and kept
# for the EXIT trap. Its output goes to $WORK/NAME.log. With SERVER_NS set,
# the port is looked for in that network namespace.
server_up() {
	local name=$1 proto=$2 port=$3 pid i flag=-Hltn ns=()
	shift 3
	[ -n "${SERVER_NS:-}" ] && ns=(ip netns exec "$SERVER_NS")
	"$@" >"$WORK/$name.log" 2>&1 </dev/null &
	pid=$!
	SERVER_PIDS+=("$pid")
	SERVER_PID=$pid
	[ "$proto" = udp ] && flag=-Hlun
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		[ -z "$("${ns[@]}" ss "$flag" "sport = :$port" 2>/dev/null)" ] || return 0
		sleep 0.05
	done
	cat "$WORK/$name.log" >&2
	die "$name server ('$*') did not start on port $port"
}

# server_down PID: stop one server and forget it.
server_down() {
	local pid=$1 keep=() p
	stop_pid "$pid"
	for p in "${SERVER_PIDS[@]}"; do
		[ "$p" = "$pid" ] || keep+=("$p")
	done
	SERVER_PIDS=("${keep[@]}")
}

# proc_cpu_s PID: user+system CPU seconds of a live process, all its threads
# (fields 14 and 15 of /proc/PID/stat, counted after the "(comm)" field, whose
# name may hold spaces).
proc_cpu_s() {
	local stat
	stat=$(cat "/proc/$1/stat") || die "cannot read /proc/$1/stat (server died?)"
	stat=${stat##*) }
	awk -v tck="$CLK_TCK" '{ printf "%.4f\n", ($12 + $13) / tck }' <<<"$stat"
}

# run_client NAME CMD...: run a client with a timeout; stdout to $WORK/NAME.out,
# stderr to $WORK/NAME.err, its user+system CPU seconds (GNU time, includes all
# its threads) to $WORK/NAME.cpu. Fails the benchmark if the client fails.
run_client() {
	local name=$1 rc=0
	shift
	# timeout runs under time (its CPU, negligible, is counted for every tool
	# alike) and in the foreground, so that Ctrl-C reaches the client at once.
	"$GNU_TIME" -f '%U %S' -o "$WORK/$name.time" timeout --foreground "$CLIENT_TIMEOUT" \
		"$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$WORK/$name.err" "$WORK/$name.out" >&2 || true
		die "$name: '$*' exited with status $rc"
	fi
	awk 'END { printf "%.4f\n", $1 + $2 }' "$WORK/$name.time" >"$WORK/$name.cpu"
}

# jq_num FILE FILTER: a number from a JSON document, or fail.
jq_num() {
	local v
	v=$(jq -e -r "$2 | numbers" "$1" 2>/dev/null) || die "no number at '$2' in $1"
	echo "$v"
}

# median: the median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) printf "%.6g\n", v[(NR + 1) / 2]
		else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# calc EXPR VARS...: evaluate an awk expression on numbers, e.g. calc 'a/b' a=1 b=2.
calc() {
	local expr=$1 args=()
	shift
	for kv in "$@"; do args+=(-v "$kv"); done
	awk "${args[@]}" "BEGIN { printf \"%.6g\n\", $expr }"
}

# Samples are appended to $WORK/samples/KEY, one number a line.
mkdir "$WORK/samples"
sample() { echo "$2" >>"$WORK/samples/$1"; }
median_of() { median <"$WORK/samples/$1"; }

# ---- header -------------------------------------------------------------------

echo "ixperf benchmark on loopback ($HOST)"
echo "  ixperf:     $("$IXPERF" --version 2>&1 | head -n 1) ($IXPERF)"
echo "  iperf3:     $(iperf3 --version 2>&1 | head -n 1)"
echo "  iperf 2:    $(iperf -v 2>&1 | head -n 1)"
echo "  nuttcp:     $(nuttcp -V 2>&1 | head -n 1)"
echo "  sockperf:   $(sockperf --version 2>&1 | head -n 1)"
echo "  kernel:     $(uname -sr), $(getconf _NPROCESSORS_ONLN) CPUs"
echo "  congestion: $CC"
echo "  runs:       $RUNS per tool and measurement, $T s each (BENCH_RUNS, BENCH_TIME)"
echo

# ---- 1 & 2: TCP bandwidth and CPU cost ------------------------------------------

# bw_ixperf P RUN: one ixperf bw run with P streams; records goodput (and, for
# P=1, CPU s/GB).
# With a third argument "zc", sends with -Z (MSG_ZEROCOPY) and records the row
# as "Z1".
bw_ixperf() {
	local p=$1 i=$2 zc=() key=$1 name before after bytes bps
	[ "${3:-}" = zc ] && { zc=(-Z); key=Z$1; }
	name="ixbw-P$key-$i"
	before=$(proc_cpu_s "$ix_bw_pid")
	run_client "$name" "$IXPERF" bw -t "$T" -w 0 -P "$p" -C "$CC" "${zc[@]}" -J -p "$P_IX_BW" "$HOST"
	after=$(proc_cpu_s "$ix_bw_pid")
	jq -e '.complete and .results[0].complete' "$WORK/$name.out" >/dev/null ||
		die "$name: ixperf reports an incomplete test: $(jq -c '.error // .results[0].error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bits_per_second')
	bytes=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bytes')
	bw_record ixperf "$key" "$i" "$bps" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
	[ ${#zc[@]} -eq 0 ] ||
		jq -r '.results[0].streams[0].sender.zerocopy |
			"          zero-copy: \(.sends) sends, \(.completed) completed, \(.copied) copied by the kernel"' \
			"$WORK/$name.out"
}

# bw_iperf3 P RUN: the same with iperf3.
# With a third argument "zc", iperf3 -Z (sendfile), recorded as "Z1".
bw_iperf3() {
	local p=$1 i=$2 zc=() key=$1 name before after bytes bps
	[ "${3:-}" = zc ] && { zc=(-Z); key=Z$1; }
	name="iperf3-P$key-$i"
	before=$(proc_cpu_s "$iperf_pid")
	run_client "$name" iperf3 -c "$HOST" -p "$P_IPERF" -t "$T" -P "$p" -C "$CC" "${zc[@]}" -J
	after=$(proc_cpu_s "$iperf_pid")
	jq -e '.error == null' "$WORK/$name.out" >/dev/null ||
		die "$name: iperf3 reports: $(jq -r '.error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.end.sum_received.bits_per_second')
	bytes=$(jq_num "$WORK/$name.out" '.end.sum_received.bytes')
	bw_record iperf3 "$key" "$i" "$bps" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
}

# bw_iperf2 P RUN: iperf 2 with P streams (its CSV: a line a stream,
# bytes and bit/s in fields 8 and 9).
bw_iperf2() {
	local p=$1 i=$2 name="iperf2-P$1-$2" before after bytes bps
	before=$(proc_cpu_s "$iperf2_pid")
	run_client "$name" iperf -c "$HOST" -p "$P_IPERF2" -t "$T" -P "$p" -Z "$CC" -f b -y C
	after=$(proc_cpu_s "$iperf2_pid")
	read -r bytes bps < <(awk -F, 'NF >= 9 && $6 > 0 { b += $8; r += $9; n++ }
		END { if (n) printf "%.0f %.0f\n", b, r }' "$WORK/$name.out")
	[ -n "${bps:-}" ] || die "$name: no figures in iperf's output ($WORK/$name.out)"
	bw_record iperf2 "$p" "$i" "$bps" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
}

# nuttcp_field FILE KEY: a key=value of nuttcp -fparse output.
nuttcp_field() {
	tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | tail -n 1
}

# bw_nuttcp P RUN: nuttcp with P streams (-fparse: megabytes are MiB).
bw_nuttcp() {
	local p=$1 i=$2 name="nuttcp-P$1-$2" before after mib rate
	before=$(proc_cpu_s "$nuttcp_pid")
	run_client "$name" nuttcp -P "$P_NUT" -p "$P_NUT_DATA" -T "$T" -N "$p" -fparse "$HOST"
	after=$(proc_cpu_s "$nuttcp_pid")
	mib=$(nuttcp_field "$WORK/$name.out" megabytes)
	rate=$(nuttcp_field "$WORK/$name.out" rate_Mbps)
	[ -n "$mib" ] && [ -n "$rate" ] || die "$name: no figures in nuttcp's output ($WORK/$name.out)"
	bw_record nuttcp "$p" "$i" "$(calc 'r*1e6' r="$rate")" "$(calc 'm*1048576' m="$mib")" \
		"$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
}

# bw_record TOOL P RUN BPS BYTES CLIENT_CPU SERVER_CPU: keep the samples, print a line.
bw_record() {
	local tool=$1 p=$2 i=$3 bps=$4 bytes=$5 cli=$6 srv=$7 per_gb
	sample "bw-$tool-P$p" "$(calc 'b/1e9' b="$bps")"
	per_gb=$(calc '(c+s)/(n/1e9)' c="$cli" s="$srv" n="$bytes")
	sample "cpu-$tool-P$p" "$per_gb"
	printf '  run %d/%d  %-7s %7.2f Gbit/s, cpu client %.2f s + server %.2f s = %.3f s/GB\n' \
		"$i" "$RUNS" "$tool" "$(calc 'b/1e9' b="$bps")" "$cli" "$srv" "$per_gb"
}

echo "== TCP bandwidth ($CC), ixperf bw vs iperf3, iperf 2 and nuttcp"
server_up ix_bw tcp "$P_IX_BW" "$IXPERF" server -B "$HOST" -p "$P_IX_BW" -q
ix_bw_pid=$SERVER_PID
server_up iperf tcp "$P_IPERF" iperf3 -s -B "$HOST" -p "$P_IPERF"
iperf_pid=$SERVER_PID
server_up iperf2 tcp "$P_IPERF2" iperf -s -B "$HOST" -p "$P_IPERF2"
iperf2_pid=$SERVER_PID
server_up nuttcp tcp "$P_NUT" nuttcp -S --nofork -P "$P_NUT" -p "$P_NUT_DATA"
nuttcp_pid=$SERVER_PID
for p in 1 4; do
	echo "-- $p stream(s)"
	for ((i = 1; i <= RUNS; i++)); do
		bw_ixperf "$p" "$i"
		bw_iperf3 "$p" "$i"
		bw_iperf2 "$p" "$i"
		bw_nuttcp "$p" "$i"
	done
done
# Zero-copy sends: ixperf -Z (MSG_ZEROCOPY) against iperf3 -Z (sendfile).
# Loopback delivers by copy, so neither saves the copy here; the row shows
# what the option costs or gains on this path, and ixperf says what the
# kernel copied.
echo "-- 1 stream, zero-copy sends (ixperf -Z, iperf3 -Z)"
for ((i = 1; i <= RUNS; i++)); do
	bw_ixperf 1 "$i" zc
	bw_iperf3 1 "$i" zc
done
server_down "$ix_bw_pid"
server_down "$iperf_pid"
server_down "$iperf2_pid"
echo

# ---- UDP bandwidth ----------------------------------------------------------------

# udp_ixperf RUN: one ixperf bw --path udp run at UDP_RATE with 1472-byte
# datagrams; records goodput, loss and CPU s/GB (client + server).
udp_ixperf() {
	local i=$1 name="ixudp-$1" before after bps loss bytes
	before=$(proc_cpu_s "$ix_bw_pid")
	run_client "$name" "$IXPERF" bw --path udp -s 1472 -b "$UDP_RATE" -t "$T" -w 0 -J -p "$P_IX_BW" "$HOST"
	after=$(proc_cpu_s "$ix_bw_pid")
	jq -e '.complete and .results[0].complete' "$WORK/$name.out" >/dev/null ||
		die "$name: ixperf reports an incomplete test: $(jq -c '.error // .results[0].error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bits_per_second')
	loss=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.loss_percent')
	bytes=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bytes')
	udp_record ixperf "$i" "$bps" "$loss" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")" \
		"$(jq -r '.results[0].streams[0] | "\(.sender.io.kind)/\(.receiver.io.kind)"' "$WORK/$name.out")"
}

# udp_iperf3 RUN: iperf3 -u at full speed (-b 0), 1472-byte datagrams.
udp_iperf3() {
	local i=$1 name="iperf3-udp-$1" before after bps loss bytes
	before=$(proc_cpu_s "$iperf_pid")
	run_client "$name" iperf3 -c "$HOST" -p "$P_IPERF" -u -b 0 -l 1472 -t "$T" -J
	after=$(proc_cpu_s "$iperf_pid")
	jq -e '.error == null' "$WORK/$name.out" >/dev/null ||
		die "$name: iperf3 reports: $(jq -r '.error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.end.sum.bits_per_second * (100 - .end.sum.lost_percent) / 100')
	loss=$(jq_num "$WORK/$name.out" '.end.sum.lost_percent')
	bytes=$(jq_num "$WORK/$name.out" '.end.sum.bytes * (100 - .end.sum.lost_percent) / 100')
	udp_record iperf3 "$i" "$bps" "$loss" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")" single
}

# udp_record TOOL RUN BPS LOSS BYTES CLIENT_CPU SERVER_CPU IO: keep the samples, print a line.
udp_record() {
	local tool=$1 i=$2 bps=$3 loss=$4 bytes=$5 cli=$6 srv=$7 io=$8 per_gb
	per_gb=$(calc '(c+s)/(n/1e9)' c="$cli" s="$srv" n="$bytes")
	sample "udp-bw-$tool" "$(calc 'b/1e9' b="$bps")"
	sample "udp-loss-$tool" "$loss"
	sample "udp-cpu-$tool" "$per_gb"
	printf '  run %d/%d  %-7s %7.2f Gbit/s received, loss %6.3f%%, cpu %.3f s/GB (%s)\n' "$i" "$RUNS" \
		"$tool" "$(calc 'b/1e9' b="$bps")" "$loss" "$per_gb" "$io"
}

# udp_iperf2 RUN: iperf 2 -u as fast as it sends; its server's CSV line
# gives what arrived: bytes (8), bit/s (9), lost (11), total (12).
udp_iperf2() {
	local i=$1 name="iperf2-udp-$1" before after line bytes lost total
	before=$(proc_cpu_s "$iperf2u_pid")
	run_client "$name" iperf -c "$HOST" -p "$P_IPERF2_UDP" -u -b 100G -l 1472 -t "$T" -f b -y C
	sleep 0.5 # the server's report of this run
	after=$(proc_cpu_s "$iperf2u_pid")
	line=$(awk -F, 'NF >= 13' "$WORK/iperf2u.log" | tail -n 1)
	[ -n "$line" ] || die "$name: no server report in $WORK/iperf2u.log"
	IFS=, read -r _ _ _ _ _ _ _ bytes bps _ lost total _ <<<"$line"
	udp_record iperf2 "$i" "$bps" "$(calc '100*l/n' l="$lost" n="$total")" \
		"$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")" single
}

# udp_nuttcp RUN: nuttcp -u at UDP_RATE (it needs a rate too).
udp_nuttcp() {
	local i=$1 name="nuttcp-udp-$1" before after mib loss
	before=$(proc_cpu_s "$nuttcp_pid")
	run_client "$name" nuttcp -P "$P_NUT" -p "$P_NUT_DATA" -T "$T" -u -R "$UDP_RATE" -l 1472 -fparse "$HOST"
	after=$(proc_cpu_s "$nuttcp_pid")
	mib=$(nuttcp_field "$WORK/$name.out" megabytes)
	loss=$(nuttcp_field "$WORK/$name.out" data_loss)
	[ -n "$mib" ] && [ -n "$loss" ] || die "$name: no figures in nuttcp's output ($WORK/$name.out)"
	udp_record nuttcp "$i" "$(calc 'm*1048576*8/t' m="$mib" t="$T")" "$loss" "$(calc 'm*1048576' m="$mib")" \
		"$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")" single
}

echo "== UDP bandwidth, 1472-byte datagrams: ixperf bw --path udp vs iperf3 -u -b 0, iperf 2, nuttcp"
server_up ix_bw tcp "$P_IX_BW" "$IXPERF" server -B "$HOST" -p "$P_IX_BW" -q
ix_bw_pid=$SERVER_PID
server_up iperf tcp "$P_IPERF" iperf3 -s -B "$HOST" -p "$P_IPERF"
iperf_pid=$SERVER_PID
server_up iperf2u udp "$P_IPERF2_UDP" iperf -s -u -B "$HOST" -p "$P_IPERF2_UDP" -y C
iperf2u_pid=$SERVER_PID
# iperf3 sends as fast as one datagram a call allows; ixperf is paced (UDP
# has no flow control), at BENCH_UDP_RATE: what it receives at that rate,
# and what it loses, is what it can do.
UDP_RATE=${BENCH_UDP_RATE:-10G}
echo "   ixperf rate: $UDP_RATE"
for ((i = 1; i <= RUNS; i++)); do
	udp_ixperf "$i"
	udp_iperf3 "$i"
	udp_iperf2 "$i"
	udp_nuttcp "$i"
done
server_down "$ix_bw_pid"
server_down "$iperf_pid"
server_down "$iperf2u_pid"
server_down "$nuttcp_pid"
echo

# ---- accuracy through a tbf-shaped link -------------------------------------------

# The speed rows above must not change what a figure means: the same
# figures through a link of known rate. Two network namespaces joined
# through a bridge in a third, its ports shaped with tbf to TBF_MBIT (as
# tests/integration/netns.sh), jumbo frames; goodput over the shaped rate
# for ixperf and iperf3 side by side. Needs root, iproute2 and tbf;
# otherwise said and skipped.
TBF_MBIT=${BENCH_TBF_MBIT:-500}
TBF_NS=()
tbf_setup() {
	local a=ixbench-a-$$ b=ixbench-b-$$ m=ixbench-m-$$ pair dev
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v tc >/dev/null || return 1
	ip netns add "$a" 2>/dev/null || return 1
	TBF_NS+=("$a")
	ip netns add "$b" && TBF_NS+=("$b") && ip netns add "$m" && TBF_NS+=("$m") || return 1
	ip link add ixa0 netns "$a" type veth peer name ixma netns "$m" 2>/dev/null || return 1
	ip link add ixb0 netns "$b" type veth peer name ixmb netns "$m" || return 1
	ip -n "$m" link add ixbr0 type bridge 2>/dev/null || return 1
	ip -n "$a" addr add 198.18.0.1/24 dev ixa0 && ip -n "$b" addr add 198.18.0.2/24 dev ixb0 || return 1
	for pair in "$a:ixa0" "$b:ixb0" "$m:ixma" "$m:ixmb" "$m:ixbr0" "$a:lo" "$b:lo"; do
		ip -n "${pair%%:*}" link set dev "${pair#*:}" mtu 9000 up 2>/dev/null ||
			ip -n "${pair%%:*}" link set dev "${pair#*:}" up || return 1
	done
	for dev in ixma ixmb; do
		ip -n "$m" link set dev "$dev" master ixbr0 || return 1
		tc -n "$m" qdisc add dev "$dev" root tbf rate "${TBF_MBIT}mbit" burst 64kb latency 20ms ||
			return 1
	done
	TBF_A=$a TBF_B=$b
}
tbf_down() {
	local ns
	for ns in "${TBF_NS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	TBF_NS=()
}

# tbf_ixperf KEY TRUTH RUN ARGS...: one ixperf bw run from A to B; records
# goodput over TRUTH Mbit/s (the shaped rate, or what UDP offered below it).
tbf_ixperf() {
	local key=$1 truth=$2 i=$3 name="tbf-ix-$1-$3" bps
	shift 3
	run_client "$name" ip netns exec "$TBF_A" "$IXPERF" bw -t "$T" "$@" -J -p "$P_IX_BW" 198.18.0.2
	jq -e '.complete and .results[0].complete' "$WORK/$name.out" >/dev/null ||
		die "$name: ixperf reports an incomplete test: $(jq -c '.error // .results[0].error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bits_per_second')
	sample "tbf-ixperf-$key" "$(calc 'b/(m*1e6)' b="$bps" m="$truth")"
	printf '  run %d/%d  ixperf  %-10s %8.1f Mbit/s (%.3f of %s Mbit/s)\n' "$i" "$RUNS" "$key" \
		"$(calc 'b/1e6' b="$bps")" "$(calc 'b/(m*1e6)' b="$bps" m="$truth")" "$truth"
}

# tbf_iperf3 KEY TRUTH RUN ARGS...: the same with iperf3 (received: TCP's
# sum_received, UDP's sum less the lost share).
tbf_iperf3() {
	local key=$1 truth=$2 i=$3 name="tbf-iperf3-$1-$3" bps
	shift 3
	run_client "$name" ip netns exec "$TBF_A" iperf3 -c 198.18.0.2 -p "$P_IPERF" -t "$T" "$@" -J
	jq -e '.error == null' "$WORK/$name.out" >/dev/null ||
		die "$name: iperf3 reports: $(jq -r '.error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" \
		'if .end.sum_received then .end.sum_received.bits_per_second
		 else .end.sum.bits_per_second * (100 - .end.sum.lost_percent) / 100 end')
	sample "tbf-iperf3-$key" "$(calc 'b/(m*1e6)' b="$bps" m="$truth")"
	printf '  run %d/%d  iperf3  %-10s %8.1f Mbit/s (%.3f of %s Mbit/s)\n' "$i" "$RUNS" "$key" \
		"$(calc 'b/1e6' b="$bps")" "$(calc 'b/(m*1e6)' b="$bps" m="$truth")" "$truth"
}

TBF_OK=0
echo "== Accuracy through a link shaped to $TBF_MBIT Mbit/s (tbf, network namespaces)"
if tbf_setup; then
	TBF_OK=1
	SERVER_NS=$TBF_B server_up tbf_ix tcp "$P_IX_BW" ip netns exec "$TBF_B" "$IXPERF" server -B 198.18.0.2 -p "$P_IX_BW" -q
	tbf_ix_pid=$SERVER_PID
	SERVER_NS=$TBF_B server_up tbf_iperf tcp "$P_IPERF" ip netns exec "$TBF_B" iperf3 -s -B 198.18.0.2 -p "$P_IPERF"
	tbf_iperf_pid=$SERVER_PID
	offer=$((TBF_MBIT * 9 / 10))
	for ((i = 1; i <= RUNS; i++)); do
		tbf_ixperf tcp "$TBF_MBIT" "$i" -C "$CC"
		tbf_iperf3 tcp "$TBF_MBIT" "$i" -C "$CC"
		tbf_ixperf tcp-Z "$TBF_MBIT" "$i" -C "$CC" -Z
		tbf_iperf3 tcp-Z "$TBF_MBIT" "$i" -C "$CC" -Z
		tbf_ixperf udp90 "$offer" "$i" --path udp -s 1472 -b "${offer}M"
		tbf_iperf3 udp90 "$offer" "$i" -u -l 1472 -b "${offer}M"
	done
	server_down "$tbf_ix_pid"
	server_down "$tbf_iperf_pid"
else
	echo "   skipped: needs root, iproute2, veth, bridges and tbf"
fi
tbf_down
echo

# ---- 3: latency -----------------------------------------------------------------

# lat_ixperf PATH RUN [--busy-poll]: one ixperf lat run; records p50/p99 in usec.
lat_ixperf() {
	local path=$1 i=$2 mode=${3:-} key name p50 p99
	key="ixperf${mode:+-bp}-$path"
	name="lat-$key-$i"
	# shellcheck disable=SC2086 # $mode is empty or one option
	run_client "$name" "${PIN_CLIENT[@]}" "$IXPERF" lat --path "$path" -s "$LAT_SIZE" -t "$T" -w "$LAT_WARMUP" \
		$mode -J -p "$P_IX_LAT" "$HOST"
	jq -e '.complete and .results[0].complete' "$WORK/$name.out" >/dev/null ||
		die "$name: ixperf reports an incomplete test: $(jq -c '.error // .results[0].error' "$WORK/$name.out")"
	p50=$(jq_num "$WORK/$name.out" '.results[0].stats.p50_ns')
	p99=$(jq_num "$WORK/$name.out" '.results[0].stats.p99_ns')
	p50=$(calc 'n/1000' n="$p50")
	p99=$(calc 'n/1000' n="$p99")
	lat_record "$key" "$i" "$p50" "$p99" "$(jq -r '.results[0].stats.count' "$WORK/$name.out") samples"
}

# sockperf_pct P: the P-th percentile from sockperf's text on stdin.
sockperf_pct() {
	awk -v p="$1" '$2 == "--->" && $3 == "percentile" && $4 + 0 == p { print $6; exit }'
}

# lat_sockperf PATH RUN: one sockperf ping-pong run. sockperf prints one-way
# latency (RTT/2) in usec, e.g. "---> percentile 99.000 =   44.490", coloured
# with ANSI escapes on some lines; the escapes are stripped first.
lat_sockperf() {
	local path=$1 i=$2 port=$P_SP_UDP opt=() name="lat-sockperf-$1-$2" txt p50 p99 obs
	[ "$path" = tcp ] && { port=$P_SP_TCP; opt=(--tcp); }
	run_client "$name" "${PIN_CLIENT[@]}" sockperf ping-pong -i "$HOST" -p "$port" "${opt[@]}" -m "$LAT_SIZE" -t "$T"
	txt=$(cat "$WORK/$name.out" "$WORK/$name.err" | sed 's/\x1b\[[0-9;]*m//g')
	p50=$(sockperf_pct 50 <<<"$txt")
	p99=$(sockperf_pct 99 <<<"$txt")
	if [ -z "$p50" ] || [ -z "$p99" ]; then
		die "$name: no percentiles in sockperf's output ($WORK/$name.out)"
	fi
	obs=$(sed -n 's/.*Total \([0-9]*\) observations.*/\1/p' <<<"$txt" | head -n 1)
	lat_record "sockperf-$path" "$i" "$p50" "$p99" "${obs:-?} samples"
}

# lat_record KEY RUN P50 P99 NOTE: keep the samples, print a line.
lat_record() {
	sample "p50-$1" "$3"
	sample "p99-$1" "$4"
	printf '  run %d/%d  %-18s p50 %8.2f us  p99 %8.2f us  (%s)\n' "$2" "$RUNS" "$1" "$3" "$4" "$5"
}

# Where the scheduler puts the two ends decides loopback latency more than
# either tool does (same core: ~6 us; across cores: ~20 us). Both tools are
# pinned alike: clients on one CPU, servers on another (BENCH_PIN=none
# leaves placement to the scheduler).
PIN=${BENCH_PIN:-0,1}
PIN_CLIENT=()
PIN_SERVER=()
if [ "$PIN" != none ] && command -v taskset >/dev/null; then
	PIN_CLIENT=(taskset -c "${PIN%,*}")
	PIN_SERVER=(taskset -c "${PIN#*,}")
fi
echo "== Latency, $LAT_SIZE-byte ping-pong, one-way (RTT/2), ixperf lat vs sockperf"
echo "   pinning: ${PIN_CLIENT[*]:-none} (clients), ${PIN_SERVER[*]:-none} (servers)"
server_up ix_lat tcp "$P_IX_LAT" "${PIN_SERVER[@]}" "$IXPERF" server -B "$HOST" -p "$P_IX_LAT" -q
ix_lat_pid=$SERVER_PID
server_up sp_tcp tcp "$P_SP_TCP" "${PIN_SERVER[@]}" sockperf server --tcp -i "$HOST" -p "$P_SP_TCP"
sp_tcp_pid=$SERVER_PID
server_up sp_udp udp "$P_SP_UDP" "${PIN_SERVER[@]}" sockperf server -i "$HOST" -p "$P_SP_UDP"
sp_udp_pid=$SERVER_PID
for path in tcp udp; do
	echo "-- $path"
	for ((i = 1; i <= RUNS; i++)); do
		lat_ixperf "$path" "$i"
		lat_sockperf "$path" "$i"
	done
	echo "-- $path, ixperf --busy-poll (information only)"
	for ((i = 1; i <= RUNS; i++)); do
		lat_ixperf "$path" "$i" --busy-poll
	done
done
server_down "$ix_lat_pid"
server_down "$sp_tcp_pid"
server_down "$sp_udp_pid"
echo

# ---- summary ------------------------------------------------------------------

# row METRIC IX PEER GOAL: one table line; GOAL is ">=N", "<=N" (on the
# ratio ixperf/peer) or "-" (no goal). The verdict is taken on the ratio as
# printed (3 decimals); against a peer of 0, "<=" holds only for 0.
row() {
	local metric=$1 ix=$2 peer=$3 goal=$4 ratio="-" verdict="info" lim
	if [ "$goal" != "-" ]; then
		lim=${goal#??}
		if awk -v p="$peer" 'BEGIN { exit !(p == 0) }'; then
			verdict=$(awk -v a="$ix" -v g="$goal" 'BEGIN {
				print ((substr(g, 1, 2) == "<=" ? a <= 0 : 1) ? "PASS" : "MISS") }')
		else
			ratio=$(printf '%.3f' "$(calc 'a/b' a="$ix" b="$peer")")
			if [ "${goal:0:2}" = ">=" ]; then
				verdict=$(awk -v r="$ratio" -v l="$lim" 'BEGIN { print (r >= l ? "PASS" : "MISS") }')
			else
				verdict=$(awk -v r="$ratio" -v l="$lim" 'BEGIN { print (r <= l ? "PASS" : "MISS") }')
			fi
		fi
		peer=$(printf '%.3f' "$peer")
	fi
	printf '%-34s %12.3f %12s %8s %6s  %s\n' "$metric" "$ix" "$peer" "$ratio" "$goal" "$verdict"
}

echo "== Summary: medians of $RUNS runs of $T s, congestion control $CC"
printf '%-34s %12s %12s %8s %6s  %s\n' metric ixperf peer ratio goal result
for p in 1 4; do
	for peer in iperf3 iperf2 nuttcp; do
		row "TCP bw P$p, Gbit/s ($peer)" "$(median_of bw-ixperf-P$p)" "$(median_of "bw-$peer-P$p")" ">=1"
		row "TCP CPU s/GB P$p ($peer)" "$(median_of cpu-ixperf-P$p)" "$(median_of "cpu-$peer-P$p")" "<=1"
	done
done
row "TCP bw P1 -Z, Gbit/s (iperf3 -Z)" "$(median_of bw-ixperf-PZ1)" "$(median_of bw-iperf3-PZ1)" ">=1"
row "TCP CPU s/GB P1 -Z (iperf3 -Z)" "$(median_of cpu-ixperf-PZ1)" "$(median_of cpu-iperf3-PZ1)" "<=1"
for peer in iperf3 iperf2 nuttcp; do
	goal=">=1"
	[ "$peer" = iperf3 ] && goal=">=3"
	row "UDP bw 1472 B, Gbit/s ($peer)" "$(median_of udp-bw-ixperf)" "$(median_of "udp-bw-$peer")" "$goal"
	row "UDP loss %, 1472 B ($peer)" "$(median_of udp-loss-ixperf)" "$(median_of "udp-loss-$peer")" "<=1"
	row "UDP CPU s/GB, 1472 B ($peer)" "$(median_of udp-cpu-ixperf)" "$(median_of "udp-cpu-$peer")" "<=1"
done
# acc_row METRIC KEY: goodput over the shaped rate, ixperf and iperf3; PASS
# when ixperf lands within 5% of the shaped rate (what netns.sh asserts).
acc_row() {
	local ix peer verdict
	ix=$(median_of "tbf-ixperf-$2")
	peer=$(median_of "tbf-iperf3-$2")
	verdict=$(awk -v a="$ix" 'BEGIN { print (a >= 0.95 && a <= 1.05 ? "PASS" : "MISS") }')
	printf '%-34s %12.3f %12.3f %8s %6s  %s\n' "$1" "$ix" "$peer" - "1+-5%" "$verdict"
}
if [ "$TBF_OK" = 1 ]; then
	acc_row "TCP via tbf, goodput/shaped" tcp
	acc_row "TCP -Z via tbf, goodput/shaped" tcp-Z
	acc_row "UDP 90% via tbf, goodput/offered" udp90
fi
for path in tcp udp; do
	P=${path^^}
	row "$P lat p50, us (sockperf)" "$(median_of "p50-ixperf-$path")" "$(median_of "p50-sockperf-$path")" "<=1"
	row "$P lat p99, us (sockperf)" "$(median_of "p99-ixperf-$path")" "$(median_of "p99-sockperf-$path")" "<=1"
done
for path in tcp udp; do
	P=${path^^}
	row "$P lat p50, us, --busy-poll" "$(median_of "p50-ixperf-bp-$path")" "-" "-"
	row "$P lat p99, us, --busy-poll" "$(median_of "p99-ixperf-bp-$path")" "-" "-"
done
