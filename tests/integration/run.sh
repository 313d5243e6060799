#!/usr/bin/env bash
# ixperf run: plans, verdicts, exit codes, outputs, baselines.
. "${top_srcdir:-.}/tests/lib.sh"

J=$IX_TMP
cd "$J" || exit 99

# The embedded default plan: local agents started and stopped by ixperf.
# It runs in a session of its own (its ID is the run's PID), so that every
# agent it forks can be found afterwards, whatever else runs on the host.
# shellcheck disable=SC2016
setsid -w bash -c 'echo $$ >"$1"; shift; exec "$@"' sid "$J/default.sid" \
	"$IXPERF" run -d "$J/out" >"$J/default.txt" 2>"$J/default.err"
rc=$?
sid=$(cat "$J/default.sid")
sed 's/^/# /' "$J/default.txt"
# Its thresholds are live figures on loopback against fixed limits: on a
# loaded machine a check may FAIL (exit 4). What is checked is that every
# check measured and was judged: PASS or FAIL, never ERROR.
check "the default plan runs to a verdict (exit 0, or 4 when a threshold was missed)" \
	test "$rc" = 0 -o "$rc" = 4
doc=$(ls "$J"/out/ixperf-run-*.json | head -n 1)
check "the result document is written, timestamped" test -s "$doc"
check "it is a run document with every check" jq_true "$doc" \
	'.command == "run" and .results[0].kind == "run" and (.results[0].checks | length) == 12'
