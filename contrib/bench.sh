#!/usr/bin/env bash
# Benchmark ixperf against the tools it replaces, on loopback (127.0.0.1), and
# through a shaped link between network namespaces it creates and removes.
#
#   contrib/bench.sh PATH/TO/ixperf        (or: make bench)
#
# Measures, with runs of the two tools alternated (ixperf, peer, ixperf, ...)
# and the median of each kept:
#   1. TCP goodput at 1, 2, 4, 8 and 16 streams (-P), over loopback and over
#      a veth pair between two network namespaces: ixperf bw vs iperf3,
#      iperf 2 and nuttcp (same duration, same congestion control; goal:
#      at or above the best peer at every stream count); and one stream
#      with zero-copy sends, ixperf -Z (MSG_ZEROCOPY) vs iperf3 -Z
#      (sendfile).
#   2. CPU seconds per GB moved on every row, measured the same way for every
#      tool from outside: client utime+stime (GNU time) plus server
#      utime+stime (from /proc/PID/stat before and after the run), over the
#      receiver's bytes (goal: the lowest of all tools).
#   3. UDP goodput, loss and CPU s/GB with 1472-byte datagrams at the same
#      stream counts and places: ixperf bw --path udp (paced at
#      BENCH_UDP_RATE in all) vs iperf3 -u -b 0, iperf 2 -u -b 100G and
#      nuttcp -u at ixperf's rate (goal: goodput at or above the best
#      peer's, loss no higher than the lowest peer's or 0.1%).
#   4. Accuracy: the same tools through a link of known rate (network
#      namespaces joined by a bridge whose ports tbf shapes to BENCH_TBF_MBIT,
#      as tests/integration/netns.sh): goodput over the shaped rate, TCP with
#      and without zero-copy sends, and UDP offered at 90% of it (goal:
#      ixperf within 5%; iperf3 beside it). Root only; skipped otherwise.
#   5. Ping-pong latency, 64-byte messages, TCP and UDP: ixperf lat vs sockperf
#      ping-pong, one-way (RTT/2) p50 and p99 in usec, both pinned alike
#      and both left to the scheduler, with each tool's run-to-run spread
#      (goal: ratio <= 1). Both block in receive by default; ixperf
#      --busy-poll is shown for information only. Both tools' servers are
#      started afresh for every run, and a second sockperf server beside
#      them: sockperf against itself, the resolution of each row.
#   6. Memory: ixperf mem on node 0
#      from node 0 against mbw (one thread: its MEMCPY against ixperf -T 1's
#      copy), sysbench memory (read and write, a thread per CPU, blocks
#      larger than the caches) and memlat (contrib/memlat.c, a pointer chase
#      after lmbench's lat_mem_rd in random order, over the same size; lmbench
#      itself is not packaged by Debian). Goal: bandwidth at or above theirs,
#      latency within 5% of memlat's.
#
# This is a benchmark, not a test: a MISS still exits 0. The exit status is
# non-zero only when a tool cannot be run or its output cannot be read.
#
# Environment:
#   BENCH_RUNS   runs per tool and measurement (default 5)
#   BENCH_TIME   seconds per run (default 4)
#   BENCH_STREAMS  the stream counts of the TCP and UDP sweeps (default "1 2 4 8 16")
#   BENCH_ONLY   the parts to run, of "tcp udp tbf lat mem" (default all)
#   BENCH_VETH_MTU  the veth pair's MTU (default 1500)
#   BENCH_PORT   first of the 13 consecutive ports used (default 15301)
#   BENCH_CC     TCP congestion control (default: the system's default)
#   BENCH_PIN    CPUs for latency clients,servers (default 0,1; "none" = unpinned)
#   BENCH_UDP_RATE  ixperf's UDP rate, all streams together (default 10G)
#   BENCH_TBF_MBIT  the shaped link's rate for the accuracy rows (default 500)
#   BENCH_MEM_MIB   the memory tests' buffers in MiB (default 256)
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
T=${BENCH_TIME:-4}
STREAMS=${BENCH_STREAMS:-1 2 4 8 16}
ONLY=${BENCH_ONLY:-tcp udp tbf lat mem}
MEM_MIB=${BENCH_MEM_MIB:-256} # the memory tests' buffers, MiB
PORT=${BENCH_PORT:-15301}
HOST=127.0.0.1
LAT_SIZE=64
LAT_WARMUP=0.5 # ixperf lat warm-up; sockperf discards its own first 400 ms

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_RUNS must be a positive integer" >&2; exit 2; }
[[ $T =~ ^[1-9][0-9]*$ ]] || { echo "bench: BENCH_TIME must be a whole number of seconds" >&2; exit 2; }
[[ $STREAMS =~ ^[1-9][0-9]*( [1-9][0-9]*)*$ ]] ||
	{ echo "bench: BENCH_STREAMS must be stream counts separated by spaces (e.g. \"1 4 16\")" >&2; exit 2; }
for part in $ONLY; do
	[[ " tcp udp tbf lat mem " == *" $part "* ]] ||
		{ echo "bench: BENCH_ONLY: '$part' is not one of tcp, udp, tbf, lat, mem" >&2; exit 2; }
done
# section NAME: whether that part runs (BENCH_ONLY).
section() { [[ " $ONLY " == *" $1 "* ]]; }
if ! [[ $PORT =~ ^[0-9]+$ ]] || ((PORT < 1 || PORT > 65523)); then
	echo "bench: BENCH_PORT must be a port number" >&2
	exit 2
fi

