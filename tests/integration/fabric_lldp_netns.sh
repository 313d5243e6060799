#!/usr/bin/env bash
# The fabric drawn from LLDP: two leaf switches (bridges in their own
# namespaces) joined by an uplink veth, two hosts under each, lldpd in
# every switch and host namespace. The hosts' cables are shaped to 1 Gbit/s
# and the uplink to 100 Mbit/s, each way: every figure compared is held by
# a tbf, not by the machine's load. The agents report the switch port their tests leave by; the mesh's
# fabric groups the hosts under the right switches, marks the uplink (both
# leaves' ends of it) and no host. With lldpd stopped, new agents report no
# neighbour and the grouping inferred from the mesh finds the same groups.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces (CI runs as root)"
command -v lldpd >/dev/null && command -v lldpcli >/dev/null ||
	ix_need "lldpd is not installed (contrib/setup.sh installs it)"
"$IXPERF" --version | grep -q "built with:.* lldpctl" || ix_need "ixperf was built without liblldpctl"
J=$IX_TMP
P="ixl$$-"
LEAF=(a a b b) # host i+1 hangs off leaf ${LEAF[i]}

# Every host's cable at 1 Gbit/s each way: the pairs within a leaf are
# held there by the shaping, not by how two cores share the veths, so the
# uplink's 100 Mbit/s is the one thing that stands out.
ix_two_leaves "$P" "rate 100mbit burst 32kb" "rate 1gbit burst 256kb"

ix_lldp_two_leaves "$P"
seen=$IX_LLDP_SEEN
LPIDS=("${IX_LLDP_PIDS[@]}")
check "every host's lldpd sees its leaf ($seen of 4)" test "$seen" = 4

agents() {
	hosts=
	for i in 1 2 3 4; do
		IXPERF_LLDPD_SOCKET="$J/lldp/host$i.sock" IX_NS="${P}h$i" ix_server "$1$i" \
			--allow-run 198.18.0.1 || exit 99
		hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
		APIDS+=("$IX_SPID")
	done
}
APIDS=()
agents a
# Bandwidth only: the tbfs bound it; latency on a loaded machine is not
# bounded, and a pair flagged for it would blame its hosts.
ip netns exec "${P}h1" "$IXPERF" mesh --test bw --both-directions -t 1 -w 0.3 -J "$hosts" \
	>"$J/mesh.json" 2>"$J/mesh.err"
echo "  mesh exit $?"
check "each agent reported its switch and port" jq_true "$J/mesh.json" \
	'[.results[0].nodes[].link.neighbor | "\(.name) \(.port)"] == ["leaf-a swp1","leaf-a swp2","leaf-b swp3","leaf-b swp4"]'
schema_check "$J/mesh.json"
"$IXPERF" report "$J/mesh.json" >"$J/mesh.txt" 2>&1
sed -n '/^Fabric:/,/marked\|stands out/p' "$J/mesh.txt"
check "the fabric comes from LLDP: 4 hosts under 2 switches" \
	grep -q '^Fabric: 4 hosts under 2 switches (LLDP)' "$J/mesh.txt"
check "leaf-a holds host 1 and 2, leaf-b host 3 and 4" bash -c "
	sed -n '/^Fabric:/,\$p' '$J/mesh.txt' | awk '/^  leaf-/{l=\$1} /^    [|\`] /{print l, \$2, \$3}' |
	tr '\n' ';' | grep -qx 'leaf-a 198.18.0.1:[0-9]* swp1;leaf-a 198.18.0.2:[0-9]* swp2;leaf-b 198.18.0.3:[0-9]* swp3;leaf-b 198.18.0.4:[0-9]* swp4;'"
check "both leaves' uplinks are marked BAD (the shaped veth is each one's uplink)" bash -c \
	"[ \$(grep -c '^  leaf-[ab] (2 hosts)  uplink: .* BAD: ' '$J/mesh.txt') = 2 ]"
check "no host's own edge is blamed" bash -c "! grep -E '^    [|\`] .*(BAD|WARN)' '$J/mesh.txt'"

# The same picture in the HTML report (an inline SVG) and on the terminal.
"$IXPERF" report --format html -o "$J/mesh.html" "$J/mesh.json" 2>"$J/html.err"
check "the HTML report draws the fabric: both uplinks marked, 4 hosts, none marked" bash -c "
	grep -q '<h3>Fabric (4 hosts under 2 switches, from LLDP)</h3>' '$J/mesh.html' &&
	grep -q '<g class=\"sw bad\"><title>leaf-a uplink: ' '$J/mesh.html' &&
	grep -q '<g class=\"sw bad\"><title>leaf-b uplink: ' '$J/mesh.html' &&
	[ \$(grep -c '<rect class=\"host\"' '$J/mesh.html') = 4 ]"
