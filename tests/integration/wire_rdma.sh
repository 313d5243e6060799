#!/usr/bin/env bash
# The RDMA transport analysis against tshark: tests/tools/ibgen writes the
# same exchanges as RoCEv2 over Ethernet, as native InfiniBand and as
# ibdump's ERF records (losses, NAKs, go-back-N, an ACK timeout, READs, an
# RNR NAK, congestion marks). tshark dissects each packet (addresses, QP,
# opcode, PSN, AETH syndrome, the BTH's FECN/BECN byte, ECN); an oracle
# here, written apart from the analysis, turns those fields into the
# per-direction figures, and 'ixperf wire --json' must give the same. The
# scenario's own truths (what ibgen built in) are checked too. tshark does
# not read the native link type (247): its file holds the ERF file's
# packets, and must give the ERF file's figures.
. "${top_srcdir:-.}/tests/lib.sh"

IBGEN=${IBGEN:-$(pwd)/tests/tools/ibgen}
[ -x "$IBGEN" ] || ix_skip "tests/tools/ibgen is not built (it needs libpcap)"
command -v tshark >/dev/null || ix_need "tshark is not installed (apt-get install tshark)"
command -v python3 >/dev/null || ix_need "python3 is not installed"
J=$IX_TMP
ORACLE=$top_srcdir/tests/tools/rdma-oracle.py

for l in roce ib erf; do
	"$IBGEN" "$l" "$J/$l.pcap" || not_ok "ibgen $l"
	"$IXPERF" wire --json "$J/$l.pcap" >"$J/$l.json" 2>"$J/$l.err"
	check "ixperf wire reads the $l capture" test "$?" = 0
	schema_check "$J/$l.json"
done


for l in roce erf; do
	check "tshark dissects every $l packet" test "$(tshark -n -r "$J/$l.pcap" 2>/dev/null | wc -l)" = \
		"$(jq '.results[0].wire.packets' "$J/$l.json")"
	python3 "$ORACLE" "$J/$l.pcap" >"$J/$l.oracle" 2>/dev/null || not_ok "the oracle reads $l"
	python3 "$ORACLE" --ixperf "$J/$l.json" >"$J/$l.ours"
	check "$l: every direction's figures are what tshark's fields say" \
		diff -u "$J/$l.oracle" "$J/$l.ours"
done
check "native InfiniBand gives the ERF capture's figures (bytes aside: ERF's header)" test \
	"$(jq -c '.results[0].wire.rdma | del(.flows[].bytes, .total.bytes, .host_pairs[].bytes)' "$J/ib.json")" = \
	"$(jq -c '.results[0].wire.rdma | del(.flows[].bytes, .total.bytes, .host_pairs[].bytes)' "$J/erf.json")"
check "ERF and native: InfiniBand packets counted" test \
	"$(jq '.results[0].wire.ib_packets' "$J/ib.json")/$(jq '.results[0].wire.ib_packets' "$J/erf.json")" = 87/87

# What ibgen built in, over RoCEv2.
R='.results[0].wire.rdma'
f() { jq -c "$R.flows[] | select(.src == \"$1\" and .dest_qp == $2) | $3" "$J/roce.json"; }
check "a's WRITEs: 44 requests, the lost packet out of sequence once" test \
	"$(f 10.0.0.1 34 '[.requests, .out_of_sequence]')" = "[44,1]"
check "a's WRITEs: 5 retransmitted in 2 runs, after 154 us and 4 ms of silence" test \
	"$(f 10.0.0.1 34 '[.retransmitted, .retries, .retry_wait.min_ns, .retry_wait.max_ns]')" = \
	"[5,2,154000,4000000]"
check "b's answers: 16 ACKs 5 us after their requests, 1 PSN sequence NAK, 4 CNPs, BECN" test \
	"$(f 10.0.0.2 17 '[.acks, .ack_latency.count, .ack_latency.min_ns, .ack_latency.max_ns, .naks.psn_sequence, .cnp, .becn]')" = \
	"[16,16,5000,5000,1,4,4]"
check "b's READs take their responses' PSNs: no gap; the RNR retry after 1.29 ms" test \
	"$(f 10.0.0.2 68 '[.requests, .out_of_sequence, .retransmitted, .retry_wait.max_ns]')" = \
	"[6,0,1,1290000]"
check "a's answers: RNR NAK with its 1.28 ms timer, a remote access NAK, READ latency 11 us" test \
	"$(f 10.0.0.1 51 '[.rnr_naks, .rnr_timer_max_ns, .naks.remote_access, .ack_latency.max_ns]')" = \
	"[1,1280000,1,11000]"
check "the connections tie each requester to its responder" test \
	"$(jq -c "$R as \$r | [\$r.connections[] | [\$r.flows[.requester].dest_qp,
		(if .responder == null then null else \$r.flows[.responder].dest_qp end)]]" "$J/roce.json")" = \
	"[[34,17],[68,51],[1,null]]"
check "one host pair, its total the capture's" test \
	"$(jq -c "[($R.host_pairs | length), $R.host_pairs[0].packets, $R.total.packets]" "$J/roce.json")" = "[1,87,87]"

"$IXPERF" wire "$J/roce.pcap" >"$J/roce.txt"
sed 's/^/# /' "$J/roce.txt"
check "text: the capture's RDMA line" grep -q "^  RDMA transport, 5 directions in 3 connections: 50 requests, 6 retransmitted in 3 runs" "$J/roce.txt"
check "text: a line per connection, with its operations" grep -q \
	'^  10.0.0.1 QP 0x000011 -> 10.0.0.2 QP 0x000022 \[RC RDMA Write First 13, ' "$J/roce.txt"

"$IXPERF" report -o "$J/roce.html" "$J/roce.json"
check "html: the RDMA table, a row per connection and the capture's" test \
	"$(grep -o '<tr[^>]*><td>[^<]*\(QP\|<b>the capture\)' "$J/roce.html" | wc -l)" = 4

ix_done
