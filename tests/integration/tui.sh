#!/usr/bin/env bash
# The live views under tmux: 'ixperf mesh --live' over loopback agents (one
# of them slow, so bad pairs and a suspect node show), its keys, stopping
# it midway, monochrome and 8-colour terminals, 80x24, a resize,
# 'ixperf top --mesh' on the state file (a host name with control
# sequences in one) and on a collective's result, 'ixperf top' itself (its
# fabric counters too), and 'ixperf top --topo' on saved trees.
. "${top_srcdir:-.}/tests/lib.sh"

command -v tmux >/dev/null || ix_skip "tmux is not installed (contrib/setup.sh installs it)"
J=$IX_TMP
NSESS=0
SOCK=$J/tmux.0.sock
T() { tmux -S "$SOCK" "$@"; }

# screen [-e]: the pane as text (with -e, its colours as escapes).
screen() { T capture-pane -p "$@" -t ix; }
# no_tags: no row of the pane names a problem.
no_tags() { ! screen | grep -qE 'DOWNTRAINED|AER|PORT DOWN'; }
# rows_tagged ERE N: exactly N rows of the pane match ERE.
rows_tagged() { [ "$(screen | grep -cE "$1")" = "$2" ]; }
# wait_screen PATTERN [SECONDS]: until the pane matches the extended regexp.
wait_screen() {
	local i
	for ((i = 0; i < ${2:-20} * 10; i++)); do
		screen | grep -qE "$1" && return 0
		sleep 0.1
	done
	echo "  screen never showed /$1/; it shows:" >&2
	screen | sed 's/^/  | /' >&2
	return 1
}
# start W H ENV... -- CMD...: a fresh tmux session running CMD, whose exit
# status lands in $J/rc.
start() {
	local w=$1 h=$2 env=()
	shift 2
	while [ "$1" != -- ]; do env+=("$1"); shift; done
	shift
	rm -f "$J/rc"
	# A fresh server on a fresh socket: one being killed may linger.
	T kill-server 2>/dev/null
	NSESS=$((NSESS + 1))
	SOCK=$J/tmux.$NSESS.sock
	T -f /dev/null new-session -d -s ix -x "$w" -y "$h" \
		"env ${env[*]} $* 2>$J/stderr; echo \$? >$J/rc; sleep 600" || return 1
	IX_PIDS+=("$(T display -p -t ix '#{pid}')" "$(T display -p -t ix '#{pane_pid}')")
	T set -g window-size manual 2>/dev/null
}
# pane_lacks PATTERN: no line of the pane matches.
pane_lacks() { ! screen | grep -qE "$1"; }
# escapes_match PATTERN: the pane with its colours as escapes matches.
escapes_match() { screen -e | grep -qE "$1"; }
escapes_lack() { ! screen -e | grep -qE "$1"; }
# fits COLUMNS: no line of the pane is wider.
fits() {
	local line
	while IFS= read -r line; do
		[ "$(printf '%s' "$line" | LC_ALL=C.UTF-8 wc -m)" -le "$1" ] || return 1
	done < <(screen)
}
# exits_with STATUS [SECONDS]: the command in the pane ended with STATUS.
exits_with() { wait_exit "${2:-5}" && [ "$(cat "$J/rc")" = "$1" ]; }
ESC=$'\e'
wait_exit() {
	local i
	for ((i = 0; i < ${1:-20} * 10; i++)); do
		[ -s "$J/rc" ] && return 0
		sleep 0.1
	done
	return 1
}

# Six agents; the last one paces every test it serves to 200 Mbit/s. Its
# pairs are bad when the others' median stays above 286 Mbit/s: loopback
# TCP between two processes keeps well over that (tens of Gbit/s idle,
# Gbit/s with both cores busy), so the slow agent is found on a loaded
# machine too.
HOSTS=
for i in 1 2 3 4 5 6; do
	if [ "$i" = 6 ]; then ix_server "a$i" --max-rate 200M || exit 99; else ix_server "a$i" || exit 99; fi
	HOSTS="${HOSTS:+$HOSTS,}127.0.0.1:$IX_PORT"
	SLOW=127.0.0.1:$IX_PORT
done
FIRST=${HOSTS%%,*}
SECOND=$(echo "$HOSTS" | cut -d, -f2)
MESH=("$IXPERF" mesh --live -t 0.4 -w 0.05 --state "$J/state.json" -J -o "$J/mesh.json" "$HOSTS")

