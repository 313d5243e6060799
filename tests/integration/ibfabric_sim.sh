#!/usr/bin/env bash
# ixperf fabric on an InfiniBand subnet simulated by ibsim (Debian's
# ibsim-utils: management datagrams only, no data traffic), run under
# ibsim-run (libumad2sim preloaded), with ibnetdiscover and perfquery as
# the oracles. A fat tree written here: 2 spines, 4 leaves, 16 adapters;
# opensm -o assigns the LIDs once.
#   Clean: every node, cable and port GUID as ibnetdiscover has them, all
#   Active at 4X, no findings; each host's switch port as its agent reads
#   it (one directed-route SMP from the host) is ibnetdiscover's.
#   A host cable trained at 1X (its adapter port enabled for 1X only) and
#   left in Init: the width, the state and the unreadable counters named.
#   Between two reads (a command run by ixperf fabric): SymbolErrorCounter
#   of one switch port raised through ibsim's console and one leaf-spine
#   cable unlinked (the subnet manager then rerouting): exactly those two
#   findings, the counter as perfquery reads it.
#   Blame (ixperf fabric --mesh): meshes written here for h01..h16 (ibsim
#   carries no data), their bad pairs those of one element: h07's cable;
#   the pairs ibtracert routes across the cable leaf3/6 - spine2/3 (its
#   SymbolErrorCounter raised while the mesh "runs"); every pair between
#   leaf2's hosts and the rest. Each blamed alone, named, with the pairs
#   counted and the counter as perfquery reads it; hosts tied by node
#   description, and by port GUID for hosts named by address.
. "${top_srcdir:-.}/tests/lib.sh"

for t in ibsim ibsim-run opensm ibnetdiscover perfquery jq python3; do
	command -v "$t" >/dev/null ||
		ix_need "$t is not installed (apt-get install ibsim-utils opensm infiniband-diags jq)"
done
"$IXPERF" fabric --help >/dev/null 2>&1 || ix_skip "ixperf fabric is not in this build"
J=$IX_TMP
# ibsim's control socket: this test's own.
export IBSIM_SOCKNAME="ixsim$$"
export OSM_TMP_DIR=$J OSM_CACHE_DIR=$J

# ---- the subnet ----
python3 - "$J/net" <<'PY'
import sys
out = open(sys.argv[1], "w")
out.write("width=3\n\n")  # ports enabled for 1X and 4X: links train at 4X
hosts = {l: ["h%02d" % (4 * l + i + 1) for i in range(4)] for l in range(4)}
# The first port in the file is the subnet manager's: h01's.
for l in range(4):
    for i, h in enumerate(hosts[l]):
        opt = " w=1" if h == "h16" else ""
        out.write('Hca 1 "%s"\n[1] "leaf%d"[%d]%s\n\n' % (h, l + 1, i + 1, opt))
for l in range(4):
    out.write('Switch 8 "leaf%d"\n' % (l + 1))
    for i, h in enumerate(hosts[l]):
        out.write('[%d] "%s"[1]\n' % (i + 1, h))
    for s in range(2):
        out.write('[%d] "spine%d"[%d]\n' % (5 + s, s + 1, l + 1))
    out.write("\n")
for s in range(2):
    out.write('Switch 8 "spine%d"\n' % (s + 1))
    for l in range(4):
        out.write('[%d] "leaf%d"[%d]\n' % (l + 1, l + 1, 5 + s))
    out.write("\n")
PY
mkfifo "$J/console"
ibsim -s "$J/net" <"$J/console" >"$J/ibsim.log" 2>&1 &
SIM=$!
IX_PIDS+=("$SIM")
exec 3>"$J/console"
sim() { echo "$*" >&3; sleep 0.5; }
sm() { timeout 60 ibsim-run opensm -o -f "$J/osm.log" >"$J/osm.out" 2>&1; }
for _ in $(seq 50); do grep -q "simulator ready" "$J/ibsim.log" && break; sleep 0.1; done
check "ibsim runs the fat tree ($(grep -c '^\(Hca\|Switch\)' "$J/net") nodes)" grep -q "simulator ready" "$J/ibsim.log" ||
	{ cat "$J/ibsim.log"; exit 1; }
sm
check "opensm -o assigned the LIDs" test "$?" = 0
fab() { ibsim-run "$IXPERF" fabric "$@" 2>>"$J/fabric.err"; }