CHROMIUM=$(command -v chromium || command -v chromium-browser) || CHROMIUM=
if [ -n "$CHROMIUM" ]; then
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$J/chrome" --screenshot="$J/mesh.png" --window-size=1200,2400 \
		"$J/mesh.html" >/dev/null 2>&1
	check "Chromium renders it (screenshot)" test "$(head -c 4 "$J/mesh.png" | tail -c 3)" = PNG
	[ -z "${IX_KEEP_HTML:-}" ] || cp "$J/mesh.html" "$J/mesh.png" "$IX_KEEP_HTML/"
else
	skip_check "Chromium renders it (screenshot)" "chromium is not installed"
fi
if command -v tmux >/dev/null; then
	T() { tmux -S "$J/tmux.sock" "$@"; }
	T -f /dev/null new-session -d -s ix -x 120 -y 30 \
		"env LANG=C.UTF-8 TERM=xterm-256color $IXPERF top --mesh $J/mesh.json; sleep 600"
	IX_PIDS+=("$(T display -p -t ix '#{pid}')" "$(T display -p -t ix '#{pane_pid}')")
	shows() { T capture-pane -p -t ix | grep -q "$1"; }
	ix_wait_for 20 shows '^ixperf mesh'
	T send-keys -t ix f
	ix_wait_for 20 shows '^Fabric:'
	T capture-pane -p -t ix >"$J/tui.txt"
	sed -n '2,9p' "$J/tui.txt"
	check "top --mesh, f: the fabric from LLDP with both leaves' uplinks BAD" bash -c "
		grep -q '^Fabric: 2 switches (LLDP); colour: goodput against .*; BAD edges' '$J/tui.txt' &&
		[ \$(grep -cE '^leaf-[ab] .*uplink .*BAD: 8 of 8 pairs across it bad' '$J/tui.txt') = 2 ]"
	check "and each host under its leaf with its port" bash -c "
		grep -A2 '^leaf-a' '$J/tui.txt' | grep -qE '^ \|- 198\.18\.0\.1:[0-9]+ +swp1' &&
		grep -A2 '^leaf-b' '$J/tui.txt' | grep -qE '^ \`- 198\.18\.0\.4:[0-9]+ +swp4'"
	T kill-server 2>/dev/null
else
	skip_check "top --mesh draws the fabric" "tmux is not installed"
fi

# A run's inventory names each interface's switch port too.
printf '[l]\nprobe = lat\niters = 100\nhosts = %s\n' "$(echo "$hosts" | cut -d, -f2)" >"$J/inv.ini"
IXPERF_LLDPD_SOCKET="$J/lldp/host1.sock" ip netns exec "${P}h1" "$IXPERF" run -J -d "$J/run" \
	"$J/inv.ini" >"$J/run.json" 2>"$J/run.err"
check "a run's inventory gives eth0's switch port (leaf-a swp1)" jq_true "$J/run.json" \
	'[.results[0].inventory.interfaces[] | select(.name == "eth0") | .neighbor | "\(.name) \(.port)"] == ["leaf-a swp1"]'
schema_check "$J/run.json"

# Without lldpd: fresh agents know no neighbour; the mesh alone splits the
# hosts the same way.
for p in "${LPIDS[@]}" "${APIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
APIDS=()
agents b
ip netns exec "${P}h1" "$IXPERF" mesh --test bw --both-directions -t 1 -w 0.3 -J "$hosts" \
	>"$J/bare.json" 2>"$J/bare.err"
check "no agent reports a neighbour" jq_true "$J/bare.json" \
	'[.results[0].nodes[].link.neighbor] | all(. == null)'
"$IXPERF" report "$J/bare.json" >"$J/bare.txt" 2>&1
sed -n '/^Fabric:/,/marked\|stands out/p' "$J/bare.txt"
check "the inferred fabric has the same two groups" bash -c "
	grep -q '^Fabric: 4 hosts under 2 switches (inferred from the mesh)' '$J/bare.txt' &&
	sed -n '/^Fabric:/,\$p' '$J/bare.txt' | awk '/^  group/{g=\$2} /^    [|\`] /{print g, \$2}' |
	sed 's/:[0-9]*\$//' | tr '\n' ';' |
	grep -qx '1 198.18.0.1;1 198.18.0.2;2 198.18.0.3;2 198.18.0.4;'"
check "and marks the uplinks between them" bash -c \
	"[ \$(grep -c '^  group [12] \[inferred\] (2 hosts)  uplink: .* BAD: ' '$J/bare.txt') = 2 ]"
ix_done
