#!/usr/bin/env bash
# ixperf fabric on an InfiniBand subnet simulated by ibsim (Debian's
# ibsim-utils: management datagrams only, no data traffic), run under
# ibsim-run (libumad2sim preloaded), with ibnetdiscover and perfquery as
# the oracles. A fat tree written here: 2 spines, 4 leaves, 16 adapters;
# opensm -o assigns the LIDs once.
#   Clean: every node, cable and port GUID as ibnetdiscover has them, all
#   Active at 4X, no findings.
#   A host cable trained at 1X (its adapter port enabled for 1X only) and
#   left in Init: the width, the state and the unreadable counters named.
#   Between two reads (a command run by ixperf fabric): SymbolErrorCounter
#   of one switch port raised through ibsim's console and one leaf-spine
#   cable unlinked (the subnet manager then rerouting): exactly those two
#   findings, the counter as perfquery reads it.
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