# --- 256 colours, UTF-8: the heatmap fills in while it is measured. ---------
start 120 40 LANG=C.UTF-8 TERM=xterm-256color -- "${MESH[@]}"
check "the status line counts rounds and estimates the time left" \
	wait_screen '^ixperf mesh  6 hosts  bandwidth  round [1-4]/5 .* elapsed  ~[0-9:]+ left' 15
check "pending cells show while the mesh runs" wait_screen '··' 1
check "the legend names every mark" \
	wait_screen 'bit/s .* pending  XX failed  !! bad  S suspect' 1
check "cells are drawn with 256-colour backgrounds" escapes_match '48;5;(196|46|82|118)m'
check "the mesh finishes on screen" wait_screen 'done, rounds 5/5' 40
check "the slow agent's row holds bad pairs" wait_screen "^${SLOW}S? .*!!" 1
check "bad pairs are marked in the matrix" wait_screen '!!' 1
screen >"$J/final.txt"
check "no pending cell is left in the matrix" pane_lacks '^127\.0\.0\.1:[0-9]+S? .*··'
T send-keys -t ix Right
check "the cursor moves right and its line shows the pair and its value" \
	wait_screen "^$FIRST -> $SECOND: [0-9.]+ [KMG]?bit/s  p50 [0-9.]+ [nu]s" 3
T send-keys -t ix l
check "l switches to latency" wait_screen '^ixperf mesh  6 hosts  latency p50' 3
check "the latency legend is in time units" wait_screen '^>[0-9.]+ [nu]s .* [0-9.]+ [nu]s ' 1
T send-keys -t ix -- -
check "- zooms out into blocks of 2 x 2" wait_screen 'block of 2 x 2' 3
T send-keys -t ix +
check "+ zooms back in; the cursor kept its pair" wait_screen "^$FIRST -> $SECOND: [0-9.]+ [KMG]?bit/s" 3
T send-keys -t ix b
check "b switches back to bandwidth" wait_screen '^ixperf mesh  6 hosts  bandwidth' 3
T resize-window -t ix -x 80 -y 24
check "a resize redraws the screen at the new size" wait_screen '^arrows move  b bandwidth' 3
check "after the resize no line is wider than 80 columns" fits 80
T send-keys -t ix q
check "q leaves the view" wait_exit 10
check "the mesh exits 4: bad pairs were found" test "$(cat "$J/rc" 2>/dev/null)" = 4
check "the results are saved, complete" jq_true "$J/mesh.json" \
	'.complete and .results[0].complete and .results[0].pairs.measured == 15'
# The screen showed what the results say.
check "the status line counted the bad pairs of the results" \
	grep -q "  $(jq '.results[0].bad_pairs | length' "$J/mesh.json") bad" "$J/final.txt"
marked=$(sed -n 's/^\(127\.0\.0\.1:[0-9]*\)S .*/\1/p' "$J/final.txt" | sort | paste -sd,)
check "the rows marked S are the results' suspect nodes ($marked)" \
	test "$marked" = "$(jq -r '.results[0].suspects | sort | join(",")' "$J/mesh.json")"
schema_check "$J/mesh.json"
check "the state file holds the final matrix" jq_true "$J/state.json" \
	'.progress.done and .progress.batches == 5 and .results[0].pairs.measured == 15'
schema_check "$J/state.json"

# --- top --mesh on the state file shows the same heatmap. -------------------
start 120 40 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --mesh "$J/state.json"
check "top --mesh shows the finished mesh" wait_screen '^ixperf mesh  6 hosts  bandwidth  done, rounds 5/5' 5
check "top --mesh marks the suspect node" wait_screen "${SLOW}S" 1
# f: the same mesh as a fabric (its groups come from live figures here;
# a crafted mesh below checks what it draws).
T send-keys -t ix f
check "f draws the fabric, inferred from the mesh" \
	wait_screen '^Fabric: [0-9]+ switch(es)? \(inferred from the mesh, \* inferred\); colour: goodput against ' 3
check "the fabric fits 120 columns" fits 120
T send-keys -t ix f
check "f again: back to the matrix" wait_screen '^ixperf mesh  6 hosts  bandwidth  done' 3
check "and nothing of the fabric is left on the screen" pane_lacks 'uplink|^Fabric:'
T send-keys -t ix q
check "top --mesh leaves with q, exit 0" exits_with 0

