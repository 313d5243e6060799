#!/usr/bin/env bash
# Traffic patterns on a two-level fabric: two leaf switches (bridges in
# their own namespaces) joined by one uplink veth, two hosts under each.
# Every host's cable is shaped to the line rate L each way, and the uplink
# to L each way: half of what its two hosts can send, so the cut between
# the leaves is oversubscribed 2:1. Each agent reads its line rate, L, from
# a saved sysfs tree (a veth's own speed is not what its tbf holds).
#
# Checks, each against the kernel's counters (ip -s: the bytes each host's
# eth0 and each leaf's uplink moved during the run), never a figure written
# here: a bisection's hosts sit at about half their line rate and what they
# sent across the cut is what the uplinks carried; the verdict names the
# uplinks; ring, permutation and all-to-all figures per host are what their
# ports moved; the estimate is printed before a run that takes a while.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces (CI runs as root)"
command -v ip >/dev/null && command -v tc >/dev/null || ix_skip "iproute2 (ip, tc) is not installed"
J=$IX_TMP
P="ixb$$-"
LEAF=(a a b b) # host i+1 hangs off leaf ${LEAF[i]}
L_MBIT=200     # every host's line rate; the uplink carries as much, for two hosts

ix_two_leaves "$P" "rate ${L_MBIT}mbit burst 64kb" "rate ${L_MBIT}mbit burst 64kb"

# The agents' sysfs: eth0 is a NIC whose line rate is the hosts' tbf rate.
mkdir -p "$J/sys/sys/class/net/eth0"
echo "$L_MBIT" >"$J/sys/sys/class/net/eth0/speed"
echo up >"$J/sys/sys/class/net/eth0/operstate"
echo 1500 >"$J/sys/sys/class/net/eth0/mtu"

hosts=
for i in 1 2 3 4; do
	IX_NS="${P}h$i" ix_server "a$i" --allow-run 198.18.0.1 --sysfs "$J/sys" || exit 99
	hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
done

# ctr NS DEV: "tx rx" bytes the kernel counted on DEV in NS.
ctr() {
	ip -n "$1" -s -j link show dev "$2" | jq -r '.[0].stats64 | "\(.tx.bytes) \(.rx.bytes)"'
}
# snap FILE: every host's eth0 and each leaf's uplink, one "name tx rx" a line.
snap() {
	for i in 1 2 3 4; do echo "h$i $(ctr "${P}h$i" eth0)"; done >"$1"
	for l in a b; do echo "l$l $(ctr "${P}l$l" up0)"; done >>"$1"
}
# moved BEFORE AFTER NAME tx|rx: bytes NAME's device moved between them.
moved() {
	local col=2
	[ "$4" = rx ] && col=3
	echo $(($(awk -v n="$3" -v c=$col '$1 == n { print $c }' "$2") -
		$(awk -v n="$3" -v c=$col '$1 == n { print $c }' "$1")))
}
# pattern NAME ARGS...: run it from host 1 (the coordinator's address is
# the one the agents allow), counters read around it.
pattern() {
	local name=$1
	shift
	snap "$J/$name.before"
	ip netns exec "${P}h1" "$IXPERF" mesh --pattern "${name%-lldp}" -t 3 -w 0 -J "$@" "$hosts" \
		>"$J/$name.json" 2>"$J/$name.err"
	echo $? >"$J/$name.rc"
	snap "$J/$name.after"
	jq -r '.results[0] | "  \(.pattern): \(.verdict)", (.nodes[] |
		"    \(.host): sent \(.sent_bytes) B (\(.sent_bps) bit/s), received \(.received_bytes) B, \(.percent)% of \(.against)")' \
		"$J/$name.json"
}
# within RATIO LO HI: LO <= RATIO <= HI.
within() {
	awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(r >= lo && r <= hi) }'
}
# A test's payload against the frames that carried it: headers (about 5%
# at MTU 1500), the ACKs of the other direction, the control connections
# and retransmissions make the kernel's count larger, never smaller; the
# payload is 80% of it or more.
LO=0.80
HI=1.00
# bytes_match NAME: every host's sent and received payload against its
# eth0's tx and rx bytes.
bytes_match() {
	local name=$1 i dir key got kern bad=0
	for i in 1 2 3 4; do
		for dir in tx rx; do
			key=sent_bytes
			[ "$dir" = rx ] && key=received_bytes
			got=$(jq -r ".results[0].nodes[$((i - 1))].$key" "$J/$name.json")
			kern=$(moved "$J/$name.before" "$J/$name.after" "h$i" "$dir")
			echo "    h$i $dir: payload $got B, kernel $kern B"
			[ "$kern" -gt 0 ] && within "$(awk -v a="$got" -v b="$kern" 'BEGIN { print a / b }')" $LO $HI ||
				bad=1
		done
	done
	return $bad
}

