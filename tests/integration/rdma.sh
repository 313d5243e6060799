#!/usr/bin/env bash
# --path rdma end to end where no RDMA data path can run (this kernel has no
# RDMA support): the no-device path of bw and lat, option errors, an agent fed
# malformed and hostile RDMA setup messages that keeps serving, and the JSON
# and text of RDMA results produced by the real session code between two
# SIMULATED devices (tests/tools/rdmadoc), checked against the schema.
. "${top_srcdir:-.}/tests/lib.sh"

command -v jq >/dev/null || ix_skip "jq is not installed"
TOOLS=$(dirname "$IXPERF")/tests/tools
T=$IX_TMP
jqe() { jq -e "$1" "$2" >/dev/null; }

# ---- the no-device path ------------------------------------------------------
# A host with a device runs the data path instead: this part needs none.
if "$IXPERF" bw --path rdma -t 0.1 -p 1 127.0.0.1 >"$T/nd.out" 2>"$T/nd.err"; then rc=0; else rc=$?; fi
if grep -q "no RDMA device\|built without libibverbs" "$T/nd.err"; then
	check "bw --path rdma without a device exits 3" test "$rc" = 3
	check "the message names what to check" grep -q "check 'rdma link'\|libibverbs-dev" "$T/nd.err"
	check "nothing on stdout" test ! -s "$T/nd.out"
	if "$IXPERF" lat --path rdma --op send -J 127.0.0.1 >"$T/nl.out" 2>"$T/nl.err"; then rc=0; else rc=$?; fi
	check "lat --path rdma without a device exits 3" test "$rc" = 3
	check "lat says the same sentence" grep -q "no RDMA device\|built without libibverbs" "$T/nl.err"
else
	echo "# an RDMA device is present: the no-device checks do not apply"
fi

# ---- option errors: exit 2 naming the option, before any device or network --
opt_err() {
	local want=$1 rc
	shift
	if "$IXPERF" "$@" >/dev/null 2>"$T/opt.err"; then rc=0; else rc=$?; fi
	if [ "$rc" = 2 ] && grep -q -- "$want" "$T/opt.err"; then
		ok "ixperf $* -> exit 2, '$want'"
	else
		not_ok "ixperf $* -> exit $rc: $(cat "$T/opt.err")"
	fi
}
opt_err "invalid value for --op: 'atomic'" bw --path rdma --op atomic h
opt_err "invalid value for --tc: '300'" lat --path rdma --tc 300 h
opt_err "invalid value for --sl" bw --path rdma --sl 16 h
opt_err "invalid value for --gid-type" bw --path rdma --gid-type v3 h
opt_err "--gid-index and --gid-type exclude" bw --path rdma --gid-index 3 --gid-type v2 h
opt_err "invalid value for --mtu: 1500" bw --path rdma --mtu 1500 h
opt_err "invalid value for --numa" bw --path rdma --numa far h
opt_err "use --qps" bw --path rdma -P 4 h
opt_err "use --op read" bw --path rdma -R h
opt_err "--capture-filter and --pcap need --capture IFACE" bw --path rdma --pcap x.pcap h
opt_err "--iters and --time exclude" bw --path rdma --iters 10 -t 1 h
opt_err "--op applies to --path rdma only" bw --op read h
opt_err "--qps applies to --path rdma only" lat --path udp --qps 2 h
opt_err "--iters applies to --path rdma only" bw --iters 5 h
opt_err "--busy-poll and --timeout do not apply" lat --path rdma --busy-poll h

# ---- an agent fed hostile RDMA setup messages keeps serving ----------------
ix_server agent || { not_ok "the agent starts"; ix_done; }
cat >"$T/hostile.py" <<'PY'
import json, os, socket, struct, sys

sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import ERROR, MAGIC, TEST, VERSION, frame, hello, recv

port = int(sys.argv[1])

good = {"link_layer": "Ethernet", "lid": 0, "gid": "0000:0000:0000:0000:0000:ffff:c000:0201",
        "gid_index": 3, "mtu": 5, "qps": [{"qpn": 17, "psn": 5}],
        "buffer": {"addr": "0x1000", "rkey": 7, "length": 65536},
        "params": {"kind": "bw", "op": "write", "msg_size": 65536, "qps": 1, "tx_depth": 128,
                   "rx_depth": 0, "cq_mod": 64, "inline": 0, "rd_atom": 0,
                   "iterations": 0, "duration": 1, "warmup": 0, "bidirectional": False,
                   "traffic_class": 0, "service_level": 0, "mtu_cap": 0}}
def bad(**kw):
    d = json.loads(json.dumps(good))
    for k, v in kw.items():
        o = d
        parts = k.split("__")
        for p in parts[:-1]:
            o = o[p]
        o[parts[-1]] = v
    return d

