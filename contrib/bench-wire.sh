#!/usr/bin/env bash
# Benchmark the wire analysis (packet decoders and TCP sequence analysis of
# probes/capture/pkt.c and probes/capture/wirestat.c) against tshark, on one core.
#
#   contrib/bench-wire.sh [BUILDDIR]      (default: the current directory)
#
# BUILDDIR holds tests/tools/pcapgen and tests/tools/wirecount (make check
# builds them). A capture of bulk TCP flows with losses, fast
# retransmissions and reordering is generated (pcapgen mixed-large, 96-byte
# snaplen like tcpdump -s 96), then read, runs alternated and pinned to one
# CPU, by:
#   0. ixperf wire -J FILE: the command users run (libpcap's reader, the
#      same decoder and analysis, a JSON document);
#   1. tests/tools/wirecount FILE: decode, flow table, TCP analysis, counts;
#   2. tshark -n -r FILE -q: with nothing to print, tshark 4.0 reads the
#      records without dissecting them: the floor of reading the file;
#   3. tshark -n -r FILE -q -z io,stat,0,tcp.analysis.retransmission: the
#      same, asked for the retransmission count.
# The median wall time of each gives packets per second and the ratio to
# wirecount. The retransmission counts of 1 and 3 are printed side by side.
#
# Then the RDMA analysis: a capture of RoCEv2 bulk traffic (ibgen
# roce-bulk: 16 connections, WRITEs of four packets, one in 997 losing a
# packet, NAKed and sent again; 128-byte snaplen), read by:
#   0. ixperf wire -J FILE: per-QP PSN analysis, NAKs, ACK latency;
#   1. tshark -n -r FILE -T fields -e (opcode, PSN, AETH syndrome, ...):
#      the InfiniBand dissector's fields, what a script would start from;
#   2. tests/tools/rdma-oracle.py FILE: those fields and the oracle's
#      analysis of them (Python), as the tests check ixperf against.
# The oracle's figures and ixperf's must be equal, direction by direction.
#
# This is a benchmark, not a test: a slow result still exits 0. The exit
# status is non-zero only when a tool cannot be run.
#
# Environment:
#   BENCH_PACKETS  packets in the capture (default 3000000)
#   BENCH_RDMA_PACKETS  packets in the RoCE capture (default 1000000; 0: none)
#   BENCH_RUNS     runs per tool (default 3)
#   BENCH_CPU      CPU to pin every run to (default 0; "none" = unpinned)
#   BENCH_DIR      where the capture goes (default: a temporary directory)
set -euo pipefail

BUILD=${1:-.}
PCAPGEN=$BUILD/tests/tools/pcapgen
WIRECOUNT=$BUILD/tests/tools/wirecount
N=${BENCH_PACKETS:-3000000}
RUNS=${BENCH_RUNS:-3}
CPU=${BENCH_CPU:-0}

die() {
	echo "bench-wire: $*" >&2
	exit 2
}

[[ $N =~ ^[1-9][0-9]*$ ]] || die "BENCH_PACKETS must be a positive integer"
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer"
NR=${BENCH_RDMA_PACKETS:-1000000}
[[ $NR =~ ^[0-9]+$ ]] || die "BENCH_RDMA_PACKETS must be a number"
IBGEN=$BUILD/tests/tools/ibgen
ORACLE=$(dirname "$0")/../tests/tools/rdma-oracle.py
[ "$NR" = 0 ] || [ -x "$IBGEN" ] || die "$IBGEN not built (make check builds it)"
[ -x "$PCAPGEN" ] && [ -x "$WIRECOUNT" ] || die "$PCAPGEN or $WIRECOUNT not built (make check builds them)"
[ -x "$BUILD/ixperf" ] || die "$BUILD/ixperf not built"
command -v tshark >/dev/null || die "tshark is not installed"

PIN=()
if [ "$CPU" != none ]; then
	command -v taskset >/dev/null || die "taskset not found (BENCH_CPU=none runs unpinned)"
	PIN=(taskset -c "$CPU")
fi

WORK=$(mktemp -d "${BENCH_DIR:-${TMPDIR:-/tmp}}/bench-wire.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CAP=$WORK/mixed.pcap

# median: the median of the numbers on stdin, one per line.
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) printf "%.6g\n", v[(NR + 1) / 2]
		else printf "%.6g\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# timed NAME CMD...: run CMD (pinned, output to WORK/NAME.out), append its
# wall time in seconds to WORK/NAME.t.
timed() {
	local name=$1 t0 t1
	shift
	t0=$(date +%s.%N)
	"${PIN[@]}" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" || {
		cat "$WORK/$name.err" >&2
		die "$name failed"
	}
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$WORK/$name.t"
}

echo "wire analysis benchmark: $N packets, $RUNS runs each, CPU ${CPU}"
echo "  tshark: $(tshark --version 2>/dev/null | head -n 1)"
echo "  host:   $(uname -sr), $(getconf _NPROCESSORS_ONLN) CPUs"
"$PCAPGEN" mixed-large "$CAP" "$N"
echo "  file:   $(du -h "$CAP" | cut -f1) (pcapgen mixed-large, snaplen 96)"
echo

