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
#   -N MSGS     bandwidth by count instead: MSGS messages a run (perftest
#               -n, ixperf --iters), where perftest's -D misreports
#   -n ITERS    round trips of each latency run (default 100000; perftest
#               prints percentiles only when counting iterations)
#   -r RUNS     runs of each tool, alternating (default 3)
#   -l          PEER is this host: no ssh, the servers run here
#   -q LIST     then write bandwidth at each QP count of LIST (1,2,4,8):
#               ixperf --qps N (its threads by default) against perftest
#               -q N (one thread), both by count: M / N messages per QP
#               (perftest -n, ixperf --iters), M set by -m (default 4000)
#   -m M        the messages of each -q run
#   -Q          only the -q rows
#   -T LIST     with -q, ixperf also with --threads T for each T of LIST
#               (where T <= N): the threads opted into
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
	sed -n "2,44p" "$0"
	exit 2
}

DEV='' GIDX='' SIZE='' DUR=5 RUNS=3 ITERS=100000 LOCAL='' QPS='' THREADS='' QMSGS=4000 BW_N='' ONLY_Q='' MSGS=''
while getopts "d:x:s:D:N:n:r:lq:T:m:Qh" o; do
	case $o in
	d) DEV=$OPTARG ;;
	x) GIDX=$OPTARG ;;
	s) SIZE=$OPTARG ;;
	D) DUR=$OPTARG ;;
	N) MSGS=$OPTARG ;;
	n) ITERS=$OPTARG ;;
	r) RUNS=$OPTARG ;;
	l) LOCAL=1 ;;
	q) QPS=$OPTARG ;;
	T) THREADS=$OPTARG ;;
	m) QMSGS=$OPTARG ;;
	Q) ONLY_Q=1 ;;
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

# perftest TOOL SIZE [OPTION...]: one run, prints two figures (Gbit/s and
# Mpps, or t_typical and t_99 in us).
perftest() {
	local tool=$1 size=$2 out run more=("${@:3}")
	# Bandwidth in Gbit/s by duration; latency by iterations, where
	# perftest prints t_typical and the 99th percentile.
	case $tool in
	*_bw) if [ -n "$BW_N" ]; then run=(-n "$BW_N" --report_gbits); else run=(-D "$DUR" --report_gbits); fi ;;
	*_lat) run=(-n "$ITERS") ;;
	esac
	on_peer "$tool ${PT_OPTS[*]} ${more[*]} -s $size ${run[*]} -F >/dev/null 2>&1 &"
	sleep 1
	out=$("$tool" "${PT_OPTS[@]}" "${more[@]}" -s "$size" "${run[@]}" -F "$PEER" 2>/dev/null) ||
		return 1
	case $tool in
	*_bw) echo "$out" | awk -v s="$size" '$1 == s { print $4, $5 }' | tail -n 1 ;;
	*_lat) echo "$out" | awk -v s="$size" '$1 == s { print $5, $8 }' | tail -n 1 ;;
	esac
}

# ixrun OP KIND SIZE [OPTION...]: the same test with ixperf, the same two
# figures (bandwidth: and the threads its end ran).
ixrun() {
	local op=$1 kind=$2 size=$3 more=("${@:4}")
	if [ "$kind" = bw ]; then
		if [ -n "$BW_N" ]; then more+=(--iters "$BW_N"); else more+=(-t "$DUR"); fi
		"$IX" bw --path rdma --op "$op" -s "$size" -p 5399 -J "${IX_EXTRA[@]}" \
			"${more[@]}" "$PEER" |
			jq -r '.results[0] | "\(.rdma.bits_per_second / 1e9) \(.rdma.message_rate / 1e6)" +
				" \(.local.threads // 1)"'
	else
		"$IX" lat --path rdma --op "$op" -s "$size" -n "$ITERS" -w 0 -p 5399 -J "${IX_EXTRA[@]}" "$PEER" |
			jq -r '.results[0] | "\(.stats.p50_ns / 1e3) \(.stats.p99_ns / 1e3) \(.clock)"'
	fi
}

fail=0
printf "%-12s %-11s %14s %14s %8s\n" "test" "figure" "ixperf" "perftest" "ratio"
specs=(write:bw read:bw send:bw write:lat read:lat send:lat)
[ -z "$ONLY_Q" ] || specs=()
for spec in "${specs[@]}"; do
	op=${spec%%:*} kind=${spec##*:}
	if [ -n "$SIZE" ]; then size=$SIZE; elif [ "$kind" = bw ]; then size=65536; else size=2; fi
	: >"$WORK/ix"
	: >"$WORK/pt"
	BW_N=$MSGS
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
[ -n "$ONLY_Q" ] || echo "ixperf's latency samples timed by: $(sort -u "$WORK/clocks" | paste -sd' ')"

# Write bandwidth by QP count: perftest polls every QP from one thread;
# ixperf with its default threads (at most half the CPUs) and with the
# threads asked by -T. By count, the same messages in all: perftest -q with
# -D reports no bandwidth for more than one QP.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'
}
if [ -n "$QPS" ]; then
	size=${SIZE:-65536}
	IFS=, read -r -a qlist <<<"$QPS"
	IFS=, read -r -a tlist <<<"${THREADS:-}"
	echo
	echo "write bandwidth by QP count, $QMSGS messages of $size bytes a run:"
	printf "%-6s %-16s %11s %11s %8s %11s %11s %8s\n" "QPs" "ixperf" "Gbit/s" "perftest" \
		"ratio" "Mpps" "perftest" "ratio"
	for q in "${qlist[@]}"; do
		BW_N=$((QMSGS / q))
		variants=(auto)
		for t in "${tlist[@]}"; do [ "$t" -le "$q" ] && variants+=("$t"); done
		: >"$WORK/pt"
		for v in "${variants[@]}"; do : >"$WORK/ix.$v"; done
		for ((r = 0; r < RUNS; r++)); do
			for v in "${variants[@]}"; do
				more=(--qps "$q")
				[ "$v" = auto ] || more+=(--threads "$v")
				ixrun write bw "$size" "${more[@]}" >>"$WORK/ix.$v" || fail=1
			done
			perftest ib_write_bw "$size" -q "$q" >>"$WORK/pt" || fail=1
		done
		pg=$(awk '{ print $1 }' "$WORK/pt" | median)
		pm=$(awk '{ print $2 }' "$WORK/pt" | median)
		for v in "${variants[@]}"; do
			g=$(awk '{ print $1 }' "$WORK/ix.$v" | median)
			m=$(awk '{ print $2 }' "$WORK/ix.$v" | median)
			th=$(awk '{ print $3 }' "$WORK/ix.$v" | sort -u | paste -sd/)
			label="${th:-?} thread$([ "$th" = 1 ] || echo s)"
			[ "$v" = auto ] && label="$label (auto)"
			printf "%-6s %-16s %11s %11s %8s %11s %11s %8s\n" "$q" "$label" "$g" "$pg" \
				"$(ratio "$g" "$pg")" "$m" "$pm" "$(ratio "$m" "$pm")"
		done
		# every run's Gbit/s, in the order they ran
		echo "#   runs: perftest $(awk '{ printf " %.3f", $1 }' "$WORK/pt");$(for v in \
			"${variants[@]}"; do printf " ixperf %s%s;" "$v" "$(awk '{ printf " %.3f", $1 }' \
			"$WORK/ix.$v")"; done)"
	done
fi
exit $fail
