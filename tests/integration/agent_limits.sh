#!/usr/bin/env bash
# The agent under pressure: forged log lines, keep-alives, one address
# holding every session, floods of large bodies, silent tests, tests that ask for too much memory,
# running out of descriptors, and a stop while a RUN job sends traffic.
. "${top_srcdir:-.}/tests/lib.sh"

J=$IX_TMP
cat >"$J/peer.py" <<'PY'
"""Hostile peers of the agent at 127.0.0.1:PORT: python3 peer.py CASE PORT."""
import os, socket, sys, time

sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import ATTACH, ERROR, HELLO, TEST, TEST_ACK, frame, hello, recv

READY, START, PING, PONG, RUN = 6, 7, 14, 15, 16
case, port = sys.argv[1], int(sys.argv[2])


def connect(src="127.0.0.1"):
    s = socket.socket()
    s.settimeout(10)
    s.bind((src, 0))
    s.connect(("127.0.0.1", port))
    return s


if case == "forge":
    # A new line, then control sequences a terminal showing the log would
    # obey: ESC [ 2J (clear), an OSC title, C1 CSI (U+009B) and NEL (U+0085).
    s = connect()
    s.sendall(frame(HELLO, {"host": "evil\n2026-01-01 00:00:00 ixperf server: forged"
                                    "\x1b[2J\x1b]0;t\x07\u009b\u0085",
                            "version": "0\r\x1b[2J\u009bv", "protocol": 1, "nonce": "00" * 16}))
    recv(s)
    s.close()
    # C1 CSI as a raw byte, which is not UTF-8: the frame is refused with
    # an error that quotes the body before it, U+009B unescaped there. Then
    # a name whose last character the log's precision (64 bytes) cuts.
    for body in (b'{"host": "raw\xc2\x9b2J\x9b2J", "version": "0", "protocol": 1}',
                 {"host": "cut" + "a" * 60 + "\u00e9", "version": "0", "protocol": 1,
                  "nonce": "00" * 16}):
        s = connect()
        s.sendall(frame(HELLO, body))
        recv(s)
        s.close()
elif case == "keepalive":
    # PINGs every 0.3 s: the session must still end at the idle timeout.
    s = connect()
    hello(s)
    t0 = time.monotonic()
    while time.monotonic() - t0 < 8:
        try:
            s.sendall(frame(PING, {}))
            t, _ = recv(s)
        except OSError:
            t = None
        if t != PONG:
            break
        time.sleep(0.3)
    print("closed after %.1f s" % (time.monotonic() - t0))
elif case == "flood":
    # N sessions from ten addresses at once, each sending one large PING of
    # small values and containers, as many as the agent's bounds let
    # through; before HELLO a stranger may not send it at all.
    body = b'{"a":[' + b"{}," * 4000 + b"1," * 12000 + b"1]}"
    s = connect()
    s.sendall(frame(HELLO, body))
    t, b = recv(s)
    print("first frame: %s" % (b or {}).get("error"))
    s.close()
    conns = []
    for i in range(int(sys.argv[3])):
        s = connect("127.0.0.%d" % (2 + i % 10))
        hello(s)
        conns.append(s)
    for s in conns:
        s.sendall(frame(PING, body))
    answered = 0
    for s in conns:
        try:
            t, _ = recv(s)
            answered += t == PONG
        except (OSError, ValueError):
            pass
        s.close()
    print("answered %d" % answered)
elif case == "sessions":
    # Six sessions from one address against --max-sessions 4: two refused.
    held, refused = [], 0
    for _ in range(6):
        s = connect()
        s.sendall(frame(HELLO, {"host": "h", "version": "0", "protocol": 1,
                                "nonce": "00" * 16}))
        t, b = recv(s)
        if t == ERROR and "too many sessions" in b.get("error", ""):
            refused += 1
        else:
            held.append(s)
    print("refused %d" % refused)
    sys.stdout.flush()
    # Held while the shell runs a test from another address.
    time.sleep(float(sys.argv[3]))
