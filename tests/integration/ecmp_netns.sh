#!/usr/bin/env bash
# ECMP over real kernel routing: hosts hA (on leaf1) and hB (on leaf2),
# the leaves joined by two spines, multipath routes between the leaves and
# every spine link shaped with tbf. Agents in hA, hB and leaf1. Three
# cases: a layer-4 hash spreads the flows, a layer-3 hash polarises them
# (exit 4), and a slow spine2 takes the blame. The oracle is the kernel's:
# nft counters per flow (source port) and uplink in leaf1's forward path,
# and leaf1's and hB's interface counters (ip -s -j link).
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces (CI runs as root)"
command -v nft >/dev/null || ix_need "nft (nftables) is not installed"
P="ixe$$-"
J=$IX_TMP
RATE=200mbit
for n in hA hB leaf1 leaf2 spine1 spine2; do
	ip netns add "$P$n" 2>/dev/null || ix_skip "cannot create network namespaces here"
	IX_NETNS+=("$P$n")
	ip -n "$P$n" link set dev lo up
done
# link NS1 IF1 ADDR1 NS2 IF2 ADDR2
link() {
	ip link add "$2" netns "$P$1" type veth peer name "$5" netns "$P$4" ||
		ix_skip "veth is not available in this kernel"
	ip -n "$P$1" addr add "$3" dev "$2"
	ip -n "$P$4" addr add "$6" dev "$5"
	ip -n "$P$1" link set dev "$2" up
	ip -n "$P$4" link set dev "$5" up
}
link hA eth0 10.1.1.2/24 leaf1 pa 10.1.1.1/24
link hB eth0 10.2.2.2/24 leaf2 pb 10.2.2.1/24
link leaf1 to-spine1 10.11.0.1/30 spine1 l1 10.11.0.2/30
link leaf1 to-spine2 10.12.0.1/30 spine2 l1 10.12.0.2/30
link leaf2 to-spine1 10.21.0.1/30 spine1 l2 10.21.0.2/30
link leaf2 to-spine2 10.22.0.1/30 spine2 l2 10.22.0.2/30
for n in leaf1 leaf2 spine1 spine2; do
	ip netns exec "$P$n" sysctl -qw net.ipv4.ip_forward=1
done
ip -n "${P}hA" route add default via 10.1.1.1
ip -n "${P}hB" route add default via 10.2.2.1
ip -n "${P}leaf1" route add 10.2.2.0/24 nexthop via 10.11.0.2 nexthop via 10.12.0.2 ||
	ix_skip "no multipath routes in this kernel"
ip -n "${P}leaf2" route add 10.1.1.0/24 nexthop via 10.21.0.2 nexthop via 10.22.0.2
for s in 1 2; do
	ip -n "${P}spine$s" route add 10.1.1.0/24 via "10.1$s.0.1"
	ip -n "${P}spine$s" route add 10.2.2.0/24 via "10.2$s.0.1"
done
# shape SPINE RATE: the spine's links both ways (leaf1 -> spine -> leaf2)
shape() {
	tc -n "${P}leaf1" qdisc replace dev "to-spine$1" root tbf rate "$2" burst 64kb latency 20ms ||
		ix_skip "no tbf"
	tc -n "${P}spine$1" qdisc replace dev l2 root tbf rate "$2" burst 64kb latency 20ms
}
shape 1 $RATE
shape 2 $RATE
# policy l3|l4: the leaves hash the addresses (policy 0), or the 5-tuple
# as a switch does: policy 3 with the fields of the 5-tuple (0x37: the
# addresses, the protocol, both ports). Not policy 1: for a packet that
# crossed a veth it reuses the hash the sending socket put on it, random
# per connection, so the same 5-tuple can take another spine in the next
# test, which no switch does.
policy() {
	for n in leaf1 leaf2; do
		if [ "$1" = l3 ]; then
			ip netns exec "$P$n" sysctl -qw net.ipv4.fib_multipath_hash_policy=0
		else
			ip netns exec "$P$n" sysctl -qw net.ipv4.fib_multipath_hash_fields=0x37 &&
				ip netns exec "$P$n" sysctl -qw net.ipv4.fib_multipath_hash_policy=3
		fi || ix_skip "no fib_multipath_hash_policy 3 (custom fields) in this kernel"
	done
}