# --- top --mesh on a collective's result: its pair scan as a ring of ranks
# (tests/data/coll-slow.json: ixperf coll -J under mpirun -np 4 over the
# SIMULATED NCCL, rank 2 made slow), the rank the scan named a suspect.
start 120 30 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --mesh "$top_srcdir/tests/data/coll-slow.json"
check "top --mesh shows a collective's pair scan" \
	wait_screen "^coll all_reduce: the ring's links one by one \(pair scan\)  4 hosts  bandwidth" 5
check "rank 2, the slow rank, is the suspect, its two links bad" \
	bash -c "tmux -S '$SOCK' capture-pane -p -t ix | grep -qE '^2 vm GPU0S +!! +!!'"
T send-keys -t ix q
check "the collective's view leaves with q, exit 0" exits_with 0

# --- The fabric of a crafted mesh: tests/data/mesh.json's 4 hosts under two
# leaves as their agents' LLDP neighbours, the pairs between the leaves at a
# tenth of the others (made-up figures, so the picture is known).
jq '.results[0] as $r | .results[0].matrix.bw_bps = [range(4) as $a | [range(4) as $b
	| $r.matrix.bw_bps[$a][$b] | if . == null then null
	  elif (($a / 2 | floor) == ($b / 2 | floor)) then 1e10 else 1e9 end]]
    | .results[0].nodes |= [to_entries[] | .value + {link: {iface: "eth0", bps: null,
	source: "unknown", pcie: null, ceiling_bps: null, bottleneck: null,
	neighbor: {source: "lldp", chassis: "02:00:00:00:00:0\(.key / 2 | floor)",
		   name: (if .key < 2 then "leaf-a" else "leaf-b" end), port: "swp\(.key + 1)"}}}]' \
	"$top_srcdir/tests/data/mesh.json" >"$J/fabric.json"
start 100 24 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --mesh "$J/fabric.json"
wait_screen '^ixperf mesh  4 hosts' 5 >/dev/null
T send-keys -t ix f
check "a crafted mesh's fabric: 2 switches from LLDP, BAD edges" \
	wait_screen '^Fabric: 2 switches \(LLDP\); colour: goodput against 10\.0 Gbit/s; BAD edges' 3
check "both leaves' uplinks are BAD, every pair across them bad" bash -c "
	tmux -S '$SOCK' capture-pane -p -t ix >'$J/fab.txt'
	[ \$(grep -cE '^leaf-[ab] +2 hosts  uplink !! out 1\.00 Gbit/s +in 1\.00 Gbit/s +4/4 bad BAD: ' '$J/fab.txt') = 2 ]"
check "each host under its leaf with its port, none blamed" bash -c "
	grep -A2 '^leaf-a' '$J/fab.txt' | grep -qE '^ \|- 127\.0\.0\.1:6201 +swp1 .* 0/1 bad \(2 more across' &&
	grep -A2 '^leaf-b' '$J/fab.txt' | grep -qE '^ \`- 127\.0\.0\.1:6204 +swp4 ' &&
	! grep -qE '^ [|\`]- .*(BAD|WARN)' '$J/fab.txt'"
check "the fabric fits 100x24" fits 100
# One test per pair, drawn on both sides of the matrix: the fabric still
# counts each pair once, as the text report of the same document does.
"$IXPERF" report "$J/fabric.json" >"$J/fabric.txt" 2>&1
check "the view's pair counts are the text report's (4/4 across each uplink, 0/1 at each host)" bash -c "
	[ \$(grep -cE '^  leaf-[ab] \(2 hosts\)  uplink: .* 4/4 bad  BAD' '$J/fabric.txt') = 2 ] &&
	[ \$(grep -cE '^    [|\`] 127\.0\.0\.1:620[1-4] .* 0/1 bad  ok: 2 more bad' '$J/fabric.txt') = 4 ] &&
	[ \$(grep -cE ' 0/1 bad \(2 more across' '$J/fab.txt') = 4 ]"
T send-keys -t ix q
check "and leaves with q, exit 0" exits_with 0

# --- A host name in a state file reaches the screen as text, never as a
# control: an OSC title, C1 CSI (U+009B) and a clear screen in the first host.
jq '.results[0].hosts[0] = "ev\u001b]2;PWNED\u0007\u009b2J\u001b[2Jil:6201"' \
	"$top_srcdir/tests/data/mesh.json" >"$J/hostile.json"
start 120 24 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --mesh "$J/hostile.json"
check "a host name's controls are drawn as '?'" \
	wait_screen '^ev\?\]2;PWNED\?\?2J\?\[2Jil:6201 -> ' 5