elif case == "silent":
    # A lat test whose client attaches, starts, then never sends.
    ctl = connect()
    hello(ctl)
    ctl.sendall(frame(TEST, {"kind": "lat", "lat": {"path": "tcp", "msg_size": 64,
                                                    "iters": 1000, "duration": 0,
                                                    "warmup": 0, "busy_poll": False,
                                                    "timeout": 1}}))
    t, ack = recv(ctl)
    assert t == TEST_ACK, (t, ack)
    d = connect()
    d.sendall(frame(ATTACH, {"cookie": ack["cookie"], "stream": 0}))
    t, _ = recv(ctl)
    assert t == READY, t
    ctl.sendall(frame(START, {}))
    t0 = time.monotonic()
    ctl.settimeout(30)
    t, b = recv(ctl)
    print("after %.1f s: %s" % (time.monotonic() - t0, (b or {}).get("error", t)))
elif case == "idle":
    # Many connections that never say anything.
    conns = [connect() for _ in range(int(sys.argv[3]))]
    print("open %d" % len(conns))
    sys.stdout.flush()
    time.sleep(float(sys.argv[4]))
PY
peer() { python3 "$J/peer.py" "$@"; }

# --- Peers name things that reach the log: no forged lines. ----------------
ix_server forge || exit 99
peer forge "$IX_PORT"
ix_wait_log "$J/forge.err" "cutaaa" || exit 99
check "the forged line is not a line of its own" bash -c "! grep -q '^2026-01-01 00:00:00 ixperf server: forged' '$J/forge.err'"
check "the control characters are shown as '?'" grep -q 'evil?2026-01-01' "$J/forge.err"
check "ESC, an OSC title and C1 in the host and version are shown as '?'" grep -qF \
	"forged?[2J?]0;t???, ixperf 0??[2J?v)" "$J/forge.err"
check "and so in the error that quotes a frame that is not UTF-8" grep -qF \
	"unable to decode byte 0x9b near '\"raw?2J'" "$J/forge.err"
check "the log holds no C0 control but its new lines, and no DEL" bash -c \
	"! LC_ALL=C grep -qaP '[\\x00-\\x08\\x0b-\\x1f\\x7f]' '$J/forge.err'"
check "nor C1 as UTF-8 (U+0080-U+009F)" bash -c "! LC_ALL=C grep -qaP '\\xc2[\\x80-\\x9f]' '$J/forge.err'"
check "nor raw C1 CSI (0x9b)" bash -c "! LC_ALL=C grep -qaP '\\x9b' '$J/forge.err'"
check "the log is UTF-8 throughout, a name cut by the log's precision too" bash -c \
	"iconv -f UTF-8 -t UTF-8 '$J/forge.err' >/dev/null && grep -qE 'cuta{60}\\?, ixperf 0\\)' '$J/forge.err'"

# --- PINGs do not keep a session without a test open. -----------------------
ix_server keepalive --idle-timeout 2 || exit 99
peer keepalive "$IX_PORT" >"$J/keepalive.out"
echo "# keepalive: $(cat "$J/keepalive.out")"
# The idle timer is the deadline of the agent's poll: it ends the session
# at 2 s plus the time the agent waits to be scheduled, which 5 s of room
# covers on any loaded machine; a PING that kept the session would reach 8.
check "a session that only PINGs is closed at --idle-timeout 2 s (before 8 s)" \
	awk '/closed after/ { exit !($3 < 7) }' "$J/keepalive.out"

# --- Large bodies from many connections at once: parsing is bounded. -------
ix_server flood || exit 99
hwm() { awk '/^VmHWM/ { print $2 }' "/proc/$1/status"; }
"$IXPERF" lat -n 100 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>&1
before=$(hwm "$IX_SPID")
peer flood "$IX_PORT" 300 >"$J/flood.out"
after=$(hwm "$IX_SPID")
echo "# 300 sessions x one 36 KiB PING of 16,000 values: peak RSS $before -> $after KiB ($(tr '\n' ' ' <"$J/flood.out"))"
check "a large first frame is refused before HELLO" grep -q "first frame: HELLO frame of 36009 bytes exceeds the 4096-byte limit" "$J/flood.out"
check "each session got its PONG" grep -q "answered 300" "$J/flood.out"
if ldd "$IXPERF" | grep -Eq "lib(a|t)san"; then
	# A sanitizer's allocator keeps freed memory in quarantine: the bound
	# is judged in the plain build only.
	echo "# peak memory not judged under a sanitizer"