# ibnetdiscover's cables as "GUID/port GUID/port", one each, sorted.
disc_links() {
	ibsim-run ibnetdiscover 2>/dev/null | python3 -c '
import re, sys
links, node = set(), None
for line in sys.stdin:
    m = re.match(r"(?:switchguid|caguid)=0x([0-9a-f]+)", line)
    if m:
        node = int(m.group(1), 16)
    m = re.match(r"\[(\d+)\](?:\([0-9a-f]+\))?\s+\"[SH]-([0-9a-f]+)\"\[(\d+)\]", line)
    if m and node is not None:
        a = "0x%016x/%d" % (node, int(m.group(1)))
        b = "0x%016x/%d" % (int(m.group(2), 16), int(m.group(3)))
        links.add(" ".join(sorted([a, b])))
print("\n".join(sorted(links)))'
}
# Ours, from a document.
our_links() {
	jq -r '.results[0].nodes[] | .guid as $g | .ports[] | select(.peer != null)
		| [($g + "/" + (.port | tostring)), (.peer.guid + "/" + (.peer.port | tostring))]
		| sort | join(" ")' "$1" | sort -u
}

# ---- clean ----
fab --check -J -o "$J/clean.json"
rc=$?
schema_check "$J/clean.json"
check "clean: exit 0 ($(head -c 200 "$J/fabric.err"))" test "$rc" = 0
R='.results[0]'
check "clean: 6 switches, 16 adapters, 24 cables" jq_true "$J/clean.json" \
	"$R.switches == 6 and $R.adapters == 16 and $R.links == 24"
disc_links >"$J/disc.links"
our_links "$J/clean.json" >"$J/our.links"
check "clean: every cable is ibnetdiscover's, GUIDs and ports ($(wc -l <"$J/disc.links") of them)" \
	bash -c "[ -s '$J/disc.links' ] && diff '$J/disc.links' '$J/our.links'"
check "clean: every cabled port Active at 4X, its counters read" jq_true "$J/clean.json" \
	"[$R.nodes[].ports[] | .state == \"Active\" and .width.active == \"4X\" and .counters != null] | all"
check "clean: no findings" jq_true "$J/clean.json" "$R.findings == []"
fab >"$J/clean.txt"
check "clean: the text names the cables and says there is nothing" bash -c \
	"grep -q '^ixperf fabric: 6 switches, 16 adapters, 24 cables' '$J/clean.txt' && grep -q '^No findings' '$J/clean.txt'"

# ---- each host's first hop, as its agent reads it (one SMP, no discovery) ----
IBNBR=${IBNBR:-$(pwd)/tests/tools/ibnbr}
[ -x "$IBNBR" ] || { echo "tests/tools/ibnbr is not built ($IBNBR)" >&2; exit 99; }
for h in $(seq -f 'h%02g' 1 16); do
	SIM_HOST=$h ibsim-run "$IBNBR" 2>/dev/null | awk -F '\t' -v h="$h" '{ sub(/^ib /, "", $1); print h, $1, $2, $3 }'
done >"$J/nbr.ours"
ibsim-run ibnetdiscover -p 2>/dev/null | awk '$1 == "CA" { gsub(/\047/, ""); print $13, $11, $15, $10 }' |
	sort >"$J/nbr.disc"
check "each host's switch port as an agent reads it is ibnetdiscover's ($(wc -l <"$J/nbr.ours") hosts)" \
	bash -c "[ \$(wc -l <'$J/nbr.ours') = 16 ] && diff '$J/nbr.disc' '$J/nbr.ours'"