check "nothing cleared the screen: the status line is there" wait_screen '^ixperf mesh  4 hosts' 1
check "nor retitled the pane ($(T display -p -t ix '#{pane_title}'))" \
	bash -c "[ \"\$(tmux -S '$SOCK' display -p -t ix '#{pane_title}')\" != PWNED ]"
T send-keys -t ix q
check "and the view leaves with q, exit 0" exits_with 0

# --- top --mesh follows a mesh that runs elsewhere, round by round. --------
# Rounds of 1.5 s: the mesh is still running (round 4 at the earliest ends
# 6 s after its state file appears) when top, started then, first draws.
rm -f "$J/state2.json"
"$IXPERF" mesh -t 1.5 -w 0.05 --state "$J/state2.json" -J -o "$J/mesh2.json" "$HOSTS" 2>/dev/null &
BG=$!
IX_PIDS+=("$BG")
for _ in $(seq 1 100); do [ -s "$J/state2.json" ] && break; sleep 0.1; done
start 120 40 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --mesh "$J/state2.json"
check "top --mesh shows a running mesh's progress" \
	wait_screen '^ixperf mesh  6 hosts  bandwidth  round [0-4]/5 .* elapsed  ~' 10
check "top --mesh shows its pending pairs" wait_screen '^127\.0\.0\.1:[0-9]+S? .*··' 1
cp "$J/state2.json" "$J/state2-mid.json"
check "the state file's counts are its matrix's ($(jq -c '.results[0].pairs' "$J/state2-mid.json"))" \
	jq_true "$J/state2-mid.json" '.results[0] | .pairs.planned == 15 and
	 .pairs.measured == ([.matrix.state[][] | select(. == "ok")] | length)'
schema_check "$J/state2-mid.json"
check "top --mesh follows it to the end" wait_screen 'done, rounds 5/5' 30
wait "$BG"
T send-keys -t ix q
check "top --mesh on a running mesh leaves with q, exit 0" exits_with 0

# --- The state file is there from the mesh's start, every pair pending. ---
# Two agents of its own and one round of 10 s: the file is read long before
# that round ends, and the killed mesh leaves no test running on the others.
ix_server s1 || exit 99
A1=$IX_SPID P1=127.0.0.1:$IX_PORT
ix_server s2 || exit 99
A2=$IX_SPID P2=127.0.0.1:$IX_PORT
rm -f "$J/state3.json"
"$IXPERF" mesh --test bw -t 10 -w 0.05 --state "$J/state3.json" "$P1,$P2" >/dev/null 2>&1 &
BG=$!
IX_PIDS+=("$BG")
ix_wait_for 8 test -s "$J/state3.json"
check "the state file is written as the mesh starts: round 0 of 1, its pair pending (one way: one test a pair)" \
	jq_true "$J/state3.json" '.progress.batches == 0 and .progress.total == 1 and
	 .results[0].pairs.planned == 1 and .results[0].pairs.measured == 0 and
	 ([.results[0].matrix.state[][] | select(. == "pending")] | length) == 1 and
	 ([.results[0].matrix.state[][] | select(. == "none")] | length) == 3'
schema_check "$J/state3.json"
kill "$BG" "$A1" "$A2"
wait "$BG" "$A1" "$A2" 2>/dev/null

# --- q in the middle: what was measured is kept and marked. -----------------
# Rounds of 1.5 s: round 1 is on the screen for longer than a poll takes,
# and p lands at least three rounds before the last however late the view
# reads it; what p does not stop cannot reach 15 pairs.
rm -f "$J/mesh.json"
start 120 40 LANG=C.UTF-8 TERM=xterm-256color -- "${MESH[@]}" -t 1.5
wait_screen 'round [12]/5' 15 >/dev/null
T send-keys -t ix p
check "p pauses the mesh after the current round" wait_screen 'PAUSED' 3
# The count is of rounds done: the round under way when p came still ends
# (the count may rise by one), no new one starts. 5 s is three rounds.
at_pause=$(screen | sed -n 's/.*round \([0-9]*\)\/5.*/\1/p')
sleep 5
paused_at=$(screen | sed -n 's/.*round \([0-9]*\)\/5.*PAUSED.*/\1/p')
check "a paused mesh starts no new round (rounds done: $at_pause at p, ${paused_at:-?} 5 s later)" \
	test -n "$paused_at" -a "${paused_at:-9}" -le $((${at_pause:-0} + 1))
