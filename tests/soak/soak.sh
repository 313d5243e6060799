#!/usr/bin/env bash
# Soak: one agent serves mixed clients for SOAK_SECONDS (default 120):
# normal bw and lat tests, idle and half-open connections, hostile frames,
# clients killed mid-test. After a warm-up quarter its memory, descriptors
# and threads are taken as the baseline; at the end, once the last
# sessions have timed out, it must be back to them (memory within 10 %
# and 16 MiB: glibc keeps freed blocks in its arenas, a leak grows with
# every round), and a normal bw and lat must still measure.
#
#   SOAK_SECONDS=1200 tests/soak/soak.sh      (make soak)
. "${top_srcdir:-.}/tests/lib.sh"

SECONDS_TOTAL=${SOAK_SECONDS:-120}
J=$IX_TMP
ix_server soak --idle-timeout 3 --silence-timeout 3 || exit 99
A=$IX_SPID
P=$IX_PORT

cat >"$J/hostile.py" <<'PY'
"""One round of bad peers: idle, half-open, hostile frames."""
import os, socket, struct, sys, time
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import ATTACH, HELLO, TEST, frame, hello, recv

port = int(sys.argv[1])


def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    return s


held = []
for _ in range(10):                       # idle: never say anything
    held.append(conn())
for _ in range(5):                        # half-open: HELLO, then silence
    s = conn()
    try:
        hello(s)
    except Exception:
        pass
    held.append(s)
bad = [b"\x01\x02garbage\xff",
       struct.pack(">IHHI", 0x49585046, 1, TEST, 0x40000000),
       frame(TEST, b"[" * 60 + b"]" * 60),
       frame(TEST, b"{" + b",".join(b'"k%d":{}' % i for i in range(5000)) + b"}"),
       frame(ATTACH, {"cookie": "0" * 32, "stream": 1 << 40}),
       frame(HELLO, {"host": "x\n" * 50, "version": "0", "protocol": 1, "nonce": "zz"})]
for b in bad:
    try:
        s = conn()
        s.sendall(b)
        s.settimeout(2)
        recv(s)
        s.close()
    except Exception:
        pass
time.sleep(1.5)
for s in held:
    s.close()
PY

status() { # RSS_KB FDS THREADS of the agent
	echo "$(awk '/^VmRSS/ { print $2 }' "/proc/$A/status") $(ls "/proc/$A/fd" | wc -l) $(awk '/^Threads/ { print $2 }' "/proc/$A/status")"
}

round() {
	"$IXPERF" bw -t 1 -w 0 -P 2 -p "$P" 127.0.0.1 >/dev/null 2>&1 &
	local b=$!
	"$IXPERF" lat -n 500 -w 0 -p "$P" 127.0.0.1 >/dev/null 2>&1 &
	local l=$!
	"$IXPERF" bw -t 5 -w 0 -p "$P" 127.0.0.1 >/dev/null 2>&1 &
	local k=$!
	python3 "$J/hostile.py" "$P" >/dev/null 2>&1 &
	local h=$!
	sleep 1
	kill -9 "$k" 2>/dev/null # a client killed mid-test
	wait "$b" "$l" "$k" "$h" 2>/dev/null
	rounds=$((rounds + 1))
}

settle() { # until no session is left (the agent's threads: main only) or 20 s
	for _ in $(seq 1 40); do
		[ "$(awk '/^Threads/ { print $2 }' "/proc/$A/status")" -le 1 ] && return
		sleep 0.5
	done
}

rounds=0
start=$(date +%s)
warm_end=$((start + SECONDS_TOTAL / 4))
while [ "$(date +%s)" -lt "$warm_end" ]; do round; done
settle
read -r rss0 fd0 th0 <<<"$(status)"
echo "# after warm-up ($rounds rounds): RSS $rss0 KiB, $fd0 descriptors, $th0 threads"
while [ "$(date +%s)" -lt $((start + SECONDS_TOTAL)) ]; do round; done
settle
read -r rss1 fd1 th1 <<<"$(status)"
echo "# at the end ($rounds rounds in $(($(date +%s) - start)) s): RSS $rss1 KiB, $fd1 descriptors, $th1 threads"
check "the agent survived $rounds rounds" kill -0 "$A"
check "descriptors back to the baseline ($fd1 <= $fd0)" test "$fd1" -le "$fd0"
check "threads back to the baseline ($th1 <= $th0)" test "$th1" -le "$th0"
# Both readings are taken once the sessions are gone. What a leak would
# add grows with the rounds; what malloc's arenas keep depends on how the
# sessions' threads overlapped, and stays within a few MiB (the agent sits
# near 12 MiB): 16 MiB of room for that. A leak of a session's buffers or
# stack, 1 MiB or more a round, shows past it within the 18 or so rounds
# after the warm-up; smaller leaks are LeakSanitizer's, in check-sanitize.
check "memory within 10 % and 16 MiB of the baseline ($rss1 KiB vs $rss0 KiB)" \
	test "$rss1" -le $((rss0 + rss0 / 10 + 16384))
"$IXPERF" bw -t 1 -w 0.2 -J -p "$P" 127.0.0.1 >"$J/final-bw.json" 2>"$J/final-bw.err"
check "a normal bw still measures" jq_true "$J/final-bw.json" \
	'.results[0].complete and .results[0].summary.forward.bits_per_second > 0'
"$IXPERF" lat -n 2000 -w 0 -J -p "$P" 127.0.0.1 >"$J/final-lat.json" 2>"$J/final-lat.err"
check "a normal lat still measures" jq_true "$J/final-lat.json" \
	'.results[0].complete and .results[0].samples == 2000 and .results[0].stats.p50_ns > 0'
check "the agent logged the hostile peers and carried on" grep -q "refused" "$IX_TMP/soak.err"
ix_done
