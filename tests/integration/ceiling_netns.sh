#!/usr/bin/env bash
# Path ceilings in a mesh and an incast: 5 hosts on a bridge. Host 3's
# agent reads its links from a saved tree (tests/topo/mkfixture.py
# slow-nic: its eth0 is a 25 Gbit/s E810 whose PCIe link trained Gen1 x1,
# a 2 Gbit/s ceiling); its real veth is shaped to 1.8 Gbit/s with tbf, as
# that PCIe link would hold it. The PCIe link is a simulation, named as
# one; the traffic, the agents and the reports are real. Every host's
# ceiling and share come back in the mesh; host 3's pairs are bad. When
# they sit at its PCIe link (a loaded machine can slow them below it), their
# reasons and the verdict name it, and the incast into host 3 cites the
# receiver's ceiling; when they do not, nothing blames the link.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
command -v python3 >/dev/null || ix_skip "python3 is not installed (tests/topo/mkfixture.py builds the tree)"
N=5
SLOW=3
# A figure sits at a ceiling from IX_AT_CEILING to IX_ABOVE_CEILING of it,
# and only then is the ceiling cited: read from the code, not copied.
AT=$(sed -n 's/^#define IX_AT_CEILING //p' "${top_srcdir:-.}/probes/core/link.h")
ABOVE=$(sed -n 's/^#define IX_ABOVE_CEILING //p' "${top_srcdir:-.}/probes/core/link.h")
[[ $AT =~ ^[0-9.]+$ && $ABOVE =~ ^[0-9.]+$ ]] || {
	echo "Bail out! IX_AT_CEILING or IX_ABOVE_CEILING not found in probes/core/link.h"
	exit 99
}
AT_CEILING="(. >= $AT * 2e9 and . <= $ABOVE * 2e9)"
J=$IX_TMP
python3 "${top_srcdir:-.}/tests/topo/mkfixture.py" slow-nic "$J/slow" || exit 99
ix_fabric "ixc$$-" "$N"
SW="ixc$$-sw"
# What the 2 Gbit/s PCIe link would let through, both ways.
tc -n "ixc$$-h$SLOW" qdisc add dev eth0 root tbf rate 1800mbit burst 2mb latency 20ms ||
	ix_skip "no tbf"
tc -n "$SW" qdisc add dev "swp$SLOW" root tbf rate 1800mbit burst 2mb latency 20ms
hosts=
for ((i = 1; i <= N; i++)); do
	extra=()
	[ "$i" = "$SLOW" ] && extra=(--sysfs "$J/slow")
	IX_NS="ixc$$-h$i" ix_server "a$i" --allow-run 198.18.0.1 "${extra[@]}" || exit 99
	hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
done

ip netns exec "ixc$$-h1" "$IXPERF" mesh --test bw -t 1 -w 0.3 --concurrency 1 -J "$hosts" \
	>"$J/mesh.json" 2>"$J/mesh.err"
rc=$?
jq -r '.results[0].nodes[] | "  \(.host): send \(.bw_out_bps), recv \(.bw_in_bps), ceiling \(.link.ceiling_bps) (\(.link.bottleneck)), \(.percent_of_ceiling)%"' "$J/mesh.json"
check "the mesh exits 4: host $SLOW's pairs are bad (stderr: $(head -c 200 "$J/mesh.err"))" test "$rc" = 4
check "every other host reports its veth: eth0, 10 Gbit/s, no PCIe, the link its ceiling" \
	jq_true "$J/mesh.json" "[.results[0].nodes | to_entries[] | select(.key != $((SLOW - 1))) | .value.link
	 | .iface == \"eth0\" and .bps == 1e10 and .pcie == null and .ceiling_bps == 1e10
	   and .bottleneck == \"link\"] | (length == $((N - 1)) and all)"
check "their share is their better median over 10 Gbit/s" jq_true "$J/mesh.json" \
	"[.results[0].nodes[] | select(.link.bottleneck == \"link\")
	 | ((.percent_of_ceiling - 100 * ([.bw_out_bps, .bw_in_bps] | max) / 1e10) | fabs) < 1e-6] | all"
check "host $SLOW reports the saved tree's NIC: 25 Gbit/s, PCIe Gen1 x1 of Gen4 x16, 2 Gbit/s ceiling" \
	jq_true "$J/mesh.json" ".results[0].nodes[$((SLOW - 1))].link
	 | .iface == \"eth0\" and .bps == 25e9 and .pcie.bdf == \"0000:3b:00.0\" and .pcie.gen == 1
	   and .pcie.width == 1 and .pcie.expected_gen == 4 and .pcie.expected_width == 16
	   and .pcie.downtrained and .ceiling_bps == 2e9 and .bottleneck == \"pcie\""
check "exactly the $((N - 1)) pairs with host $SLOW are bad" jq_true "$J/mesh.json" \
	"[.results[0].bad_pairs[] | [.from, .to] | map(startswith(\"198.18.0.$SLOW:\")) | any] | (length == $((N - 1)) and all)"
check "a bad pair's share is of its lower end's ceiling, host $SLOW's 2 Gbit/s" jq_true "$J/mesh.json" \
	'[.results[0].bad_pairs[] | ((.percent_of_ceiling - 100 * .bw_bps / 2e9) | fabs) < 1e-6] | all'