# Ports: one per server so a server that lingers cannot disturb another.
P_IX_BW=$PORT P_IPERF=$((PORT + 1)) P_IX_LAT=$((PORT + 2)) P_SP_TCP=$((PORT + 3)) P_SP_UDP=$((PORT + 4))
P_IPERF2=$((PORT + 5)) P_IPERF2_UDP=$((PORT + 6)) P_NUT=$((PORT + 7)) P_NUT_DATA=$((PORT + 8)) # +8..+11
P_SP_SELF=$((PORT + 12)) # a second sockperf server: the latency rows' control

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
	declare -F netns_down >/dev/null && netns_down
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
echo "  runs:       $RUNS per tool and measurement, $T s each (BENCH_RUNS, BENCH_TIME), in turn"
echo "  streams:    $STREAMS (BENCH_STREAMS); parts: $ONLY (BENCH_ONLY)"
echo

# ---- where the streams run ------------------------------------------------------

# Loopback, and a veth pair between two network namespaces made here (root
# only; MTU BENCH_VETH_MTU), so that a figure is also one of a real
# device's path (GSO, GRO, a softirq per side) and not only loopback's.
VETH_MTU=${BENCH_VETH_MTU:-1500}
NETNS=() # namespaces made here, for netns_down
veth_setup() {
	local a=ixbench-va-$$ b=ixbench-vb-$$ pair
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null || return 1
	ip netns add "$a" 2>/dev/null || return 1
	NETNS+=("$a")
	ip netns add "$b" || return 1
	NETNS+=("$b")
	ip link add ixva0 netns "$a" mtu "$VETH_MTU" type veth peer name ixvb0 netns "$b" mtu "$VETH_MTU" ||
		return 1
	ip -n "$a" addr add 198.19.0.1/24 dev ixva0 && ip -n "$b" addr add 198.19.0.2/24 dev ixvb0 || return 1
	for pair in "$a:ixva0" "$b:ixvb0" "$a:lo" "$b:lo"; do
		ip -n "${pair%%:*}" link set dev "${pair#*:}" up || return 1
	done
	VETH_A=$a VETH_B=$b
}
# netns_down: remove every namespace made so far (the veth pair's, tbf's).
netns_down() {
	local ns
	for ns in "${NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null || true
	done
	NETNS=()
}

# at WHERE: run what follows over loopback ("lo") or the veth pair
# ("veth"): CLIENT and SRV prefix the client's and the servers' commands,
# DST is the servers' address, SERVER_NS the namespace server_up looks in.
at() {
	WHERE=$1
	if [ "$1" = veth ]; then
		CLIENT=(ip netns exec "$VETH_A") SRV=(ip netns exec "$VETH_B") DST=198.19.0.2 SERVER_NS=$VETH_B
	else
		CLIENT=() SRV=() DST=$HOST SERVER_NS=
	fi
}
where_name() {
	case $WHERE in
	veth) echo "a veth pair between two namespaces (MTU $VETH_MTU)" ;;
	*) echo "loopback ($HOST)" ;;
	esac
}

