#!/usr/bin/env python3
"""The RDMA analysis' oracle, written apart from it: tshark's fields of a
capture (addresses or LIDs, destination QP, opcode, PSN, AETH syndrome,
the BTH byte holding FECN and BECN, data length, RETH DMA length, ECN),
turned into the figures of each direction ("src dst qp"): packets,
opcodes, requests and responses, PSNs that did not advance or skipped
ahead (24-bit serial arithmetic), ACKs and NAKs by the AETH syndrome,
CNPs, FECN, BECN and ECN-CE, as JSON on stdout. Used by
tests/integration/wire_rdma.sh (crafted captures) and wire_rxe.sh
(soft-RoCE's own).

    rdma-oracle.py CAPTURE            the oracle's figures
    rdma-oracle.py --ixperf DOC.json  ixperf's (its wire.rdma), in the same form
"""
import json, subprocess, sys

FIELDS = ["ip.src", "ip.dst", "infiniband.bth.destqp", "frame.time_epoch",
          "infiniband.bth.opcode", "infiniband.bth.psn", "infiniband.aeth.syndrome",
          "infiniband.reserved", "data.len", "infiniband.lrh.slid", "infiniband.lrh.dlid",
          "infiniband.reth.dmalen", "ip.dsfield.ecn", "udp.length"]


def dist(a, b):
    """a - b in the 24-bit PSN space."""
    return ((a - b + 0x800000) & 0xffffff) - 0x800000

def kinds(syn):
    return (syn >> 5) & 3, syn & 0x1f

flows, order, pmtu = {}, [], 0
def ours(path):
    """ixperf's directions, keyed and shaped as the oracle's."""
    res = {}
    for f in json.load(open(path))["results"][0]["wire"]["rdma"]["flows"]:
        src, dst = (a[4:] if a.startswith("LID ") else a for a in (f["src"], f["dst"]))
        res["%s %s %d" % (src, dst, f["dest_qp"])] = dict(
            {k: f[k] for k in ("packets", "requests", "responses", "retransmitted",
                               "out_of_sequence", "acks", "rnr_naks", "cnp", "fecn", "becn",
                               "ecn_ce")},
            naks=[f["naks"][k] for k in ("psn_sequence", "invalid_request", "remote_access",
                                         "remote_operational", "invalid_rd_request",
                                         "reserved")],
            ops={str(o["opcode"]): o["packets"] for o in f["ops"]})
    return res


if sys.argv[1] == "--ixperf":
    print(json.dumps(ours(sys.argv[2]), sort_keys=True, indent=1))
    sys.exit(0)

out = subprocess.run(["tshark", "-n", "-r", sys.argv[1], "-T", "fields"] +
                     [x for f in FIELDS for x in ("-e", f)],
                     capture_output=True, text=True, check=True).stdout
rows = [l.split("\t") for l in out.splitlines()]
print("%d packets" % len(rows), file=sys.stderr)
# The path MTU: the payload of a full first or middle packet, from the UDP
# length (captures cut by a snaplen have no whole data) or the data.
EXT = {0: 0, 1: 0, 6: 16, 7: 0, 13: 4, 14: 0}
for r in rows:
    op = int(r[4], 0)
    if (op & 0x1f) in EXT and op >> 5 in (0, 1, 5):
        pay = int(r[13]) - 8 - 12 - EXT[op & 0x1f] - 4 if r[13] else int(r[8] or 0)
        pmtu = max(pmtu, pay)
pmtu = pmtu or 4096
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
        if f["top"] is None or dist(psn, f["top"]) > 0:
            if f["top"] is not None:
                # after a READ its responses hold the PSNs of its packets
                span = 1
                if f["read"] is not None and f["read"][0] == f["top"]:
                    span = max(1, -(-f["read"][1] // pmtu))
                if dist(psn, f["top"]) != span:
                    f["out_of_sequence"] += 1
            f["top"] = psn
            if o == 0x0c:
                f["read"] = (psn, dma)
        else:
            f["retransmitted"] += 1
    elif 0x0d <= o <= 0x12:
        f["responses"] += 1
        if o <= 0x10:
            if f["rtop"] is not None and dist(psn, f["rtop"]) <= 0:
                f["retransmitted"] += 1
            else:
                # a new READ's first response may skip the requests between
                if f["rtop"] is not None and dist(psn, f["rtop"]) != 1 and o in (0x0e, 0x0f):
                    f["out_of_sequence"] += 1
                f["rtop"] = psn
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
print(json.dumps(flows, sort_keys=True, indent=1))
