#!/usr/bin/env bash
# Path ceilings in a mesh and an incast: 5 hosts on a bridge. Host 3's
# agent reads its links from a saved tree (tests/topo/mkfixture.py
# slow-nic: its eth0 is a 25 Gbit/s E810 whose PCIe link trained Gen1 x1,
# a 2 Gbit/s ceiling); its real veth is shaped to 1.8 Gbit/s with tbf, as
# that PCIe link would hold it. The PCIe link is a simulation, named as
# one; the traffic, the agents and the reports are real. Every host's
# ceiling and share come back in the mesh; host 3's pairs are bad with a
# reason that names its PCIe link; the verdict names it; the incast into
# host 3 cites the receiver's ceiling.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
command -v python3 >/dev/null || ix_skip "python3 is not installed (tests/topo/mkfixture.py builds the tree)"
N=5
SLOW=3
# A figure that depends on how fast this machine is: said, not failed.
load_skip() {
	IX_SKIPPED=$((IX_SKIPPED + 1))
	echo "ok - $1 # SKIP $2"
}
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
if [ "$share" -ge 80 ] 2>/dev/null && [ "$share" -le 105 ]; then
	check "the verdict names host $SLOW's PCIe link ($(jq -c '.results[0].bottlenecks' "$J/mesh.json"))" \
		jq_true "$J/mesh.json" ".results[0].bottlenecks | length == 1 and (.[0] | test(
		 \"^198.18.0.$SLOW:[0-9]+: [0-9.]+ Gbit/s is [0-9]+% of its NIC's PCIe Gen1 x1 link \\\\(2.00 Gbit/s\\\\), trained below its Gen4 x16 capability$\"))"
	# A pair sits at the ceiling from 80% of it: one slowed below that by
	# the machine's load is bad without the link to blame, and says so.
	check "each bad pair's reason cites it exactly when the pair sits at it ($(jq -c '.results[0].bad_pairs[0].reason' "$J/mesh.json"))" \
		jq_true "$J/mesh.json" "[.results[0].bad_pairs[] | (.reason | test(
		 \"; at 198.18.0.$SLOW:[0-9]+: [0-9.]+ Gbit/s is [0-9]+% of its NIC's PCIe Gen1 x1 link\"))
		 == (.bw_bps >= 0.8 * 2e9)] | all"
	"$IXPERF" report "$J/mesh.json" >"$J/mesh.txt" 2>&1
	check "ixperf report names the bottleneck and gives the ceilings" bash -c \
		"grep -q '^BOTTLENECK: 198.18.0.$SLOW:' '$J/mesh.txt' && grep -q '2.00 Gbit/s PCIe!' '$J/mesh.txt'"
	"$IXPERF" report --format html "$J/mesh.json" >"$J/mesh.html" 2>&1
	check "the HTML report lists it under Bottlenecks" grep -q '<h3>Bottlenecks</h3>' "$J/mesh.html"
else
	load_skip "the verdict names host $SLOW's PCIe link" \
		"its pairs reached $share% of the 2 Gbit/s ceiling (a loaded machine): no verdict is due"
fi
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
if [ "$best" -ge 80 ] 2>/dev/null && [ "$best" -le 105 ]; then
	check "the diagnosis cites the receiver's PCIe link" jq_true "$J/incast.json" \
		'.results[0].diagnosis | test("; at N=[12] the receiver.s [0-9.]+ Gbit/s is [0-9]+% of its NIC.s PCIe Gen1 x1 link")'
else
	load_skip "the diagnosis cites the receiver's PCIe link" \
		"the incast reached $best% of the receiver's ceiling (a loaded machine): no citation is due"
fi
schema_check "$J/incast.json"

ix_done