# rotated RUN WORD...: the words, rotated by RUN: each tool takes every
# place in the order in turn, so no tool always runs first or after the same one.
rotated() {
	local k=$(($1 % ($# - 1))) w=("${@:2}")
	echo "${w[@]:k}" "${w[@]:0:k}"
}

# sweep KIND: every stream count of STREAMS, RUNS runs of the four tools in
# turn (KIND_ixperf P RUN, KIND_iperf3 P RUN, ...).
sweep() {
	local p i tool
	for p in $STREAMS; do
		echo "-- $p stream(s)"
		for ((i = 1; i <= RUNS; i++)); do
			for tool in $(rotated "$i" ixperf iperf3 iperf2 nuttcp); do
				"$1_$tool" "$p" "$i"
			done
		done
	done
}

# ---- 1 & 2: TCP bandwidth and CPU cost, 1 to 16 streams ---------------------------

# bw_ixperf P RUN [zc]: one ixperf bw run with P streams; records goodput and
# CPU s/GB under WHERE-PP (with zc, -Z (MSG_ZEROCOPY), under WHERE-PZP).
bw_ixperf() {
	local p=$1 i=$2 zc=() key=P$1 name before after bytes bps
	[ "${3:-}" = zc ] && { zc=(-Z); key=PZ$1; }
	name="ixbw-$WHERE-$key-$i"
	before=$(proc_cpu_s "$ix_bw_pid")
	run_client "$name" "${CLIENT[@]}" "$IXPERF" bw -t "$T" -w 0 -P "$p" -C "$CC" "${zc[@]}" -J -p "$P_IX_BW" "$DST"
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

# bw_iperf3 P RUN [zc]: the same with iperf3 (-Z: sendfile).
bw_iperf3() {
	local p=$1 i=$2 zc=() key=P$1 name before after bytes bps
	[ "${3:-}" = zc ] && { zc=(-Z); key=PZ$1; }
	name="iperf3-$WHERE-$key-$i"
	before=$(proc_cpu_s "$iperf_pid")
	run_client "$name" "${CLIENT[@]}" iperf3 -c "$DST" -p "$P_IPERF" -t "$T" -P "$p" -C "$CC" "${zc[@]}" -J
	after=$(proc_cpu_s "$iperf_pid")
	jq -e '.error == null' "$WORK/$name.out" >/dev/null ||
		die "$name: iperf3 reports: $(jq -r '.error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.end.sum_received.bits_per_second')
	bytes=$(jq_num "$WORK/$name.out" '.end.sum_received.bytes')
	bw_record iperf3 "$key" "$i" "$bps" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
}

# bw_iperf2 P RUN: iperf 2 with P streams (its CSV: a line a stream, and a
# sum line of stream -1 when P > 1; bytes and bit/s in fields 8 and 9).
bw_iperf2() {
	local p=$1 i=$2 name="iperf2-$WHERE-P$1-$2" before after bytes bps
	before=$(proc_cpu_s "$iperf2_pid")
	run_client "$name" "${CLIENT[@]}" iperf -c "$DST" -p "$P_IPERF2" -t "$T" -P "$p" -Z "$CC" -f b -y C
	after=$(proc_cpu_s "$iperf2_pid")
	read -r bytes bps < <(awk -F, 'NF >= 9 && $6 > 0 { b += $8; r += $9; n++ }
		END { if (n) printf "%.0f %.0f\n", b, r }' "$WORK/$name.out")
	[ -n "${bps:-}" ] || die "$name: no figures in iperf's output ($WORK/$name.out)"
	bw_record iperf2 "P$p" "$i" "$bps" "$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
}

# nuttcp_field FILE KEY: a key=value of nuttcp -fparse output.
nuttcp_field() {
	tr ' ' '\n' <"$1" | sed -n "s/^$2=//p" | tail -n 1
}

# bw_nuttcp P RUN: nuttcp with P streams (-fparse: megabytes are MiB).
bw_nuttcp() {
	local p=$1 i=$2 name="nuttcp-$WHERE-P$1-$2" before after mib rate
	before=$(proc_cpu_s "$nuttcp_pid")
	run_client "$name" "${CLIENT[@]}" nuttcp -P "$P_NUT" -p "$P_NUT_DATA" -T "$T" -N "$p" -fparse "$DST"
	after=$(proc_cpu_s "$nuttcp_pid")
	mib=$(nuttcp_field "$WORK/$name.out" megabytes)
	rate=$(nuttcp_field "$WORK/$name.out" rate_Mbps)
	[ -n "$mib" ] && [ -n "$rate" ] || die "$name: no figures in nuttcp's output ($WORK/$name.out)"
	bw_record nuttcp "P$p" "$i" "$(calc 'r*1e6' r="$rate")" "$(calc 'm*1048576' m="$mib")" \
		"$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")"
}

# bw_record TOOL KEY RUN BPS BYTES CLIENT_CPU SERVER_CPU: keep the samples
# (bw-TOOL-WHERE-KEY, cpu-TOOL-WHERE-KEY), print a line.
bw_record() {
	local tool=$1 key=$WHERE-$2 i=$3 bps=$4 bytes=$5 cli=$6 srv=$7 per_gb
	sample "bw-$tool-$key" "$(calc 'b/1e9' b="$bps")"
	per_gb=$(calc '(c+s)/(n/1e9)' c="$cli" s="$srv" n="$bytes")
	sample "cpu-$tool-$key" "$per_gb"
	printf '  run %d/%d  %-7s %7.2f Gbit/s, cpu client %.2f s + server %.2f s = %.3f s/GB\n' \
		"$i" "$RUNS" "$tool" "$(calc 'b/1e9' b="$bps")" "$cli" "$srv" "$per_gb"
}

# tcp_servers: the four TCP servers at WHERE.
tcp_servers() {
	server_up ix_bw tcp "$P_IX_BW" "${SRV[@]}" "$IXPERF" server -B "$DST" -p "$P_IX_BW" -q
	ix_bw_pid=$SERVER_PID
	server_up iperf tcp "$P_IPERF" "${SRV[@]}" iperf3 -s -B "$DST" -p "$P_IPERF"
	iperf_pid=$SERVER_PID
	server_up iperf2 tcp "$P_IPERF2" "${SRV[@]}" iperf -s -B "$DST" -p "$P_IPERF2"
	iperf2_pid=$SERVER_PID
	server_up nuttcp tcp "$P_NUT" "${SRV[@]}" nuttcp -S --nofork -P "$P_NUT" -p "$P_NUT_DATA"
	nuttcp_pid=$SERVER_PID
}

# tcp_sweep WHERE: every stream count of STREAMS, the four tools in turn.
tcp_sweep() {
	local i
	at "$1"
	echo "== TCP bandwidth over $(where_name), $CC: ixperf bw vs iperf3, iperf 2 and nuttcp"
	tcp_servers
	sweep bw
	# Zero-copy sends: ixperf -Z (MSG_ZEROCOPY) against iperf3 -Z
	# (sendfile). Loopback delivers by copy, so neither saves the copy
	# here; the row shows what the option costs or gains on this path,
	# and ixperf says what the kernel copied.
	if [ "$WHERE" = lo ]; then
		echo "-- 1 stream, zero-copy sends (ixperf -Z, iperf3 -Z)"
		for ((i = 1; i <= RUNS; i++)); do
			bw_ixperf 1 "$i" zc
			bw_iperf3 1 "$i" zc
		done
	fi
	server_down "$ix_bw_pid"
	server_down "$iperf_pid"
	server_down "$iperf2_pid"
	server_down "$nuttcp_pid"
	echo
}

# ---- UDP bandwidth, 1 to 16 streams ------------------------------------------------

# udp_ixperf P RUN: one ixperf bw --path udp run, P streams sharing UDP_RATE
# (-b is per stream), 1472-byte datagrams; records goodput, loss and CPU
# s/GB (client + server).
udp_ixperf() {
	local p=$1 i=$2 name="ixudp-$WHERE-P$1-$2" before after bps loss bytes
	before=$(proc_cpu_s "$ix_bw_pid")
	run_client "$name" "${CLIENT[@]}" "$IXPERF" bw --path udp -P "$p" -s 1472 \
		-b "$(awk -v r="$UDP_BPS" -v p="$p" 'BEGIN { printf "%.0f", r / p }')" -t "$T" -w 0 -J -p "$P_IX_BW" "$DST"
	after=$(proc_cpu_s "$ix_bw_pid")
	jq -e '.complete and .results[0].complete' "$WORK/$name.out" >/dev/null ||
		die "$name: ixperf reports an incomplete test: $(jq -c '.error // .results[0].error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bits_per_second')
	loss=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.loss_percent')
	bytes=$(jq_num "$WORK/$name.out" '.results[0].summary.forward.bytes')
	udp_record ixperf "$p" "$i" "$bps" "$loss" "$bytes" "$(cat "$WORK/$name.cpu")" \
		"$(calc 'a-b' a="$after" b="$before")" \
		"$(jq -r '.results[0].streams[0] | "\(.sender.io.kind)/\(.receiver.io.kind)"' "$WORK/$name.out")"
}

# udp_iperf3 P RUN: iperf3 -u at full speed (-b 0), 1472-byte datagrams.
udp_iperf3() {
	local p=$1 i=$2 name="iperf3-udp-$WHERE-P$1-$2" before after bps loss bytes
	before=$(proc_cpu_s "$iperf_pid")
	run_client "$name" "${CLIENT[@]}" iperf3 -c "$DST" -p "$P_IPERF" -u -b 0 -l 1472 -P "$p" -t "$T" -J
	after=$(proc_cpu_s "$iperf_pid")
	jq -e '.error == null' "$WORK/$name.out" >/dev/null ||
		die "$name: iperf3 reports: $(jq -r '.error' "$WORK/$name.out")"
	bps=$(jq_num "$WORK/$name.out" '.end.sum.bits_per_second * (100 - .end.sum.lost_percent) / 100')
	loss=$(jq_num "$WORK/$name.out" '.end.sum.lost_percent')
	bytes=$(jq_num "$WORK/$name.out" '.end.sum.bytes * (100 - .end.sum.lost_percent) / 100')
	udp_record iperf3 "$p" "$i" "$bps" "$loss" "$bytes" "$(cat "$WORK/$name.cpu")" \
		"$(calc 'a-b' a="$after" b="$before")" single
}

# udp_record TOOL P RUN BPS LOSS BYTES CLIENT_CPU SERVER_CPU IO: keep the
# samples (udp-bw-TOOL-WHERE-PP, udp-loss-..., udp-cpu-...), print a line.
udp_record() {
	local tool=$1 key=$WHERE-P$2 i=$3 bps=$4 loss=$5 bytes=$6 cli=$7 srv=$8 io=$9 per_gb
	per_gb=$(calc '(c+s)/(n/1e9)' c="$cli" s="$srv" n="$bytes")
	sample "udp-bw-$tool-$key" "$(calc 'b/1e9' b="$bps")"
	sample "udp-loss-$tool-$key" "$loss"
	sample "udp-cpu-$tool-$key" "$per_gb"
	printf '  run %d/%d  %-7s %7.2f Gbit/s received, loss %6.3f%%, cpu %.3f s/GB (%s)\n' "$i" "$RUNS" \
		"$tool" "$(calc 'b/1e9' b="$bps")" "$loss" "$per_gb" "$io"
}

# udp_iperf2 P RUN: iperf 2 -u as fast as it sends; its server writes a CSV
# line a stream: bytes (8), bit/s (9), lost (11), total (12), summed over
# the lines this run added.
udp_iperf2() {
	local p=$1 i=$2 name="iperf2-udp-$WHERE-P$1-$2" before after sums bytes bps lost total had
	had=$(wc -l <"$WORK/iperf2u.log")
	before=$(proc_cpu_s "$iperf2u_pid")
	run_client "$name" "${CLIENT[@]}" iperf -c "$DST" -p "$P_IPERF2_UDP" -u -b 100G -l 1472 -P "$p" -t "$T" -f b -y C
	# the server's reports of this run, a line a stream (2 s at most)
	for _ in $(seq 1 40); do
		[ "$(tail -n +$((had + 1)) "$WORK/iperf2u.log" | awk -F, 'NF >= 13' | wc -l)" -ge "$p" ] && break
		sleep 0.05
	done
	after=$(proc_cpu_s "$iperf2u_pid")
	sums=$(tail -n +$((had + 1)) "$WORK/iperf2u.log" |
		awk -F, 'NF >= 13 { b += $8; r += $9; l += $11; n += $12; k++ }
			END { if (k) printf "%.0f %.0f %.0f %.0f\n", b, r, l, n }')
	[ -n "$sums" ] || die "$name: no server report in $WORK/iperf2u.log"
	read -r bytes bps lost total <<<"$sums"
	udp_record iperf2 "$p" "$i" "$bps" "$(calc '100*l/n' l="$lost" n="$total")" \
		"$bytes" "$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")" single
}

# udp_nuttcp P RUN: nuttcp -u, P streams, at UDP_RATE (it needs a rate too).
udp_nuttcp() {
	local p=$1 i=$2 name="nuttcp-udp-$WHERE-P$1-$2" before after mib loss
	before=$(proc_cpu_s "$nuttcp_pid")
	run_client "$name" "${CLIENT[@]}" nuttcp -P "$P_NUT" -p "$P_NUT_DATA" -T "$T" -u -N "$p" -R "$UDP_RATE" \
		-l 1472 -fparse "$DST"
	after=$(proc_cpu_s "$nuttcp_pid")
	mib=$(nuttcp_field "$WORK/$name.out" megabytes)
	loss=$(nuttcp_field "$WORK/$name.out" data_loss)
	[ -n "$mib" ] && [ -n "$loss" ] || die "$name: no figures in nuttcp's output ($WORK/$name.out)"
	udp_record nuttcp "$p" "$i" "$(calc 'm*1048576*8/t' m="$mib" t="$T")" "$loss" "$(calc 'm*1048576' m="$mib")" \
		"$(cat "$WORK/$name.cpu")" "$(calc 'a-b' a="$after" b="$before")" single
}

# UDP has no flow control: iperf3 and iperf 2 send as fast as one datagram
# a call allows; ixperf is paced at BENCH_UDP_RATE in all (split over the
# streams), nuttcp at the same rate: what ixperf receives at that rate,
# and what it loses, is what it can do.
UDP_RATE=${BENCH_UDP_RATE:-10G}
# rate_bps RATE: bit/s of a rate as ixperf and iperf read it (10G, 2.5g,
# 800M: decimal prefixes).
rate_bps() {
	awk -v r="$1" 'BEGIN {
		if (!match(r, /^[0-9]+(\.[0-9]+)?[kKmMgGtT]?$/)) exit 1
		m = 1; u = substr(r, length(r))
		if (u ~ /[kK]/) m = 1e3; else if (u ~ /[mM]/) m = 1e6
		else if (u ~ /[gG]/) m = 1e9; else if (u ~ /[tT]/) m = 1e12
		printf "%.0f\n", r * m }'
}
UDP_BPS=$(rate_bps "$UDP_RATE") || die "BENCH_UDP_RATE: '$UDP_RATE' is not a rate (e.g. 10G)"

# udp_sweep WHERE: every stream count of STREAMS, the four tools in turn.
udp_sweep() {
	at "$1"
	echo "== UDP bandwidth over $(where_name), 1472-byte datagrams: ixperf bw --path udp" \
		"($UDP_RATE in all) vs iperf3 -u -b 0, iperf 2 -u -b 100G, nuttcp -u -R $UDP_RATE"
	server_up ix_bw tcp "$P_IX_BW" "${SRV[@]}" "$IXPERF" server -B "$DST" -p "$P_IX_BW" -q
	ix_bw_pid=$SERVER_PID
	server_up iperf tcp "$P_IPERF" "${SRV[@]}" iperf3 -s -B "$DST" -p "$P_IPERF"
	iperf_pid=$SERVER_PID
	server_up iperf2u udp "$P_IPERF2_UDP" "${SRV[@]}" iperf -s -u -B "$DST" -p "$P_IPERF2_UDP" -y C
	iperf2u_pid=$SERVER_PID
	server_up nuttcp tcp "$P_NUT" "${SRV[@]}" nuttcp -S --nofork -P "$P_NUT" -p "$P_NUT_DATA"
	nuttcp_pid=$SERVER_PID
	sweep udp
	server_down "$ix_bw_pid"
	server_down "$iperf_pid"
	server_down "$iperf2u_pid"
	server_down "$nuttcp_pid"
	echo
}

WHERES=lo
if section tcp || section udp; then
	if veth_setup; then
		WHERES="lo veth"
	else
		netns_down
		echo "== the veth rows are skipped: they need root, iproute2 and veth"
		echo
	fi
fi
if section tcp; then
	for w in $WHERES; do tcp_sweep "$w"; done
fi
if section udp; then
	for w in $WHERES; do udp_sweep "$w"; done
fi
netns_down
at lo

# ---- accuracy through a tbf-shaped link -------------------------------------------

# The speed rows above must not change what a figure means: the same
# figures through a link of known rate. Two network namespaces joined
# through a bridge in a third, its ports shaped with tbf to TBF_MBIT (as
# tests/integration/netns.sh), jumbo frames; goodput over the shaped rate
# for ixperf and iperf3 side by side. Needs root, iproute2 and tbf;
# otherwise said and skipped.
TBF_MBIT=${BENCH_TBF_MBIT:-500}
tbf_setup() {
	local a=ixbench-a-$$ b=ixbench-b-$$ m=ixbench-m-$$ pair dev
	[ "$(id -u)" = 0 ] && command -v ip >/dev/null && command -v tc >/dev/null || return 1
	ip netns add "$a" 2>/dev/null || return 1
	NETNS+=("$a")
	ip netns add "$b" && NETNS+=("$b") && ip netns add "$m" && NETNS+=("$m") || return 1
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
if section tbf; then
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
	netns_down
	echo
fi

# ---- 3: latency -----------------------------------------------------------------

# lat_ixperf PATH RUN [--busy-poll]: one ixperf lat run; records p50/p99 in usec.
lat_ixperf() {
	local path=$1 i=$2 mode=${3:-} key name p50 p99
	key="ixperf${mode:+-bp}-$PM-$path"
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

# lat_sockperf PATH RUN [self]: one sockperf ping-pong run; with "self",
# against the second sockperf server (the control: sockperf against
# itself). sockperf prints one-way latency (RTT/2) in usec, e.g.
# "---> percentile 99.000 =   44.490", coloured with ANSI escapes on some
# lines; the escapes are stripped first.
lat_sockperf() {
	local path=$1 i=$2 port=$P_SP_UDP opt=() tool=sockperf name txt p50 p99 obs
	[ "$path" = tcp ] && { port=$P_SP_TCP; opt=(--tcp); }
	[ "${3:-}" = self ] && { port=$P_SP_SELF tool=sockperf2; }
	name="lat-$tool-$PM-$path-$i"
	run_client "$name" "${PIN_CLIENT[@]}" sockperf ping-pong -i "$HOST" -p "$port" "${opt[@]}" -m "$LAT_SIZE" -t "$T"
	txt=$(cat "$WORK/$name.out" "$WORK/$name.err" | sed 's/\x1b\[[0-9;]*m//g')
	p50=$(sockperf_pct 50 <<<"$txt")
	p99=$(sockperf_pct 99 <<<"$txt")
	if [ -z "$p50" ] || [ -z "$p99" ]; then
		die "$name: no percentiles in sockperf's output ($WORK/$name.out)"
	fi
	obs=$(sed -n 's/.*Total \([0-9]*\) observations.*/\1/p' <<<"$txt" | head -n 1)
	lat_record "$tool-$PM-$path" "$i" "$p50" "$p99" "${obs:-?} samples"
}

# lat_record KEY RUN P50 P99 NOTE: keep the samples, print a line.
lat_record() {
	sample "p50-$1" "$3"
	sample "p99-$1" "$4"
	printf '  run %d/%d  %-18s p50 %8.2f us  p99 %8.2f us  (%s)\n' "$2" "$RUNS" "$1" "$3" "$4" "$5"
}

# Where the scheduler puts the two ends decides loopback latency more than
# either tool does (same core: ~6 us; across cores: ~20 us). Both tools run
# pinned alike (clients on one CPU, servers on another: BENCH_PIN, default
# 0,1), then both left to the scheduler; BENCH_PIN=none runs the second only.
PIN=${BENCH_PIN:-0,1}
PMODES="pinned free"
{ [ "$PIN" = none ] || ! command -v taskset >/dev/null; } && PMODES=free

# lat_servers_up PATH / lat_servers_down: the servers of one run: ixperf's,
# sockperf's and the control's (a second sockperf). Each run starts them
# afresh: a server process brings a fixed offset of its own (where its
# pages and stacks fall), up to 0.6 % of a loopback round trip between two
# servers of the same build, which one server kept for every run would add
# to all of its tool's runs alike.
lat_servers_up() {
	local port=$P_SP_UDP opt=()
	[ "$1" = tcp ] && { port=$P_SP_TCP; opt=(--tcp); }
	server_up ix_lat tcp "$P_IX_LAT" "${PIN_SERVER[@]}" "$IXPERF" server -B "$HOST" -p "$P_IX_LAT" -q
	ix_lat_pid=$SERVER_PID
	server_up "sp_$1" "$1" "$port" "${PIN_SERVER[@]}" sockperf server "${opt[@]}" -i "$HOST" -p "$port"
	sp_lat_pid=$SERVER_PID
	server_up "sp2_$1" "$1" "$P_SP_SELF" "${PIN_SERVER[@]}" sockperf server "${opt[@]}" -i "$HOST" -p "$P_SP_SELF"
	sp2_lat_pid=$SERVER_PID
}
lat_servers_down() {
	server_down "$ix_lat_pid"
	server_down "$sp_lat_pid"
	server_down "$sp2_lat_pid"
}

# lat_pass MODE: the ping-pong runs with both tools pinned ("pinned") or not
# ("free"); ixperf --busy-poll beside them when pinned.
lat_pass() {
	local path i
	PM=$1 PIN_CLIENT=() PIN_SERVER=()
	if [ "$PM" = pinned ]; then
		PIN_CLIENT=(taskset -c "${PIN%,*}")
		PIN_SERVER=(taskset -c "${PIN#*,}")
	fi
	echo "== Latency, $LAT_SIZE-byte ping-pong, one-way (RTT/2), ixperf lat vs sockperf, $PM"
	echo "   pinning: ${PIN_CLIENT[*]:-none} (clients), ${PIN_SERVER[*]:-none} (servers); servers restarted for each run"
	for path in tcp udp; do
		echo "-- $path"
		for ((i = 1; i <= RUNS; i++)); do
			lat_servers_up "$path"
			# sockperf in the middle: ixperf and the control each run
			# before it in one run and after it in the next
			if ((i % 2)); then
				lat_ixperf "$path" "$i"
				lat_sockperf "$path" "$i"
				lat_sockperf "$path" "$i" self
			else
				lat_sockperf "$path" "$i" self
				lat_sockperf "$path" "$i"
				lat_ixperf "$path" "$i"
			fi
			[ "$PM" = pinned ] && lat_ixperf "$path" "$i" --busy-poll
			lat_servers_down
		done
	done
	echo
}
if section lat; then
	for m in $PMODES; do lat_pass "$m"; done
fi

# ---- 6: memory ------------------------------------------------------------------

# mem_ixperf RUN: ixperf mem on node 0 from node 0, all its CPUs (read,
# write, latency over MEM_MIB), then one thread (copy, as mbw copies).
mem_ixperf() {
	local i=$1 n="mem-ixperf-$1" d
	run_client "$n" "$IXPERF" mem -i 0 -m 0 --tests read,write,latency -s "${MEM_MIB}Mi" \
		--latency-size "${MEM_MIB}Mi" -t 2 -J
	d=$WORK/$n.out
	sample mem-ixperf-read "$(calc 'a/1e9' a="$(jq_num "$d" '.results[0].cells[0].bandwidth_Bps.read')")"
	sample mem-ixperf-write "$(calc 'a/1e9' a="$(jq_num "$d" '.results[0].cells[0].bandwidth_Bps.write')")"
	sample mem-ixperf-lat "$(jq_num "$d" '.results[0].cells[0].latency_ns')"
	run_client "$n-1" "$IXPERF" mem -i 0 -m 0 -T 1 --tests copy -s "$((2 * MEM_MIB))Mi" -t 2 -J
	sample mem-ixperf-copy1 "$(calc 'a/1e9' a="$(jq_num "$WORK/$n-1.out" '.results[0].cells[0].bandwidth_Bps.copy')")"
	printf '  run %d/%d  ixperf    read %6.2f  write %6.2f  copy (1 thread) %6.2f GB/s  latency %7.2f ns\n' \
		"$i" "$RUNS" "$(tail -n 1 "$WORK/samples/mem-ixperf-read")" "$(tail -n 1 "$WORK/samples/mem-ixperf-write")" \
		"$(tail -n 1 "$WORK/samples/mem-ixperf-copy1")" "$(tail -n 1 "$WORK/samples/mem-ixperf-lat")"
}

# mem_peers RUN: mbw's MEMCPY (MiB/s of arrays of MEM_MIB copied), sysbench
# memory read and write (MiB/s, a thread per CPU, one block of MEM_MIB /
# threads each), memlat over MEM_MIB; all in GB/s and ns.
mem_peers() {
	local i=$1 n="mem-peers-$1" th v
	th=$(getconf _NPROCESSORS_ONLN)
	run_client "$n-mbw" numactl --cpunodebind=0 --membind=0 mbw -q -n 5 -t0 "$MEM_MIB"
	v=$(awk '/^AVG/ { for (f = 1; f <= NF; f++) if ($f == "Copy:") print $(f + 1) }' "$WORK/$n-mbw.out")
	[ -n "$v" ] || die "$n-mbw: no AVG line in mbw's output"
	sample mem-mbw-copy "$(calc 'a*1048576/1e9' a="$v")"
	for op in read write; do
		run_client "$n-sb-$op" numactl --cpunodebind=0 --membind=0 sysbench memory --threads="$th" \
			--memory-block-size="$((MEM_MIB / th))M" --memory-total-size=10000G --memory-oper="$op" \
			--memory-access-mode=seq --time=4 run
		v=$(sed -n 's/.*transferred (\([0-9.]*\) MiB\/sec).*/\1/p' "$WORK/$n-sb-$op.out")
		[ -n "$v" ] || die "$n-sb-$op: no 'MiB/sec' in sysbench's output"
		sample "mem-sysbench-$op" "$(calc 'a*1048576/1e9' a="$v")"
	done
	run_client "$n-memlat" numactl --cpunodebind=0 --membind=0 "$MEMLAT" "$MEM_MIB" 2
	sample mem-memlat "$(awk '{ print $1; exit }' "$WORK/$n-memlat.out")"
	printf '  run %d/%d  peers     sysbench read %6.2f  write %6.2f  mbw copy %6.2f GB/s  memlat %7.2f ns\n' \
		"$i" "$RUNS" "$(tail -n 1 "$WORK/samples/mem-sysbench-read")" "$(tail -n 1 "$WORK/samples/mem-sysbench-write")" \
		"$(tail -n 1 "$WORK/samples/mem-mbw-copy")" "$(tail -n 1 "$WORK/samples/mem-memlat")"
}

if section mem; then
	for tool in mbw sysbench numactl cc; do
		command -v "$tool" >/dev/null || die "$tool is missing (apt-get install -y mbw sysbench numactl gcc)"
	done
	MEMLAT=$WORK/memlat
	cc -O2 -o "$MEMLAT" "$(dirname "$0")/memlat.c" || die "cannot build contrib/memlat.c"
	echo "== Memory, node 0 from node 0: ixperf mem vs sysbench memory, mbw and memlat ($MEM_MIB MiB buffers)"
	echo "   mbw: $(dpkg-query -W -f='${Version}' mbw 2>/dev/null), sysbench: $(sysbench --version 2>&1 | head -n 1)"
	for ((i = 1; i <= RUNS; i++)); do
		if ((i % 2)); then
			mem_ixperf "$i"
			mem_peers "$i"
		else
			mem_peers "$i"
			mem_ixperf "$i"
		fi
	done
	echo
fi

# ---- summary ------------------------------------------------------------------

# row METRIC IX PEER GOAL: one table line; GOAL is ">=N", "<=N" (on the
# ratio ixperf/peer), "-" (no goal) or "ctl" (a control: the ratio of a
# tool to itself, no goal). The verdict is taken on the ratio as printed
# (3 decimals); against a peer of 0, "<=" holds only for 0.
row() {
	local metric=$1 ix=$2 peer=$3 goal=$4 ratio="-" verdict="info" lim
	if [ "$goal" = ctl ]; then
		ratio=$(printf '%.3f' "$(calc 'a/b' a="$ix" b="$peer")")
		peer=$(printf '%.3f' "$peer") goal="-" verdict="control"
	elif [ "$goal" != "-" ]; then
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

# sweep_table KIND WHERE: a line per stream count: each tool's median
# goodput in Gbit/s and CPU s/GB (UDP: and loss), then ixperf over the best
# peer's goodput (goal >= 1) and over the lowest peer CPU s/GB (goal <= 1);
# for UDP ixperf's loss may not be above the lowest peer's, or 0.1%.
sweep_table() {
	local kind=$1 pre="" w=13 p t cell bw cpu loss ix_bw ix_cpu ix_loss best bestt low lowt lossmin why
	[ "$kind" = udp ] && pre=udp- w=22
	at "$2"
	echo "-- ${kind^^} over $(where_name); each tool: Gbit/s, CPU s/GB${pre:+, loss %}"
	printf '%3s' P
	for t in ixperf iperf3 iperf2 nuttcp; do printf '  %-*s' "$w" "$t"; done
	printf '  %-22s %-22s %s\n' "bw / best peer" "CPU / lowest peer" result
	for p in $STREAMS; do
		printf '%3s' "$p"
		best=0 bestt="" low="" lowt="" lossmin=""
		for t in ixperf iperf3 iperf2 nuttcp; do
			bw=$(median_of "${pre}bw-$t-$WHERE-P$p")
			cpu=$(median_of "${pre}cpu-$t-$WHERE-P$p")
			loss=0
			cell=$(printf '%6.2f %6.3f' "$bw" "$cpu")
			if [ -n "$pre" ]; then
				loss=$(median_of "udp-loss-$t-$WHERE-P$p")
				cell="$cell $(printf '%7.3f%%' "$loss")"
			fi
			printf '  %-*s' "$w" "$cell"
			if [ "$t" = ixperf ]; then
				ix_bw=$bw ix_cpu=$cpu ix_loss=$loss
				continue
			fi
			awk -v a="$bw" -v b="$best" 'BEGIN { exit !(a > b) }' && best=$bw bestt=$t
			[ -z "$low" ] || awk -v a="$cpu" -v b="$low" 'BEGIN { exit !(a < b) }' && low=$cpu lowt=$t
			[ -z "$lossmin" ] || awk -v a="$loss" -v b="$lossmin" 'BEGIN { exit !(a < b) }' && lossmin=$loss
		done
		bw=$(printf '%.3f' "$(calc 'a/b' a="$ix_bw" b="$best")")
		cpu=$(printf '%.3f' "$(calc 'a/b' a="$ix_cpu" b="$low")")
		why=$(awk -v b="$bw" -v c="$cpu" -v l="$ix_loss" -v m="$lossmin" 'BEGIN {
			if (b < 1) w = "bw"
			if (c > 1) w = w (w ? ", " : "") "CPU"
			if (l > m && l > 0.1) w = w (w ? ", " : "") "loss"
			print w }')
		printf '  %-22s %-22s %s\n' "$bw ($bestt)" "$cpu ($lowt)" "$([ -n "$why" ] && echo "MISS ($why)" || echo PASS)"
	done
}

echo "== Summary: medians of $RUNS runs of $T s, congestion control $CC"
for kind in tcp udp; do
	section "$kind" || continue
	for w in $WHERES; do sweep_table "$kind" "$w"; done
done
echo
printf '%-34s %12s %12s %8s %6s  %s\n' metric ixperf peer ratio goal result
if section tcp; then
	row "TCP bw P1 -Z, Gbit/s (iperf3 -Z)" "$(median_of bw-ixperf-lo-PZ1)" "$(median_of bw-iperf3-lo-PZ1)" ">=1"
	row "TCP CPU s/GB P1 -Z (iperf3 -Z)" "$(median_of cpu-ixperf-lo-PZ1)" "$(median_of cpu-iperf3-lo-PZ1)" "<=1"
fi
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
# spread KEY: the lowest and highest run of a measurement.
spread() {
	sort -g "$WORK/samples/$1" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'
}
# paired A B: each run of A over the run of B beside it (the same run
# number: the two ran one after the other), the median of those ratios and
# how many are at most 1. On a machine whose speed drifts between runs this
# compares the tools where the medians of each compare the drift.
paired() {
	paste "$WORK/samples/$1" "$WORK/samples/$2" |
		awk '$2 > 0 { r = $1 / $2; print r; n++; if (r <= 1) k++ } END { print "k", k + 0, n + 0 }' |
		{
			local v=() k n
			while read -r a b c; do
				if [ "$a" = k ]; then k=$b n=$c; else v+=("$a"); fi
			done
			printf '%-34s %12s   (each run over the other tool'"'"'s beside it; at or below 1 in %d of %d)\n' \
				"" "$(printf '%s\n' "${v[@]}" | median | awk '{ printf "%.3f", $1 }')" "$k" "$n"
		}
}
if section mem; then
	row "mem read, GB/s (sysbench)" "$(median_of mem-ixperf-read)" "$(median_of mem-sysbench-read)" ">=1"
	row "mem write, GB/s (sysbench)" "$(median_of mem-ixperf-write)" "$(median_of mem-sysbench-write)" ">=1"
	row "mem copy 1 thread, GB/s (mbw)" "$(median_of mem-ixperf-copy1)" "$(median_of mem-mbw-copy)" ">=1"
	row "mem latency, ns (memlat)" "$(median_of mem-ixperf-lat)" "$(median_of mem-memlat)" "<=1.05"
	printf '%-34s %12s %12s   (the runs, lowest-highest)\n' "" "$(spread mem-ixperf-lat)" "$(spread mem-memlat)"
fi
if section lat; then
	for m in $PMODES; do
		for path in tcp udp; do
			P=${path^^}
			for q in p50 p99; do
				row "$P lat $q, us, $m (sockperf)" "$(median_of "$q-ixperf-$m-$path")" \
					"$(median_of "$q-sockperf-$m-$path")" "<=1"
				printf '%-34s %12s %12s   (the runs, lowest-highest)\n' "" \
					"$(spread "$q-ixperf-$m-$path")" "$(spread "$q-sockperf-$m-$path")"
				paired "$q-ixperf-$m-$path" "$q-sockperf-$m-$path"
				row "  control: sockperf vs sockperf" "$(median_of "$q-sockperf2-$m-$path")" \
					"$(median_of "$q-sockperf-$m-$path")" "ctl"
				paired "$q-sockperf2-$m-$path" "$q-sockperf-$m-$path"
			done
		done
	done
	for path in tcp udp; do
		[[ " $PMODES " == *" pinned "* ]] || break
		P=${path^^}
		row "$P lat p50, us, --busy-poll" "$(median_of "p50-ixperf-bp-pinned-$path")" "-" "-"
		row "$P lat p99, us, --busy-poll" "$(median_of "p99-ixperf-bp-pinned-$path")" "-" "-"
	done
fi