else
	# Unbounded, 300 parses at once of 1-2 MiB each would take 300 MiB
	# or more; gated, 4 at most (test_proto.c checks the gate itself),
	# plus a 36 KiB frame and a thread's stack per session and what
	# malloc's arenas keep: 36-41 MiB over many runs here, moving with
	# how the sessions' threads overlap. 128 MiB tells the two apart
	# with room on both sides.
	check "the agent's peak memory grew by less than 128 MiB ($(((after - before) / 1024)) MiB)" \
		test $((after - before)) -lt 131072
fi
"$IXPERF" lat -n 100 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/flood-after.err"
check "and it still serves a test" test "$?" = 0

# --- One address cannot hold every session. ---------------------------------
ix_server sessions --max-sessions 4 || exit 99
peer sessions "$IX_PORT" 6 >"$J/sessions.out" &
spy=$!
IX_PIDS+=("$spy")
for _ in $(seq 1 100); do grep -q refused "$J/sessions.out" && break; sleep 0.1; done
check "sessions over --max-sessions from one address are refused" grep -q "refused 2" "$J/sessions.out"
"$IXPERF" bw -t 0.3 -w 0 -B 127.0.0.2 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/other.err"
check "another address is still served meanwhile" test "$?" = 0
kill "$spy" 2>/dev/null
wait "$spy" 2>/dev/null
check "the refusals are in the log" grep -q "refused: too many sessions from this address" "$J/sessions.err"

# --- A test that goes silent is ended, and its slot freed. ------------------
ix_server silent --silence-timeout 2 --max-tests 1 || exit 99
peer silent "$IX_PORT" >"$J/silent.out"
echo "# silent: $(cat "$J/silent.out")"
# As the idle timer above: 2 s and a turn on a CPU, against 10.
check "a started test with no traffic ends at --silence-timeout (2 s, before 10 s)" \
	awk '/nothing moved/ { exit !($2 < 10) } END { if (!NR) exit 1 }' "$J/silent.out"
"$IXPERF" lat -n 200 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/after-silent.err"
check "its slot serves the next test" test "$?" = 0
# A test the agent sends at 1 bit/s (-R): one datagram, then nothing for
# hours. The agent's own pacing stretches its silence limit to three
# message gaps, which would hold the slot past --max-duration; the stretch
# stops at six times the limit (12 s here), well before the test's 60 s.
start=$(date +%s)
"$IXPERF" bw --path udp -R -b 1 -s 1472 -t 60 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/slow.err"
rc=$? took=$(($(date +%s) - start))
echo "# 1 bit/s: exit $rc after $took s: $(head -c 200 "$J/slow.err")"
check "a test at 1 bit/s is ended by the silence floor (12 s, not 60)" bash -c \
	"[ $rc != 0 ] && [ $took -lt 30 ] && grep -q 'nothing moved for 12 s' '$J/slow.err'"

# --- Memory: a test's buffers are capped. ------------------------------------
ix_server mem --max-test-memory 64Mi --max-memory 48Mi || exit 99
"$IXPERF" bw -R -P 16 -s 64Mi -t 1 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/mem.err"
check "16 streams of 64 MiB messages are refused (exit 1)" test "$?" = 1
check "the refusal names the buffers and the limit" grep -q "1024 MiB of buffers, over this server's limit of 64 MiB per test" "$J/mem.err"
"$IXPERF" bw -P 2 -s 1Mi -t 0.3 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/mem-ok.err"
check "a test within the limits runs" test "$?" = 0
"$IXPERF" bw -P 4 -s 8Mi -t 3 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>&1 &
big=$!
IX_PIDS+=("$big")
# The big test holds its 32 MiB from the log line on (the slot is claimed
# with its buffers) for 3 s: the next client asks within that.
ix_wait_log "$J/mem.err" "bw test over tcp, 4 stream" || exit 99
"$IXPERF" bw -P 4 -s 8Mi -t 0.3 -w 0 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/mem-all.err"
check "tests together are held to --max-memory ($(cat "$J/mem-all.err"))" \
	grep -q "the running tests hold 32 MiB of buffers and this one needs 32 MiB (limit 48 MiB)" "$J/mem-all.err"
