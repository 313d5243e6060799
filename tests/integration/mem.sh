#!/usr/bin/env bash
# ixperf mem on this host: node 0 from node 0 with small buffers, every
# test, the document against the schema, the text; saved sysfs trees with
# HMAT figures (met, and far beyond this machine: SLOW and --check's exit
# 4); a CPU-less node listed but not measurable here; ixperf report on
# saved documents, damaged ones refused; bad command lines.
# Timings are this machine's; the checks are of structure and sense.
. "${top_srcdir:-.}/tests/lib.sh"

[ -d /sys/devices/system/node/node0 ] || ix_skip "this kernel shows no NUMA node"
J=$IX_TMP
SMALL=(-s 8Mi --latency-size 16Mi -t 0.1)

"$IXPERF" mem "${SMALL[@]}" -J -o "$J/mem.json" 2>"$J/mem.err"
check "ixperf mem exits 0" test $? = 0
schema_check "$J/mem.json"
check "node 0 from node 0 measured, every bandwidth and the latency" jq_true "$J/mem.json" \
	'.results[0] | .complete and (.cells[0] | .initiator == 0 and .target == 0 and .measured and .bandwidth_Bps.read > 1e8 and .bandwidth_Bps.write > 1e8 and .bandwidth_Bps.copy > 1e8 and .latency_ns > 0)'
check "its pages were found on node 0" jq_true "$J/mem.json" '.results[0].cells[0].placed == 1'
check "a loaded-latency curve from the idle point on (2 CPUs: one loader)" jq_true "$J/mem.json" \
	'.results[0].cells[0].loaded | length == 10 and .[0].load_Bps == 0 and ([.[1:][] | .load_Bps > 0 and .latency_ns > 0] | all)'

"$IXPERF" mem "${SMALL[@]}" --tests latency,read >"$J/mem.txt" 2>&1
check "text: the nodes, the pair's row and the chase's pages" bash -c \
	"grep -q '^  node 0 ' '$J/mem.txt' && grep -Eq '^ +0 -> 0 +[0-9]+ +[0-9.]+ +- +- +- +[0-9.]+' '$J/mem.txt' && grep -q 'chase over 16 MiB' '$J/mem.txt'"

# A saved tree: node 0 with this machine's CPUs and HMAT class 1 figures,
# node 1 CPU-less with class 0 from node 0 (as a CXL expander shows) and
# no memory free here to bind to. sysfs ROOT names nodes and figures; the
# memory measured is still this machine's node 0.
tree() { # tree DIR READ_MBPS LAT_NS
	local d=$1/sys/devices/system/node
	mkdir -p "$d/node0/access1/initiators/node0" "$d/node1/access0/initiators/node0"
	cat /sys/devices/system/node/node0/cpulist >"$d/node0/cpulist"
	cp /sys/devices/system/node/node0/meminfo "$d/node0/meminfo"
	echo "$2" >"$d/node0/access1/initiators/read_bandwidth"
	echo "$2" >"$d/node0/access1/initiators/write_bandwidth"
	echo "$3" >"$d/node0/access1/initiators/read_latency"
	: >"$d/node1/cpulist"
	printf 'Node 1 MemTotal: 4194304 kB\nNode 1 MemFree: 0 kB\n' >"$d/node1/meminfo"
	echo 5120 >"$d/node1/access0/initiators/read_bandwidth"
	echo 30 >"$d/node1/access0/initiators/read_latency"
}
tree "$J/fast" 100000000 1
"$IXPERF" mem "${SMALL[@]}" --sysfs "$J/fast" --check -J -o "$J/fast.json" 2>"$J/fast.err"
check "HMAT far beyond this machine: SLOW, --check exits 4" test $? = 4
schema_check "$J/fast.json"
check "the advertised figures beside, class 1, ratios far below 1" jq_true "$J/fast.json" \
	'.results[0].cells[0].advertised | .class == 1 and .slow and .read_ratio < 0.01 and .latency_ratio > 1'
check "node 1 is CPU-less with HMAT class 0 from node 0" jq_true "$J/fast.json" \
	'.results[0].nodes[1] | .cpus == null and .hmat[0].read_bandwidth_Bps == 5120000000 and .hmat[0].read_latency_ns == 30 and .hmat[0].initiators == [0]'
check "node 1 is listed, not measured, saying why" jq_true "$J/fast.json" \
	'.results[0].cells[1] | .target == 1 and (.measured | not) and (.note | test("node 1 has 0 MiB free"))'
"$IXPERF" mem "${SMALL[@]}" --sysfs "$J/fast" --tests read,latency >"$J/fast.txt" 2>&1
check "text: SLOW and the count of slow pairs" bash -c \
	"grep -q 'SLOW' '$J/fast.txt' && grep -q '^1 pair(s) slower than HMAT advertises by more than 25%' '$J/fast.txt'"

# ixperf report: a saved document as the text of ixperf mem. Two runs
# measure different figures, so the lines are compared with every number
# blanked and the columns' padding squeezed; the pages of a chase (huge or
# not) may differ between runs.
"$IXPERF" mem "${SMALL[@]}" --sysfs "$J/fast" --tests read,latency -J -o "$J/saved.json" 2>/dev/null
"$IXPERF" report "$J/saved.json" >"$J/saved.txt" 2>"$J/saved.err"
check "ixperf report on a saved mem document exits 0" test $? = 0 || cat "$J/saved.err"
blank() { grep -v ' chase over ' "$1" | sed -E 's/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g'; }
rows() { grep -E '^ +[0-9]+ -> [0-9]+ +[0-9]+ ' "$1" >"$2"; }
rows "$J/fast.txt" "$J/live.rows"
rows "$J/saved.txt" "$J/saved.rows"
check "ixperf report prints a row per pair, as the live text did (SLOW and not measured)" \
	bash -c "[ \$(wc -l <'$J/saved.rows') = 2 ] && grep -q 'SLOW' '$J/saved.rows' &&
		grep -q '^  *0 -> 1 .*not measured: node 1 has 0 MiB free' '$J/saved.rows'"
