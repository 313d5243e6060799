#!/usr/bin/env bash
# Many agents on loopback: mesh and incast end to end, authentication, an
# agent that dies mid-mesh.
. "${top_srcdir:-.}/tests/lib.sh"

J=$IX_TMP
TOK=$J/token
printf 's3cret-for-tests\n' >"$TOK"
chmod 600 "$TOK"

agents() { # agents NAME COUNT [server args]: start COUNT agents; HOSTS lists them
	local name=$1 count=$2 i
	shift 2
	HOSTS=
	APIDS=()
	for ((i = 1; i <= count; i++)); do
		ix_server "$name$i" "$@" || exit 99
		HOSTS="${HOSTS:+$HOSTS,}127.0.0.1:$IX_PORT"
		APIDS+=("$IX_SPID")
	done
}

# --- An open mesh: every pair once, both tests. ------------------------------
agents open 5
"$IXPERF" mesh -t 0.3 -w 0.05 -J "$HOSTS" >"$J/mesh.json" 2>"$J/mesh.err"
rc=$?
check "mesh over 5 agents ends with 0 or 4 (bad pairs on a noisy host)" test "$rc" = 0 -o "$rc" = 4
check "mesh measured all 10 unordered pairs" jq_true "$J/mesh.json" \
	'.results[0] | .pairs.planned == 10 and .pairs.measured == 10 and .pairs.failed == 0 and .complete'
check "5 hosts take 5 rounds (odd N)" jq_eq "$J/mesh.json" '.results[0].rounds' 5
check "each unordered pair has exactly one measured direction" jq_true "$J/mesh.json" \
	'.results[0].matrix.state as $s | [range(0;5) as $a | range($a+1;5) as $b |
	  ([$s[$a][$b], $s[$b][$a]] | map(select(. == "ok")) | length)] | all(. == 1)'
check "measured cells carry bandwidth and latency" jq_true "$J/mesh.json" \
	'.results[0].matrix as $m | [range(0;5) as $a | range(0;5) as $b | select($m.state[$a][$b] == "ok")
	  | ($m.bw_bps[$a][$b] > 0 and $m.lat_p50_ns[$a][$b] > 0)] | all'
check "unmeasured directions are null" jq_true "$J/mesh.json" \
	'.results[0].matrix as $m | [range(0;5) as $a | range(0;5) as $b | select($m.state[$a][$b] != "ok")
	  | $m.bw_bps[$a][$b] == null] | all'
check "the mesh warns that the agents run without a token" grep -q "WARNING: 5 agent(s) run without a token" "$J/mesh.err"
schema_check "$J/mesh.json"
# The saved mesh, shown again as the mesh printed it.
"$IXPERF" report "$J/mesh.json" >"$J/mesh.txt" 2>"$J/report.err"
check "ixperf report of the saved mesh exits 0" test "$?" = 0
check "it shows the header, both matrices and a row per host" bash -c \
	"grep -q '^ixperf mesh: 5 hosts, 5 rounds, 10 of 10 pairs measured' '$J/mesh.txt' &&
	 grep -qE '^Bandwidth in [KMGT]?bit/s \(row sends to column' '$J/mesh.txt' &&
	 grep -q '^Latency p50, one-way' '$J/mesh.txt' &&
	 [ \$(grep -cE '^[0-4] +127\\.0\\.0\\.1:[0-9]+ ' '$J/mesh.txt') = 5 ]"
check "it counts the bad pairs the document lists, with their reasons" bash -c \
	"grep -q \"^\$(jq '.results[0].bad_pairs | length' '$J/mesh.json') bad pair(s)\" '$J/mesh.txt' &&
	 jq -r '.results[0].bad_pairs[].reason' '$J/mesh.json' | while read -r why; do
		grep -qF -- \"\$why\" '$J/mesh.txt' || exit 1; done"

"$IXPERF" mesh --test lat -n 200 -w 0 --both-directions --concurrency 1 -J "$HOSTS" >"$J/meshlat.json" 2>/dev/null
check "--both-directions measures all 20 ordered pairs" jq_true "$J/meshlat.json" \
	'.results[0] | .pairs.planned == 20 and .pairs.measured == 20'