wait "$big"

# --- Memory: windows and RUN jobs count too; what the agent holds stays ---
# --- under --max-memory. -----------------------------------------------------
ix_server memw --max-memory 48Mi || exit 99
mpid=$IX_SPID
# 64 reverse streams with a 1 GiB window: the kernel books up to twice
# net.core.wmem_max and rmem_max for each socket.
"$IXPERF" bw -R -P 64 --window 1Gi -t 1 -p "$IX_PORT" 127.0.0.1 >/dev/null 2>"$J/memw.err"
rc=$?
check "64 streams with a 1 GiB window are refused (exit $rc: $(head -c 160 "$J/memw.err"))" \
	bash -c "[ $rc = 1 ] && grep -q 'MiB of buffers' '$J/memw.err'"
need=$(sed -n 's/.*this one needs \([0-9]*\) MiB.*/\1/p; s/.*test needs \([0-9]*\) MiB.*/\1/p' "$J/memw.err" | head -1)
wmax=$(cat /proc/sys/net/core/wmem_max) rmax=$(cat /proc/sys/net/core/rmem_max)
want=$(((64 * (256 * 1024 + 2 * wmax + 2 * rmax)) >> 20))
check "the windows are charged as the kernel books them ($need MiB, expected $want)" test "$need" = "$want"
# status FIELD of the agent, in KiB; the memory its sockets hold (ss -m:
# r + w + f, received, queued and forward-allocated), summed, in KiB.
vm() { awk -v f="$1:" '$1 == f { print $2 }' "/proc/$mpid/status"; }
skmem() {
	ss -tmnpH 2>/dev/null | awk -v pid="pid=$mpid," '
		/users:/ { mine = index($0, pid) > 0; next }
		mine && /skmem:/ {
			mine = 0
			if (!match($0, /skmem:\([^)]*\)/)) next
			n = split(substr($0, RSTART + 6, RLENGTH - 7), kv, ",")
			for (i = 1; i <= n; i++) {
				k = kv[i]; sub(/[0-9]+$/, "", k); v = substr(kv[i], length(k) + 1)
				if (k == "r" || k == "w" || k == "f") u += v
			}
		}
		END { printf "%d\n", u / 1024 }'
}
rss0=$(vm VmRSS)
# What fits, together: 2 reverse streams of 1 MiB messages with a 2 MiB
# window (18 MiB), and a RUN job of 4 streams of 1 MiB messages with a
# 1 MiB window towards another agent (20 MiB).
ix_server memt || exit 99
tport=$IX_PORT
"$IXPERF" bw -R -P 2 -s 1Mi --window 2Mi -t 4 -w 0 -p "$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$J/memw.out")" 127.0.0.1 >/dev/null 2>"$J/memw-ok.err" &
wpid=$!
IX_PIDS+=("$wpid")
python3 - "$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$J/memw.out")" "$tport" >"$J/memrun.out" 2>&1 <<'PY' &
import os, socket, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import frame, hello, recv
def job(streams, size, duration, window):
    s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=60)
    hello(s)
    s.sendall(frame(16, {"kind": "bw", "delay_us": 0,
                         "targets": [{"host": "127.0.0.1", "port": int(sys.argv[2])}],
                         "bw": {"path": "tcp", "msg_size": size, "streams": streams, "mode": 0,
                                "duration": duration, "warmup": 0, "interval": 0, "bytes": 0,
                                "rate": 0, "window": window, "congestion": ""}}))
    t, b = recv(s)
    s.close()
    return b
