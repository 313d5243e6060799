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
bw=$(jq '.results[0].checks[0].results[0].summary.forward.bits_per_second / 8' "$DATA/post-run.json")
check "bandwidth reads back as in the document, in bytes per second" same "$(metric ixperf_bandwidth_bytes_per_second \
	'check="tcp-bw",dst="127.0.0.1",instance="vm",job="ixperf-test",path="tcp",size="131072",src="vm"')" "$bw"
check "latency p99 reads back in seconds" same "$(metric ixperf_latency_seconds \
	'check="tcp-lat".*stat="p99"')" \
	"$(jq '.results[0].checks[3].results[0].stats.p99_ns / 1e9' "$DATA/post-run.json")"
check "the failed check reads back as 0" same "$(metric ixperf_check_pass 'check="tcp-lat"')" 0
check "the run verdict FAIL reads back as 1" same "$(metric ixperf_run_verdict 'verdict="FAIL"')" 1
check "no mesh pair is a series by default" \
	test "$(grep -c '^ixperf_bandwidth_bytes_per_second{check="mesh"' "$J/metrics.txt")" = 0
check "each mesh host's sending bandwidth is one (4 hosts)" \
	test "$(grep -c '^ixperf_node_bandwidth_bytes_per_second{check="mesh",direction="out"' "$J/metrics.txt")" = 4
check "incast steps carry a senders label" \
	test "$(grep -c '^ixperf_bandwidth_bytes_per_second{check="incast",.*senders=' "$J/metrics.txt")" = 3
"$IXPERF" post -f pushgateway --pairs --job ixperf-pairs --spool "$SPOOL" "$DATA/post-run.json" \
	"http://127.0.0.1:$PPORT" 2>"$J/g4.err"
curl -sf "http://127.0.0.1:$PPORT/metrics" >"$J/metrics.txt"
check "with --pairs every measured mesh pair is a series (6)" \
	test "$(grep -c '^ixperf_bandwidth_bytes_per_second{check="mesh",.*job="ixperf-pairs"' "$J/metrics.txt")" = \
	"$(jq '.results[0].checks[4].results[0].pairs.measured' "$DATA/post-run.json")"
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

# --- (3) node_exporter's textfile collector, checked by promtool --------------------------
PROMTOOL=$(command -v promtool)
TXT=$J/textfile
mkdir -p "$TXT"
"$IXPERF" post -f textfile --job nightly "$DATA/post-run.json" "$TXT" 2>"$J/t1.err"
check "post -f textfile exits 0" test $? = 0 || cat "$J/t1.err"
check "it wrote ixperf-nightly.prom and nothing else" test "$(ls -A "$TXT")" = ixperf-nightly.prom
if [ -n "$PROMTOOL" ]; then
	check "promtool check metrics accepts the textfile" "$PROMTOOL" check metrics <"$TXT/ixperf-nightly.prom"
	"$IXPERF" post -f textfile --pairs --job mesh "$DATA/mesh-bad.json" "$TXT" 2>/dev/null
	check "and a mesh's, with its pairs" "$PROMTOOL" check metrics <"$TXT/ixperf-mesh.prom"
else
	skip_check "promtool check metrics" "promtool is not installed (Debian: prometheus; contrib/setup.sh installs it)"
fi
check "the textfile holds the series the Pushgateway got, with the same values" \
	test "$(grep -E '^ixperf_latency_seconds\{check="tcp-lat",.*stat="p99"' "$TXT/ixperf-nightly.prom" | awk '{print $2}')" = \
	"$(metric ixperf_latency_seconds 'check="tcp-lat".*job="ixperf-test".*stat="p99"')"
"$IXPERF" post -f textfile "$DATA/post-run.json" "$J/no-such-dir" 2>"$J/t2.err"
check "a textfile directory that is not there exits 1 and says so" \
	test $? = 1 -a -n "$(grep 'is not a directory' "$J/t2.err")"