# --estimate prints every pattern and runs nothing.
snap "$J/est.before"
ip netns exec "${P}h1" "$IXPERF" mesh --estimate -t 3 -w 0 "$hosts" >"$J/est.txt" 2>&1
rc=$?
snap "$J/est.after"
sed 's/^/# /' "$J/est.txt"
check "--estimate exits 0 with a line per pattern" bash -c \
	"test $rc = 0 && for p in all-pairs all-to-all bisection permutation ring; do
	   grep -qE \"^\$p over 4 hosts: [0-9]+ rounds? of [0-9]+ tests?, about [0-9.]+ (s|min|h)\$\" '$J/est.txt' || exit 1; done"
check "and moves no traffic (host 1's eth0 sent nothing)" test "$(moved "$J/est.before" "$J/est.after" h1 tx)" -lt 2000

# Bisection: hosts 1, 2 (leaf a) against hosts 3, 4 (leaf b).
pattern bisection
rc=$(cat "$J/bisection.rc")
check "the bisection exits 4: every host below its line rate" test "$rc" = 4 || cat "$J/bisection.err"
check "each host's line rate is the one its agent read (${L_MBIT} Mbit/s in its sysfs)" jq_true \
	"$J/bisection.json" "[.results[0].nodes[] | .against == \"line_rate\" and .against_bps == $L_MBIT * 1e6] | all"
check "what each host sent and received is what its eth0 moved" bytes_match bisection
# cut_ok NAME: what each leaf's hosts sent is what its uplink carried.
cut_ok() {
	local name=$1 side hosts_sent kern
	for side in "a 1 2" "b 3 4"; do
		set -- $side
		hosts_sent=$(jq -r "[.results[0].nodes[] | select(.host | test(\"^198\\\\.18\\\\.0\\\\.[$2$3]:\"))
			| .sent_bytes] | add" "$J/$name.json")
		kern=$(moved "$J/$name.before" "$J/$name.after" "l$1" tx)
		echo "    leaf $1: its hosts sent $hosts_sent B across, its uplink carried $kern B"
		within "$(awk -v a="$hosts_sent" -v b="$kern" 'BEGIN { print a / b }')" $LO $HI || return 1
	done
}
check "what crossed the cut is what the uplinks carried" cut_ok bisection
# Half: each leaf's hosts together send what their uplink carried; over
# the test's seconds and their line rates, their mean share is the
# uplink's counters' bytes per host (however the two share it).
half_ok() {
	local side secs kern mean want
	secs=$(jq -r ".results[0].params.duration_s" "$J/$1.json")
	for side in "a 1 2" "b 3 4"; do
		set -- "$1" $side
		kern=$(moved "$J/$1.before" "$J/$1.after" "l$2" tx)
		mean=$(jq -r "[.results[0].nodes[] | select(.host | test(\"^198\\\\.18\\\\.0\\\\.[$3$4]:\"))
			| .sent_bps / .against_bps * 100] | add / length" "$J/$1.json")
		want=$(awk -v k="$kern" -v s="$secs" -v lr="$L_MBIT" 'BEGIN { print 100 * k * 8 / s / 2 / (lr * 1e6) }')
		echo "    leaf $2: its hosts send at $mean% of their line rate; its uplink's counters give $want% per host"
		within "$(awk -v a="$mean" -v b="$want" 'BEGIN { print a / b }')" 0.75 1.05 || return 1
	done
}
# over_ok NAME: the verdict's "oversubscribed about N:1" is what the
# uplinks' counters say: the hosts' line rates over what the uplinks carried.
over_ok() {
	local n secs kern want
	n=$(jq -r '.results[0].verdict | capture("oversubscribed about (?<n>[0-9]+):1").n' "$J/$1.json")
	secs=$(jq -r ".results[0].params.duration_s" "$J/$1.json")
	kern=$(($(moved "$J/$1.before" "$J/$1.after" la tx) + $(moved "$J/$1.before" "$J/$1.after" lb tx)))
	want=$(awk -v k="$kern" -v s="$secs" -v lr="$L_MBIT" 'BEGIN { print 4 * lr * 1e6 * s / (k * 8) }')
	echo "    the verdict says $n:1; the uplinks' counters give $want:1"
	[[ $n =~ ^[0-9]+$ ]] && within "$(awk -v a="$n" -v b="$want" 'BEGIN { print a - b }')" -1 1
}
check "the leaves' hosts run at their share of the uplink, as its counters say" half_ok bisection
check "without switches known, the halves are the host list's" jq_true "$J/bisection.json" \
	'.results[0].halves.split | startswith("the host list'"'"'s order")'
