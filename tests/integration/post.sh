#!/usr/bin/env bash
# ixperf post end to end on loopback: a webhook receiver that fails and heals
# (retries, the spool, flush order, exactly-once delivery), credentials and
# secrets, bad input; then a real Prometheus Pushgateway.
. "${top_srcdir:-.}/tests/lib.sh"

"$IXPERF" post --help >/dev/null 2>&1 || ix_skip "this ixperf has no post command"
command -v python3 >/dev/null || ix_skip "python3 is not installed"
command -v curl >/dev/null || ix_skip "curl is not installed"
J=$IX_TMP
DATA=${top_srcdir:-.}/tests/data
RECEIVER=${top_srcdir:-.}/tests/post-receiver.py
SPOOL=$J/spool
export XDG_STATE_HOME=$J/state # never the user's own spool
unset IXPERF_POST_TOKEN

"$IXPERF" post --flush --spool "$J/probe" >/dev/null 2>&1
[ $? = 3 ] && ix_skip "this ixperf was built without libcurl"

# receiver NAME [ARGS...]: start tests/post-receiver.py; sets RPORT and RDIR.
# It answers what $J/NAME.status holds (e.g. 503) while that file exists.
receiver() {
	local name=$1 pid
	shift
	RDIR=$J/$name
	python3 "$RECEIVER" --dir "$RDIR" --status-file "$J/$name.status" --lifetime 300 "$@" \
		>"$J/$name.out" 2>"$J/$name.err" &
	pid=$!
	IX_PIDS+=("$pid")
	RPORT=$(ix_wait_port "$J/$name.out" "$pid") && return 0
	echo "receiver $name did not start:" >&2
	cat "$J/$name.err" >&2
	exit 99
}

# Result documents that differ only in their run name: run 1, run 2, ...
for i in 1 2 3 4 5 6; do
	jq -c ".results[0].name = \"run $i\"" "$DATA/post-run.json" >"$J/r$i.json"
