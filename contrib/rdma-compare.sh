#!/usr/bin/env bash
# ixperf and perftest side by side on a real pair of RDMA hosts.
#
#   contrib/rdma-compare.sh [options] PEER
#
# Run it on one host of the pair; PEER is the other, reachable with ssh
# (keys, no password prompt) and with ixperf and perftest (ib_write_bw,
# ib_read_bw, ib_send_bw, ib_write_lat, ib_read_lat, ib_send_lat) in its
# PATH. With -l, PEER is an address of this host and the servers run here
# (one device used by both ends, as contrib/bench-rxe.sh does with
# soft-RoCE). For every test the script starts the perftest server on PEER over
# ssh, runs the perftest client here, then runs the same test with ixperf
# against an 'ixperf server' it starts on PEER; runs alternate (RUNS each)
# and the medians are printed side by side with their ratio.
#
# Options:
#   -d DEV      RDMA device for perftest on both hosts (perftest -d)
#   -x INDEX    RoCE GID index for perftest (ixperf chooses its own GID)
#   -s BYTES    message size (default 65536 for bandwidth, 2 for latency)
#   -D SECONDS  duration of each bandwidth run (default 5)
#   -n ITERS    round trips of each latency run (default 100000; perftest
#               prints percentiles only when counting iterations)
#   -r RUNS     runs of each tool, alternating (default 3)
#   -l          PEER is this host: no ssh, the servers run here
#
# Environment: IXPERF (default ixperf), IXPERF_ARGS (extra ixperf options),
# PERFTEST_ARGS (extra perftest options, the same on both sides).
#
# Figures compared: bandwidth average (perftest BW average, ixperf goodput)
# and message rate; latency t_typical (median) and t_99 in microseconds,
# both tools giving one-way latency for send and write (RTT/2) and the full
# round trip for read. Exit status: 0 when every run produced figures.
set -euo pipefail

usage() {
	sed -n "2,33p" "$0"
	exit 2
}

DEV= GIDX= SIZE= DUR=5 RUNS=3 ITERS=100000 LOCAL=
while getopts "d:x:s:D:n:r:lh" o; do
	case $o in
	d) DEV=$OPTARG ;;
	x) GIDX=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	D) DUR=$OPTARG ;;
	n) ITERS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	l) LOCAL=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
PEER=$1
IX=${IXPERF:-ixperf}
PT_OPTS=()
[ -n "$DEV" ] && PT_OPTS+=(-d "$DEV")
[ -n "$GIDX" ] && PT_OPTS+=(-x "$GIDX")
read -r -a PT_EXTRA <<<"${PERFTEST_ARGS:-}"
read -r -a IX_EXTRA <<<"${IXPERF_ARGS:-}"
[ -n "$DEV" ] && IX_EXTRA+=(--ib-dev "$DEV")
PT_OPTS+=("${PT_EXTRA[@]}")

for t in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ib_send_lat jq; do
	command -v "$t" >/dev/null || { echo "rdma-compare: $t not found here" >&2; exit 1; }
done
command -v "$IX" >/dev/null || { echo "rdma-compare: $IX not found" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rdma-compare.XXXXXX")
AGENT_PID=
# A command on PEER: over ssh, or here with -l.
on_peer() {
	if [ -n "$LOCAL" ]; then
		bash -c "$1"
	else
		ssh -o BatchMode=yes "$PEER" "$1"
	fi
}
cleanup() {
	[ -n "$AGENT_PID" ] && on_peer "kill $AGENT_PID" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT

# ixperf says itself when this host cannot run RDMA (no device, a port
# down, a build without libibverbs or without the RDMA data path).
rc=0
"$IX" bw --path rdma -t 0.1 -p 1 127.0.0.1 >/dev/null 2>"$WORK/probe.err" || rc=$?
if [ "$rc" = 3 ]; then
	sed 's/^/rdma-compare: /' "$WORK/probe.err" >&2
	exit 1
fi
[ -n "$LOCAL" ] || ssh -o BatchMode=yes "$PEER" true ||
	{ echo "rdma-compare: cannot ssh to $PEER without a password" >&2; exit 1; }

# The ixperf agent on PEER for the whole comparison.
AGENT_PID=$(on_peer "nohup $IX server -p 5399 ${DEV:+--rdma-dev $DEV} >/dev/null 2>&1 & echo \$!")
sleep 1

median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (!NR) { print "nan"; exit }
		print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# perftest TOOL SIZE: one run, prints two figures (Gbit/s and Mpps, or
# t_typical and t_99 in us).
perftest() {
	local tool=$1 size=$2 out run
	# Bandwidth in Gbit/s by duration; latency by iterations, where
	# perftest prints t_typical and the 99th percentile.
	case $tool in
	*_bw) run=(-D "$DUR" --report_gbits) ;;
	*_lat) run=(-n "$ITERS") ;;
	esac
	on_peer "$tool ${PT_OPTS[*]} -s $size ${run[*]} -F >/dev/null 2>&1 &"
	sleep 1
	out=$("$tool" "${PT_OPTS[@]}" -s "$size" "${run[@]}" -F "$PEER" 2>/dev/null) || return 1
	case $tool in
	*_bw) echo "$out" | awk -v s="$size" '$1 == s { print $4, $5 }' | tail -n 1 ;;
	*_lat) echo "$out" | awk -v s="$size" '$1 == s { print $5, $8 }' | tail -n 1 ;;
	esac
}

# ixrun OP KIND SIZE: the same test with ixperf, the same two figures.
ixrun() {
	local op=$1 kind=$2 size=$3
	if [ "$kind" = bw ]; then
		"$IX" bw --path rdma --op "$op" -s "$size" -t "$DUR" -p 5399 -J "${IX_EXTRA[@]}" "$PEER" |
			jq -r '.results[0] | "\(.rdma.bits_per_second / 1e9) \(.rdma.message_rate / 1e6)"'
	else
		"$IX" lat --path rdma --op "$op" -s "$size" -n "$ITERS" -w 0 -p 5399 -J "${IX_EXTRA[@]}" "$PEER" |
			jq -r '.results[0] | "\(.stats.p50_ns / 1e3) \(.stats.p99_ns / 1e3) \(.clock)"'
	fi
}

fail=0
printf "%-12s %-11s %14s %14s %8s\n" "test" "figure" "ixperf" "perftest" "ratio"
for spec in write:bw read:bw send:bw write:lat read:lat send:lat; do
	op=${spec%%:*} kind=${spec##*:}
	if [ -n "$SIZE" ]; then size=$SIZE; elif [ "$kind" = bw ]; then size=65536; else size=2; fi
	: >"$WORK/ix"
	: >"$WORK/pt"
	for ((r = 0; r < RUNS; r++)); do
		ixrun "$op" "$kind" "$size" >>"$WORK/ix" || fail=1
		perftest "ib_${op}_${kind}" "$size" >>"$WORK/pt" || fail=1
	done
	for col in 1 2; do
		if [ "$kind" = bw ]; then names=("Gbit/s" "Mpps"); else names=("typical us" "p99 us"); fi
		a=$(awk -v c=$col '{ print $c }' "$WORK/ix" | median)
		b=$(awk -v c=$col '{ print $c }' "$WORK/pt" | median)
		printf "%-12s %-11s %14s %14s %8s\n" "$op $kind" "${names[$((col - 1))]}" "$a" "$b" \
			"$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')"
	done
	[ "$kind" = lat ] && awk '{ print $3 }' "$WORK/ix" >>"$WORK/clocks"
done
echo "ixperf's latency samples timed by: $(sort -u "$WORK/clocks" | paste -sd' ')"
exit $fail
