#!/usr/bin/env bash
# 'ixperf top' against known traffic, through network namespaces: two hosts
# send exactly known UDP datagrams to a third; the traffic matrix captured
# on the receiver's veth must hold exactly those bytes per pair, and the
# links snapshot must show the veth with the traffic it carried.
# Addresses are from 198.18.0.0/15 (RFC 2544, benchmarking), inside the
# namespaces this test creates and removes.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces and capture (CI runs as root)"
"$IXPERF" wire /dev/null >/dev/null 2>&1
[ $? = 3 ] && ix_skip "this ixperf was built without libpcap"
command -v python3 >/dev/null || ix_skip "python3 is not installed"
ix_fabric "ixt$$-" 3
H=("" "ixt$$-h1" "ixt$$-h2" "ixt$$-h3")
J=$IX_TMP
for i in 1 2 3; do
	ip netns exec "${H[$i]}" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
done

# send NS DST COUNT SIZE: COUNT datagrams of SIZE payload bytes, paced so
# that nothing is lost on the way.
send() {
	ip netns exec "$1" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(b"x" * int(sys.argv[3]), (sys.argv[1], 9))
    if i % 50 == 49:
        time.sleep(0.01)' "$2" "$3" "$4"
}

# capturing NS PID: wait (10 s at most) until PID has its packet socket
# open in NS, so that what is sent next is seen whatever the load.
capturing() {
	local k
	for ((k = 0; k < 100; k++)); do
		ip netns exec "$1" ss -0 -p 2>/dev/null | grep -q "pid=$2," && return 0
		sleep 0.1
	done
	return 1
}

# The receiver's snapshot opens before the datagrams go out and closes on
# SIGINT once they are all sent: no deadline to race under load.
ip netns exec "${H[2]}" "$IXPERF" top --once --json -i 120 --capture eth0 \
	--capture-filter 'udp port 9' --iface eth0 >"$J/top.json" 2>"$J/top.err" &
TOP=$!
IX_PIDS+=("$TOP")
capturing "${H[2]}" "$TOP" || not_ok "top opened no capture within 10 s"
send "${H[1]}" 198.18.0.2 1000 1000
send "${H[3]}" 198.18.0.2 300 200
# A datagram sent has reached the capture's ring once the softirq that
# carries it across the veth has run: on the sender's CPU as it sends, or
# in ksoftirqd, a thread that waits for a CPU as any other (tens of ms with
# every core busy). 1 s covers that; the stop then drains the ring.
sleep 1
kill -INT "$TOP"
wait "$TOP"
rc=$?
check "top --once --json --capture ends with 0 (stderr: $(head -c 300 "$J/top.err"))" test "$rc" = 0
schema_check "$J/top.json"
check "the links snapshot holds the receiver's eth0 with its MTU" jq_true "$J/top.json" \
	'.results[0].kind == "links" and (.results[0].links | length == 1)
	 and .results[0].links[0].name == "eth0" and .results[0].links[0].mtu == 1500'
# 1000 x (1000 + 8 + 20 + 14) and 300 x (200 + 42) bytes on the wire.
check "the eth0 receive rate covers the datagrams over the interval" jq_true "$J/top.json" \
	'.results[0].links[0].rates.rx_bps * .results[0].interval_s / 8 >= 1042000 + 72600'
check "the traffic matrix saw the three hosts' two pairs only" jq_true "$J/top.json" \
	'.results[1].kind == "talkers" and (.results[1].pairs | length) == 2
	 and .results[1].dropped == 0'
pair_bytes() { # pair_bytes SRC DST
	jq -r --arg s "$1" --arg d "$2" '.results[1] as $t | [$t.pairs[]
		| select($t.hosts[.src].address == $s and $t.hosts[.dst].address == $d) | .bytes]
		| add // 0' "$J/top.json"
}
check "h1 -> h2 carried exactly 1000 x 1042 bytes" test "$(pair_bytes 198.18.0.1 198.18.0.2)" = 1042000
check "h3 -> h2 carried exactly 300 x 242 bytes" test "$(pair_bytes 198.18.0.3 198.18.0.2)" = 72600
check "nothing went the other way" test "$(pair_bytes 198.18.0.2 198.18.0.1)" = 0
check "the matrix counts every packet once" jq_true "$J/top.json" \
	'.results[1].packets == 1300 and .results[1].bytes == 1042000 + 72600'

# The text snapshot says the same in words.
ip netns exec "${H[2]}" "$IXPERF" top --once -i 120 --capture eth0 \
	--capture-filter 'udp port 9' --iface eth0 >"$J/top.txt" 2>&1 &
TOP=$!
IX_PIDS+=("$TOP")
capturing "${H[2]}" "$TOP" || not_ok "top opened no capture within 10 s"
send "${H[1]}" 198.18.0.2 200 1000
sleep 1 # as above
kill -INT "$TOP"
wait "$TOP"
check "the text snapshot lists eth0 with its speed and MTU" \
	grep -qE '^eth0 +up +10\.0 Gbit/s +1500 ' "$J/top.txt"
check "the text snapshot gives the pair its 200 x 1042 bytes" \
	grep -qE '^198\.18\.0\.1 +198\.18\.0\.2 +[0-9.]+ [KM]bit/s +208 KB$' "$J/top.txt"

# Without CAP_NET_RAW, a clear message and exit 3; the links still work.
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$IXPERF" top --once -i 0.1 --capture lo >"$J/nocap.out" 2>"$J/nocap.err"
	rc=$?
	check "capturing without CAP_NET_RAW exits 3" test "$rc" = 3
	check "and says what is missing" grep -q "CAP_NET_RAW" "$J/nocap.err"
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all \
		"$IXPERF" top --once -i 0.1 --all >"$J/nocap2.out" 2>&1
	check "the links monitor needs no privilege" grep -q '^lo ' "$J/nocap2.out"
fi

ix_done