check "the verdict names the uplinks across the cut and the oversubscription" jq_true "$J/bisection.json" \
	'.results[0].verdict | test("^bisection [0-9]+% of line rate per host \\(median [0-9.]+ Mbit/s\\): the pairs across the cut between \\(198\\.18\\.0\\.1:[0-9]+, 198\\.18\\.0\\.2:[0-9]+\\) and \\(198\\.18\\.0\\.3:[0-9]+, 198\\.18\\.0\\.4:[0-9]+\\) run at [^:]+ their hosts. links: the uplinks between the halves are oversubscribed about [0-9]+:1")'
check "and its oversubscription is what the uplinks' counters say" over_ok bisection
schema_check "$J/bisection.json"
"$IXPERF" report "$J/bisection.json" >"$J/bisection.txt" 2>&1
check "ixperf report of the saved bisection gives its verdict back" \
	grep -qF "Verdict: $(jq -r '.results[0].verdict' "$J/bisection.json")" "$J/bisection.txt"
"$IXPERF" report -f html -o "$J/bisection.html" "$J/bisection.json" 2>"$J/html.err"
check "the HTML report has the pattern's table" grep -q 'class="pattern"' "$J/bisection.html"

# The same cut as a check of an acceptance plan: its bad hosts fail the
# default max_bad_hosts = 0, and its figures are what the ports moved.
printf '[plan]\nname = cut\nhosts = %s\n[cut]\nprobe = mesh\npattern = bisection\ntime = 2\nwarmup = 0\n' \
	"$hosts" >"$J/cut.ini"