T send-keys -t ix p
check "p again resumes it" wait_screen "round $((paused_at + 1))/5" 10
T send-keys -t ix q
check "q stops the mesh and leaves once the round ends" wait_exit 15
check "a stopped mesh exits 1" test "$(cat "$J/rc" 2>/dev/null)" = 1
check "the stopped mesh's results are kept, marked incomplete" jq_true "$J/mesh.json" \
	'(.complete | not) and (.error | test("stopped")) and .results[0].pairs.measured < 15
	 and .results[0].pairs.measured > 0'
check "pairs never measured stay pending, not failed" jq_true "$J/mesh.json" \
	'.results[0].pairs.failed == 0 and ([.results[0].matrix.state[][]] | index("pending") != null)'
schema_check "$J/mesh.json"

# --- Monochrome: NO_COLOR and a terminal without colours, 80x24. ------------
start 80 24 LANG=C TERM=vt100 NO_COLOR=1 -- "${MESH[@]}" --test bw
check "monochrome: the mesh draws in 80x24" wait_screen 'done, rounds 5/5' 40
check "monochrome: no colour escapes at all" \
	escapes_lack "$ESC\\[([0-9;]*;)?(3[0-7]|4[0-7]|38;5|48;5)[;m]"
check "monochrome: levels are glyphs" wait_screen '(##|\+\+|==|--|__)' 1
check "monochrome: pending and legend in ASCII" wait_screen '\.\. pending' 1
check "monochrome: every line fits 80 columns" fits 80
T send-keys -t ix q
wait_exit 5

# --- 8 colours. --------------------------------------------------------------
start 100 30 LANG=C.UTF-8 TERM=xterm -- "${MESH[@]}" --test lat
check "8 colours: the mesh draws" wait_screen 'done, rounds 5/5' 40
check "8 colours: backgrounds from the 8-colour set" escapes_match "$ESC\\[([0-9;]*;)?4[1-3](;[0-9;]*)?m"
check "8 colours: none from the 256-colour set" escapes_lack '48;5;'
check "8 colours: a lat-only mesh opens on latency" wait_screen '^ixperf mesh  6 hosts  latency p50' 1
T send-keys -t ix q
wait_exit 5

# --- No terminal (cron, CI): --live says so before any agent runs a test. ---
if command -v setsid >/dev/null; then
	setsid "$IXPERF" mesh --live "$HOSTS" </dev/null >"$J/nott.out" 2>"$J/nott.err"
	check "mesh --live without a terminal is a usage error (exit 2)" test "$?" = 2
	check "and says the view needs a terminal, and what to run instead" grep -q -- "--live draws on a terminal and there is none (run without --live.*the live view needs a terminal" "$J/nott.err"
	check "before contacting the agents (no token warning)" bash -c "! grep -q WARNING '$J/nott.err'"
fi

# --- ixperf top: links with rates and sparklines. ---------------------------
start 120 30 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --all -i 0.2
check "top shows its header" wait_screen '^LINK +STATE +SPEED +MTU +RX +TX +UTIL' 5
check "top lists the loopback device with its MTU" wait_screen '^lo +[a-z]+ +- +65536 ' 3
check "top refreshes: rates show in bit/s" wait_screen '^lo .* [0-9.]+ [KMG]?bit/s' 3
# Traffic on lo for a second: its sparklines rise.
(for _ in $(seq 1 200); do echo x >/dev/udp/127.0.0.1/9; sleep 0.005; done) 2>/dev/null
check "top draws sparklines of the traffic" wait_screen '^lo .*[▁▂▃▄▅▆▇█]' 3
T send-keys -t ix p
check "p pauses top" wait_screen 'PAUSED' 3
T send-keys -t ix q
check "top leaves with q, exit 0" exits_with 0

