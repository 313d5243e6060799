#!/usr/bin/env bash
# Wire diagnostics against known truths, through network namespaces: a
# bandwidth test captured on its veth must account for what the interface
# counters saw, its kept pcap must hold exactly the packets counted (as
# tshark reads it) and give the same counts again through 'ixperf wire';
# and exactly N datagrams of a known size must be counted as such.
# Addresses are from 198.18.0.0/15 (RFC 2544, benchmarking), inside the
# namespaces this test creates and removes.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces and capture (CI runs as root)"
"$IXPERF" wire /dev/null >/dev/null 2>&1
[ $? = 3 ] && ix_skip "this ixperf was built without libpcap"
ix_fabric "ixw$$-" 2
H1="ixw$$-h1"
H2="ixw$$-h2"
J=$IX_TMP
# No IPv6 neighbour discovery or router solicitations in the counters.
for ns in "$H1" "$H2"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1 2>/dev/null
done
# Resolve each other's MAC before measuring: no ARP inside the capture.
ip netns exec "$H1" ping -c 1 -W 2 198.18.0.2 >/dev/null 2>&1

IX_NS=$H2 ix_server wire || exit 99
P=$IX_PORT

stat_of() { # stat_of NAME: a counter of eth0 in H1
	ip netns exec "$H1" cat "/sys/class/net/eth0/statistics/$1"
}
counters() { # counters: "bytes packets", both directions
	echo $(($(stat_of rx_bytes) + $(stat_of tx_bytes))) \
		$(($(stat_of rx_packets) + $(stat_of tx_packets)))
}

# ---- a bandwidth test with its capture kept ----------------------------------
read -r b0 p0 < <(counters)
ip netns exec "$H1" "$IXPERF" bw --capture eth0 --pcap "$J/bw.pcap" -b 500M -t 1 -w 0.2 -J \
	-p "$P" 198.18.0.2 >"$J/bw.json" 2>"$J/bw.err"
rc=$?
read -r b1 p1 < <(counters)
check "bw --capture exits 0" test "$rc" = 0
schema_check "$J/bw.json"
check "the result carries wire figures" jq_true "$J/bw.json" '.results[0].wire.present'
check "the capture saw TCP packets" jq_true "$J/bw.json" '.results[0].wire.tcp_packets > 0'
check "the default filter is the server's address" \
	jq_eq "$J/bw.json" '.results[0].wire.filter' "host 198.18.0.2"
wbytes=$(jq -r '.results[0].wire.bytes' "$J/bw.json")
wpkts=$(jq -r '.results[0].wire.packets' "$J/bw.json")
drops=$(jq -r '.results[0].wire.dropped' "$J/bw.json")
payload=$(jq -r '.results[0].summary.forward.bytes' "$J/bw.json")
dbytes=$((b1 - b0))
dpkts=$((p1 - p0))
echo "  wire: $wpkts packets, $wbytes bytes, $drops dropped;" \
	"eth0 counters: $dpkts packets, $dbytes bytes; goodput payload $payload bytes"
# The capture's ring holds 32 MiB, half a second of this traffic: it drops
# only if the capture thread is kept from a CPU that long, and a runnable
# thread gets a turn within tens of ms with every core busy.
check "no packet dropped by the capture at 500 Mbit/s" test "$drops" = 0
# The counters are read around the whole command, the capture runs from
# before the test connects until after its last data: what it misses is the
# control exchange that ends the test, a few packets of some 50,000.
check "wire bytes within 2% of the interface counters" \
	awk -v w="$wbytes" -v d="$dbytes" 'BEGIN { e = (w - d) / d; exit !(e < 0.02 && e > -0.02) }'
check "wire packets within 2% of the interface counters" \
	awk -v w="$wpkts" -v d="$dpkts" 'BEGIN { e = (w - d) / d; exit !(e < 0.02 && e > -0.02) }'
check "wire bytes cover the measured payload and no more than 1.5 times it" \
	awk -v w="$wbytes" -v p="$payload" 'BEGIN { exit !(w >= p && w < 1.5 * p) }'
check "the pcap was renamed into place, no temporary left" \
	bash -c "test -s '$J/bw.pcap' && ! ls '$J'/bw.pcap.* >/dev/null 2>&1"

if command -v tshark >/dev/null; then
	tpkts=$(tshark -r "$J/bw.pcap" 2>/dev/null | wc -l)
	tretr=$(tshark -r "$J/bw.pcap" -Y tcp.analysis.retransmission 2>/dev/null | wc -l)
	wretr=$(jq -r '.results[0].wire.tcp_retransmissions' "$J/bw.json")
	echo "  tshark: $tpkts packets, $tretr retransmissions; ixperf: $wpkts, $wretr"
	check "tshark reads the pcap: as many packets as counted ($wpkts)" test "$tpkts" = "$wpkts"
	check "tshark finds as many retransmissions" test "$tretr" = "$wretr"