IX_NS="${P}hA" ix_server a --allow-run 10.1.1.2 || exit 99
PA=$IX_PORT
IX_NS="${P}hB" ix_server b || exit 99
PB=$IX_PORT
IX_NS="${P}leaf1" ix_server leaf1 || exit 99
PL=$IX_PORT
A=10.1.1.2:$PA
B=10.2.2.2:$PB
L1=10.1.1.1:$PL
SPORT=31000

# nft counters in leaf1's forward path: one per flow (source port) and
# uplink, the kernel's own account of which uplink each flow took.
nft_setup() {
	local k=$1 proto=${2:-tcp} i u
	ip netns exec "${P}leaf1" nft delete table inet ixe 2>/dev/null
	ip netns exec "${P}leaf1" nft add table inet ixe || return 1
	ip netns exec "${P}leaf1" nft add chain inet ixe fw '{ type filter hook forward priority 0; }' || return 1
	for ((i = 0; i < k; i++)); do
		for u in to-spine1 to-spine2; do
			ip netns exec "${P}leaf1" nft add rule inet ixe fw oifname "$u" "$proto" sport $((SPORT + i)) counter || return 1
		done
	done
}
# nft_uplinks: "sport uplink bytes" per rule
nft_uplinks() {
	ip netns exec "${P}leaf1" nft -j list table inet ixe |
		jq -r '.nftables[] | select(.rule) | .rule.expr as $e
		  | [($e[1].match.right), ($e[0].match.right), ($e[2].counter.bytes)] | @tsv'
}
# tx_bytes IF of leaf1
tx_bytes() {
	ip -n "${P}leaf1" -s -j link show dev "$1" | jq '.[0].stats64.tx.bytes'
}

# run_case NAME K [ixperf options]: ixperf ecmp with leaf1's agent, the
# kernel's counters around it.
run_case() {
	local name=$1 k=$2 proto=tcp
	shift 2
	[ "${1:-}" = --udp ] && proto=udp
	nft_setup "$k" "$proto" || { not_ok "$name: nft counters set up"; return 1; }
	local t1 t2
	t1=$(tx_bytes to-spine1)
	t2=$(tx_bytes to-spine2)
	ip netns exec "${P}hA" "$IXPERF" ecmp --flows "$k" --sport $SPORT --alone-time 1 -t 3 -w 0 \
		--switch "$L1" -J "$@" "$A" "$B" >"$J/$name.json" 2>"$J/$name.err"
	echo $? >"$J/$name.rc"
	echo "$(($(tx_bytes to-spine1) - t1)) $(($(tx_bytes to-spine2) - t2))" >"$J/$name.tx"
	nft_uplinks >"$J/$name.nft"
	jq -r '"  verdict: \(.results[0].verdict)", (.results[0].flows[] |
	  "  flow \(.index) sport \(.sport): alone \(.alone.bps // 0 | floor) bit/s, at once \(.bps // 0 | floor) bit/s, uplink \(.hops[0].uplink)")' \
		"$J/$name.json" 2>/dev/null || cat "$J/$name.err"
	echo "  kernel: leaf1 sent $(cat "$J/$name.tx") bytes on to-spine1, to-spine2"
}

