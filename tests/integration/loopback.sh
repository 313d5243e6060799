#!/usr/bin/env bash
# Loopback integration: one server, bw and lat over TCP and UDP, end to end.
. "${top_srcdir:-.}/tests/lib.sh"

ix_server main || exit 99
P=$IX_PORT
J=$IX_TMP

run() { # run NAME ARGS... -> JSON in $J/NAME.json, exit code in $J/NAME.rc
	local name=$1
	shift
	"$IXPERF" "$@" -J -p "$P" 127.0.0.1 >"$J/$name.json" 2>"$J/$name.err"
	echo $? >"$J/$name.rc"
}

rc_is() { [ "$(cat "$J/$1.rc")" = "$2" ] || { cat "$J/$1.err" >&2; return 1; }; }

# TCP, two parallel streams, intervals.
run tcp2 bw -t 2 -w 0.5 -P 2 -i 0.5
check "tcp bw exits 0" rc_is tcp2 0
check "tcp bw document is complete" jq_true "$J/tcp2.json" '.complete and .results[0].complete'
check "tcp bw carries the envelope" jq_true "$J/tcp2.json" \
	'.schema_version == 1 and .tool.name == "ixperf" and (.command_line | length) > 3 and (.host | length) > 0'
check "the result names the agent's version" jq_true "$J/tcp2.json" \
	'.results[0].server_version == .tool.version'
check "tcp bw has 2 forward streams" jq_true "$J/tcp2.json" \
	'[.results[0].streams[] | select(.direction == "forward")] | length == 2'
check "tcp bw goodput is positive" jq_true "$J/tcp2.json" '.results[0].summary.forward.bits_per_second > 1e6'
# The window's edges are taken by the receiving threads: the first receive
# after the warm-up and the last one. Each is late by however long its
# thread waits for a CPU; with every core busy a runnable thread gets a turn
# within tens of ms, so the window is 2 s give or take that. 200 ms short
# or 300 ms long is ten times it; a window with the warm-up in would be
# 2.5 s.
check "tcp bw measured window excludes warm-up" jq_true "$J/tcp2.json" \
	'.results[0].summary.forward.seconds > 1.8 and .results[0].summary.forward.seconds < 2.3'
check "tcp sender has TCP_INFO figures" jq_true "$J/tcp2.json" \
	'[.results[0].streams[].sender | .retransmits != null and .rtt_us != null and .cwnd_bytes > 0] | all'
check "tcp receiver has no datagram figures (null)" jq_true "$J/tcp2.json" \
	'.results[0].streams[0].receiver.lost == null and .results[0].streams[0].receiver.jitter_ns == null'
check "tcp bw reports CPU of both ends" jq_true "$J/tcp2.json" \
	'.results[0].cpu.local.wall_s > 0 and .results[0].cpu.remote.wall_s > 0'
# Intervals end on an absolute schedule from the test's start (0.5 s, 1.0 s,
# ...): a late sample is taken late, not lost, so the count is 5 unless the
# sampler waits half a second for a CPU.
check "tcp bw has about 5 intervals of 0.5 s" jq_true "$J/tcp2.json" \
	'(.results[0].intervals | length) >= 4 and (.results[0].intervals | length) <= 6'
# The summary counts from the receiver's first read after the warm-up, the
# intervals from the sampler's tick at 0.5 s: the two edges differ by the
# wait of either thread (tens of ms, a few percent of a 2 s window at a
# steady rate) and the interval that straddles the warm-up edge.
check "interval sums cover the summary (-10%, +30%: intervals may overlap the warm-up edge)" jq_true "$J/tcp2.json" \
	'.results[0] as $r | ([$r.intervals[] | select(.warmup | not) | .streams[].bytes] | add) as $b
	 | ($b / $r.summary.forward.bytes) > 0.9 and ($b / $r.summary.forward.bytes) < 1.3'

# Reverse and bidirectional.
run rev bw -t 1 -w 0 -R
check "reverse: the client receives" jq_true "$J/rev.json" \
	'.results[0].summary.reverse.bits_per_second > 1e6 and .results[0].summary.forward == null'
run bidir bw -t 1 -w 0 --bidir -P 2
check "bidir: 4 streams, both directions measured" jq_true "$J/bidir.json" \
	'(.results[0].streams | length) == 4 and .results[0].summary.forward.bytes > 0 and .results[0].summary.reverse.bytes > 0'

# Streams sharing threads: --threads 1 carries 4 streams in one thread at
# each end, each stream's bytes its own, exactly what --bytes splits; by
# default, on loopback, a thread each.
run mux bw -n 40Mi -w 0 -P 4 --threads 1 --bidir
check "--threads 1: one data thread per direction at each end" jq_true "$J/mux.json" \
	'.results[0].params.threads == 1 and .results[0].cpu.local.threads == 2 and .results[0].cpu.remote.threads == 2'
check "--threads 1: every stream delivers its share of 40 MiB each way" jq_true "$J/mux.json" \
	'.results[0].complete and .results[0].summary.forward.bytes == 41943040 and .results[0].summary.reverse.bytes == 41943040 and ([.results[0].streams[] | .receiver.bytes > 0] | all)'
schema_check "$J/mux.json"
run muxauto bw -t 1 -w 0 -P 3
check "loopback by default: a thread per stream at each end" jq_true "$J/muxauto.json" \
	'.results[0].params.threads == null and .results[0].cpu.local.threads == 3 and .results[0].cpu.remote.threads == 3'