done
delivered_names() { # the run names the receiver took, in order, one per line
	local f
	for f in "$RDIR"/*.body; do
		[ -e "$f" ] && jq -r '.results[0].name' "$f"
	done
}
jq_ok() { jq -e "$@" >/dev/null; }
spooled() { # how many payloads wait in the spool
	local f n=0
	for f in "$SPOOL"/*.ixspool; do
		[ -e "$f" ] && n=$((n + 1))
	done
	echo "$n"
}
spooled_names() { # the run names in the spool, oldest first (a glob sorts)
	local f
	for f in "$SPOOL"/*.ixspool; do
		[ -e "$f" ] && tail -n +2 "$f" | jq -r '.results[0].name'
	done
}

# --- (1) a webhook that is down, then heals ----------------------------------------
receiver hook
URL=http://127.0.0.1:$RPORT/ingest
echo 503 >"$J/hook.status"
"$IXPERF" post --retries 1 --timeout 5 --spool "$SPOOL" "$J/r1.json" "$URL" 2>"$J/p1.err"
check "a post to an endpoint answering 503 exits 1" test $? = 1
check "it says the payload was spooled" grep -q "spooled as $SPOOL/" "$J/p1.err"
check "it tried twice (--retries 1)" test "$(grep -c '"status": 503' "$RDIR/requests.log")" = 2
check "one payload waits in the spool" test "$(spooled)" = 1
check "the spool file is private (0600)" test "$(stat -c %a "$SPOOL"/*.ixspool)" = 600
check "the spool directory is private (0700)" test "$(stat -c %a "$SPOOL")" = 700
"$IXPERF" post --retries 0 --spool "$SPOOL" "$J/r2.json" "$URL" 2>"$J/p2.err"
rc2=$?
"$IXPERF" post --retries 0 --spool "$SPOOL" "$J/r3.json" "$URL" 2>"$J/p3.err"
check "two more posts exit 1 too" test "$rc2" = 1 -a $? = 1
check "a post behind a backlog says so" grep -q "behind 1 earlier payload" "$J/p2.err"
check "three payloads spooled in arrival order" \
	test "$(spooled_names | paste -sd,)" = "run 1,run 2,run 3"
check "nothing was delivered while the endpoint failed" test -z "$(delivered_names)"

rm -f "$J/hook.status"
"$IXPERF" post --flush --spool "$SPOOL" 2>"$J/f1.err"
check "--flush exits 0 once the endpoint heals" test $? = 0
check "--flush reports 3 delivered" grep -q "delivered 3 spooled" "$J/f1.err"
check "each payload arrived exactly once, in order" \
	test "$(delivered_names | paste -sd,)" = "run 1,run 2,run 3"
check "the delivered body is the document, with its verdict on top" \
	test "$(jq -cS 'del(.results[0].name) | del(.verdict)' "$RDIR/0001.body")" = \
	"$(jq -cS 'del(.results[0].name)' "$DATA/post-run.json")"
check "the verdict on top is the run's (FAIL)" jq_ok '.verdict == "FAIL"' "$RDIR/0001.body"
check "the spool is empty" test "$(spooled)" = 0
"$IXPERF" post --flush --spool "$SPOOL" 2>"$J/f2.err"
check "a second flush delivers nothing" test $? = 0 -a "$(delivered_names | wc -l)" = 3
check "it says 0 delivered" grep -q "delivered 0 spooled" "$J/f2.err"

# The backlog goes first: a payload spooled while down, then a fresh post.
echo 503 >"$J/hook.status"
"$IXPERF" post --retries 0 --spool "$SPOOL" "$J/r4.json" "$URL" 2>/dev/null
rm -f "$J/hook.status"
"$IXPERF" post --retries 0 --spool "$SPOOL" "$J/r5.json" "$URL" 2>"$J/p5.err"
check "a post while the backlog drains exits 0" test $? = 0
check "the backlog arrived before the new result" \
	test "$(delivered_names | tail -n 2 | paste -sd,)" = "run 4,run 5"
check "and the spool is empty again" test "$(spooled)" = 0

# A 4xx: the endpoint refuses this payload; no retry, no spool.
echo 400 >"$J/hook.status"
n0=$(wc -l <"$RDIR/requests.log")
"$IXPERF" post --retries 3 --spool "$SPOOL" "$J/r6.json" "$URL" 2>"$J/p6.err"
check "a 400 exits 1" test $? = 1
check "a 400 is tried once" test "$(($(wc -l <"$RDIR/requests.log") - n0))" = 1
check "a 400 is not spooled" test "$(spooled)" = 0 -a -n "$(grep 'not spooled' "$J/p6.err")"
rm -f "$J/hook.status"

# --- credentials and secrets ----------------------------------------------------------
receiver auth --token tok-integration-5678
AURL=http://127.0.0.1:$RPORT/ingest
printf 'tok-integration-5678\n' >"$J/creds"
chmod 644 "$J/creds"
"$IXPERF" post --spool "$SPOOL" --credentials "$J/creds" "$J/r1.json" "$AURL" 2>"$J/c1.err"
check "a credentials file others can read is refused (exit 2)" test $? = 2
check "the refusal says chmod 600" grep -q "chmod 600" "$J/c1.err"
chmod 600 "$J/creds"
"$IXPERF" post --spool "$SPOOL" --credentials "$J/creds" "$J/r1.json" "$AURL" 2>"$J/c2.err"
check "with a private credentials file the bearer token is accepted" test $? = 0
check "the receiver saw the right Authorization" jq_ok -s 'last.auth_ok' "$RDIR/requests.log"
IXPERF_POST_TOKEN=tok-integration-5678 "$IXPERF" post --spool "$SPOOL" "$J/r2.json" "$AURL" \
	2>/dev/null
check "IXPERF_POST_TOKEN works too" test $? = 0
IXPERF_POST_TOKEN=tok-wrong-secret-0001 "$IXPERF" post --spool "$SPOOL" "$J/r3.json" \
	"http://carol:pw-in-url-0002@127.0.0.1:$RPORT/ingest?key=in-query-0003" 2>"$J/c3.err"
check "a wrong token gets 401: exit 1, not spooled" test $? = 1 -a "$(spooled)" = 0
check "no secret in the message" \
	test -z "$(grep -E 'tok-wrong|pw-in-url|in-query|carol' "$J/c3.err")"
"$IXPERF" post --retries 0 --spool "$J/spool2" \
	"$J/r3.json" "http://dave:pw-in-url-0004@127.0.0.1:1/x?key=in-query-0005" 2>"$J/c4.err"
check "connection refused: exit 1, spooled" test $? = 1 -a -n "$(ls "$J/spool2")"
check "no secret in curl's message" test -z "$(grep -E 'pw-in-url|in-query|dave' "$J/c4.err")"
check "no user:password in the spool" test -z "$(grep -rl 'pw-in-url' "$J/spool2")"

# --- the spool's trust ------------------------------------------------------------------
# A spool others may write to is refused; an entry someone else planted in
# ours (naming their own URL) is skipped with a warning and never receives
# the token; the token over plain http is warned about once.
receiver evil
EVIL=http://127.0.0.1:$RPORT/steal
receiver trust --token tok-trust-0006
TURL=http://127.0.0.1:$RPORT/ingest
TSPOOL=$J/tspool
echo 503 >"$J/trust.status"
for i in 1 2; do
	IXPERF_POST_TOKEN=tok-trust-0006 "$IXPERF" post --retries 0 --spool "$TSPOOL" \
		"$J/r$i.json" "$TURL" 2>/dev/null
done
rm -f "$J/trust.status"
mine=$(ls "$TSPOOL"/*.ixspool | head -n 1)
planted=0000000000000001-0000000001-000001.ixspool
sed "1s#\"url\":\"[^\"]*\"#\"url\":\"$EVIL\"#" "$mine" >"$TSPOOL/$planted"
chown 65534:65534 "$TSPOOL/$planted" 2>/dev/null || chmod 666 "$TSPOOL/$planted"
check "the planted entry names the other endpoint" grep -q "/steal" "$TSPOOL/$planted"
IXPERF_POST_TOKEN=tok-trust-0006 "$IXPERF" post --flush --spool "$TSPOOL" "$TURL" 2>"$J/t1.err"
check "a flush past a planted entry exits 0" test $? = 0 || cat "$J/t1.err"
check "the planted entry was not sent: the other endpoint got nothing" \
	test ! -e "$J/evil/requests.log"
check "the flush names the planted entry it skipped" \
	grep -q "WARNING: spool entry $TSPOOL/$planted .*skipped, not sent" "$J/t1.err"
check "the planted entry is left where it is" test -e "$TSPOOL/$planted"
check "our own two entries were delivered with the token" \
	test "$(jq -s '[.[] | select(.auth_ok and .status < 300)] | length' "$RDIR/requests.log")" = 2
check "the token over plain http is warned about once" \
	test "$(grep -c 'the bearer token goes to http://127.0.0.1:[0-9]*/\.\.\. over plain http' "$J/t1.err")" = 1
check "the warning holds no secret" test -z "$(grep 'tok-trust' "$J/t1.err")"

# Credentials are bound to the origin they are given for: spooled entries
# for two endpoints, a flush with the token for one; the other never sees it.
receiver one
ONE=http://127.0.0.1:$RPORT
ONEDIR=$RDIR
receiver two
TWO=http://127.0.0.1:$RPORT
OSPOOL=$J/ospool
echo 503 >"$J/one.status"
echo 503 >"$J/two.status"
"$IXPERF" post --retries 0 --spool "$OSPOOL" "$J/r1.json" "$ONE/in" 2>/dev/null
"$IXPERF" post --retries 0 --spool "$OSPOOL" "$J/r2.json" "$TWO/in" 2>/dev/null
rm -f "$J/one.status" "$J/two.status"
check "one entry spooled for each endpoint" test "$(ls "$OSPOOL"/*.ixspool | wc -l)" = 2
printf 'tok-origin-0007\n' >"$J/ocreds"
chmod 600 "$J/ocreds"
"$IXPERF" post --flush --spool "$OSPOOL" --credentials "$J/ocreds" 2>"$J/o1.err"
check "--credentials with --flush but no URL is a usage error (exit 2)" test $? = 2
check "and says the URL is needed" grep -q "needs the URL they are for" "$J/o1.err"
"$IXPERF" post --flush --spool "$OSPOOL" --credentials "$J/ocreds" "$ONE" 2>"$J/o2.err"
check "a flush with the URL of the first endpoint exits 0" test $? = 0 || cat "$J/o2.err"
check "the first endpoint got the token" \
	jq_ok -s '[.[] | select(.status < 300 and .auth_sent)] | length == 1' "$ONEDIR/requests.log"
check "the second endpoint got nothing more than its 503" \
	jq_ok -s 'length == 1 and .[0].status == 503' "$RDIR/requests.log"
IXPERF_POST_TOKEN=tok-origin-0007 "$IXPERF" post --flush --spool "$OSPOOL" 2>"$J/o3.err"
check "a flush without a URL delivers the rest (exit 0)" test $? = 0 || cat "$J/o3.err"
check "the second endpoint took its entry without any Authorization" \
	jq_ok -s 'length == 2 and (.[1].status < 300) and ([.[].auth_sent] | any | not)' \
	"$RDIR/requests.log"
check "the flush says the token was not sent" grep -q "IXPERF_POST_TOKEN is not sent" "$J/o3.err"

mkdir -m 777 "$J/shared"
"$IXPERF" post --flush --spool "$J/shared" 2>"$J/t2.err"
check "--flush refuses a spool others may write to (exit 2)" test $? = 2
check "and says why" grep -q "spool directory $J/shared is writable by group or others" "$J/t2.err"
n0=$(wc -l <"$RDIR/requests.log")
IXPERF_POST_TOKEN=tok-trust-0006 "$IXPERF" post --spool "$J/shared" "$J/r3.json" "$TURL" \
	2>"$J/t3.err"
check "a post with such a spool is refused before sending (exit 2)" \
	test $? = 2 -a "$(wc -l <"$RDIR/requests.log")" = "$n0"

# --- chat format and bad input ---------------------------------------------------------
"$IXPERF" post -f chat --spool "$SPOOL" "$J/r1.json" "$URL" 2>/dev/null
check "a chat post exits 0" test $? = 0
bodies=("$J/hook"/*.body)
last=${bodies[-1]}
check "the chat message names the verdict and a figure" \
	jq_ok '.text | test("FAIL") and test("run 1") and test("Gbit/s")' "$last"
# A mesh with bad pairs: 'ixperf mesh' exited 4 on it, so every message says FAIL.
"$IXPERF" post -f chat --spool "$SPOOL" "$DATA/mesh-bad.json" "$URL" 2>/dev/null
bodies=("$J/hook"/*.body)
check "a mesh with bad pairs is a FAIL in chat, not OK ($(jq -r .text "${bodies[-1]}" | head -c 60))" \
	jq_ok '.text | startswith("*FAIL* ixperf mesh") and test("3 bad pair")' "${bodies[-1]}"
"$IXPERF" post --spool "$SPOOL" "$DATA/mesh-bad.json" "$URL" 2>/dev/null
bodies=("$J/hook"/*.body)
check "its webhook document carries the verdict FAIL on top" \
	jq_ok '.verdict == "FAIL" and .command == "mesh"' "${bodies[-1]}"
printf '{"results": [' >"$J/bad.json"
"$IXPERF" post --spool "$SPOOL" "$J/bad.json" "$URL" 2>"$J/b1.err"
check "a corrupt file exits 1 and names the file" test $? = 1 -a -n "$(grep 'bad.json: not valid JSON' "$J/b1.err")"
printf '{"hello": "world"}\n' >"$J/foreign.json"
"$IXPERF" post --spool "$SPOOL" "$J/foreign.json" "$URL" 2>"$J/b2.err"
check "a foreign JSON document exits 1" test $? = 1 -a -n "$(grep 'foreign.json: not an ixperf' "$J/b2.err")"
"$IXPERF" post --spool "$SPOOL" "$J/no-such-file.json" "$URL" 2>"$J/b3.err"
check "a missing file exits 1" test $? = 1 -a -n "$(grep 'cannot read .*no-such-file.json' "$J/b3.err")"
"$IXPERF" post "$J/r1.json" 2>/dev/null
check "a missing URL is a usage error" test $? = 2
"$IXPERF" post -f yaml "$J/r1.json" "$URL" 2>/dev/null
check "an unknown format is a usage error" test $? = 2

# --- (2) a real Prometheus Pushgateway ------------------------------------------------------
PGW=/usr/bin/prometheus-pushgateway
if [ ! -x "$PGW" ]; then
	skip_check "the Pushgateway part" "$PGW is not installed (Debian: prometheus-pushgateway; contrib/setup.sh installs it)"
	ix_done
fi
PPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# An empty --persistence.file (Debian defaults to /var/lib/prometheus/...):
# nothing is written; the metrics live as long as this test.
"$PGW" --web.listen-address="127.0.0.1:$PPORT" --persistence.file= >"$J/pgw.log" 2>&1 &
IX_PIDS+=("$!")
for _ in $(seq 1 100); do
	curl -sf "http://127.0.0.1:$PPORT/-/ready" >/dev/null && break
	sleep 0.1
done
"$IXPERF" post -f pushgateway --job ixperf-test --spool "$SPOOL" "$DATA/post-run.json" \
	"http://127.0.0.1:$PPORT" 2>"$J/g1.err"
check "a push to the Pushgateway exits 0" test $? = 0 || cat "$J/g1.err"
curl -sf "http://127.0.0.1:$PPORT/metrics" >"$J/metrics.txt"
metric() { # metric NAME LABEL-REGEX: the value of the one matching series
	grep -E "^$1\{" "$J/metrics.txt" | grep -E "$2" | awk '{print $2}'
}
same() { python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$1" "$2"; }
bw=$(jq '.results[0].checks[0].results[0].summary.forward.bits_per_second' "$DATA/post-run.json")
check "bandwidth reads back as in the document" same "$(metric ixperf_bandwidth_bits_per_second \
	'check="tcp-bw",dst="127.0.0.1",instance="vm",job="ixperf-test",path="tcp",size="131072",src="vm"')" "$bw"
check "latency p99 reads back in seconds" same "$(metric ixperf_latency_seconds \
	'check="tcp-lat".*quantile="0.99"')" 4.9288e-05
check "the failed check reads back as 0" same "$(metric ixperf_check_pass 'check="tcp-lat"')" 0
check "the run verdict FAIL reads back as 1" same "$(metric ixperf_run_verdict 'verdict="FAIL"')" 1
check "every mesh pair is a series" \
	test "$(grep -c '^ixperf_bandwidth_bits_per_second{check="mesh"' "$J/metrics.txt")" = 6
check "incast steps carry a senders label" \
	test "$(grep -c '^ixperf_bandwidth_bits_per_second{check="incast",.*senders=' "$J/metrics.txt")" = 3
"$IXPERF" post -f pushgateway --job ixperf-mesh --spool "$SPOOL" "$DATA/mesh-bad.json" \
	"http://127.0.0.1:$PPORT" 2>"$J/g3.err"
check "a mesh document pushes" test $? = 0 || cat "$J/g3.err"
curl -sf "http://127.0.0.1:$PPORT/metrics" >"$J/metrics.txt"
check "the mesh with bad pairs reads back as verdict FAIL" \
	same "$(metric ixperf_run_verdict 'job="ixperf-mesh",verdict="FAIL"')" 1
check "and not as a pass" same "$(metric ixperf_run_pass 'job="ixperf-mesh"')" 0
"$IXPERF" post -f pushgateway --job 'a/b' --spool "$SPOOL" "$DATA/post-hostile.json" \
	"http://127.0.0.1:$PPORT/" 2>"$J/g2.err"
check "a hostile document with '/' in job and host pushes (base64 grouping key)" test $? = 0 ||
	cat "$J/g2.err"
curl -sf "http://127.0.0.1:$PPORT/metrics" >"$J/metrics.txt"
check "its labels read back escaped" grep -qF \
	'ixperf_check_pass{check="evil \"quoted\" \\ back\nslash",instance="rack1/node 7",job="a/b",probe="bw"} 1' \
	"$J/metrics.txt"
ix_done