# The oracle's mapping: per source port, the uplink nft counted (nearly)
# all its bytes on; ixperf's must be the same for every flow.
check_mapping() {
	local name=$1 bad=0 sport up want
	[ -s "$J/$name.nft" ] && [ -s "$J/$name.json" ] || return 1
	while read -r sport up; do
		want=$(jq -r --argjson s "$sport" '.results[0].flows[] | select(.sport == $s) | .hops[0].uplink' "$J/$name.json")
		[ "$want" = "$up" ] || { echo "  sport $sport: nft says $up, ixperf $want" >&2; bad=1; }
	done < <(awk '{b[$1" "$2]=$3; t[$1]+=$3} END {for (k in b) {split(k, a, " "); if (b[k] > 0.95 * t[a[1]]) print a[1], a[2]}}' "$J/$name.nft")
	[ "$(awk '{t[$1]+=$3} END {print length(t)}' "$J/$name.nft")" = "$(jq '.results[0].flows | length' "$J/$name.json")" ] || bad=1
	return $bad
}
# The bytes per uplink: what leaf1's port sent (ip -s -j link) against
# the payload ixperf's mapping puts there (every flow alone and at once,
# no warm-up: the figures count every byte), within the headers and
# retransmissions (+8%) and a tail (-3%).
check_bytes() {
	local name=$1 i=0 sent pred
	for u in to-spine1 to-spine2; do
		i=$((i + 1))
		sent=$(cut -d' ' -f$i "$J/$name.tx")
		pred=$(jq --arg u "$u" '[.results[0].flows[] | select(.hops[0].uplink == $u) | (.alone.bytes + (.bytes // 0))] | add // 0' "$J/$name.json")
		echo "  $u: the kernel counted $sent bytes sent, ixperf's flows carried $pred"
		awk -v s="$sent" -v p="$pred" 'BEGIN { exit !(p == 0 ? s < 2e6 : (s >= 0.97 * p && s <= 1.08 * p)) }' || return 1
	done
}

# 1. A layer-4 hash: the flows spread over both spines.
policy l4
run_case l4 16
check "layer 4: ixperf exits 0" test "$(cat "$J/l4.rc")" = 0 || cat "$J/l4.err"
check "layer 4: the verdict is a spread over 2 of 2 uplinks" jq_true "$J/l4.json" \
	'.results[0].state == "spread" and (.results[0].verdict | test("^16 flows over 2 of 2 uplinks \\([0-9]+ and [0-9]+\\)$"))'
check "layer 4: every flow is on the uplink the kernel's nft counters saw it on" check_mapping l4
check "layer 4: leaf1's port counters agree with the bytes per uplink" check_bytes l4
# nft_count NAME UPLINK: the flows nft saw (95% of their bytes) on UPLINK
nft_count() {
	awk -v u="$2" '{b[$1" "$2]=$3; t[$1]+=$3} END {n=0; for (k in b) {split(k, a, " "); if (a[2] == u && b[k] > 0.95 * t[a[1]]) n++}; print n}' "$J/$1.nft"
}
check "layer 4: the flows per uplink are those nft saw there" jq_true "$J/l4.json" \
	"[.results[0].switches[0].uplinks[] | {(.name): .flows}] | add == {\"to-spine1\": $(nft_count l4 to-spine1), \"to-spine2\": $(nft_count l4 to-spine2)}" ||
	sort -n "$J/l4.nft"
check "layer 4: the pair's port and uplinks were found, and the flows kept them at once" jq_true "$J/l4.json" \
	'.results[0].switches[0] | .edge == "pa" and .first_hop and ([.uplinks[].name] | sort) == ["to-spine1", "to-spine2"] and .paths_kept'
schema_check "$J/l4.json"