check "... the same lines as the live text, figures aside" \
	diff <(blank "$J/live.rows") <(blank "$J/saved.rows")
check "... and the whole text the same, figures aside" \
	diff <(blank "$J/fast.txt") <(blank "$J/saved.txt")
jq 'del(.results[0].cells[0].latency_ns)' "$J/saved.json" >"$J/damaged.json"
"$IXPERF" report "$J/damaged.json" >"$J/damaged.txt" 2>"$J/damaged.err"
rc=$?
check "a damaged mem document is refused (exit 1), nothing printed" \
	bash -c "[ $rc = 1 ] && [ ! -s '$J/damaged.txt' ]"
check "... naming the member" grep -q 'results\[0\]: cells\[0\]\.latency_ns is missing' "$J/damaged.err"

tree "$J/slow" 1 1000000
"$IXPERF" mem "${SMALL[@]}" --sysfs "$J/slow" --tests read,latency --check -J -o "$J/slow.json" 2>"$J/slow.err"
check "HMAT this machine beats: not SLOW, --check exits 0" test $? = 0
check "ratios above 1 for bandwidth, below for latency" jq_true "$J/slow.json" \
	'.results[0].cells[0].advertised | (.slow | not) and .read_ratio > 1 and .latency_ratio < 1'

# --- ixperf run: probe = mem checks ---------------------------------------------
# Judged on the slowest pair's read bandwidth and latency; a pair slower
# than its HMAT figures FAILs a check by default (max_slow = 0); a node
# that cannot be measured is an ERROR naming it; the HTML report draws it.
MEMSET="probe = mem\ninitiators = 0\nsize = 8Mi\nlatency_size = 16Mi\ntime = 100ms\n"
printf '%b' "[ok]\n${MEMSET}tests = read,write,latency\nmin_read = 100MB/s\nmin_write = 100MB/s\nmax_lat = 1ms\n[fast]\n${MEMSET}tests = read\nmin_read = 1000TB/s\n[slow]\n${MEMSET}tests = read,latency\nnodes = 0\nsysfs = $J/fast\n[room]\n${MEMSET}tests = read\nsysfs = $J/fast\n" >"$J/mem.ini"
timeout 300 "$IXPERF" run -J -d "$J/run" "$J/mem.ini" >"$J/run.json" 2>"$J/run.err"
check "ixperf run with mem checks: exit 1 (an ERROR, FAILs)" test "$?" = 1 || cat "$J/run.err"
schema_check "$J/run.json"
jqt() { jq_true "$2" "$1"; }
check "mem check: PASS on read, write and latency, the headline the slowest pair's read" \
	jqt '.results[0].checks[0] | .verdict == "PASS" and .probe == "mem" and .path == "memory"
	     and .headline.name == "slowest pair'"'"'s read bandwidth" and .headline.value > 8e8
	     and ([.expectations[] | {key, pass}] == [{key: "min_read", pass: true},
		 {key: "min_write", pass: true}, {key: "max_lat", pass: true}, {key: "max_slow", pass: true}])
	     and ((.expectations[0].measured - .results[0].cells[0].bandwidth_Bps.read * 8) | fabs) <= 1e-6 * .expectations[0].measured' "$J/run.json"
check "mem check: a read bandwidth above what was measured FAILs with the figure" \
	jqt '.results[0].checks[1] | .verdict == "FAIL" and .expectations[0].pass == false and .expectations[0].measured > 0' "$J/run.json"
check "mem check: a pair slower than its HMAT figures FAILs it (max_slow = 0 by default)" \
	jqt '.results[0].checks[2] | .verdict == "FAIL" and (.expectations[] | select(.key == "max_slow") | .measured == 1 and .text == "0 (default)")' "$J/run.json"
check "mem check: a node without room is an ERROR naming it" \
	jqt '.results[0].checks[3] | .verdict == "ERROR" and (.error | test("node 1 from node 0 not measured: node 1 has 0 MiB free"))' "$J/run.json"
"$IXPERF" report --format html -o "$J/run.html" "$J/run.json" 2>"$J/html.err"
check "the HTML report draws the mem checks: heatmaps, pairs, SLOW" bash -c \
	"grep -q '<h4>Read bandwidth</h4>' '$J/run.html' && grep -q '<h4>Idle latency</h4>' '$J/run.html' && grep -q '<b>SLOW</b>' '$J/run.html'"
"$IXPERF" report "$J/run.json" >"$J/run.txt" 2>"$J/runtxt.err"
check "the text report shows each mem check's pairs as ixperf mem printed them" bash -c \
	"grep -A8 '^Check ok:' '$J/run.txt' | grep -Eq '^ +0 -> 0 +[0-9]+ +[0-9.]+ +[0-9.]+ +- +- +[0-9.]+' &&
	 grep -A8 '^Check slow:' '$J/run.txt' | grep -q 'SLOW'"

"$IXPERF" mem --tests bogus >/dev/null 2>"$J/bad.err"
check "a bad --tests is refused (exit 2)" test $? = 2
check "... naming it" grep -q "'bogus' is not one of" "$J/bad.err"
"$IXPERF" mem -m 63 -t 0.05 >"$J/none.txt" 2>"$J/none.err"
check "no such memory node: nothing measured, exit 1" test $? = 1
check "... saying so" grep -q "no pair could be measured" "$J/none.err"

ix_done