# The largest RUN job a request may carry: 128 streams of 64 MiB.
b = job(128, 64 << 20, 1, 0)
print("big: ok=%s error=%s" % (b.get("ok"), b.get("error")))
sys.stdout.flush()
b = job(4, 1 << 20, 3, 1 << 20)
print("fits: ok=%s error=%s" % (b.get("ok"), b.get("error")))
PY
rpy=$!
IX_PIDS+=("$rpy")
peak_rss=0 peak_used=0
while kill -0 "$wpid" 2>/dev/null || kill -0 "$rpy" 2>/dev/null; do
	r=$(vm VmRSS)
	[ "${r:-0}" -gt "$peak_rss" ] && peak_rss=$r
	u=$(skmem)
	[ "${u:-0}" -gt "$peak_used" ] && peak_used=$u
	sleep 0.1
done
wait "$wpid"
wrc=$?
wait "$rpy"
echo "# 48 MiB agent: RSS $rss0 -> $peak_rss KiB, its sockets held $peak_used KiB at most, locked $(vm VmLck) KiB; $(tr '\n' ' ' <"$J/memrun.out")"
check "the window test within the limit runs ($(head -c 160 "$J/memw-ok.err"))" test "$wrc" = 0
check "a RUN of 128 streams of 64 MiB is refused before it allocates" \
	grep -q "big: ok=False error=.*MiB of buffers" "$J/memrun.out"
check "a RUN within the limit runs" grep -q "fits: ok=True" "$J/memrun.out"
if ldd "$IXPERF" | grep -Eq "lib(a|t)san"; then
	# A sanitizer's allocator keeps freed memory and shadows the rest.
	check "the agent's sockets held less than --max-memory ($((peak_used / 1024)) MiB of 48)" \
		test "$peak_used" -lt $((48 * 1024))
else
	check "the agent's memory and its sockets' grew by less than --max-memory ($(((peak_rss - rss0) / 1024)) + $((peak_used / 1024)) MiB of 48)" \
		test $((peak_rss - rss0 + peak_used)) -lt $((48 * 1024))
fi
check "nothing of it is locked" test "$(vm VmLck)" = 0

# --- Out of descriptors: no spinning. --------------------------------------
bash -c "ulimit -n 32 && exec '$IXPERF' server -p 0" >"$J/fd.out" 2>"$J/fd.err" &
fdpid=$!
IX_PIDS+=("$fdpid")
port=$(ix_wait_port "$J/fd.out" "$fdpid") || exit 99
fds0=$(ls "/proc/$fdpid/fd" | wc -l)
peer idle "$port" 60 3 >"$J/idle.out" 2>&1 &
idle=$!
IX_PIDS+=("$idle")
ix_wait_log "$J/idle.out" "^open 60" || exit 99
t0=$(awk '{ print $14 + $15 }' "/proc/$fdpid/stat")
sleep 2
t1=$(awk '{ print $14 + $15 }' "/proc/$fdpid/stat")
hz=$(getconf CLK_TCK)
cpu=$(echo "scale=2; ($t1 - $t0) / $hz" | bc)
echo "# agent CPU over 2 s with 60 idle connections and 32 descriptors: $cpu s"
# A spinning agent takes a CPU-second per second (a third of one even on a
# saturated machine); a waiting one almost nothing.
check "it does not spin when out of descriptors ($cpu CPU-s in 2 s)" test "$(echo "$cpu < 0.5" | bc)" = 1
wait "$idle"
# The agent has closed what the idle peer held once it is back to the
# descriptors it had before.
fds_back() { [ "$(ls "/proc/$fdpid/fd" | wc -l)" -le "$fds0" ]; }
ix_wait_for 20 fds_back || exit 99
"$IXPERF" lat -n 100 -w 0 -p "$port" 127.0.0.1 >/dev/null 2>"$J/fd-after.err"
check "and serves a test once they are gone" test "$?" = 0

