#!/usr/bin/env bash
# The Prometheus exporter against a real Prometheus. Two namespaces joined
# by a veth pair, the sender's end shaped by tbf; in the receiver's
# namespace 'ixperf top --listen' and 'ixperf server --metrics' serve
# /metrics, and a Prometheus of the test's own (config and storage in the
# test's directory, on the namespace's loopback) scrapes both every
# second while 'ixperf bw' sends to the agent. The rate Prometheus finds
# in the byte counters must be the rate the kernel's own counters (ip -s
# -j link) show over the same seconds, the agent's tests-served counter
# must count the test, promtool must accept what is served, hostile HTTP
# clients must not stop the listener, and every metric the Grafana
# dashboard (contrib/grafana/ixperf-dashboard.json) asks for must be one
# ixperf serves. Addresses are from 198.18.0.0/15 (RFC 2544).
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces (CI runs as root)"
command -v prometheus >/dev/null || ix_need "prometheus is not installed"
command -v promtool >/dev/null || ix_need "promtool (prometheus) is not installed"
command -v curl >/dev/null || ix_need "curl is not installed"
command -v jq >/dev/null || ix_need "jq is not installed"
command -v python3 >/dev/null || ix_need "python3 is not installed"
J=$IX_TMP
A="ixp$$-a"
B="ixp$$-b"
ip netns add "$A" 2>/dev/null || ix_skip "cannot create network namespaces here"
IX_NETNS+=("$A")
ip netns add "$B" || exit 99
IX_NETNS+=("$B")
ip link add eth0 netns "$A" type veth peer name eth0 netns "$B" || ix_skip "no veth"
for ns in "$A" "$B"; do
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
	ip -n "$ns" link set dev lo up
	ip -n "$ns" link set dev eth0 up
done
ip -n "$A" addr add 198.18.0.1/24 dev eth0
ip -n "$B" addr add 198.18.0.2/24 dev eth0
tc -n "$A" qdisc add dev eth0 root tbf rate 200mbit burst 64kb latency 20ms || ix_skip "no tbf"
inb() { ip netns exec "$B" "$@"; }
# A process started in the background runs ip netns exec itself, which
# execs it: $! is then its own PID, which the cleanup kills (a function in
# the background is a subshell, whose child would outlive it).

# Each listener's port is read from its "metrics listening on port N" line
# (stderr) with ix_wait_port.
ip netns exec "$B" "$IXPERF" top --listen 127.0.0.1:0 </dev/null >"$J/top.out" 2>"$J/top.err" &
TOP=$!
IX_PIDS+=("$TOP")
TPORT=$(ix_wait_port "$J/top.err" "$TOP") || { cat "$J/top.err"; not_ok "top --listen did not start"; ix_done; }
IX_NS=$B ix_server agent --metrics 127.0.0.1:0 || { not_ok "the agent did not start"; ix_done; }
APORT=$(ix_wait_port "$J/agent.err" "$IX_SPID") || { cat "$J/agent.err"; not_ok "server --metrics did not start"; ix_done; }
ok "top --listen serves on port $TPORT, the agent's metrics on port $APORT"

cat >"$J/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: top
    static_configs: [{ targets: ['127.0.0.1:$TPORT'] }]
  - job_name: agent
    static_configs: [{ targets: ['127.0.0.1:$APORT'] }]
EOF
ip netns exec "$B" prometheus --config.file="$J/prometheus.yml" --storage.tsdb.path="$J/tsdb" \
	--web.listen-address=127.0.0.1:9090 --log.level=warn >"$J/prom.log" 2>&1 &
PROM=$!
IX_PIDS+=("$PROM")

# query PROMQL [TIME]: the first result's value ("" when none).
query() {
	inb curl -s --max-time 5 http://127.0.0.1:9090/api/v1/query --data-urlencode "query=$1" \
		${2:+--data-urlencode "time=$2"} | jq -r '.data.result[0].value[1] // empty'
}
both_up() {
	[ "$(query 'sum(up{job=~"top|agent"})')" = 2 ]
}
check "Prometheus scrapes both endpoints" ix_wait_for 30 both_up || { tail -5 "$J/prom.log"; ix_done; }
served_before=$(query 'ixperf_agent_tests_total{job="agent"}')
check "the agent has served no test before the traffic (got '$served_before')" test "$served_before" = 0

# What is served passes promtool, and names the veth.
inb curl -s "http://127.0.0.1:$TPORT/metrics" >"$J/top.prom"
inb curl -s "http://127.0.0.1:$APORT/metrics" >"$J/agent.prom"
check "promtool check metrics passes on top --listen's text" promtool check metrics <"$J/top.prom"
check "promtool check metrics passes on the agent's text" promtool check metrics <"$J/agent.prom"
check "the receiver's eth0 has its byte counters" grep -q '^ixperf_receive_bytes_total{interface="eth0"} ' "$J/top.prom"
check "the agent serves its own metrics with the links'" \
	grep -q '^ixperf_receive_bytes_total{interface="eth0"} ' "$J/agent.prom"

