#!/usr/bin/env bash
# Incast through a real queue: 1 receiver and 8 senders on a bridge whose
# port towards the receiver is shaped with tbf. Streaming must fill the
# shaped rate; a sender whose own port drops shows in the step's counters
# and the diagnosis; synchronised reads through a tiny queue must stall.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
N=9
ix_fabric "ixi$$-" "$N"
SW="ixi$$-sw"
J=$IX_TMP

hosts=
for ((i = 1; i <= N; i++)); do
	IX_NS="ixi$$-h$i" ix_server "a$i" --allow-run 198.18.0.1 || exit 99
	hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
done
coord() { ip netns exec "ixi$$-h1" "$IXPERF" incast "$@" -J "$hosts"; }

# Streaming: 8 senders into a port shaped to 200 Mbit/s.
tc -n "$SW" qdisc add dev swp1 root tbf rate 200mbit burst 64kb latency 20ms || ix_skip "no tbf"
coord -t 3 -w 1 --sweep 8 >"$J/stream.json" 2>"$J/stream.err"
check "streaming incast exits 0" test "$?" = 0
got=$(jq -r '.results[0].steps[0].goodput_bps' "$J/stream.json")
echo "  8 senders into 200 Mbit/s: aggregate $got bit/s"
# The tbf bounds the upper side (its 64 KB burst is 0.1% of 3 s). Below,
# the port idles only when all eight senders' buffers run dry: TCP sends
# from them as ACKs come in (softirq), without the sending threads, so
# eight threads would all have to miss the CPU for 300 ms of the 3 s.
check "aggregate goodput within 10% of the shaped 200 Mbit/s" jq_true "$J/stream.json" \
	'((.results[0].steps[0].goodput_bps - 2e8) | fabs) / 2e8 < 0.10'
check "8 flows reported, each with goodput and retransmits" jq_true "$J/stream.json" \
	'[.results[0].steps[0].flows[] | .ok and .bps > 0 and .retransmits != null] | (length == 8 and all)'

# A sender whose own port drops: host 3 shaped to 20 Mbit/s at its eth0.
# Its tbf's drops are read around each flow and summed over the senders;
# the diagnosis cites them (the receiver's port drops nothing).
tc -n "ixi$$-h3" qdisc add dev eth0 root tbf rate 20mbit burst 16kb latency 10ms
coord -t 2 -w 0.5 --sweep 1,2 >"$J/drops.json" 2>"$J/drops.err"
check "incast with a dropping sender exits 0" test "$?" = 0
jq -r '"  diagnosis: " + .results[0].diagnosis' "$J/drops.json"
check "N=1 (host 2 alone) read counters and saw no drop at the senders" jq_true "$J/drops.json" \
	'.results[0].steps[0].counters.senders.discards == null'
check "N=2: host 3's drops are in the senders' counters" jq_true "$J/drops.json" \
	'.results[0].steps[1].counters.senders.discards > 0'
check "the diagnosis cites the senders' drops" jq_true "$J/drops.json" \
	'.results[0].diagnosis | test("fabric counters at N=2: receiver .*, senders [0-9]+ drops")'
schema_check "$J/drops.json"
tc -n "ixi$$-h3" qdisc del dev eth0 root

# Synchronised reads through a tiny queue: 1 Gbit/s, burst 3 kB, limit 6 kB.
tc -n "$SW" qdisc del dev swp1 root
tc -n "$SW" qdisc add dev swp1 root tbf rate 1gbit burst 3kb limit 6kb
coord --mode read --sru 16Ki --rounds 30 --warmup-rounds 3 --round-timeout 10 --sweep 1,8 \
	>"$J/read.json" 2>"$J/read.err"
check "synchronised-read incast exits 0" test "$?" = 0
jq -r '.results[0].steps[] | "  N=\(.senders): goodput \(.goodput_bps) bit/s, \(.stalled_rounds) of \(.rounds) rounds stalled, round max \(.read.round_ns.max) ns, \(.retransmits) retransmits"' "$J/read.json"
jq -r '"  diagnosis: " + .results[0].diagnosis' "$J/read.json"
check "8 senders stall rounds through the shallow queue" jq_true "$J/read.json" \
	'.results[0].steps[1].stalled_rounds > 0'
# Eight responses through the 6 kB queue lose their tails: such a round
# waits for TCP's retransmission timeout, 200 ms at least, a floor no load
# shortens, so 8 senders carry some 4 Mbit/s; one sender recovers by fast
# retransmit in rounds of about 8 ms (16 Mbit/s here), and would need four
# times as long a round on average to fall to it.
check "goodput drops from 1 to 8 senders" jq_true "$J/read.json" \
	'.results[0].steps[1].goodput_bps < .results[0].steps[0].goodput_bps'
check "the diagnosis names the collapse" jq_true "$J/read.json" \
	'.results[0].diagnosis | test("stalled|collapse|drops")'
check "the hosts' counters were read, and the diagnosis says the loss is past their ports" \
	jq_true "$J/read.json" '(.results[0].steps | all(.counters != null)) and
	 (.results[0].diagnosis | test("no fabric counter moved at the hosts"))'
schema_check "$J/read.json"

ix_done