check "a latency-only mesh has no bandwidth" jq_true "$J/meshlat.json" \
	'[.results[0].matrix.bw_bps[][] | select(. != null)] | length == 0'

# --- Incast on loopback: stream and synchronised reads. ------------------------
"$IXPERF" incast -t 0.5 -w 0.1 --sweep 1,2,4 -J "$HOSTS" >"$J/incast.json" 2>/dev/null
check "incast stream sweep exits 0" test "$?" = 0
check "three steps with 1, 2, 4 flows" jq_true "$J/incast.json" \
	'[.results[0].steps[] | (.flows | length)] == [1,2,4]'
check "aggregate goodput is the sum of the flows" jq_true "$J/incast.json" \
	'[.results[0].steps[] | ((.goodput_bps - ([.flows[].bps] | add)) | fabs) < 1e-6 * .goodput_bps] | all'
check "Jain's index lies in [1/n, 1]" jq_true "$J/incast.json" \
	'[.results[0].steps[] | .jain >= (1 / (.flows | length)) - 1e-9 and .jain <= 1 + 1e-9] | all'
check "the sweep ends with a diagnosis" jq_true "$J/incast.json" '.results[0].diagnosis | test("N=")'
schema_check "$J/incast.json"
"$IXPERF" incast --mode read --sru 32Ki --rounds 40 --sweep 1,4 -J "$HOSTS" >"$J/read.json" 2>/dev/null
# A round fails only past the 5 s round timeout: loopback rounds of 32 KiB
# take well under a millisecond, tens with every core busy.
check "synchronised reads exit 0" test "$?" = 0
check "every round of every step is measured" jq_true "$J/read.json" \
	'[.results[0].steps[] | .read.rounds == 40 and .read.bytes == 40 * 32768 * .senders] | all'
check "round times are ordered" jq_true "$J/read.json" \
	'[.results[0].steps[].read.round_ns | .min <= .p50 and .p50 <= .p99 and .p99 <= .max] | all'
schema_check "$J/read.json"
for doc in incast read; do
	"$IXPERF" report "$J/$doc.json" >"$J/$doc.txt" 2>/dev/null
	check "ixperf report of the saved $doc sweep shows its steps and diagnosis" bash -c \
		"grep -q '^ Senders  ' '$J/$doc.txt' &&
		 grep -qF \"Diagnosis: \$(jq -r '.results[0].diagnosis' '$J/$doc.json')\" '$J/$doc.txt'"
done
# Thresholds: one no loopback can reach fails the sweep with exit 4, each
# step that missed it named with its figure; one every step holds passes.
"$IXPERF" incast -t 0.3 -w 0.1 --sweep 1,2 --min-goodput 100Tbit -J "$HOSTS" >"$J/thr.json" 2>/dev/null
check "an incast below the goodput it was given exits 4" test "$?" = 4
check "every step is named with its goodput" jq_true "$J/thr.json" \
	'.results[0].thresholds.min_goodput_bps == 1e14 and
	 (.results[0].thresholds.failed | length == 2 and
	  (.[0] | test("^N=1: goodput [0-9.]+ [GM]bit/s < 100000.00 Gbit/s$")))'
schema_check "$J/thr.json"
"$IXPERF" incast -t 0.3 -w 0.1 --sweep 1,2 --min-goodput 100Tbit "$HOSTS" >"$J/thr.txt" 2>/dev/null
check "the text says which threshold failed" grep -q "^FAIL threshold: N=2: goodput" "$J/thr.txt"
"$IXPERF" incast --mode read --sru 16Ki --rounds 20 --sweep 1,2 --max-stalled 20 -J "$HOSTS" \
	>"$J/thr-ok.json" 2>/dev/null
check "thresholds every step holds: exit 0, judged, nothing failed" test "$?" = 0 -a \
	"$(jq -c '.results[0].thresholds | [.max_stalled, .failed]' "$J/thr-ok.json")" = '[20,[]]'
"$IXPERF" incast --mode read --min-jain 0.9 "$HOSTS" >/dev/null 2>"$J/jain.err"
check "a fairness threshold on synchronised reads is refused (exit 2)" \
	bash -c "test $? = 2 && grep -q 'min-jain applies to stream mode only' '$J/jain.err'"