# --- (4) a real mesh posting to several targets ------------------------------------------
# Two live agents and a third that is gone: the mesh exits 1; chat, the
# Pushgateway and the textfile all say ERROR, as the exit status does, and
# the chat repeats the text report's INCOMPLETE sentence.
# agent NAME: start an agent on loopback; sets the variable NAME to its port.
agent() {
	local port
	"$IXPERF" server -p 0 >"$J/$1.out" 2>"$J/$1.err" &
	IX_PIDS+=("$!")
	port=$(ix_wait_port "$J/$1.out" "$!") || exit 99
	printf -v "$1" %s "$port"
}
agent A1
agent A2
DEAD=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
receiver chat
CURL=http://127.0.0.1:$RPORT/chat
rm -f "$TXT"/*
"$IXPERF" mesh --test bw -t 0.2 -w 0 --no-retest --connect-timeout 2 \
	--post "chat=$CURL" --post "pushgateway=http://127.0.0.1:$PPORT" --post-job mesh-dead \
	--post "textfile=$TXT" "127.0.0.1:$A1,127.0.0.1:$A2,127.0.0.1:$DEAD" >"$J/m1.txt" 2>"$J/m1.err"
mrc=$?
check "a mesh with an agent that is gone exits 1" test "$mrc" = 1 || cat "$J/m1.err"
check "each of the three targets is said to be posted" \
	test "$(grep -c 'ixperf mesh: posted to' "$J/m1.err")" = 3
check "the chat's verdict is the exit status's: ERROR" \
	jq_ok '.text | startswith("*ERROR* ixperf mesh")' "$RDIR/0001.body"
incomplete=$(grep '^INCOMPLETE: ' "$J/m1.txt")
check "the text report says INCOMPLETE ($incomplete)" test -n "$incomplete"
check "and the chat says the same" \
	jq_ok --arg s "$incomplete" '.text | contains($s)' "$RDIR/0001.body"
curl -sf "http://127.0.0.1:$PPORT/metrics" >"$J/metrics.txt"
check "the Pushgateway reads back verdict ERROR" \
	same "$(metric ixperf_run_verdict 'job="mesh-dead",verdict="ERROR"')" 1
check "and the gone agent as failed, the live ones not" \
	test "$(metric ixperf_node_failed "job=\"mesh-dead\",node=\"127.0.0.1:$DEAD\"")" = 1 -a \
	"$(metric ixperf_node_failed "job=\"mesh-dead\",node=\"127.0.0.1:$A1\"")" = 0
check "the textfile says ERROR too" \
	grep -q '^ixperf_run_verdict{verdict="ERROR"} 1$' "$TXT/ixperf-mesh-dead.prom"
measured=$(metric ixperf_mesh_pairs 'job="mesh-dead",state="measured"')
planned=$(metric ixperf_mesh_pairs 'job="mesh-dead",state="planned"')
missing=$(grep -oE '^INCOMPLETE: [0-9]+' "$J/m1.txt" | grep -oE '[0-9]+$')
check "pairs measured and planned read back as the text report counts them ($measured + $missing = $planned)" \
	test -n "$missing" -a "$((measured + missing))" = "$planned"

# Two good agents; one target refuses (400), the other takes it: both are
# tried, the refusal is named, and the exit status says so.
echo 400 >"$J/chat.status"
n0=$(ls "$RDIR"/*.body 2>/dev/null | wc -l)
"$IXPERF" mesh --test bw -t 0.2 -w 0 --no-retest --post-format chat \
	--post "$CURL" --post "textfile=$TXT" --post-job mesh-ok \
	"127.0.0.1:$A1,127.0.0.1:$A2" >"$J/m2.txt" 2>"$J/m2.err"
mrc=$?
rm -f "$J/chat.status"
# The mesh's own verdict, from the target that took it: PASS must turn
# into 5 (a post failed), ERROR or FAIL keep 1 or 4.
verdict=$(sed -n 's/^ixperf_run_verdict{verdict="\([A-Z]*\)"} 1$/\1/p' "$TXT/ixperf-mesh-ok.prom")
case $verdict in PASS) want=5 ;; FAIL) want=4 ;; *) want=1 ;; esac
check "the other target was written all the same (verdict $verdict)" test -n "$verdict"
check "a mesh whose chat target refuses exits $want for its verdict $verdict" test "$mrc" = "$want" ||
	cat "$J/m2.err"
check "the refusal names the target and the answer" \
	grep -q 'posting to http://127.0.0.1:[0-9]*/\.\.\. (chat) failed: .*HTTP 400' "$J/m2.err"
check "nothing more reached the chat" test "$(ls "$RDIR"/*.body 2>/dev/null | wc -l)" = "$n0"
"$IXPERF" mesh --post ftp://x "127.0.0.1:$A1,127.0.0.1:$A2" >/dev/null 2>"$J/m3.err"
check "a --post that is not a URL is a usage error before any test" \
	test $? = 2 -a -n "$(grep 'not an http:// or https:// URL' "$J/m3.err")"