# Traffic: one bw test from A, through the tbf, to the agent in B.
ip netns exec "$A" "$IXPERF" bw -t 22 -w 1 -p "$IX_PORT" 198.18.0.2 >"$J/bw.out" 2>"$J/bw.err" &
BW=$!
IX_PIDS+=("$BW")
sleep 7 # the rate settles, and Prometheus has samples of it
kbytes() { ip -n "$B" -s -j link show eth0 | jq '.[0].stats64.rx.bytes'; }
# Over 10 s. Both listeners read the links at each scrape, so the counters
# are of the scrape's moment and rate() is the kernel's within 3 % (served
# a second old, they would alias: 8 or 10 seconds' bytes over 9).
k0=$(kbytes)
t0=$(date +%s.%N)
sleep 10
k1=$(kbytes)
t1=$(date +%s.%N)
sleep 1.5 # the scrape after t1
kernel=$(echo "($k1 - $k0) / ($t1 - $t0)" | bc -l)
within() { # within A B PERCENT: A is B give or take PERCENT
	echo "$1 $2 $3" | awk '{ d = $1 - $2; if (d < 0) d = -d; exit !($2 > 0 && d <= $2 * $3 / 100) }'
}
for job in top agent; do
	prom=$(query "rate(ixperf_receive_bytes_total{job=\"$job\",interface=\"eth0\"}[10s])" "$t1")
	printf '  # %s: rate() %.0f B/s, kernel rx_bytes %.0f B/s over %.1f s\n' "$job" "${prom:-0}" \
		"$kernel" "$(echo "$t1 - $t0" | bc -l)"
	check "$job: Prometheus' rate of eth0's received bytes (${prom:-none} B/s) is the kernel's ($kernel B/s) within 3%" \
		within "${prom:-0}" "$kernel" 3
done
gauge=$(query 'avg_over_time(ixperf_receive_bytes_per_second{job="top",interface="eth0"}[10s])' "$t1")
check "the bytes-per-second gauge, averaged over the same 10 s (${gauge:-none}), is the kernel's rate within 10%" \
	within "${gauge:-0}" "$kernel" 10
wait "$BW"
rc=$?
check "the bw test ends with 0 (stderr: $(head -c 300 "$J/bw.err"))" test "$rc" = 0
served() { [ "$(query 'ixperf_agent_tests_total{job="agent"}')" = 1 ]; }
check "the agent's tests-served counter went from 0 to 1 in Prometheus" ix_wait_for 10 served
# Once the link is quiet, the counter is the kernel's to the byte.
quiet_equal() {
	local k p
	k=$(kbytes)
	p=$(inb curl -s "http://127.0.0.1:$TPORT/metrics" |
		sed -n 's/^ixperf_receive_bytes_total{interface="eth0"} //p')
	[ -n "$p" ] && [ "$p" = "$k" ]
}
check "on a quiet link, ixperf_receive_bytes_total is the kernel's rx_bytes" ix_wait_for 5 quiet_equal

# Hostile clients: idle, trickling, oversized, malformed; the listener
# answers each as it should and keeps serving.
inb python3 - "$TPORT" >"$J/hostile.out" 2>&1 <<'EOF'
import socket, sys, time
port = int(sys.argv[1])
def ask(data, wait=3.0):
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    s.sendall(data)
    got = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
    except socket.timeout:
        pass
    s.close()
    return got.split(b"\r\n", 1)[0].decode(errors="replace")
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(40)]
for s in idle[:20]:
    s.sendall(b"GET /metrics HTTP/1.1\r\nX-Slow: ")
t = time.monotonic()
print("busy", ask(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), round(time.monotonic() - t, 2))
print("big", ask(b"GET /metrics HTTP/1.1\r\nX: " + b"a" * 10000 + b"\r\n\r\n"))
print("version", ask(b"GET /metrics HTTP/2.0\r\n\r\n"))
print("method", ask(b"DELETE /metrics HTTP/1.1\r\n\r\n"))
print("path", ask(b"GET /secret HTTP/1.1\r\n\r\n"))
print("nul", ask(b"GET /metrics\x00 HTTP/1.1\r\n\r\n"))
print("long", ask(b"GET /" + b"m" * 5000 + b" HTTP/1.1\r\n\r\n"))
for s in idle:
    s.close()
print("after", ask(b"GET /metrics HTTP/1.0\r\n\r\n"))
EOF
cat "$J/hostile.out" | sed 's/^/  # /'
check "with 40 idle and trickling clients held open, a scrape is answered 200" \
	grep -qE '^busy HTTP/1.1 200 OK (0|1|2)\.' "$J/hostile.out"