# --window: window_granted is the smallest buffer either end of a stream
# was granted. 1024 bytes is below the kernel's minimums, which are larger
# for SO_SNDBUF than for SO_RCVBUF: a forward test (the server receives)
# reaches the receive buffer's figure only through the server's end, and a
# reverse test (the server sends) gets it from the client's own end.
run winf bw -t 1 -w 0 --window 1024
run winr bw -t 1 -w 0 --window 1024 -R
granted() { jq '.results[0].params.window_granted' "$J/$1.json"; }
echo "  --window 1024: granted $(granted winf) forward, $(granted winr) reverse"
check "--window -R: the granted window is reported" jq_true "$J/winr.json" \
	'.results[0].params.window == 1024 and .results[0].params.window_granted >= 1024'
check "--window forward: the server's receive buffer counts (same as -R)" \
	test "$(granted winf)" = "$(granted winr)"

# Byte count: exactly that many bytes arrive.
run bytes bw -n 50Mi -w 0
check "bytes mode delivers exactly 50 MiB" jq_eq "$J/bytes.json" '.results[0].summary.forward.bytes' 52428800

# UDP at a target rate on loopback: the rate is met. Only the pacer holds
# it (no shaper; tests/integration/netns.sh checks the accuracy through a
# tbf): a stall at an edge of the window moves the reading by its share of
# the window, so the bounds are 20%, a 400 ms stall in this 2 s window.
run udp bw --path udp -b 200M -t 2 -w 0.5
check "udp bw exits 0" rc_is udp 0
check "udp goodput within 20% of 200 Mbit/s" jq_true "$J/udp.json" \
	'(.results[0].summary.forward.bits_per_second - 2e8 | fabs) / 2e8 < 0.2'
check "udp reports loss, jitter, reordering" jq_true "$J/udp.json" \
	'.results[0].summary.forward.lost != null and .results[0].summary.forward.jitter_ns != null and .results[0].summary.forward.out_of_order != null'
check "udp reports duplicates (none on loopback), from the server's receiving end" jq_true "$J/udp.json" \
	'.results[0].summary.forward.duplicates == 0 and .results[0].streams[0].receiver.duplicates == 0'
run udprev bw --path udp -b 100M -t 1 -w 0 -R
check "udp reverse receives at the rate (within 20%, as above)" jq_true "$J/udprev.json" \
	'(.results[0].summary.reverse.bits_per_second - 1e8 | fabs) / 1e8 < 0.2'

# Size sweep.
run sweep bw -a -s 4Ki -t 0.3 -w 0
check "bw -a -s 4Ki runs 13 sizes (1 B .. 4 KiB)" jq_true "$J/sweep.json" \
	'(.results | length) == 13 and ([.results[].params.msg_size] == [1,2,4,8,16,32,64,128,256,512,1024,2048,4096])'

# Latency.
run lat lat -t 1 -w 0.2
check "tcp lat exits 0" rc_is lat 0
check "tcp lat statistics are ordered" jq_true "$J/lat.json" \
	'.results[0].stats | .min_ns <= .p50_ns and .p50_ns <= .p90_ns and .p90_ns <= .p99_ns and .p99_ns <= .p99_9_ns and .p99_9_ns <= .max_ns and .count > 100'
check "lat reports rtt/2 in ns" jq_true "$J/lat.json" '.results[0].metric == "rtt/2" and .results[0].unit == "ns"'
check "lat histogram counts every sample" jq_true "$J/lat.json" \
	'([.results[0].histogram.buckets[].count] | add) == .results[0].samples'
run latn lat --path udp -n 5000 -w 0
check "udp lat -n 5000 takes 5000 samples" jq_eq "$J/latn.json" '.results[0].samples' 5000
run latbusy lat --busy-poll -n 2000 -w 0
check "busy-poll lat works" jq_eq "$J/latbusy.json" '.results[0].samples' 2000
run latsweep lat -a -s 256 -t 0.1 -w 0
check "lat -a -s 256 runs 9 sizes" jq_eq "$J/latsweep.json" '[.results[].params.msg_size] | tostring' '[1,2,4,8,16,32,64,128,256]'

# Text output and --output.
"$IXPERF" bw -t 1 -w 0 -p "$P" 127.0.0.1 >"$J/text.out" 2>&1
check "text output has the summary table" grep -q "^forward .*bit/s" "$J/text.out"
"$IXPERF" lat -t 0.5 -J -o "$J/out.json" -p "$P" 127.0.0.1 >"$J/o.stdout" 2>&1
check "--output writes the file, stdout stays empty" \
	bash -c "[ ! -s '$J/o.stdout' ] && jq -e '.results[0].samples > 0' '$J/out.json' >/dev/null"
check "--output leaves no temporary files" bash -c "[ \$(ls '$J' | grep -c '^out.json') -eq 1 ]"

# Several clients at once on one server.
pids=()
for i in 1 2 3; do
	"$IXPERF" bw -t 1.5 -w 0 -J -p "$P" 127.0.0.1 >"$J/conc$i.json" 2>"$J/conc$i.err" &
	pids+=($!)
done
"$IXPERF" lat -t 1 -J -p "$P" 127.0.0.1 >"$J/conc4.json" 2>"$J/conc4.err" &
pids+=($!)
IX_PIDS+=("${pids[@]}")
crc=0
for pid in "${pids[@]}"; do wait "$pid" || crc=1; done
check "four concurrent clients all succeed" test "$crc" = 0
check "concurrent results are complete" bash -c \
	"for i in 1 2 3 4; do jq -e '.complete' '$J/conc'\$i.json >/dev/null || exit 1; done"

# Every document produced above validates against the published schema.
for f in "$J"/*.json; do
	schema_check "$f"
done

ix_done