snap "$J/plan.before"
ip netns exec "${P}h1" "$IXPERF" run -J -d "$J/run" --no-html "$J/cut.ini" >"$J/run.json" 2>"$J/run.err"
rc=$?
snap "$J/plan.after"
jq '{results: [.results[0].checks[0].results[0]]}' "$J/run.json" >"$J/plan.json"
check "ixperf run: pattern = bisection fails max_bad_hosts = 0 (the default), exit 4" jq_true "$J/run.json" \
	"$rc == 4 and (.results[0].checks[0] | .verdict == \"FAIL\" and .results[0].kind == \"pattern\" and
	 ([.expectations[] | select(.key == \"max_bad_hosts\")][0] | .pass == false and .measured == 4))"
check "the plan's bisection: what each host sent and received is what its eth0 moved" bytes_match plan
schema_check "$J/run.json"
"$IXPERF" report -f html -o "$J/run.html" "$J/run.json" 2>"$J/run-html.err"
check "the run's HTML report has the check's pattern table, not a heatmap" bash -c \
	"grep -q 'class=\"pattern\"' '$J/run.html' && ! grep -q '<canvas' '$J/run.html'"

# Ring and permutation: every host sends to one and receives from one.
pattern ring
check "the ring ran every test" jq_true "$J/ring.json" '.results[0].tests_failed == 0 and (.results[0].tests | length) == 4'
check "ring: what each host sent and received is what its eth0 moved" bytes_match ring
pattern permutation --rounds 3
check "the permutation's estimate was printed before it ran" \
	grep -qE "^ixperf mesh: permutation over 4 hosts: 3 rounds of 1 test, about [0-9]+ s$" "$J/permutation.err"
check "and its seed, which the document keeps" bash -c \
	"grep -q \"^ixperf mesh: permutation seed \$(jq -r '.results[0].seed' '$J/permutation.json') \" '$J/permutation.err'"
check "permutation: 3 rounds, each host sending once and receiving once a round" jq_true "$J/permutation.json" \
	'.results[0] | .rounds == 3 and ([.tests[] | select(.from == .to)] | length) == 0 and
	 ([range(0;3) as $r | [.tests[] | select(.round == $r)] | [map(.from), map(.to)] | map(unique | length)] | flatten | all(. == 4))'
check "permutation: what each host sent and received is what its eth0 moved" bytes_match permutation
seed=$(jq -r '.results[0].seed' "$J/permutation.json")
ip netns exec "${P}h1" "$IXPERF" mesh --pattern permutation --rounds 3 --seed "$seed" -t 0.2 -w 0 -J "$hosts" \
	>"$J/again.json" 2>/dev/null
check "--seed $seed repeats the same rounds" bash -c \
	"test \"\$(jq -c '[.results[0].tests[] | [.round, .from, .to]]' '$J/again.json')\" = \
	      \"\$(jq -c '[.results[0].tests[] | [.round, .from, .to]]' '$J/permutation.json')\""

# All-to-all: every ordered pair at once; per host the sum of its tests.
pattern all-to-all
check "all-to-all ran its 12 tests in one round" jq_true "$J/all-to-all.json" \
	'.results[0].rounds == 1 and (.results[0].tests | length) == 12 and .results[0].tests_failed == 0'
check "all-to-all: what each host sent and received is what its eth0 moved" bytes_match all-to-all
for p in ring permutation all-to-all; do schema_check "$J/$p.json"; done

# The switches known (lldpd in every namespace, the agents reading it):
# the host list mixes the leaves (1, 3, 2, 4), and the halves are still
# made of whole switches, named in the verdict.
if command -v lldpd >/dev/null && "$IXPERF" --version | grep -q "built with:.* lldpctl"; then
	ix_lldp_two_leaves "$P"
	check "every host's lldpd sees its leaf ($IX_LLDP_SEEN of 4)" test "$IX_LLDP_SEEN" = 4
	hosts=
	for i in 1 3 2 4; do
		IXPERF_LLDPD_SOCKET="$IX_TMP/lldp/host$i.sock" IX_NS="${P}h$i" ix_server "l$i" \
			--allow-run 198.18.0.1 --sysfs "$J/sys" || exit 99
		hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
	done
	pattern bisection-lldp
	check "the halves are whole switches whatever the host list's order" jq_true "$J/bisection-lldp.json" \
		'.results[0].halves | .a == "leaf-a" and .b == "leaf-b" and
		 (.split | startswith("whole switches on each side: leaf-a | leaf-b"))'
	check "the verdict names the leaves' uplinks" jq_true "$J/bisection-lldp.json" \
		'.results[0].verdict | test("^bisection [0-9]+% of line rate per host \\(median [0-9.]+ Mbit/s\\): the pairs across leaf-a/leaf-b uplinks run at [^(]+ their hosts. links \\(oversubscribed about [0-9]+:1\\)")'
	check "and its oversubscription is what the uplinks' counters say" over_ok bisection-lldp
	check "what crossed the cut is what the uplinks carried" cut_ok bisection-lldp
	schema_check "$J/bisection-lldp.json"
else
	skip_check "a bisection split by the switches LLDP names" "lldpd or ixperf's liblldpctl is missing"
fi

ix_done