# 1b. Linux's own layer-4 policy (1): a forwarded packet that crossed a
# veth keeps the hash its sending socket gave it, new for every
# connection, so a flow's spine alone need not be its spine at once. Where
# nft saw a flow on one spine throughout, ixperf must name that spine; the
# others moved between the two runs, and ixperf's check of the counters at
# once is shown beside them.
for n in leaf1 leaf2; do ip netns exec "$P$n" sysctl -qw net.ipv4.fib_multipath_hash_policy=1; done
run_case sock 8
check_kept() {
	local sport up
	while read -r sport up; do
		[ "$(jq -r --argjson s "$sport" '.results[0].flows[] | select(.sport == $s) | .hops[0].uplink' "$J/sock.json")" = "$up" ] || return 1
	done < <(awk '{b[$1" "$2]=$3; t[$1]+=$3} END {for (k in b) {split(k, a, " "); if (b[k] > 0.95 * t[a[1]]) print a[1], a[2]}}' "$J/sock.nft")
}
moved=$(awk '{b[$1" "$2]=$3; t[$1]+=$3} END {n=0; for (k in b) {split(k, a, " "); if (b[k] > 0.05 * t[a[1]] && b[k] < 0.95 * t[a[1]]) n++}; print n / 2}' "$J/sock.nft")
echo "  policy 1: $moved flow(s) changed spine between alone and at once (nft); ixperf: paths_kept $(jq '.results[0].switches[0].paths_kept' "$J/sock.json"), state $(jq -r '.results[0].state' "$J/sock.json")"
check "policy 1: every flow nft saw on one spine throughout is on that spine in ixperf's mapping" check_kept
check "policy 1: ixperf claims no polarisation while nft saw both spines used" bash -c \
	"[ \$(awk '\$3 > 0 {print \$2}' '$J/sock.nft' | sort -u | wc -l) = 1 ] || jq -e '.results[0].state != \"polarised\"' '$J/sock.json' >/dev/null"
schema_check "$J/sock.json"

# 2. A layer-3 hash: every flow of the pair on one spine.
policy l3
run_case l3 8
check "layer 3: ixperf exits 4" test "$(cat "$J/l3.rc")" = 4 || cat "$J/l3.err"
check "layer 3: ixperf names the polarisation" jq_true "$J/l3.json" \
	'.results[0].state == "polarised" and (.results[0].verdict | startswith("the flows between 10.1.1.2 and 10.2.2.2 share 1 of 2 uplinks: ECMP hash polarised (all 8 on to-spine"))'
check "layer 3: every flow is on the uplink the kernel's nft counters saw it on" check_mapping l3
check "layer 3: nft saw all of them on one uplink" test "$(awk '$3>0 {print $2}' "$J/l3.nft" | sort -u | wc -l)" = 1
check "layer 3: leaf1's port counters agree with the bytes per uplink" check_bytes l3
schema_check "$J/l3.json"

# 3. A layer-4 hash with spine2's links at a third: the blame is spine2's.
policy l4
shape 2 70mbit
run_case slow 16
check "slow spine2: ixperf exits 4" test "$(cat "$J/slow.rc")" = 4 || cat "$J/slow.err"
check "slow spine2: the blame is on leaf1's uplink to spine2, with its evidence" jq_true "$J/slow.json" \
	'.results[0].state == "slow_uplink" and (.results[0].verdict | test("; blame: uplink to-spine2 of 10.1.1.1 \\(and the spine behind it\\)"))
	 and ([.results[0].switches[0].uplinks[] | select(.blamed) | .name] == ["to-spine2"])
	 and (.results[0].switches[0].evidence | startswith("to-spine2: its "))'
check "slow spine2: every flow is on the uplink the kernel's nft counters saw it on" check_mapping slow
check "slow spine2: leaf1's port counters agree with the bytes per uplink" check_bytes slow
# The slow uplink's flows alone ran near its shaped rate, by the oracle of
# its own port counters: bytes over the flows' time alone.
schema_check "$J/slow.json"
"$IXPERF" report "$J/slow.json" >"$J/slow.txt" 2>&1
jq -r '"  verdict: " + .results[0].verdict' "$J/slow.json" >"$J/slow.want"
check "ixperf report of the saved run gives its verdict and the pair's figures" bash -c \
	"grep -qxFf '$J/slow.want' '$J/slow.txt' && grep -qE '^  pair_bw +[0-9.]+ Mbit/s$' '$J/slow.txt'" ||
	cat "$J/slow.txt"
shape 2 $RATE

