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
command -v tshark >/dev/null || ix_skip "tshark is not installed (apt-get install tshark)"
command -v python3 >/dev/null || ix_skip "python3 is not installed"
J=$IX_TMP

for l in roce ib erf; do
	"$IBGEN" "$l" "$J/$l.pcap" || not_ok "ibgen $l"
	"$IXPERF" wire --json "$J/$l.pcap" >"$J/$l.json" 2>"$J/$l.err"
	check "ixperf wire reads the $l capture" test "$?" = 0
	schema_check "$J/$l.json"
done

# The oracle: tshark's fields, one packet a line, to figures per direction
# keyed "src dst qp".
cat >"$J/oracle.py" <<'PY'
import json, sys

def kinds(syn):
    return (syn >> 5) & 3, syn & 0x1f

flows, order, pmtu = {}, [], 0
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
for r in rows:
    op, psn = int(r[4], 0), int(r[5])
    if (op & 0x1f) in (0, 1, 6, 7, 13, 14) and int(r[8] or 0) > pmtu:
        pmtu = int(r[8])
for r in rows:
    src, dst, qp, t = r[0] or r[9], r[1] or r[10], int(r[2], 16), float(r[3])
    op, psn, syn = int(r[4], 0), int(r[5]), r[6]
    res = int(r[7].split(",")[0], 16) if r[7] else 0
    dma = int(r[11]) if r[11] else 0
    ce = "3" in (r[12] or "").split(",")
    k = "%s %s %d" % (src, dst, qp)
    if k not in flows:
        flows[k] = dict(packets=0, ops={}, requests=0, responses=0, retransmitted=0,
                        out_of_sequence=0, acks=0, rnr_naks=0, naks=[0] * 6, cnp=0,
                        fecn=0, becn=0, ecn_ce=0, top=None, read=None, rtop=None)
        order.append(k)
    f = flows[k]
    f["packets"] += 1
    f["ops"][op] = f["ops"].get(op, 0) + 1
    f["fecn"] += bool(res & 0x80)
    f["becn"] += bool(res & 0x40)
    f["ecn_ce"] += ce
    o, tr = op & 0x1f, op >> 5
    if op == 0x81:
        f["cnp"] += 1
    elif tr in (0, 1, 5) and (o <= 0x0c or o in (0x13, 0x14, 0x16, 0x17)):
        f["requests"] += 1
        if f["top"] is None:
            f["top"] = psn
        elif psn <= f["top"]:
            f["retransmitted"] += 1
        else:
            # after a READ its responses hold the PSNs of its packets
            want = f["top"] + 1
            if f["read"] is not None and f["read"][0] == f["top"]:
                want = f["top"] + max(1, -(-f["read"][1] // pmtu))
            if psn != want:
                f["out_of_sequence"] += 1
            f["top"] = psn
        if o == 0x0c:
            f["read"] = (psn, dma)
    elif 0x0d <= o <= 0x12:
        f["responses"] += 1
        if o <= 0x10:
            if f["rtop"] is not None and psn <= f["rtop"]:
                f["retransmitted"] += 1
            elif f["rtop"] is not None and psn != f["rtop"] + 1:
                f["out_of_sequence"] += 1
            f["rtop"] = max(psn, f["rtop"] if f["rtop"] is not None else psn)
        if syn:
            kind, val = kinds(int(syn, 0))
            if kind == 0:
                f["acks"] += 1
            elif kind == 1:
                f["rnr_naks"] += 1
            else:
                f["naks"][val if kind == 3 and val < 5 else 5] += 1
for k in order:
    for x in ("top", "read", "rtop"):
        del flows[k][x]
    flows[k]["ops"] = {str(a): b for a, b in sorted(flows[k]["ops"].items())}
print(json.dumps(flows, sort_keys=True))
PY

# ours FILE: the same figures from ixperf's JSON.
ours() {
	jq -S '[.results[0].wire.rdma.flows[] | {key: "\(.src) \(.dst) \(.dest_qp)", value: {
		packets, requests, responses, retransmitted, out_of_sequence, acks, rnr_naks, cnp, fecn,
		becn, ecn_ce, naks: [.naks.psn_sequence, .naks.invalid_request, .naks.remote_access,
			.naks.remote_operational, .naks.invalid_rd_request, .naks.reserved],
		ops: ([.ops[] | {key: "\(.opcode)", value: .packets}] | from_entries)}}] | from_entries' "$1"
}

for l in roce erf; do
	tshark -n -r "$J/$l.pcap" -T fields -e ip.src -e ip.dst -e infiniband.bth.destqp \
		-e frame.time_epoch -e infiniband.bth.opcode -e infiniband.bth.psn \
		-e infiniband.aeth.syndrome -e infiniband.reserved -e data.len -e infiniband.lrh.slid \
		-e infiniband.lrh.dlid -e infiniband.reth.dmalen -e ip.dsfield.ecn \
		>"$J/$l.tsv" 2>/dev/null
	check "tshark dissects every $l packet" test "$(wc -l <"$J/$l.tsv")" = \
		"$(jq '.results[0].wire.packets' "$J/$l.json")"
	python3 "$J/oracle.py" "$J/$l.tsv" | jq -S . >"$J/$l.oracle" || not_ok "the oracle reads $l"
	# Native IB is keyed by LID: name the directions by the oracle's LIDs.
	ours "$J/$l.json" | sed 's/"LID \([0-9]*\) LID \([0-9]*\) /"\1 \2 /' | jq -S . >"$J/$l.ours"
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

ix_done