# The RDMA, GPU and topology checks run where this machine has an RDMA
# device or a GPU, and are a SKIP with the reason where it has none.
NEEDS='["rdma-bw", "rdma-lat", "gpu-pcie", "topology"]'
check "every check has a verdict, a headline and its results, or is a SKIP saying why" jq_true "$doc" \
	"[.results[0].checks[] | if .verdict == \"SKIP\" then
		(.name | IN($NEEDS[])) and (.reason | test(\"^requires (rdma|gpu): \")) and (.results == [])
	else (.verdict == \"PASS\" or .verdict == \"FAIL\") and (.headline.value != null) and ((.results | length) >= 1) end] | all"
check "the loopback checks all ran (TCP, UDP, incast)" jq_true "$doc" \
	"[.results[0].checks[] | select(.name | IN($NEEDS[]) | not) | .verdict != \"SKIP\"] | length == 8 and all"
# The figures themselves, not only that they were judged: every threshold
# of a check that ran was held to a measured figure, and loopback carries
# what any machine's loopback carries, loaded or not.
check "every threshold of the checks that ran was judged over a measured figure" jq_true "$doc" \
	'[.results[0].checks[] | select(.verdict != "SKIP") | .expectations[] | .measured | type == "number"] | all'
echo "# default plan figures: $(jq -c '[.results[0].checks[] | select(.verdict != "SKIP") | {name, v: .headline.value, u: .headline.unit}]' "$doc")"
check "TCP on loopback carried over 1 Gbit/s, its latency p99 under 10 ms" jq_true "$doc" \
	'[.results[0].checks[] | select(.name == "tcp-bw") | .headline.value > 1e9] == [true] and
	 [.results[0].checks[] | select(.name == "tcp-lat") | .headline.value < 1e7] == [true]'
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	check "no RDMA device here: the RDMA and topology checks are a SKIP naming it" jq_true "$doc" \
		'[.results[0].checks[] | select(.name | test("^rdma-|^topology$")) |
			.verdict == "SKIP" and (.reason | test("RDMA"))] | length == 3 and all'
fi
check "the inventory names this host" jq_true "$doc" \
	'.results[0].inventory.cpus >= 1 and (.results[0].inventory.interfaces | length) >= 1'
check "the run records this machine's topology (ixperf topo)" jq_true "$doc" \
	'.results[0].topology.kind == "topo" and (.results[0].topology.pci | length) >= 1'
check "the HTML report has a topology section" \
	grep -q '<h2 id="topo">Topology</h2>' "$(ls "$J"/out/ixperf-run-*.html | head -n 1)"
check "the text summary gives a verdict per check" bash -c "[ \$(grep -cE '^  (PASS|FAIL|SKIP) ' '$J/default.txt') -eq 12 ]"
check "the summary says why a check was skipped" bash -c \
	"[ \$(grep -cE '^  SKIP ' '$J/default.txt') -eq \$(grep -cE '^          requires (rdma|gpu): ' '$J/default.txt') ]"
check "the HTML report is written beside it" bash -c "ls '$J'/out/ixperf-run-*.html >/dev/null"
check "the summary names both files" grep -q "^Report: .*\.html" "$J/default.txt"
# left_in_session SID: fails, naming them, when processes of session SID live.
left_in_session() {
	local left rc
	[ -n "$1" ] || { echo "  no session ID recorded" >&2; return 1; }
	left=$(pgrep -a -s "$1")
	rc=$?
	[ "$rc" = 1 ] && return 0
	echo "  pgrep -s $1 (exit $rc): ${left:-error}" >&2
	return 1
}
check "no agent is left running (session $sid)" left_in_session "$sid"
# The check itself sees a process left behind in such a session.
# shellcheck disable=SC2016
setsid -w bash -c 'echo $$ >"$1"; sleep 30 >/dev/null 2>&1 & echo $! >"$2"' sid \
	"$J/self.sid" "$J/self.pid"
IX_PIDS+=("$(cat "$J/self.pid")")
seen_in_session() { ! left_in_session "$1" 2>/dev/null; }
check "a process left in a run's session is seen" seen_in_session "$(cat "$J/self.sid")"
schema_check "$doc"

plan() { # plan NAME TEXT: write a plan file
	printf '%b' "$2" >"$J/$1.ini"
}

# A threshold that cannot be met: FAIL, exit 4, figures kept.
plan fail '[plan]\nname = too fast\n[tcp]\nprobe = bw\ntime = 1\nwarmup = 0\nmin_bw = 100Tbit\n[lat]\nprobe = lat\niters = 500\nmax_p99 = 1ns\n'
"$IXPERF" run -J -d "$J/out2" "$J/fail.ini" >"$J/fail.json" 2>"$J/fail.err"
check "an unmet threshold exits 4" test "$?" = 4
check "both checks FAIL with the measured figure kept" jq_true "$J/fail.json" \
	'.results[0].verdict == "FAIL" and ([.results[0].checks[] | .verdict == "FAIL" and .expectations[0].measured > 0 and (.expectations[0].pass | not)] | all)'

# A probe that errors: ERROR, exit 1, partial figures kept.
plan err '[ok]\nprobe = lat\niters = 200\n[gone]\nprobe = bw\nhosts = 127.0.0.1:1\ntime = 1\n'
"$IXPERF" run -J -d "$J/out3" "$J/err.ini" >"$J/err.json" 2>/dev/null
check "an erroring probe exits 1" test "$?" = 1
check "the good check is kept (measured only: INFO), the bad one says why" jq_true "$J/err.json" \
	'.results[0].checks[0].verdict == "INFO" and .results[0].checks[1].verdict == "ERROR" and (.results[0].checks[1].error | test("cannot connect"))'

# Regression against a baseline. Two live runs are never compared: the
# baselines are the measured document with its figure set where no run can
# land on the wrong side (1 bit/s: any run that measured at all is faster;
# 1 Pbit/s: beyond what memory lets loopback TCP carry on any machine).
# The arithmetic on measured documents is ixperf compare's (cli cases).
plan reg '[tcp]\nprobe = bw\ntime = 1\nwarmup = 0\nmax_regression = 50%\n'
"$IXPERF" run -J -d "$J/out4" "$J/reg.ini" >"$J/base.json" 2>/dev/null
jq '.results[0].checks[0].headline.value = 1' "$J/base.json" >"$J/slow-base.json"
jq '.results[0].checks[0].headline.value = 1e15' "$J/base.json" >"$J/fast-base.json"
"$IXPERF" run -J -d "$J/out4" --baseline "$J/slow-base.json" "$J/reg.ini" >"$J/same.json" 2>/dev/null
check "no regression against a 1 bit/s baseline (exit 0)" test "$?" = 0
"$IXPERF" run -J -d "$J/out4" --baseline "$J/fast-base.json" "$J/reg.ini" >"$J/slow.json" 2>/dev/null
check "a 1 Pbit/s baseline is a regression (exit 4)" test "$?" = 4
check "the regression is measured as a fraction" jq_true "$J/slow.json" \
	'.results[0].checks[0].expectations[0].measured > 0.9'
# The regression rule on the measured document itself, scaled: no live
# figure is involved.
jq '.results[0].checks[0].headline.value *= 3' "$J/base.json" >"$J/x3.json"
jq '.results[0].checks[0].headline.value *= 1.2' "$J/base.json" >"$J/x12.json"
"$IXPERF" compare --tolerance 50% "$J/x3.json" "$J/base.json" >"$J/cmp3.txt" 2>&1
check "compare: a third of the baseline's bandwidth is beyond 50% (exit 4)" test "$?" = 4
"$IXPERF" compare --tolerance 50% "$J/x12.json" "$J/base.json" >"$J/cmp12.txt" 2>&1
check "compare: 1/1.2 of it is within 50% (exit 0)" test "$?" = 0
check "runs never overwrite each other: 3 documents, 3 reports" bash -c \
	"[ \$(ls '$J'/out4/*.json | wc -l) -eq 3 ] && [ \$(ls '$J'/out4/*.html | wc -l) -eq 3 ]"

# --post with the endpoint down: a passing run exits 5 (only the post
# failed), the payload waits in the spool (tests/integration/post.sh covers
# delivery).
plan quick '[tcp]\nprobe = bw\ntime = 1\nwarmup = 0\n'
XDG_STATE_HOME="$J/state" "$IXPERF" run -d "$J/out7" --post http://127.0.0.1:1/hook "$J/quick.ini" \
	>/dev/null 2>"$J/post.err"
check "a passing run whose post fails exits 5" test "$?" = 5
check "the failure is said on stderr, with the spooled payload" \
	grep -q "posting to http://127.0.0.1:1/hook (webhook) failed: .*; spooled as " "$J/post.err"
check "the payload is queued in the spool" bash -c "[ \$(find '$J/state' -type f -name '*' | wc -l) -ge 1 ]"

# Line-relative thresholds need a known link rate: loopback has none.
plan line '[tcp]\nprobe = bw\ntime = 1\nwarmup = 0\nmin_bw = 90%line\n'
"$IXPERF" run -J -d "$J/out5" "$J/line.ini" >"$J/line.json" 2>/dev/null
check "90%line on loopback is an ERROR naming the unknown link rate" jq_true "$J/line.json" \
	'.results[0].checks[0].verdict == "ERROR" and (.results[0].checks[0].error | test("link rate"))'

# Bad plans: file:line, exit 2, nothing run.
plan bad '[tcp]\nprobe = bw\nmin_bw = 12x\n'
"$IXPERF" run -d "$J/out6" "$J/bad.ini" >/dev/null 2>"$J/bad.err"
check "a bad value exits 2" test "$?" = 2
check "the error names file:line and the key" grep -q "bad.ini:3: bad value for min_bw" "$J/bad.err"
check "nothing was written for a bad plan" test ! -e "$J/out6"
"$IXPERF" run /nonexistent/plan.ini >/dev/null 2>"$J/missing.err"
check "a missing plan exits 2 naming it" grep -q "cannot open plan /nonexistent/plan.ini" "$J/missing.err"

# Keys of another path, another probe, or a header without ']': file:line.
plan rdmastreams '[r]\nprobe = bw\npath = rdma\nstreams = 4\n'
"$IXPERF" run --check-plan "$J/rdmastreams.ini" >/dev/null 2>"$J/rdmastreams.err"
check "streams with path rdma: exit 2 at its line" bash -c "[ $? = 2 ] &&
	grep -q 'rdmastreams.ini:4: \[r\]: .streams. does not apply to path rdma' '$J/rdmastreams.err'"
plan tcpop '[t]\nprobe = lat\nop = send\n'
"$IXPERF" run --check-plan "$J/tcpop.ini" >/dev/null 2>"$J/tcpop.err"
check "op with path tcp: exit 2 at its line" bash -c "[ $? = 2 ] &&
	grep -q 'tcpop.ini:3: \[t\]: .op. applies to path = rdma only' '$J/tcpop.err'"
plan unclosed '[plan\nname = x\n[a]\nprobe = bw\n'
"$IXPERF" run --check-plan "$J/unclosed.ini" >/dev/null 2>"$J/unclosed.err"
check "a header without ']' on line 1 is reported at line 1" bash -c "[ $? = 2 ] &&
	grep -q 'unclosed.ini:1: ' '$J/unclosed.err'"

# Every probe over RDMA parses; run here, without a device, a check that
# requires one is a SKIP and one that does not is an ERROR naming why.
plan rdma '[bw]\nprobe = bw\npath = rdma\nop = write\nqps = 2\ntc = 106\nsl = 3\ngid_index = 1\nmtu = 4096\nmin_bw = 1bit\n[lat]\nprobe = lat\npath = rdma\nop = send\niters = 100\nmax_p99 = 1s\n[mesh]\nprobe = mesh\npath = rdma\nop = read\nmax_bad_pairs = 0\n[incast]\nprobe = incast\npath = rdma\nsenders = 1,2\nmin_bw = 1bit\n'
"$IXPERF" run --check-plan "$J/rdma.ini" >"$J/rdma-check.out" 2>&1
check "a plan of bw, lat, mesh and incast over rdma parses (exit 0)" bash -c \
	"[ $? = 0 ] && grep -q '4 check(s)' '$J/rdma-check.out'"
if [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
	plan rdmahere '[need]\nprobe = bw\npath = rdma\nrequires = rdma\ntime = 1\nmin_bw = 1bit\n[any]\nprobe = lat\npath = rdma\niters = 100\nmax_p99 = 1s\n'
	"$IXPERF" run -J -d "$J/out8" "$J/rdmahere.ini" >"$J/rdmahere.json" 2>/dev/null
	check "rdma without a device: exit 1 (an ERROR, never a pass)" test "$?" = 1
	check "rdma without a device: SKIP where required, else ERROR, each saying why" jq_true "$J/rdmahere.json" \
		'.results[0].checks as $c | $c[0].verdict == "SKIP" and ($c[0].reason | test("requires rdma: .*RDMA"))
		and $c[1].verdict == "ERROR" and ($c[1].error | test("RDMA")) and $c[1].path == "rdma"'
	schema_check "$J/rdmahere.json"
fi

# probe = topo on sysfs trees of tests/topo/mkfixture.py: none flagged is a
# PASS, a downtrained link a FAIL with its sentence.
if python3 "$top_srcdir/tests/topo/mkfixture.py" dgx-h100 "$J/dgx" 2>"$J/mk.err" &&
	python3 "$top_srcdir/tests/topo/mkfixture.py" downtrained "$J/down" 2>>"$J/mk.err"; then
	plan topo "[clean]\nprobe = topo\nsysfs = $J/dgx\n[down]\nprobe = topo\nsysfs = $J/down\n[allowed]\nprobe = topo\nsysfs = $J/down\nmax_findings = 1\n"
	"$IXPERF" run -d "$J/out9" "$J/topo.ini" >"$J/topo.txt" 2>&1
	check "topo: a finding fails the run (exit 4)" test "$?" = 4
	sed 's/^/# /' "$J/topo.txt"
	topo_doc=$(ls "$J"/out9/ixperf-run-*.json | head -n 1)
	schema_check "$topo_doc"
	check "topo: none flagged PASS (max_findings 0 by default), one flagged FAIL, allowed PASS" jq_true "$topo_doc" \
		'[.results[0].checks[].verdict] == ["PASS", "FAIL", "PASS"] and
		.results[0].checks[0].expectations[0].text == "0 (default)" and
		.results[0].checks[1].expectations[0].measured == 1'
	check "topo: the finding's sentence in the document and the summary" bash -c \
		"jq -e '.results[0].checks[1].expectations[0].findings[0] | test(\"trained at Gen4 x8\")' '$topo_doc' >/dev/null &&
		grep -q '^               finding: .*trained at Gen4 x8 but both ends support Gen5 x16' '$J/topo.txt'"
else
	not_ok "mkfixture.py builds the topo fixtures: $(head -c 300 "$J/mk.err")"
fi

# probe = gpu on the SIMULATED CUDA library of tests/gpu/fakecuda.c (two
# pretend GPUs whose copies are host memcpys): a simulation, so only the
# structure is checked, never a figure. No driver at all is an ERROR, or a
# SKIP where the check requires a GPU.
if [ -n "${IX_FAKECUDA:-}" ] && [ -f "$IX_FAKECUDA" ]; then
	plan gpusim "[copies]\nprobe = gpu\nbackend = cuda\nlib = $IX_FAKECUDA\ntests = host_to_device_memcpy_ce,device_local_copy,host_device_latency_sm\nsize = 4Mi\niters = 2\nsamples = 1\nmin_bw = 1bit\nmin_bw = 0.0001%hbm\nmax_lat = 1h\n[link]\nprobe = gpu\nbackend = cuda\nlib = $IX_FAKECUDA\ntests = pcie\nsize = 4Mi\niters = 2\nsamples = 1\nmin_bw = 50%link\n[fast]\nprobe = gpu\nbackend = cuda\nlib = $IX_FAKECUDA\ntests = device_local_copy\nsize = 4Mi\niters = 2\nsamples = 1\nmin_bw = 1000Tbit\n"
	"$IXPERF" run -J -d "$J/out10" "$J/gpusim.ini" >"$J/gpusim.json" 2>"$J/gpusim.err"
	rc=$?
	# The fake GPUs' bus IDs (fakecuda.c) name no PCI function in this
	# machine's sysfs, unless a real device sits there.
	nolink=yes
	for b in 0000:1a:00.0 0000:3b:00.0; do
		[ -e "/sys/bus/pci/devices/$b" ] && nolink=
	done
	schema_check "$J/gpusim.json"
	check "gpu, simulated: rate, share of HBM and latency judged on the measured cells (PASS)" jq_true "$J/gpusim.json" \
		'.results[0].checks[0] | .verdict == "PASS" and ([.expectations[].measured | . > 0] | all)
		and .results[0].kind == "gpu" and ([.results[0].tests[].name] ==
		["host_to_device_memcpy_ce", "device_local_copy", "host_device_latency_sm"])'
	if [ -n "$nolink" ]; then
		check "gpu, simulated: the run ends in an ERROR (exit 1): the fake GPUs have no PCIe link here" test "$rc" = 1
		check "gpu, simulated: a share of a PCIe link sysfs does not show is an ERROR, not a pass" jq_true "$J/gpusim.json" \
			'.results[0].checks[1] | .verdict == "ERROR" and .expectations[0].measured == null
			and (.error | test("min_bw = 50%link"))'
	else
		check "gpu, simulated: a share of the PCIe link sysfs shows is judged" jq_true "$J/gpusim.json" \
			'.results[0].checks[1] | (.verdict == "PASS" or .verdict == "FAIL") and .expectations[0].measured > 0'
	fi
	check "gpu, simulated: a rate above what was measured FAILs with the figure" jq_true "$J/gpusim.json" \
		'.results[0].checks[2] | .verdict == "FAIL" and .expectations[0].measured > 0'
fi
plan gpunone '[any]\nprobe = gpu\nbackend = cuda\nlib = /nonexistent/libcuda.so.1\nmin_bw = 1bit\n[need]\nprobe = gpu\nrequires = gpu\nbackend = cuda\nlib = /nonexistent/libcuda.so.1\nmin_bw = 1bit\n'
"$IXPERF" run -J -d "$J/out11" "$J/gpunone.ini" >"$J/gpunone.json" 2>/dev/null
check "gpu without a driver: exit 1" test "$?" = 1
check "gpu without a driver: an ERROR naming the missing driver, or a SKIP where required" jq_true "$J/gpunone.json" \
	'.results[0].checks as $c | $c[0].verdict == "ERROR" and ($c[0].error | test("no NVIDIA driver"))
	and $c[1].verdict == "SKIP" and ($c[1].reason | test("^requires gpu: .*no NVIDIA driver"))'

# The example plans shipped in contrib/ parse.
for p in "${top_srcdir:-.}"/contrib/plans/*.ini; do
	"$IXPERF" run --check-plan "$p" >/dev/null 2>"$J/example.err"
	check "contrib plan $(basename "$p") parses" test "$?" = 0
done

ix_done