share=$(jq -r ".results[0].nodes[$((SLOW - 1))].percent_of_ceiling | floor" "$J/mesh.json")
# Host $SLOW's better median, as the verdict takes it.
due=$(jq -r ".results[0].nodes[$((SLOW - 1))] | [.bw_out_bps, .bw_in_bps] | max | $AT_CEILING" "$J/mesh.json")
"$IXPERF" report "$J/mesh.json" >"$J/mesh.txt" 2>&1
"$IXPERF" report --format html "$J/mesh.json" >"$J/mesh.html" 2>&1
if [ "$due" = true ]; then
	check "the verdict names host $SLOW's PCIe link ($(jq -c '.results[0].bottlenecks' "$J/mesh.json"))" \
		jq_true "$J/mesh.json" ".results[0].bottlenecks | length == 1 and (.[0] | test(
		 \"^198.18.0.$SLOW:[0-9]+: [0-9.]+ Gbit/s is [0-9]+% of its NIC's PCIe Gen1 x1 link \\\\(2.00 Gbit/s\\\\), trained below its Gen4 x16 capability$\"))"
	check "ixperf report names the bottleneck and gives the ceilings" bash -c \
		"grep -q '^BOTTLENECK: 198.18.0.$SLOW:' '$J/mesh.txt' && grep -q '2.00 Gbit/s PCIe!' '$J/mesh.txt'"
	check "the HTML report lists it under Bottlenecks" grep -q '<h3>Bottlenecks</h3>' "$J/mesh.html"
else
	# Slowed off the ceiling (a loaded machine), host $SLOW's pairs are
	# still bad, but the PCIe link is not what held them.
	check "host $SLOW is at $share% of its 2 Gbit/s ceiling: the verdict blames no PCIe link ($(jq -c '.results[0].bottlenecks' "$J/mesh.json"))" \
		jq_true "$J/mesh.json" '(.results[0].bottlenecks // []) | map(select(test("PCIe"))) | length == 0'
	check "ixperf report names no bottleneck but still gives the ceilings" bash -c \
		"! grep -q '^BOTTLENECK:' '$J/mesh.txt' && grep -q '2.00 Gbit/s PCIe!' '$J/mesh.txt'"
	check "the HTML report has no Bottlenecks list" bash -c "! grep -q '<h3>Bottlenecks</h3>' '$J/mesh.html'"
fi
# A pair sits at the ceiling in the same band: one slowed below it by the
# machine's load is bad without the link to blame, and says so.
check "each bad pair's reason cites host $SLOW's PCIe link exactly when the pair sits at it ($(jq -c '.results[0].bad_pairs[0].reason' "$J/mesh.json"))" \
	jq_true "$J/mesh.json" "[.results[0].bad_pairs[] | (.reason | test(
	 \"; at 198.18.0.$SLOW:[0-9]+: [0-9.]+ Gbit/s is [0-9]+% of its NIC's PCIe Gen1 x1 link\"))
	 == (.bw_bps | $AT_CEILING) and (.reason | test(\"PCIe\") | not) == (.bw_bps | $AT_CEILING | not)] | all"
schema_check "$J/mesh.json"

# Incast into host 3: the receiver's ceiling is its PCIe link.
rhosts="198.18.0.$SLOW:$(jq -r ".results[0].hosts[$((SLOW - 1))] | split(\":\")[1]" "$J/mesh.json")"
for ((i = 1; i <= N; i++)); do
	[ "$i" = "$SLOW" ] || rhosts="$rhosts,$(jq -r ".results[0].hosts[$((i - 1))]" "$J/mesh.json")"
done
ip netns exec "ixc$$-h1" "$IXPERF" incast -t 1 -w 0.3 --sweep 1,2 -J "$rhosts" >"$J/incast.json" 2>"$J/incast.err"
check "the incast exits 0 (stderr: $(head -c 200 "$J/incast.err"))" test "$?" = 0
jq -r '"  " + (.results[0].steps | map("N=\(.senders) \(.goodput_bps) bit/s \(.percent_of_ceiling)%") | join(", ")) + "\n  diagnosis: " + .results[0].diagnosis' "$J/incast.json"
check "its receiver's link is host $SLOW's PCIe-bound NIC" jq_true "$J/incast.json" \
	'.results[0].receiver_link | .ceiling_bps == 2e9 and .bottleneck == "pcie"'
check "each step's goodput is a share of it" jq_true "$J/incast.json" \
	'[.results[0].steps[] | ((.percent_of_ceiling - 100 * .goodput_bps / 2e9) | fabs) < 1e-6] | all'
best=$(jq -r '[.results[0].steps[].percent_of_ceiling] | max | floor' "$J/incast.json")
due=$(jq -r "[.results[0].steps[].goodput_bps] | max | $AT_CEILING" "$J/incast.json")
if [ "$due" = true ]; then
	check "the diagnosis cites the receiver's PCIe link" jq_true "$J/incast.json" \
		'.results[0].diagnosis | test("; at N=[12] the receiver.s [0-9.]+ Gbit/s is [0-9]+% of its NIC.s PCIe Gen1 x1 link")'
else
	check "the best step is at $best% of the receiver's ceiling: the diagnosis cites no PCIe link" \
		jq_true "$J/incast.json" '.results[0].diagnosis | test("PCIe") | not'
fi
schema_check "$J/incast.json"

ix_done