cases = [("not an object", "hello"), ("'gid'", bad(gid="::1")),
         ("'qps' has 2 entries", bad(qps=[{"qpn": 1, "psn": 1}, {"qpn": 2, "psn": 1}])),
         ("qpn", bad(qps=[{"qpn": 0, "psn": 1}])),
         ("wraps around", bad(buffer__addr="0xffffffffffffffff")),
         ("limit of", bad(params__duration=4000)),
         ("op", bad(params__op="cmp_swap")),
         ("RoCE has no LIDs", bad(lid=9)),
         # well formed: refused by this host's device, not by the parser
         ("RDMA", good)]
for want, rdma in cases:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    hello(s)
    s.sendall(frame(TEST, {"kind": "rdma", "rdma": rdma}))
    t, b = recv(s)
    msg = (b or {}).get("error", "")
    print(("ok" if t == ERROR and want in msg else "not ok") + " - TEST rdma %r -> ERROR %r" % (want, msg))
    s.close()
# Garbage where the setup frame should be: a bad length, then a dead peer.
s = socket.create_connection(("127.0.0.1", port), timeout=5)
hello(s)
s.sendall(struct.pack(">IHHI", MAGIC, VERSION, TEST, 1 << 30))
t, b = recv(s)
print(("ok" if t == ERROR else "not ok") + " - an oversized frame is refused: %r" % (b,))
s.close()
PY
python3 "$T/hostile.py" "$IX_PORT" >"$T/hostile.out" 2>&1
cat "$T/hostile.out"
check "every hostile setup message got its ERROR" test "$(grep -c '^ok' "$T/hostile.out")" = 10
check "the agent is still running" kill -0 "$IX_SPID"
check "the agent still serves a TCP test" "$IXPERF" bw -t 0.2 -w 0 -p "$IX_PORT" -J -o "$T/after.json" 127.0.0.1
check "its figures are complete" jqe '.complete and .results[0].summary.forward.bits_per_second > 0' "$T/after.json"

# ---- RDMA results between two simulated devices ------------------------------
[ -x "$TOOLS/rdmadoc" ] || { not_ok "tests/tools/rdmadoc is built"; ix_done; }
for c in write-bw send-bw bidir-bw send-lat read-lat vanished; do
	"$TOOLS/rdmadoc" "$c" >"$T/$c.json" || not_ok "rdmadoc $c"
	schema_check "$T/$c.json"
done
jt() { check "$1: $2" jqe "$2" "$T/$1.json"; }
jt write-bw '.command == "bw" and .complete and .results[0].kind == "rdma_bw"'
jt write-bw '.results[0].rdma.messages == 5000 and .results[0].rdma.bytes == 5000 * 65536'
jt write-bw '.results[0].rdma.peak_bits_per_second >= .results[0].rdma.bits_per_second'
jt write-bw '(.results[0].rdma.message_rate - .results[0].rdma.bits_per_second / 8 / 65536 | fabs) < 1'
jt write-bw '.results[0].path_mtu == 2048 and .results[0].local.active_mtu == 4096 and .results[0].remote.active_mtu == 2048'
jt write-bw '.results[0].params.tx_depth == 128 and .results[0].params.cq_mod == 64 and .results[0].responder.tx == null'
jt send-bw '.results[0].responder.rx.messages == 5000 and .results[0].params.rx_depth == 512'
jt bidir-bw '.results[0].params.bidirectional and .results[0].rdma.peak_bits_per_second == null'
jt send-lat '.command == "lat" and .results[0].kind == "rdma_lat" and .results[0].metric == "rtt/2"'
jt send-lat '.results[0].samples == 1000 and .results[0].stats.count == 1000 and .results[0].stats.p99_9_ns >= .results[0].stats.p50_ns'
jt send-lat '.results[0].params.inline == 220'
jt read-lat '.results[0].metric == "rtt" and .results[0].params.inline == 0'
jt vanished '(.complete | not) and (.error | test("stopped responding")) and .results[0].complete == false'
jt vanished '.results[0].requester.tx == null or .results[0].requester.tx.messages < 5000'
"$TOOLS/rdmadoc" write-bw text >"$T/text.out"
check "text: perftest's columns" grep -q "#bytes.*#iterations.*BW peak\[Gb/s\].*BW average\[Gb/s\].*MsgRate\[Mpps\]" "$T/text.out"
check "text: the row of 65536 B and 5000 messages" grep -Eq "^ 65536 +5000 " "$T/text.out"
check "text: both ends and the path MTU" grep -q "path MTU 2048" "$T/text.out"
"$TOOLS/rdmadoc" send-lat text >"$T/lat.out"
check "text: latency columns" grep -q "t_typical\[us\].*99.9%\[us\]" "$T/lat.out"
check "text: one-way stated" grep -q "one-way (round trip / 2)" "$T/lat.out"

ix_done