else
	skip_check "the pcap cross-checked by tshark" "tshark is not installed (contrib/setup.sh installs it)"
fi

"$IXPERF" wire --json "$J/bw.pcap" >"$J/wire.json" 2>"$J/wire.err"
check "ixperf wire reads the kept pcap" test "$?" = 0
schema_check "$J/wire.json"
same='.packets, .bytes, .tcp_packets, .tcp_retransmissions, .tcp_dup_acks, .tcp_out_of_order, .tcp_zero_window, .udp_packets'
check "ixperf wire gives the bw run's counts again" \
	test "$(jq -c "[.results[0].wire | $same]" "$J/bw.json")" = \
	"$(jq -c "[.results[0].wire | $same]" "$J/wire.json")"
"$IXPERF" wire "$J/bw.pcap" >"$J/wire.txt"
wtcp=$(jq -r ".results[0].wire.tcp_packets" "$J/bw.json")
check "the text report has the TCP line" grep -q "^  TCP $wtcp packets:" "$J/wire.txt"

# ---- exactly N datagrams of S bytes ---------------------------------------
if command -v python3 >/dev/null; then
	N=1000
	S=1000
	UP=9999
	# The datagrams must go out inside the test's 8 s: python's start and
	# 1000 sends take a fraction of a second, a few on a loaded machine.
	ip netns exec "$H1" "$IXPERF" lat --capture eth0 --capture-filter "udp and dst port $UP" \
		-t 8 -w 0 -J -p "$P" 198.18.0.2 >"$J/udp.json" 2>"$J/udp.err" &
	lpid=$!
	IX_PIDS+=("$lpid")
	# The capture runs from before the latency test connects: once its
	# control connection is up, every datagram is seen.
	for _ in $(seq 1 100); do
		ip netns exec "$H1" ss -Htn state established dst "198.18.0.2:$P" | grep -q . && break
		sleep 0.1
	done
	ip netns exec "$H1" python3 -c '
import socket, sys
n, size, port = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    assert s.sendto(bytes(size), ("198.18.0.2", port)) == size
' "$N" "$S" "$UP"
	check "python sent $N datagrams" test "$?" = 0
	wait "$lpid"
	check "lat --capture exits 0" test "$?" = 0
	schema_check "$J/udp.json"
	jq -r '.results[0].wire | "  \(.udp_packets) UDP datagrams, \(.packets) packets, \(.bytes) bytes, \(.dropped) dropped"' "$J/udp.json"
	check "exactly $N datagrams counted" jq_eq "$J/udp.json" '.results[0].wire.udp_packets' "$N"
	check "and nothing else" jq_true "$J/udp.json" \
		".results[0].wire | .packets == $N and .tcp_packets == 0 and .malformed == 0 and .dropped == 0"
	check "bytes are N x (S + 8 + 20 + 14)" \
		jq_eq "$J/udp.json" '.results[0].wire.bytes' "$((N * (S + 8 + 20 + 14)))"
else
	skip_check "the known-datagram case" "python3 is not installed"
fi

# ---- a mesh captured by its coordinator --------------------------------------
IX_NS=$H2 ix_server mesh2 --allow-run 198.18.0.1 || exit 99
P2=$IX_PORT
IX_NS=$H1 ix_server mesh1 --allow-run 198.18.0.1 || exit 99
ip netns exec "$H1" "$IXPERF" mesh --test bw -t 0.5 -w 0.1 --capture eth0 --pcap "$J/mesh.pcap" -J \
	"198.18.0.1:$IX_PORT,198.18.0.2:$P2" >"$J/mesh.json" 2>"$J/mesh.err"
rc=$?
echo "# mesh's capture: $(jq -c '.results[0].wire | {filter, packets, tcp_packets}' "$J/mesh.json")"
check "mesh --capture exits 0 or 4 ($rc)" test "$rc" = 0 -o "$rc" = 4
schema_check "$J/mesh.json"
check "the mesh's result carries the capture, the pair's TCP in it" jq_true "$J/mesh.json" \
	'.results[0].wire.present and .results[0].wire.tcp_packets > 1000
	 and .results[0].wire.filter == "host 198.18.0.1 or host 198.18.0.2"'
"$IXPERF" wire --json "$J/mesh.pcap" >"$J/mesh-wire.json"
same='[.results[0].wire | .packets, .tcp_packets, .tcp_retransmissions, .tcp_dup_acks, .tcp_out_of_order]'
check "its --pcap, read again, gives the same counts" test \
	"$(jq -c "$same" "$J/mesh.json")" = "$(jq -c "$same" "$J/mesh-wire.json")"
"$IXPERF" report "$J/mesh.json" >"$J/mesh.txt" 2>&1
check "ixperf report of the mesh shows its wire block" grep -q "^Wire (eth0, filter host 198.18.0.1 or host 198.18.0.2): " "$J/mesh.txt"

ix_done