# Warm the page cache so that no run pays for the disk.
cat "$CAP" >/dev/null

for ((i = 1; i <= RUNS; i++)); do
	timed ixwire "$BUILD/ixperf" wire -J "$CAP"
	timed ours "$WIRECOUNT" "$CAP"
	timed tshark tshark -n -r "$CAP" -q
	timed tshark_retr tshark -n -r "$CAP" -q -z io,stat,0,tcp.analysis.retransmission
done

ixw_s=$(median <"$WORK/ixwire.t")
ours_s=$(median <"$WORK/ours.t")
ts_s=$(median <"$WORK/tshark.t")
tsr_s=$(median <"$WORK/tshark_retr.t")
pps() { awk -v n="$N" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }

printf "%-58s %10s %14s %8s\n" "reader" "median s" "packets/s" "ratio"
printf "%-58s %10.3f %14s %8.2f\n" "ixperf wire -J FILE" "$ixw_s" "$(pps "$ixw_s")" \
	"$(awk -v a="$ixw_s" -v b="$ours_s" 'BEGIN { print a / b }')"
printf "%-58s %10.3f %14s %8s\n" "wirecount (ixperf decoder + TCP analysis)" "$ours_s" \
	"$(pps "$ours_s")" "1"
printf "%-58s %10.3f %14s %8.1f\n" "tshark -n -r FILE -q (reads, does not dissect)" "$ts_s" "$(pps "$ts_s")" \
	"$(awk -v a="$ts_s" -v b="$ours_s" 'BEGIN { print a / b }')"
printf "%-58s %10.3f %14s %8.1f\n" "tshark -q -z io,stat,0,tcp.analysis.retransmission" "$tsr_s" \
	"$(pps "$tsr_s")" "$(awk -v a="$tsr_s" -v b="$ours_s" 'BEGIN { print a / b }')"
echo "(ratio: how many times longer than wirecount)"
echo

retr_ours=$(sed -n 's/^tcp_retransmissions=//p' "$WORK/ours.out")
retr_ts=$(awk -F'|' '/<>/ { gsub(/ /, "", $3); v = $3 } END { print v }' "$WORK/tshark_retr.out")
retr_ix=$(jq -r '.results[0].wire.tcp_retransmissions' "$WORK/ixwire.out" 2>/dev/null)
echo "retransmissions: ixperf wire ${retr_ix:-?}, wirecount $retr_ours, tshark ${retr_ts:-?}"

[ "$NR" = 0 ] && exit 0
echo
RCAP=$WORK/roce.pcap
"$IBGEN" roce-bulk "$RCAP" "$NR" || die "ibgen failed"
echo "RDMA analysis: $NR packets of RoCEv2 (ibgen roce-bulk, snaplen 128), $(du -h "$RCAP" | cut -f1)"
cat "$RCAP" >/dev/null
FIELDS=(-e ip.src -e ip.dst -e infiniband.bth.destqp -e frame.time_epoch -e infiniband.bth.opcode
	-e infiniband.bth.psn -e infiniband.aeth.syndrome -e infiniband.reserved -e udp.length)
for ((i = 1; i <= RUNS; i++)); do
	timed rixwire "$BUILD/ixperf" wire -J "$RCAP"
	timed rfields tshark -n -r "$RCAP" -T fields "${FIELDS[@]}"
	timed roracle python3 "$ORACLE" "$RCAP"
done
rix_s=$(median <"$WORK/rixwire.t")
rf_s=$(median <"$WORK/rfields.t")
ro_s=$(median <"$WORK/roracle.t")
rpps() { awk -v n="$NR" -v s="$1" 'BEGIN { printf "%.0f", n / s }'; }
rat() { awk -v a="$1" -v b="$rix_s" 'BEGIN { printf "%.1f", a / b }'; }
printf "%-58s %10s %14s %8s\n" "reader" "median s" "packets/s" "ratio"
printf "%-58s %10.3f %14s %8s\n" "ixperf wire -J FILE (PSN analysis per QP)" "$rix_s" "$(rpps "$rix_s")" 1
printf "%-58s %10.3f %14s %8s\n" "tshark -T fields (opcode, PSN, syndrome, ...)" "$rf_s" \
	"$(rpps "$rf_s")" "$(rat "$rf_s")"
printf "%-58s %10.3f %14s %8s\n" "rdma-oracle.py (tshark's fields, analysed in Python)" "$ro_s" \
	"$(rpps "$ro_s")" "$(rat "$ro_s")"
echo "(ratio: how many times longer than ixperf wire)"
python3 "$ORACLE" --ixperf "$WORK/rixwire.out" >"$WORK/rdma.ours"
T='.results[0].wire.rdma.total'
echo "RDMA figures: ixperf $(jq -c "$T | {requests, retransmitted, out_of_sequence, naks: .naks.psn_sequence}" \
	"$WORK/rixwire.out"); every direction equal to the oracle's: $(cmp -s "$WORK/roracle.out" \
	"$WORK/rdma.ours" && echo yes || echo NO)"