# -J on a failure: still one document, marked incomplete with its error,
# that the schema accepts (a port nobody listens on: the last agent's + 1).
dead=127.0.0.1:$((${HOSTS##*:} + 1))
for cmd in "bw -t 0.2 -p ${dead##*:} 127.0.0.1" "lat -n 5 -p ${dead##*:} 127.0.0.1" \
	"mesh --test lat -n 5 $dead,${HOSTS%%,*}" "run $J/no-such-plan.ini"; do
	name=${cmd%% *}
	# shellcheck disable=SC2086
	"$IXPERF" $cmd -J >"$J/fail-$name.json" 2>/dev/null
	check "$name -J on a failure writes a document saying so" jq_true "$J/fail-$name.json" \
		'.complete == false and (.error | type) == "string"'
	schema_check "$J/fail-$name.json"
done
"$IXPERF" incast --mode read --path udp "$HOSTS" >/dev/null 2>"$J/readudp.err"
check "synchronised reads over UDP are refused (exit 2)" test "$?" = 2
"$IXPERF" incast --sweep 1,9 "$HOSTS" >/dev/null 2>"$J/sweep.err"
check "a sweep beyond the senders is refused naming the limit" grep -q "out of range \[1, 4\]" "$J/sweep.err"

# --- Authentication. -----------------------------------------------------------
# A client with a token never falls back to none (an agent without one).
"$IXPERF" lat -n 10 -w 0 --token-file "$TOK" -p "${HOSTS##*:}" 127.0.0.1 >/dev/null 2>"$J/downgrade.err"
check "a client with a token refuses an agent without one (exit 1)" test "$?" = 1
check "and says why" grep -q "runs without a token, but one was given: refused" "$J/downgrade.err"
agents sec 3 --token-file "$TOK"
"$IXPERF" mesh --test lat -n 100 -w 0 --token-file "$TOK" -J "$HOSTS" >"$J/auth.json" 2>"$J/auth.err"
check "with the token the mesh runs" jq_true "$J/auth.json" '.results[0].complete'
check "no warning when every agent has a token" bash -c "! grep -q WARNING '$J/auth.err'"
"$IXPERF" mesh --test lat -n 100 "$HOSTS" >/dev/null 2>"$J/noauth.err"
check "without a token: exit 1" test "$?" = 1
check "without a token: the agents say they need one" grep -q "requires the shared token" "$J/noauth.err"
printf 'wrong-token-for-tests\n' >"$J/wrong"
chmod 600 "$J/wrong"
"$IXPERF" mesh --test lat -n 100 --token-file "$J/wrong" "$HOSTS" >/dev/null 2>"$J/wrong.err"
check "a wrong token: exit 1, the agent's proof fails" grep -q "did not prove the shared token" "$J/wrong.err"
"$IXPERF" lat -n 100 --token-file "$TOK" -p "${HOSTS##*:}" 127.0.0.1 >/dev/null 2>&1
check "bw/lat clients authenticate with --token-file" test "$?" = 0
"$IXPERF" lat -n 100 -p "${HOSTS##*:}" 127.0.0.1 >/dev/null 2>"$J/latnotok.err"
check "a client without the token is refused" grep -q "requires the shared token" "$J/latnotok.err"
cp "$TOK" "$J/loose"
chmod 644 "$J/loose"
"$IXPERF" mesh --token-file "$J/loose" "$HOSTS" >/dev/null 2>"$J/loose.err"
check "a token file others can read is refused (exit 2)" test "$?" = 2
check "the refusal says chmod 600" grep -q "chmod 600" "$J/loose.err"
# A forged AUTH with a replayed MAC on a fresh connection is refused.
p=${HOSTS##*:}
timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$p
printf 'IXPF\x00\x01\x00\x01\x00\x00\x00\x4c{\"nonce\":\"%s\"}' \$(printf '0%.0s' {1..64}) >&3
sleep 0.3
printf 'IXPF\x00\x01\x00\x0c\x00\x00\x00\x4a{\"mac\":\"%s\"}' \$(printf 'a%.0s' {1..64}) >&3
cat <&3" >"$J/forged.out" 2>/dev/null
check "a forged MAC is refused" grep -aq "authentication failed" "$J/forged.out"
check "the agents logged the refusals" grep -q "refused: authentication failed" "$IX_TMP/sec3.err"
# A relay holding no token passes a real client's handshake through, then
# sends its own RUN on the authenticated session: every frame after AUTH
# carries a tag keyed from the handshake, so the RUN is refused.
cat >"$J/relay.py" <<'PY'
import os, select, socket, struct, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import frame
AUTH_OK, RUN = 13, 16
agent_port = int(sys.argv[1])
lst = socket.socket()
lst.bind(("127.0.0.1", 0))
lst.listen(1)
print(lst.getsockname()[1], flush=True)
cli, _ = lst.accept()
ag = socket.create_connection(("127.0.0.1", agent_port))
buf, injected = b"", False
while True:
    r, _, _ = select.select([cli, ag], [], [], 10)
    if not r:
        break
    for s in r:
        d = s.recv(65536)
        if not d:
            sys.exit(0)
        (ag if s is cli else cli).sendall(d)
        if s is ag and not injected:
            buf += d
            while len(buf) >= 12:
                t, n = struct.unpack(">HI", buf[6:12])
                if len(buf) < 12 + n:
                    break
                buf = buf[12 + n:]
                if t == AUTH_OK:
                    ag.sendall(frame(RUN, {"kind": "bw", "delay_us": 0, "targets": [
                        {"host": "127.0.0.1", "port": 9}], "bw": {}}))
                    injected = True
                    print("injected", flush=True)
PY
python3 "$J/relay.py" "$p" >"$J/relay.out" 2>&1 &
relay=$!
IX_PIDS+=("$relay")
for _ in $(seq 1 50); do [ -s "$J/relay.out" ] && break; sleep 0.1; done
"$IXPERF" lat -n 2000 -w 0 --token-file "$TOK" -p "$(head -1 "$J/relay.out")" 127.0.0.1 >/dev/null 2>&1
wait "$relay" 2>/dev/null
check "the relay injected its RUN after AUTH_OK" grep -q injected "$J/relay.out"
check "the agent refused the injected frame" grep -q "wrong on an authenticated connection\|without its tag on an authenticated connection" "$IX_TMP/sec3.err"
check "and ran no RUN" bash -c "! grep -q 'RUN bandwidth' '$IX_TMP/sec3.err'"

# --- An agent dies mid-mesh: its pairs fail, the rest completes. ----------------
agents doomed 4
victim=${APIDS[2]}
"$IXPERF" mesh --test bw -t 1 -w 0 --no-retest -J "$HOSTS" >"$J/dead.json" 2>"$J/dead.err" &
mpid=$!
IX_PIDS+=("$mpid")
# Four agents take three rounds of at least 1 s, the victim in each: at
# 1.5 s it still has pairs to fail, however slow the machine.
sleep 1.5
kill -KILL "$victim"
wait "$victim" 2>/dev/null
wait "$mpid"
check "a mesh with a dead agent exits 1" test "$?" = 1
check "the dead agent is marked with a reason" jq_true "$J/dead.json" \
	'.results[0].nodes[2].error != null and ([.results[0].nodes[] | select(.error != null)] | length) == 1'
check "pairs among the live agents were all measured" jq_true "$J/dead.json" \
	'.results[0].matrix.state as $s | [0,1,3] as $live | [$live[] as $a | $live[] as $b | select($a < $b)
	  | ([$s[$a][$b], $s[$b][$a]] | map(select(. == "ok")) | length)] | all(. == 1)'
check "the JSON still holds everything measured" jq_true "$J/dead.json" \
	'(.complete | not) and .results[0].pairs.measured >= 3 and .results[0].pairs.failed >= 1'
"$IXPERF" report "$J/dead.json" >"$J/dead.txt" 2>/dev/null
check "ixperf report of it names the dead agent's error and the failed pairs" bash -c \
	"grep -qF \"\$(jq -r '.results[0].nodes[2].error' '$J/dead.json')\" '$J/dead.txt' &&
	 grep -qE '^(FAILED|INCOMPLETE): ' '$J/dead.txt' && grep -q ' x ' '$J/dead.txt'"

ix_done