# UDP: the agent at B binds the flow's port too, so each flow is the same
# 5-tuple alone and at once; the mapping is the kernel's again.
policy l4
run_case udp 8 --udp -b 40M
check "udp: every flow went to the port it came from (B bound it)" jq_true "$J/udp.json" \
	'[.results[0].flows[] | .dport == .sport and .alone.dport == .sport] | all'
check "udp: every flow is on the uplink the kernel's nft counters saw it on" check_mapping udp
check "udp: leaf1's port counters agree with the bytes per uplink" check_bytes udp
used=$(awk '$3 > 0 {print $2}' "$J/udp.nft" | sort -u | wc -l)
check "udp: the verdict is the one nft's counters call for ($used uplink(s) used)" jq_true "$J/udp.json" \
	".results[0].state == (if $used == 2 then \"spread\" else \"polarised\" end) and .results[0].switches[0].paths_kept"
schema_check "$J/udp.json"

# Without a switch: the flows at once only; their figures sum to the
# pair's total as hB's own port counted it.
rx0=$(ip -n "${P}hB" -s -j link show dev eth0 | jq '.[0].stats64.rx.bytes')
ip netns exec "${P}hA" "$IXPERF" ecmp --flows 8 --sport $SPORT -t 3 -w 0 -J "$A" "$B" >"$J/none.json" 2>"$J/none.err"
rc=$?
rx1=$(ip -n "${P}hB" -s -j link show dev eth0 | jq '.[0].stats64.rx.bytes')
sum=$(jq '[.results[0].flows[].bytes] | add' "$J/none.json")
echo "  no switch: $(jq -r '.results[0].verdict' "$J/none.json"); the flows carried $sum bytes, hB's port received $((rx1 - rx0))"
check "no switch: exit 0, the uplinks said to be unknown" bash -c \
	"test $rc = 0 && jq -e '.results[0].state == \"unknown\" and (.results[0].verdict | startswith(\"uplinks unknown\"))' '$J/none.json' >/dev/null"
check "no switch: the flows' bytes sum to what hB's port received (within headers, +7%)" \
	awk -v s="$sum" -v r="$((rx1 - rx0))" 'BEGIN { exit !(s > 0 && r >= s && r <= 1.07 * s) }'
check "no switch: the per-flow rates sum to the pair's total" jq_true "$J/none.json" \
	'.results[0] | (.spread.sum_bps - .pair.bps | fabs) <= 0.02 * .pair.bps'
schema_check "$J/none.json"

# An uplink leaf1 does not have: said before any flow runs alone.
ip netns exec "${P}hA" "$IXPERF" ecmp --flows 2 --sport $SPORT -t 0.5 -w 0 --switch "$L1" \
	--uplinks to-spine1,to-spine9 "$A" "$B" >"$J/nope.txt" 2>&1
rc=$?
check "an uplink the switch lacks: exit 1, named, and no flow run alone" bash -c \
	"test $rc = 1 && grep -q \"^Switch 10.1.1.1:$PL: it has no interface 'to-spine9' (--uplinks)\" '$J/nope.txt' &&
	 grep -qE '^ +0 +$SPORT +[0-9]+ +- +[0-9.]+ [kMG]bit/s' '$J/nope.txt'" || cat "$J/nope.txt"

# A source port in use at A: refused with a clear error.
ip netns exec "${P}hA" python3 -c 'import socket,time; s=socket.socket(); s.bind(("0.0.0.0", 32002)); s.listen(); time.sleep(30)' &
IX_PIDS+=("$!")
ix_wait_for 5 bash -c "ip netns exec ${P}hA ss -ltn | grep -q ':32002 '"
ip netns exec "${P}hA" "$IXPERF" ecmp --flows 4 --sport 32000 -t 1 -w 0 "$A" "$B" >"$J/busy.txt" 2>&1
rc=$?
check "a source port in use: exit 1 naming it" bash -c \
	"test $rc = 1 && grep -q 'cannot bind source port 32002: the port is in use' '$J/busy.txt'" || cat "$J/busy.txt"
ix_done