check "a 10 KB header is refused with 431" grep -q '^big HTTP/1.1 431' "$J/hostile.out"
check "HTTP/2.0 is refused with 505" grep -q '^version HTTP/1.1 505' "$J/hostile.out"
check "DELETE is refused with 405" grep -q '^method HTTP/1.1 405' "$J/hostile.out"
check "another path is 404" grep -q '^path HTTP/1.1 404' "$J/hostile.out"
check "a NUL in the request is 400" grep -q '^nul HTTP/1.1 400' "$J/hostile.out"
check "a request line over the head's limit is refused (414 or 431)" \
	grep -qE '^long HTTP/1.1 (414|431)' "$J/hostile.out"
check "the listener serves on after them" grep -q '^after HTTP/1.1 200' "$J/hostile.out"
check "and Prometheus still scrapes it" both_up

# Saved trees: pause frames per priority, RDMA classes and a downtrained
# PCIe link, each equal to what the tree's files hold.
python3 "${top_srcdir}/tests/topo/mkfixture.py" downtrained "$J/down" >/dev/null || exit 99
fixture_scrape() { # NAME SYSFS
	local pid port
	"$IXPERF" top --listen 127.0.0.1:0 --sysfs "$2" -i 0.2 </dev/null >/dev/null 2>"$J/$1.err" &
	pid=$!
	IX_PIDS+=("$pid")
	port=$(ix_wait_port "$J/$1.err" "$pid") || return 1
	sleep 0.5 # a second sample: the rates are known
	curl -s "http://127.0.0.1:$port/metrics" >"$J/$1.prom"
	kill "$pid"
}
fixture_scrape basic "$top_srcdir/tests/data/sysfs/basic"
fixture_scrape down "$J/down"
check "promtool check metrics passes on a saved tree's metrics" promtool check metrics <"$J/basic.prom"
check "promtool check metrics passes with PCIe links" promtool check metrics <"$J/down.prom"
eth=$top_srcdir/tests/data/sysfs/basic/ethtool/eth0
for p in 3 4; do
	want=$(sed -n "s/^ *rx_prio${p}_pause: //p" "$eth")
	check "priority $p's pause frames received are ethtool's rx_prio${p}_pause ($want)" \
		grep -qx "ixperf_pause_frames_received_total{interface=\"eth0\",priority=\"$p\"} $want" \
		"$J/basic.prom"
done
hw=$top_srcdir/tests/data/sysfs/basic/sys/class/infiniband/mlx5_1/ports/1/hw_counters
want=$(cat "$hw/np_cnp_sent")
check "mlx5_1's CNPs sent are its hw_counters' np_cnp_sent ($want)" \
	grep -qx "ixperf_cnp_sent_total{device=\"mlx5_1\",port=\"1\"} $want" "$J/basic.prom"
# The downtrained NIC: its width as trained is the tree's current_link_width.
dev=$(basename "$(readlink -f "$J/down/sys/class/net/ibp1s0/device")")
want=$(cat "$J/down/sys/bus/pci/devices/$dev/current_link_width")
check "ibp1s0's PCIe width is current_link_width ($want)" \
	grep -qx "ixperf_pcie_link_width_lanes{interface=\"ibp1s0\"} $want" "$J/down.prom"
check "and its health says downtrained" \
	grep -qx 'ixperf_pcie_link_health{interface="ibp1s0",class="downtrained"} 1' "$J/down.prom"

# The dashboard: valid JSON with what Grafana requires, and PromQL over
# names ixperf serves.
check "the Grafana dashboard is valid and asks for served metrics only" python3 - \
	"$top_srcdir/contrib/grafana/ixperf-dashboard.json" "$J"/*.prom <<'EOF'
import json, re, sys
d = json.load(open(sys.argv[1]))
served = set()
for f in sys.argv[2:]:
    for line in open(f):
        if line.startswith("# TYPE "):
            served.add(line.split()[2])
bad = []
assert isinstance(d.get("title"), str) and d["title"], "no title"
assert isinstance(d.get("schemaVersion"), int), "no schemaVersion"
assert d.get("panels"), "no panels"
names = {v.get("name") for v in d.get("templating", {}).get("list", [])}
assert {"instance", "interface"} <= names, "templating lacks instance/interface: %s" % names
used = set()
def walk(panels):
    for p in panels:
        assert isinstance(p.get("type"), str), "panel without type: %r" % p.get("title")
        g = p.get("gridPos", {})
        assert all(isinstance(g.get(k), int) for k in "hwxy"), "gridPos: %r" % p.get("title")
        if p["type"] == "row":
            walk(p.get("panels", []))
            continue
        assert p.get("targets"), "panel without targets: %r" % p.get("title")
        for t in p["targets"]:
            used.update(re.findall(r"\bixperf_[a-zA-Z0-9_]+", t["expr"]))
walk(d["panels"])
for v in d["templating"]["list"]:
    used.update(re.findall(r"\bixperf_[a-zA-Z0-9_]+", json.dumps(v.get("query", ""))))
missing = sorted(used - served)
print("  # dashboard uses %d metrics, all served: %s" % (len(used), not missing))
assert not missing, "not served: %s" % missing
EOF

ix_done
