#!/usr/bin/env bash
# 'ixperf top' on real fabric counters, through network namespaces: h1
# sends UDP to h2 faster than a tbf qdisc with a small queue on the switch
# port toward h2 lets through. top, watching that port (a veth), must show
# its drops per second, name the qdisc's counter, count exactly the drops tc
# counted, and read the veth's ethtool statistics as `ethtool -S` prints
# them.
# Addresses are from 198.18.0.0/15 (RFC 2544, benchmarking), inside the
# namespaces this test creates and removes.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces (CI runs as root)"
command -v ethtool >/dev/null || ix_skip "ethtool is not installed (contrib/setup.sh installs it)"
ix_fabric "ixq$$-" 2
SW=ixq$$-sw
H1=ixq$$-h1
J=$IX_TMP
# 100 Mbit/s with room for a few packets: what comes faster is dropped.
tc -n "$SW" qdisc add dev swp2 root tbf rate 100mbit burst 16kb limit 24kb 2>"$J/tc.err" ||
	ix_skip "the tbf qdisc is not available in this kernel ($(head -c 200 "$J/tc.err"))"
IX_NS=ixq$$-h2 ix_server sink || exit 99
P=$IX_PORT

# blast SECONDS: UDP at 400 Mbit/s from h1 to h2, through swp2.
blast() {
	ip netns exec "$H1" "$IXPERF" bw --path udp -b 400M -t "$1" -w 0.2 -J -p "$P" 198.18.0.2 \
		>"$J/bw.json" 2>"$J/bw.err"
}

# Twelve snapshots of 1 s each in the switch's namespace. The blast starts
# once the first is printed (top has its baseline) and must end before the
# last: 2.2 s of blast in the 11 s left, checked rather than assumed.
ip netns exec "$SW" "$IXPERF" top --json -i 1 -n 12 --iface swp2 >"$J/top.json" 2>"$J/top.err" &
TOP=$!
IX_PIDS+=("$TOP")
for _ in $(seq 1 100); do
	[ -s "$J/top.json" ] && break
	sleep 0.05
done
blast 2
check "the blast ran (stderr: $(head -c 300 "$J/bw.err"))" \
	jq_true "$J/bw.json" '.results[0].summary.forward.bits_per_second > 0'
check "the blast ended while top still watched" kill -0 "$TOP"
wait "$TOP"
rc=$?
check "top --json -n 12 ends with 0 (stderr: $(head -c 300 "$J/top.err"))" test "$rc" = 0
check "top printed twelve documents, one a line" test "$(wc -l <"$J/top.json")" = 12
head -n 1 "$J/top.json" >"$J/top1.json"
schema_check "$J/top1.json"
jq -s '[.[].results[0] | .links[0] + {interval_s}]' "$J/top.json" >"$J/swp2.json"
check "every snapshot is of swp2, read from netdev, ethtool and its root qdisc" jq_true "$J/swp2.json" \
	'all(.name == "swp2" and (.fabric.sources | index("netdev") and index("ethtool")
	     and index("qdisc")))'
echo "  drops per second: $(jq -c '[.[].fabric.rates.discards // 0 | floor]' "$J/swp2.json")"
check "top shows a drops rate on swp2 during the blast" jq_true "$J/swp2.json" \
	'[.[].fabric.rates.discards // 0] | max > 0'
check "and names the counter that moved: the tbf qdisc's drops" jq_true "$J/swp2.json" \
	'any(.fabric.moved["qdisc:tbf_drops"] // 0 > 0)'
check "a drops rate is the growth of the drops over the interval" jq_true "$J/swp2.json" \
	'all(.fabric.moved["qdisc:tbf_drops"] == null or
	     (.fabric.rates.discards * .interval_s - .fabric.moved["qdisc:tbf_drops"] | fabs) < 1e-6)'
tc_drops=$(tc -n "$SW" -s qdisc show dev swp2 | sed -n 's/.*dropped \([0-9]*\),.*/\1/p' | head -n 1)
top_drops=$(jq '[.[].fabric.moved["qdisc:tbf_drops"] // 0] | add' "$J/swp2.json")
echo "  tc counted $tc_drops drops, top's snapshots $top_drops"
check "top's drops add up to what tc counted" test "${tc_drops:-x}" = "$top_drops"

# The text snapshot says the same in its FABRIC column. Blasts follow one
# another for as long as top runs (at most 40 s), so its 3 s window holds
# drops whenever it opens and closes, however slowly top starts.
ip netns exec "$SW" "$IXPERF" top --once -i 3 --iface swp2 >"$J/top.txt" 2>&1 &
TOP=$!
IX_PIDS+=("$TOP")
for _ in $(seq 1 40); do
	kill -0 "$TOP" 2>/dev/null && [ ! -s "$J/top.txt" ] || break
	blast 0.5
done
wait "$TOP"
sed 's/^/  | /' "$J/top.txt"
check "the text snapshot gives swp2's drops per second and the tbf counter" \
	grep -qE '^swp2 .*  drops [0-9.]+k?/s.* \(.*tbf_drops' "$J/top.txt"

# Idle now: every ethtool statistic top read is what `ethtool -S` prints.
same_as_ethtool() {
	ip netns exec "$SW" "$IXPERF" top --json --counters -i 0.2 --iface swp2 >"$J/idle.json" &&
		ip netns exec "$SW" ethtool -S swp2 >"$J/ethtool.txt" || return 1
	awk -F': ' 'NR > 1 && NF == 2 { sub(/^ +/, "", $1); printf "%s\t%s\n", $1, $2 }' \
		"$J/ethtool.txt" | jq -R -s 'split("\n") | map(select(length > 0) | split("\t")
			| {(.[0]): (.[1] | tonumber)}) | add' >"$J/ethtool.json"
	jq -e --slurpfile want "$J/ethtool.json" '.results[0].links[0].fabric.read
		| with_entries(select(.key | startswith("ethtool:")) | .key |= ltrimstr("ethtool:"))
		| . == $want[0] and length > 0' "$J/idle.json" >/dev/null
}
ok=false
for _ in 1 2 3; do same_as_ethtool && ok=true && break; done
echo "  ethtool -S swp2: $(jq -c . "$J/ethtool.json" 2>/dev/null | head -c 300)"
check "top read the veth's ethtool statistics as ethtool -S prints them" $ok
check "the idle link moved no counter of trouble" jq_true "$J/idle.json" \
	'.results[0].links[0].fabric | .rates == {} and .moved == {}'
schema_check "$J/idle.json"

ix_done