# --- (5) a traffic pattern posting to several targets --------------------------------------
# A bisection over four agents, -J's document beside the posts: what the
# Pushgateway reads back and what the chat says are that document's.
agent A3
agent A4
PHOSTS=127.0.0.1:$A1,127.0.0.1:$A2,127.0.0.1:$A3,127.0.0.1:$A4
rm -f "$TXT"/*
n0=$(ls "$RDIR"/*.body 2>/dev/null | wc -l)
"$IXPERF" mesh --pattern bisection -t 0.3 -w 0 -J -o "$J/pat.json" \
	--post "chat=$CURL" --post "pushgateway=http://127.0.0.1:$PPORT" --post-job pattern \
	--post "textfile=$TXT" "$PHOSTS" 2>"$J/p1.err"
prc=$?
pverdict=$(jq -r '.results[0] | if .complete | not then "ERROR" elif .bad_hosts > 0 then "FAIL" else "PASS" end' "$J/pat.json")
case $pverdict in PASS) want=0 ;; FAIL) want=4 ;; *) want=1 ;; esac
check "mesh --pattern with --post exits $want for its verdict $pverdict" test "$prc" = "$want" ||
	cat "$J/p1.err"
check "each of the three targets is said to be posted" \
	test "$(grep -c 'ixperf mesh: posted to' "$J/p1.err")" = 3
bodies=("$RDIR"/*.body)
pchat=${bodies[-1]}
check "one chat message more" test "${#bodies[@]}" = $((n0 + 1))
check "the chat says the verdict, the pattern, its hosts and bad hosts as -J's document has them ($(jq -r .text "$pchat" | head -c 90))" \
	jq_ok --arg v "$pverdict" --slurpfile d "$J/pat.json" \
	'.text | startswith("*\($v)* ixperf mesh") and
	 contains(": bisection over 4 hosts, \($d[0].results[0].bad_hosts) bad host(s), ") and
	 contains($d[0].results[0].verdict)' "$pchat"
curl -sf "http://127.0.0.1:$PPORT/metrics" >"$J/metrics.txt"
check "the Pushgateway reads back the verdict $pverdict" \
	same "$(metric ixperf_run_verdict "job=\"pattern\",verdict=\"$pverdict\"")" 1
check "and the bad hosts and hosts of the document" \
	same "$(metric ixperf_pattern_bad_nodes 'job="pattern"')" "$(jq '.results[0].bad_hosts' "$J/pat.json")" &&
	same "$(metric ixperf_pattern_nodes 'job="pattern"')" "$(jq '.results[0].hosts | length' "$J/pat.json")"
check "and the cut's total, in bytes per second" \
	same "$(metric ixperf_pattern_cut_bandwidth_bytes_per_second 'job="pattern"')" \
	"$(jq '.results[0].halves.cut_bps / 8' "$J/pat.json")"
# node_ok: each host's figure, reference and bad flag read back as the document's.
node_ok() {
	local i h bad=0
	for i in 0 1 2 3; do
		h=$(jq -r ".results[0].nodes[$i].host" "$J/pat.json")
		echo "    $h: $(metric ixperf_pattern_node_bandwidth_bytes_per_second "job=\"pattern\",node=\"$h\"") B/s against $(metric ixperf_pattern_node_reference_bandwidth_bytes_per_second "job=\"pattern\",node=\"$h\"") B/s; the document: $(jq ".results[0].nodes[$i] | \"\(.figure_bps / 8) against \(.against_bps / 8) (\(.against))\"" "$J/pat.json")"
		same "$(metric ixperf_pattern_node_bandwidth_bytes_per_second "job=\"pattern\",node=\"$h\"")" \
			"$(jq ".results[0].nodes[$i].figure_bps / 8" "$J/pat.json")" || bad=1
		same "$(metric ixperf_pattern_node_reference_bandwidth_bytes_per_second "against=\"$(jq -r ".results[0].nodes[$i].against" "$J/pat.json")\".*job=\"pattern\",node=\"$h\"")" \
			"$(jq ".results[0].nodes[$i].against_bps / 8" "$J/pat.json")" || bad=1
		same "$(metric ixperf_pattern_node_bad "job=\"pattern\",node=\"$h\"")" \
			"$(jq ".results[0].nodes[$i].bad | if . then 1 else 0 end" "$J/pat.json")" || bad=1
	done
	return $bad
}
check "each host's figure, its reference and its bad flag read back as the document's" node_ok
check "no per-pair series without --post-pairs" \
	test "$(grep -c '^ixperf_bandwidth_bytes_per_second{.*job="pattern"' "$J/metrics.txt")" = 0
if [ -n "$PROMTOOL" ]; then
	check "promtool check metrics accepts the pattern's textfile" "$PROMTOOL" check metrics <"$TXT/ixperf-pattern.prom"
else
	skip_check "promtool check metrics" "promtool is not installed (Debian: prometheus; contrib/setup.sh installs it)"
fi
check "the textfile holds what the Pushgateway got, the document's median" \
	same "$(grep '^ixperf_pattern_median_bandwidth_bytes_per_second' "$TXT/ixperf-pattern.prom" | awk '{print $2}')" \
	"$(metric ixperf_pattern_median_bandwidth_bytes_per_second 'job="pattern"')" &&
	same "$(metric ixperf_pattern_median_bandwidth_bytes_per_second 'job="pattern"')" \
	"$(jq '.results[0].median_bps / 8' "$J/pat.json")"

# A ring whose chat target refuses: the textfile still gets it, and a
# ring that held exits 5 (only a post failed), one that did not 4 or 1.
echo 400 >"$J/chat.status"
"$IXPERF" mesh --pattern ring -t 0.3 -w 0 --post "chat=$CURL" --post "textfile=$TXT" \
	--post-job ring "$PHOSTS" >"$J/ring.txt" 2>"$J/p2.err"
prc=$?
rm -f "$J/chat.status"
verdict=$(sed -n 's/^ixperf_run_verdict{verdict="\([A-Z]*\)"} 1$/\1/p' "$TXT/ixperf-ring.prom")
case $verdict in PASS) want=5 ;; FAIL) want=4 ;; *) want=1 ;; esac
check "a ring whose chat target refuses exits $want for its verdict $verdict" test "$prc" = "$want" ||
	cat "$J/p2.err"
check "the refusal names the target" \
	grep -q 'posting to http://127.0.0.1:[0-9]*/\.\.\. (chat) failed: .*HTTP 400' "$J/p2.err"
ix_done