# --- Idle connections cannot lock out an authenticated client. -------------
# 96 descriptors: room for 16 connections, 12 of them for connections that
# have not proved the token. 30 idle ones from one address take those 12
# (the rest are refused); once they have stalled a second, a client with
# the token still gets in (the oldest stalled ones are closed for it) and
# a test already running with the token is not disturbed.
T=$J/token
head -c 32 /dev/urandom | base64 >"$T"
chmod 600 "$T"
bash -c "ulimit -n 96 && exec '$IXPERF' server -p 0 --token-file '$T'" >"$J/share.out" 2>"$J/share.err" &
spid=$!
IX_PIDS+=("$spid")
port=$(ix_wait_port "$J/share.out" "$spid") || exit 99
"$IXPERF" bw -t 4 -w 0 --token-file "$T" -p "$port" 127.0.0.1 >/dev/null 2>"$J/share-bw.err" &
sbw=$!
IX_PIDS+=("$sbw")
ix_wait_log "$J/share.err" "bw test over tcp" || exit 99
peer idle "$port" 30 4 >"$J/share-idle.out" 2>&1 &
idle=$!
IX_PIDS+=("$idle")
ix_wait_log "$J/share-idle.out" "^open 30" || exit 99
sleep 1.5
"$IXPERF" lat -n 200 -w 0 --token-file "$T" -p "$port" 127.0.0.1 >/dev/null 2>"$J/share-lat.err"
check "a client with the token gets in past 30 idle connections ($(head -c 160 "$J/share-lat.err"))" test "$?" = 0
wait "$sbw"
check "the test that was running with the token ends well ($(head -c 160 "$J/share-bw.err"))" test "$?" = 0
check "connections past the unauthenticated share were refused, naming it" \
	grep -q "too many connections not yet authenticated" "$J/share.err"
check "stalled connections were closed to make room, and logged" \
	grep -q "closed: stalled in its handshake while connections were short" "$J/share.err"
wait "$idle"
kill -TERM "$spid"
wait "$spid"
check "its stop line counts the stalled connections it closed ($(grep 'stopped after' "$J/share.err"))" \
	grep -Eq "stopped after .*, [1-9][0-9]* stalled connection\(s\) closed" "$J/share.err"

# --- A stop while a RUN job sends traffic. ---------------------------------
ix_server target || exit 99
tport=$IX_PORT
ix_server runner || exit 99
rpid=$IX_SPID
python3 - "$IX_PORT" "$tport" >"$J/run.out" 2>&1 <<'PY' &
import os, socket, sys
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import frame, hello, recv
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
hello(s)
s.sendall(frame(16, {"kind": "bw", "delay_us": 0,
                     "targets": [{"host": "127.0.0.1", "port": int(sys.argv[2])}],
                     "bw": {"path": "tcp", "msg_size": 131072, "streams": 1, "mode": 0,
                            "duration": 20, "warmup": 0, "interval": 0, "bytes": 0,
                            "rate": 0, "window": 0, "congestion": ""}}))
t, b = recv(s)
print(t, b)
PY
coord=$!
IX_PIDS+=("$coord")
# The RUN sends once the target took its test; the stop comes 1 s into it.
ix_wait_log "$J/target.err" "bw test over tcp" || exit 99
sleep 1
ix_signal_wait TERM "$rpid" "$rpid"
# Stopping cancels the RUN's stream at once (it is woken, not polled): 10 s
# is room for a loaded machine, half the RUN's 20 s.
check "an agent stopped mid-RUN exits 0 ($IX_RC) within 10 s (${IX_TOOK} s)" test "$IX_RC" = 0 -a "$(echo "$IX_TOOK < 10" | bc)" = 1
check "the RUN ran until the stop ($(cat "$J/run.out"))" grep -q "stopped: the agent is shutting down" "$J/run.out"
check "the log names the RUN's target" grep -q "RUN bandwidth test towards a peer towards 127.0.0.1:$tport" "$J/runner.err" ||
	cat "$J/runner.err"
wait "$coord"

ix_done