# --- ixperf top: fabric counters per second under their link. -------------
# A copy of the sysfs fixture whose ethtool statistics and RoCE hw_counters
# grow while top watches it.
FX=$J/fabric
mkdir -p "$FX"
cp -r "$top_srcdir/tests/data/sysfs/basic/." "$FX/"
HW=$FX/sys/class/infiniband/mlx5_1/ports/1/hw_counters
(
	i=0
	while :; do
		i=$((i + 1))
		printf 'NIC statistics:\n     rx_prio3_pause: %d\n     rx_discards_phy: %d\n' \
			$((i * 40)) $((i * 2)) >"$FX/ethtool/eth0.new"
		mv "$FX/ethtool/eth0.new" "$FX/ethtool/eth0"
		echo $((i * 6)) >"$HW/np_cnp_sent"
		echo $((i * 3)) >"$HW/np_ecn_marked_roce_packets"
		echo $((10000000000 + i * 50000000)) >"$FX/sys/class/net/eth0/statistics/rx_bytes"
		sleep 0.1
	done
) &
BUMP=$!
IX_PIDS+=("$BUMP")
start 120 30 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --sysfs "$FX" --iface eth0,mlx5_1 -i 0.3
check "top puts the fabric rates under the link" \
	wait_screen '^ {17}drops [0-9.]+k?/s  pause rx [0-9.]+k?/s  \(rx_prio3_pause, rx_discards_phy\)' 5
check "and a RoCE port's CNPs and ECN marks under the port" \
	wait_screen '^ {17}ecn [0-9.]+k?/s  cnp sent [0-9.]+k?/s  \(np_cnp_sent, np_ecn_marked_roce_packets\)' 1
check "drops and pause frames are highlighted in red" \
	escapes_match "31mdrops .*31mpause rx .*"
check "CNPs too" escapes_match "31mcnp sent [0-9.]+k?/s"
check "ECN marks are a warning (yellow), not an alarm" escapes_match "33mecn [0-9.]+k?/s"
check "the link keeps its sparklines above the fabric line" wait_screen '^eth0 .*[▁▂▃▄▅▆▇█]' 3
T send-keys -t ix q
check "top with fabric rates leaves with q, exit 0" exits_with 0
start 80 24 LANG=C TERM=vt100 NO_COLOR=1 -- "$IXPERF" top --sysfs "$FX" --iface eth0 -i 0.3
check "monochrome: the fabric line shows" \
	wait_screen '^ {17}drops [0-9.]+k?/s  pause rx' 5
check "monochrome: drops in bold, no colour" escapes_match "${ESC}\\[1mdrops "
check "monochrome: the fabric line fits 80 columns" fits 80
T send-keys -t ix q
wait_exit 5
kill "$BUMP" 2>/dev/null
wait "$BUMP" 2>/dev/null

# --- ixperf top --topo: the server's tree, folded to the screen. ------------
# Saved trees of tests/topo/mkfixture.py: the large host (466 functions)
# must stay usable at 80x24, a downtrained link must stand out, and a NIC
# whose counters grow must load its link and the links above it.
TX=$J/topo
for layout in large downtrained dgx-h100 amd-mi300x dgx-degraded; do
	python3 "$top_srcdir/tests/topo/mkfixture.py" "$layout" "$TX/$layout" >/dev/null ||
		ix_skip "tests/topo/mkfixture.py cannot build the $layout tree"
done
start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --topo --sysfs "$TX/large" -i 0.3
check "top --topo folds the large host (466 functions) to 80x24" \
	wait_screen '^ixperf top --topo .* 466 PCI functions, ([0-9]|1[0-9]|2[01]) rows' 5
check "the large host, healthy, has no row tagged" no_tags
check "top --topo fits 80 columns" fits 80
T send-keys -t ix e
check "e unfolds every node (the screen scrolls)" \
	wait_screen '466 PCI functions, [0-9]{3} rows' 3
T send-keys -t ix c
check "c folds back to the screen" \
	wait_screen '466 PCI functions, ([0-9]|1[0-9]|2[01]) rows' 3
T send-keys -t ix q
check "top --topo leaves with q, exit 0" exits_with 0
for layout in dgx-h100 amd-mi300x; do
	start 80 24 LANG=C TERM=vt100 -- "$IXPERF" top --topo --sysfs "$TX/$layout" -i 0.3
	check "top --topo draws $layout at 80x24 (ASCII lines)" \
		wait_screen '^\|-\[[+-]\]pci0000:[0-9a-f]{2} host bridge' 5
	check "$layout fits 80 columns" fits 80
	T send-keys -t ix q
	wait_exit 5