# ---- a host cable at 1X, left in Init ----
# The subnet manager in ibsim trains every cable it sets up at the width
# both ends enable; re-cabling after it ran keeps the width the ends
# agree on alone (h16's port enables 1X) and leaves the port in Init.
sim 'Unlink "h16"[1]'
sim 'Link "h16"[1] "leaf4"[4]'
fab --check -J -o "$J/narrow.json"
rc=$?
schema_check "$J/narrow.json"
jq -r "$R.findings[] | \"# narrow: \\(.kind): \\(.text)\"" "$J/narrow.json"
check "1X cable: exit 4" test "$rc" = 4
check "1X cable: the width finding names it and the port enabled for 1X" jq_true "$J/narrow.json" \
	"[$R.findings[] | select(.kind == \"width\") | .text] ==
	 [\"link \\\"h16\\\"/1 - \\\"leaf4\\\"/4 is 1X wide where its ends can train at 4X: \\\"h16\\\"/1 is enabled for 1X only\"]"
# h01 -> leaf1 -> spine1 -> leaf4 -> h16, by directed route
ibsim-run smpquery -D portinfo 0,1,5,4,4 1 2>/dev/null | grep -E "LinkWidthActive|LinkState" >"$J/smp.txt"
check "1X cable: as smpquery reads h16's port ($(tr -s '.' ' ' <"$J/smp.txt" | tr '\n' ' '))" \
	grep -q "LinkWidthActive:.*1X" "$J/smp.txt"
check "1X cable: its port in Init, not Active" jq_true "$J/narrow.json" \
	"[$R.findings[] | select(.kind == \"not_active\") | .text | test(\"\\\"h16\\\"/1 is Init, not Active\")] == [true]"
check "1X cable: h16's counters unreadable through it, said so" jq_true "$J/narrow.json" \
	"[$R.findings[] | select(.kind == \"no_counters\") | .text | test(\"\\\"h16\\\"/1 could not be read\")] == [true]"
check "1X cable: nothing else" jq_true "$J/narrow.json" "($R.findings | length) == 3"

# ---- between two reads: errors on a switch port, a cable unlinked ----
# The subnet manager brings the subnet back (h16 at 4X, Active) first.
sm

# ---- blame: a mesh's bad pairs on the subnet ----
MESH="python3 $top_srcdir/tests/tools/ib-mesh.py"
B="$R.blame"
blame_of() { jq -c "[$B.elements[] | {kind, what, bad, good}]" "$1"; }
# h07's cable: every pair with h07 bad, bandwidth and latency
for h in $(seq -f 'h%02g' 1 16); do
	[ "$h" = h07 ] || printf '%s h07\nh07 %s\n' "$h" "$h"
done >"$J/bad.h07"
$MESH mesh 16 "$J/bad.h07" "$J/mesh.h07.json"
fab --check --mesh "$J/mesh.h07.json" -J -o "$J/blame1.json"
rc=$?
schema_check "$J/blame1.json"
echo "# host cable: $(blame_of "$J/blame1.json")"
check "host cable: exit 4" test "$rc" = 4
check "host cable: 16 hosts tied by node description" jq_true "$J/blame1.json" \
	"$B.tied == 16 and ([$B.hosts[].by] | unique) == [\"node description\"]"
check "host cable: h07's cable blamed alone, both ways, its 30 bad pairs and no good one" jq_true "$J/blame1.json" \
	"[$B.elements[] | {kind, what, bad, good}] == [{\"kind\": \"host_cable\", \"what\": \"h07's cable (\\\"h07\\\"/1 - \\\"leaf2\\\"/3, both ways)\", \"bad\": 30, \"good\": 0}]
	 and $B.pairs.bad == 30 and $B.pairs.good == 210 and $B.unexplained == 0 and $B.caveat == null"
check "host cable: the mesh comes back with its hosts under their InfiniBand switches" jq_true "$J/blame1.json" \
	"[.results[1].nodes[].link.neighbor | select(.source == \"ib\") | .name] | (length == 16 and (unique == [\"leaf1\", \"leaf2\", \"leaf3\", \"leaf4\"]))"
fab --mesh "$J/mesh.h07.json" >"$J/blame1.txt"
check "host cable: the text blames it and draws the hosts under the leaves" bash -c \
	"grep -q '^BLAME (1):' '$J/blame1.txt' && grep -q \"host_cable h07's cable\" '$J/blame1.txt' &&
	 grep -q 'under 4 switches (the InfiniBand subnet)' '$J/blame1.txt' && grep -q 'h07:6200 .*BAD' '$J/blame1.txt'"
"$IXPERF" report --format html "$J/blame1.json" >"$J/blame1.html" 2>>"$J/fabric.err"
check "host cable: ixperf report draws the blame, FAIL, and the mesh's fabric with the leaves" bash -c \
	"grep -q 'badge fail' '$J/blame1.html' && grep -q 'h07&#39;s cable' '$J/blame1.html' &&
	 grep -q 'svg class=\"heatmap\"' '$J/blame1.html' && [ \$(grep -c 'svg class=\"fabric\"' '$J/blame1.html') = 2 ] &&
	 grep -q 'under 4 switches, from the InfiniBand subnet' '$J/blame1.html'"

# the same mesh said to have run over TCP on hosts with no InfiniBand link
jq '.results[0].params.bw.path = "tcp" | .results[0].params.lat.path = "tcp"' "$J/mesh.h07.json" >"$J/mesh.tcp.json"
fab --mesh "$J/mesh.tcp.json" -J -o "$J/blame1t.json"
check "a TCP mesh with no InfiniBand link: said its pairs may not have crossed the subnet" jq_true "$J/blame1t.json" \
	"$B.caveat | test(\"ran over tcp and no host's link is an InfiniBand port\")"

# the same hosts named by address, tied by the port GUID of their link
$MESH mesh 16 "$J/bad.h07" "$J/mesh.guid.json" --by-guid
fab --mesh "$J/mesh.guid.json" -J -o "$J/blame2.json"
schema_check "$J/blame2.json"
G07=$(ibsim-run ibnetdiscover -p 2>/dev/null | awk '$1 == "CA" && /'"'"'h07'"'"' -/ {print $4}')
check "by port GUID: 16 hosts tied by it, 10.9.0.7's is ibnetdiscover's $G07" jq_true "$J/blame2.json" \
	"$B.tied == 16 and ([$B.hosts[].by] | unique) == [\"port GUID\"] and
	 ([$B.hosts[] | select(.host == \"10.9.0.7\") | .port_guid] == [\"$G07\"])"
check "by port GUID: the same cable blamed" jq_true "$J/blame2.json" \
	"[$B.elements[] | .kind + \" \" + (.what | split(\" (\")[1])] == [\"host_cable \\\"h07\\\"/1 - \\\"leaf2\\\"/3, both ways)\"]"

# one switch-to-switch cable: the pairs ibtracert routes across it, its
# SymbolErrorCounter raised while the mesh "runs" between the reads
$MESH paths 'leaf3[6]' 'spine2[3]' >"$J/bad.link"
NLINK=$(wc -l <"$J/bad.link")
$MESH mesh 16 "$J/bad.link" "$J/mesh.link.json" --bw-only
cat >"$J/mesh-run.sh" <<EOF
echo 'PerformanceSet "spine2"[3] PortCounters.SymbolErrorCounter=5' >&3
sleep 0.5
cp "$J/mesh.link.json" "$J/mesh.ran.json"
EOF
rm -f "$J/mesh.ran.json"
fab --check --mesh "$J/mesh.ran.json" -J -o "$J/blame3.json" -- bash "$J/mesh-run.sh"
rc=$?
schema_check "$J/blame3.json"
echo "# link: $(blame_of "$J/blame3.json") ($NLINK pairs cross it by ibtracert)"
SPINE2=$(jq -r "$R.nodes[] | select(.desc == \"spine2\") | .lid" "$J/blame3.json")
PQ=$(ibsim-run perfquery "$SPINE2" 3 2>/dev/null | sed -n 's/^SymbolErrorCounter:\.*//p')
check "link: exit 4; $NLINK pairs cross it (ibtracert)" bash -c "[ $rc = 4 ] && [ $NLINK -gt 8 ]"
check "link: the cable blamed alone, both ways, the $NLINK pairs ibtracert routes across it" jq_true "$J/blame3.json" \
	"[$B.elements[] | {kind, what, bad, good}] == [{\"kind\": \"link\", \"what\": \"the link \\\"leaf3\\\"/6 - \\\"spine2\\\"/3, both ways\", \"bad\": $NLINK, \"good\": 0}]"
check "link: the counters joined, SymbolErrorCounter +5 at spine2/3 as perfquery reads it ($PQ)" jq_true "$J/blame3.json" \
	"$B.counters == true and ([$B.elements[0].evidence | test(\"\\\"spine2\\\"/3 SymbolErrorCounter \\\\+$PQ\")] == [true]) and $PQ == 5"

# a leaf's uplinks: every pair between leaf2's hosts and the rest
for a in h05 h06 h07 h08; do
	for b in $(seq -f 'h%02g' 1 16); do
		case $b in h05 | h06 | h07 | h08) ;; *) printf '%s %s\n%s %s\n' "$a" "$b" "$b" "$a" ;; esac
	done
done >"$J/bad.leaf2"
$MESH mesh 16 "$J/bad.leaf2" "$J/mesh.leaf2.json" --bw-only
fab --mesh "$J/mesh.leaf2.json" -J -o "$J/blame4.json"
schema_check "$J/blame4.json"
echo "# uplinks: $(blame_of "$J/blame4.json")"
check "uplinks: leaf2's two uplinks blamed together, its 96 bad pairs" jq_true "$J/blame4.json" \
	"[$B.elements[] | {kind, what, bad, good}] == [{\"kind\": \"uplinks\", \"what\": \"the uplinks of \\\"leaf2\\\" (all 2)\", \"bad\": 96, \"good\": 0}]
	 and $B.counters == false and ($B.counters_why | test(\"read once\"))"

# bad input: no mesh in the document; the subnet's read is kept
fab --mesh "$J/clean.json" -J -o "$J/blame5.json"
rc=$?
check "a --mesh document without a mesh: exit 2, named, the fabric kept" bash -c \
	"[ $rc = 2 ] && jq -e '.complete == false and (.error | test(\"clean.json: no mesh result\")) and $R.switches == 6 and $B == null' '$J/blame5.json' >/dev/null"
fab --mesh "$J/missing.json" >/dev/null
check "a --mesh document that is not there: a usage error (exit 2)" test "$?" = 2

# the faults: on the subnet as the blame left it
cat >"$J/between.sh" <<EOF
echo 'PerformanceSet "leaf2"[5] PortCounters.SymbolErrorCounter=7' >&3
sleep 0.5
echo 'Unlink "leaf3"[6]' >&3
sleep 0.5
timeout 60 ibsim-run opensm -o -f "$J/osm2.log" >"$J/osm2.out" 2>&1
EOF
fab --check --baseline "$J/clean.json" -J -o "$J/faults.json" -- bash "$J/between.sh"
rc=$?
schema_check "$J/faults.json"
jq -r "$R.findings[] | \"# faults: \\(.kind): \\(.text)\"" "$J/faults.json"
check "faults: exit 4" test "$rc" = 4
check "faults: read twice around the command" jq_true "$J/faults.json" \
	"$R.reads == 2 and ($R.between | test(\"around bash\"))"
check "faults: SymbolErrorCounter +7 at leaf2's port 5, named" jq_true "$J/faults.json" \
	"[$R.findings[] | select(.kind == \"errors\") | .text] == [\"\\\"leaf2\\\"/5: SymbolErrorCounter +7 between the reads\"]"
LEAF2=$(jq -r "$R.nodes[] | select(.desc == \"leaf2\") | .lid" "$J/faults.json")
ibsim-run perfquery "$LEAF2" 5 2>/dev/null | sed -n 's/^SymbolErrorCounter:\.*//p' >"$J/pq.txt"
check "faults: perfquery reads the same counter ($(cat "$J/pq.txt"))" jq_true "$J/faults.json" \
	"[$R.nodes[] | select(.desc == \"leaf2\") | .ports[] | select(.port == 5) | .counters.SymbolErrorCounter] == [$(cat "$J/pq.txt")]"
check "faults: the unlinked cable is gone, named by both ends" jq_true "$J/faults.json" \
	"[$R.findings[] | select(.kind == \"link_lost\") | .text] == [\"cable \\\"leaf3\\\"/6 - \\\"spine2\\\"/3 is gone (\\\"leaf3\\\"/6 is Down now)\"]"
disc_links >"$J/disc2.links"
check "faults: ibnetdiscover has one cable less" test "$(wc -l <"$J/disc2.links")" = 23
check "faults: nothing else" jq_true "$J/faults.json" "($R.findings | length) == 2"
"$IXPERF" report --format html "$J/faults.json" >"$J/faults.html" 2>>"$J/fabric.err"
check "ixperf report draws it in HTML: FAIL, the findings, the switches in tiers, the cable with errors red" \
	bash -c "grep -q 'badge fail' '$J/faults.html' &&
		grep -q 'SymbolErrorCounter +7 between the reads' '$J/faults.html' &&
		[ \$(grep -c '<rect ' '$J/faults.html') = 6 ] &&
		grep -q 'stroke=\"#c0392b\" stroke-width=\"3\"><title>leaf2/5 - spine' '$J/faults.html'"
fab --check --baseline "$J/clean.json" >"$J/faults.txt"
check "the text lists the finding under FINDINGS" bash -c \
	"grep -q '^FINDINGS (1):' '$J/faults.txt' && grep -q 'link_lost *cable \"leaf3\"/6' '$J/faults.txt'"

# ---- bad input ----
echo '{"command":"bw"}' >"$J/notfabric.json"
fab --baseline "$J/notfabric.json" >/dev/null
rc=$?
check "a baseline that is no fabric document is refused (exit $rc)" bash -c "[ $rc = 1 ] || [ $rc = 2 ]"
check "naming the file" grep -q "notfabric.json" "$J/fabric.err"
fab stray-arg >/dev/null
check "a stray argument is a usage error (exit 2)" test "$?" = 2

# ---- the subnet gone between the reads: the first read is kept ----
fab -J -o "$J/partial.json" -- kill "$SIM"
rc=$?
schema_check "$J/partial.json"
check "the subnet gone between the reads: exit 1 ($rc)" test "$rc" = 1
check "the subnet gone between the reads: the first read kept and marked" \
	jq_true "$J/partial.json" ".complete == false and $R.complete == false and $R.reads == 1
	 and $R.switches == 6 and (.error | test(\"InfiniBand\"))"

exec 3>&-
ix_done
