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
	'.command == "run" and .results[0].kind == "run" and (.results[0].checks | length) == 8'
check "every check has a verdict, a headline and its results" jq_true "$doc" \
	'[.results[0].checks[] | (.verdict == "PASS" or .verdict == "FAIL") and (.headline.value != null) and ((.results | length) >= 1)] | all'
check "the inventory names this host" jq_true "$doc" \
	'.results[0].inventory.cpus >= 1 and (.results[0].inventory.interfaces | length) >= 1'
check "the run records this machine's topology (ixperf topo)" jq_true "$doc" \
	'.results[0].topology.kind == "topo" and (.results[0].topology.pci | length) >= 1'
check "the HTML report has a topology section" \
	grep -q '<h2 id="topo">Topology</h2>' "$(ls "$J"/out/ixperf-run-*.html | head -n 1)"
check "the text summary gives a verdict per check" bash -c "[ \$(grep -cE '^  (PASS|FAIL) ' '$J/default.txt') -eq 8 ]"
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

# --post with the endpoint down: the run's status stands, the payload waits
# in the spool (tests/integration/post.sh covers delivery).
plan quick '[tcp]\nprobe = bw\ntime = 1\nwarmup = 0\n'
XDG_STATE_HOME="$J/state" "$IXPERF" run -d "$J/out7" --post http://127.0.0.1:1/hook "$J/quick.ini" \
	>/dev/null 2>"$J/post.err"
check "a run whose post fails still exits 0" test "$?" = 0
check "the failure is said on stderr" grep -q "posting:" "$J/post.err"
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

# The example plans shipped in contrib/ parse.
for p in "${top_srcdir:-.}"/contrib/plans/*.ini; do
	"$IXPERF" run --check-plan "$p" >/dev/null 2>"$J/example.err"
	check "contrib plan $(basename "$p") parses" test "$?" = 0
done

ix_done