done
# The first screen of a GPU server shows its GPUs, NICs and HCAs. The
# oracle is the saved tree itself: each function's PCI class and vendor
# files (display or 3D controllers and accelerators of NVIDIA and AMD,
# Ethernet and InfiniBand controllers), and its sysfs path for the
# functions above it. Each is a row on the screen, or the nearest folded
# row above it ([+], a function of its path, its host bridge or its NUMA
# node) names as many of its class as it hides ("2 GPU, 1 NIC").
endpoints_on_screen() {
	local sys=$TX/$1/sys pane dev cls ven word bdf anc line want rows=$2 shown=0 named=0
	local -A count=()
	pane=$(screen)
	want=$(sed -n '1s/.* \([0-9]*\) rows.*/\1/p' <<<"$pane")
	[ -n "$want" ] && [ "$want" -le "$rows" ] ||
		{ echo "  the title says ${want:-no} rows, the screen has $rows" >&2; return 1; }
	for dev in "$sys"/bus/pci/devices/*; do
		cls=$(cat "$dev/class") ven=$(cat "$dev/vendor") word=
		case $cls in
		0x0300* | 0x0302* | 0x12*) [[ $ven = 0x10de || $ven = 0x1002 ]] && word=GPU ;;
		0x0200*) word=NIC ;;
		0x0207*) word=HCA ;;
		esac
		[ -n "$word" ] || continue
		bdf=${dev##*/}
		if grep -qE "(─ |- |\])$bdf " <<<"$pane"; then
			shown=$((shown + 1))
			continue
		fi
		anc=
		for a in $(readlink -f "$dev" | tr / '\n' | tac | tail -n +2) "NUMA $(cat "$dev/numa_node")"; do
			case $a in 0000:* | pci*:* | NUMA*) ;; *) continue ;; esac
			grep -qF "[+]$a " <<<"$pane" && { anc=$a; break; }
		done
		[ -n "$anc" ] || { echo "  $bdf ($word) is neither on the screen nor under a fold" >&2; return 1; }
		count["$anc|$word"]=$((${count["$anc|$word"]:-0} + 1))
		named=$((named + 1))
	done
	for k in "${!count[@]}"; do
		line=$(grep -F "[+]${k%|*} " <<<"$pane")
		grep -qE "(  |, )${count[$k]} ${k#*|}(,|$| )" <<<"$line" || {
			echo "  ${k%|*} hides ${count[$k]} ${k#*|} but says: $line" >&2
			return 1
		}
	done
	echo "  $1 at $3: $shown GPUs/NICs/HCAs on rows, $named named by $((${#count[@]})) fold counts, $want rows" >&2
	[ $((shown + named)) -gt 0 ]
}
for layout in dgx-h100 amd-mi300x; do
	for size in 80x24 160x50; do
		start "${size%x*}" "${size#*x}" LANG=C.UTF-8 TERM=xterm-256color -- \
			"$IXPERF" top --topo --sysfs "$TX/$layout" -i 0.3
		wait_screen '^ixperf top --topo .* rows' 5 >/dev/null
		check "$layout at $size: every GPU, NIC and HCA is a row or named by its fold" \
			endpoints_on_screen "$layout" $((${size#*x} - 3)) "$size"
		check "$layout at $size fits ${size%x*} columns" fits "${size%x*}"
		T send-keys -t ix q
		wait_exit 5
	done
done
# A fold opens and closes from the keyboard: Enter on the first folded row
# shows its children, and again hides them (but for rows with a problem,
# which a fold by hand keeps in sight).
rows_now() { screen | sed -n '1s/.* \([0-9]*\) rows.*/\1/p'; }
# rows_become TEST N: until the title's row count passes [ COUNT TEST N ].
rows_become() {
	local i
	for ((i = 0; i < 30; i++)); do
		[ "$(rows_now)" "$1" "$2" ] && return 0
		sleep 0.1
	done
	echo "  the title says $(rows_now) rows, not $1 $2" >&2
	return 1
}
start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --topo --sysfs "$TX/dgx-h100" -i 0.3
wait_screen '^ixperf top --topo .* rows' 5 >/dev/null
FIRST=$(screen | sed -n '3,$p' | grep -n '\[+\]' | head -1 | cut -d: -f1)
ROWS0=$(rows_now)
check "the dgx-h100 at 80x24 has a folded row" [ -n "$FIRST" ]
for ((k = 1; k < ${FIRST:-1}; k++)); do T send-keys -t ix Down; done
T send-keys -t ix Enter
check "Enter unfolds the folded row under the cursor (more than $ROWS0 rows)" \
	rows_become -gt "$ROWS0"
ROWS1=$(rows_now)
T send-keys -t ix Enter
check "Enter folds it again (fewer than $ROWS1 rows)" rows_become -lt "$ROWS1"
T send-keys -t ix q
wait_exit 5
# dgx-degraded: GPU 18:00.0 at x8, switch 38:00.0 at Gen4, NVMe 1c:00.0 at
# x2 (each below both of its ends), GPU 19:00.0 idle at Gen1 (not flagged).
start 80 24 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --topo --sysfs "$TX/dgx-degraded" -i 0.3
check "dgx-degraded at 80x24: GPU 18:00.0's link is tagged, or a folded node above it says one below is" \
	wait_screen '0000:1(8:00\.0 .*DOWNTRAINED$|[67]:00\.0 .*DOWNTRAINED below$)' 5
check "dgx-degraded at 80x24: the switch below its Gen5 root port is tagged on both rows" \
	rows_tagged '0000:3(7:01|8:00)\.0 .*Gen4 x16 +DOWNTRAINED( |$)' 2
T send-keys -t ix q
wait_exit 5
start 140 30 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --topo --sysfs "$TX/downtrained" -i 0.3
check "a downtrained link is marked with its widths on a wide screen" \
	wait_screen '0000:01:00\.0 +ib ibp1s0 mlx5_0 .*Gen4 x8 .*downtrained: Gen4 x8 of Gen5 x16' 5
check "in red" escapes_match '31mdowntrained: Gen4 x8 of Gen5 x16'
T send-keys -t ix q
wait_exit 5
# ibp26s0's counters grow by about 200 Gbit/s (2.5 GB every 0.1 s).
ST=$TX/dgx-h100/sys/class/net/ibp26s0/statistics
mkdir -p "$ST"
echo 0 >"$ST/tx_bytes"
(
	i=0
	while :; do
		i=$((i + 1))
		echo $((i * 2500000000)) >"$ST/rx_bytes.new"
		mv "$ST/rx_bytes.new" "$ST/rx_bytes"
		sleep 0.1
	done
) &
BUMP=$!
IX_PIDS+=("$BUMP")
# With it, a saved 'ixperf gpu' result (two simulated GPUs at 0000:18:00.0
# and 0000:19:00.0, 50 GB/s host to GPU): their links show that share.
start 140 45 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --topo --sysfs "$TX/dgx-h100" \
	--measured "$top_srcdir/tests/data/gpu-base.json" -i 0.3
T send-keys -t ix e
check "a NIC's traffic loads its link: a bar and a share" \
	wait_screen '0000:1a:00\.0 +ib ibp26s0 mlx5_0 .*Gen5 x16 +█+·* +[1-9][0-9]?%' 5
check "and the switch ports above it carry the same" \
	wait_screen '0000:17:02\.0 +switch_downstream .*Gen5 x16 +█+·* +[1-9][0-9]?%' 3
check "--measured loads a GPU's link with its measured copy (400 of 504 Gbit/s)" \
	wait_screen '0000:18:00\.0 +gpu .*Gen5 x16 +█+·* +79%' 3
check "the title names the measurement" wait_screen '^ixperf top --topo .* measured: ' 3
T send-keys -t ix q
check "top --topo leaves with q, exit 0" exits_with 0
kill "$BUMP" 2>/dev/null
wait "$BUMP" 2>/dev/null

# --- ixperf top --capture: the traffic matrix as a heatmap (root only). ----
if [ "$(id -u)" = 0 ]; then
	start 120 30 LANG=C.UTF-8 TERM=xterm-256color -- "$IXPERF" top --all -i 0.3 \
		--capture lo --capture-filter "'udp port 9'"
	check "top --capture shows the capture in its status line" \
		wait_screen '^ixperf top .* capture on lo: [0-9]+ packets, 0 dropped' 5
	(for _ in $(seq 1 100); do echo x >/dev/udp/127.0.0.1/9; sleep 0.01; done) 2>/dev/null &
	SENDER=$!
	check "the busiest pairs are listed under the links" \
		wait_screen '^127\.0\.0\.1 +-> +127\.0\.0\.1 +[0-9.]+ [KM]?bit/s' 5
	T send-keys -t ix t
	check "t shows the traffic matrix as a heatmap" \
		wait_screen '^traffic matrix on lo \(row sends to column\)  1 hosts  bandwidth' 3
	check "the matrix cursor names the pair and its rate" \
		wait_screen '^127\.0\.0\.1 -> 127\.0\.0\.1: [0-9.]+ [KM]?bit/s' 3
	T send-keys -t ix q
	check "top --capture leaves with q, exit 0" exits_with 0
	wait "$SENDER"
fi
T kill-server 2>/dev/null

ix_done
