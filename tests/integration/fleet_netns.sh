#!/usr/bin/env bash
# Health from every node: 4 hosts in network namespaces, each agent reading
# its own sysfs tree (--sysfs, tests/topo/mkfixture.py's "downtrained"
# host with its first NIC's link set right on every host but host 3).
# Host 2's NIC runs other firmware, host 3's NIC is trained below its
# slot, host 1 has a soft-RoCE device over its veth. mesh and incast
# gather every agent's inventory, with its veth address and the RDMA
# device over it, and name exactly those two as odd ones out, and host
# 3's finding, in text, JSON (schema
# checked) and HTML. Then hostile clients: a request without the token,
# a malformed, an oversized and a too-large one each get an ERROR, and
# the agent keeps answering others.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
command -v python3 >/dev/null || ix_need "python3 is not installed (mkfixture.py builds the trees)"
N=4
FW=2
SLOW=3
J=$IX_TMP
TOK=$J/token
printf 'fleet-token-for-tests\n' >"$TOK"
chmod 600 "$TOK"
ix_fabric "ixf$$-" "$N"

# Host i's tree; the first NIC trained at its slot's Gen5 x16 except on
# host $SLOW, host $FW's NIC on another firmware.
for ((i = 1; i <= N; i++)); do
	python3 "$top_srcdir/tests/topo/mkfixture.py" downtrained "$J/fx$i" || exit 99
	nic=$J/fx$i/sys/class/net/ibp1s0/device
	if [ "$i" != "$SLOW" ]; then
		max_speed=$(cat "$nic/max_link_speed")
		max_width=$(cat "$nic/max_link_width")
		for d in "$nic" "$nic/.."; do
			echo "$max_speed" >"$d/current_link_speed"
			echo "$max_width" >"$d/current_link_width"
		done
	fi
	mkdir -p "$J/fx$i/proc/sys/kernel"
	echo "6.1.0-fleet" >"$J/fx$i/proc/sys/kernel/osrelease"
done
fw_all=$(cat "$J/fx1/sys/class/infiniband/mlx5_0/fw_ver")
fw_odd="${fw_all%.*}.$((${fw_all##*.} + 1))"
echo "$fw_odd" >"$J/fx$FW/sys/class/infiniband/mlx5_0/fw_ver"
slow_bdf=$(basename "$(readlink -f "$J/fx$SLOW/sys/class/net/ibp1s0/device")")
# Host 1 has a soft-RoCE device over its veth: its address names it.
rxe=$J/fx1/sys/devices/virtual/infiniband/rxe0
mkdir -p "$rxe/ports/1/gid_attrs/ndevs"
echo eth0 >"$rxe/ports/1/gid_attrs/ndevs/0"
echo Ethernet >"$rxe/ports/1/link_layer"
echo "4: ACTIVE" >"$rxe/ports/1/state"
echo "5: LinkUp" >"$rxe/ports/1/phys_state"
ln -s ../../devices/virtual/infiniband/rxe0 "$J/fx1/sys/class/infiniband/rxe0"

hosts=
for ((i = 1; i <= N; i++)); do
	IX_NS="ixf$$-h$i" ix_server "a$i" --token-file "$TOK" --sysfs "$J/fx$i" || exit 99
	hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
	port[i]=$IX_PORT
done
h() { echo "198.18.0.$1:${port[$1]}"; }

ip netns exec "ixf$$-h1" "$IXPERF" mesh --test lat -n 200 -w 0 --token-file "$TOK" -J "$hosts" \
	>"$J/mesh.json" 2>"$J/mesh.err"
rc=$?
jq -c '.results[0].fleet.odd_ones_out[]' "$J/mesh.json" | sed 's/^/  /'
check "the mesh ran (exit $rc)" test "$rc" = 0 -o "$rc" = 4
check "every agent answered its inventory" jq_true "$J/mesh.json" \
	".results[0].fleet.answered == $N and ([.results[0].fleet.nodes[].error] | all(. == null))"
check "exactly two odd ones out" jq_true "$J/mesh.json" '.results[0].fleet.odd_ones_out | length == 2'
check "host $FW named for its NIC's firmware $fw_odd (most have $fw_all)" jq_true "$J/mesh.json" \
	"[.results[0].fleet.odd_ones_out[] | select(.field == \"fw\")] |
	 length == 1 and .[0].host == \"$(h $FW)\" and .[0].device == \"ibp1s0\" and
	 .[0].value == \"$fw_odd\" and .[0].majority == \"$fw_all\" and .[0].agree == $((N - 1))"
check "host $SLOW named for its NIC's PCIe link as trained" jq_true "$J/mesh.json" \
	"[.results[0].fleet.odd_ones_out[] | select(.field == \"pcie\")] |
	 length == 1 and .[0].host == \"$(h $SLOW)\" and .[0].device == \"ibp1s0\" and
	 .[0].value != .[0].majority"
check "host $SLOW's downtrained link is its one topology finding" jq_true "$J/mesh.json" \
	".results[0].fleet.findings | length == 1 and .[0].host == \"$(h $SLOW)\" and
	 .[0].kind == \"pcie_downtrained\" and .[0].device == \"$slow_bdf\""
check "each node's kernel and NICs come from its own tree" jq_true "$J/mesh.json" \
	"[.results[0].fleet.nodes[].inventory | .kernel == \"6.1.0-fleet\" and (.nics | length == 2)] | all"
check "each node lists its veth address 198.18.0.i/24 on eth0, no loopback or link-local" \
	jq_true "$J/mesh.json" \
	"[.results[0].fleet.nodes[] | (.host | split(\":\")[0]) as \$ip | .inventory.addrs as \$a
	  | ([\$a[] | select(.iface == \"eth0\" and .family == \"inet\" and .addr == \$ip
	     and .prefix == 24)] | length == 1)
	    and ([\$a[] | select(.iface == \"lo\" or (.addr | startswith(\"fe80:\")))] | length == 0)]
	 | all"
check "host 1's address names the soft-RoCE device of its tree, the others' none" \
	jq_true "$J/mesh.json" \
	"[.results[0].fleet.nodes[].inventory.addrs[] | select(.iface == \"eth0\" and .family == \"inet\")
	  | .rdma] == [\"rxe0\", \"\", \"\", \"\"]"
check "only hosts $FW and $SLOW are marked odd" jq_true "$J/mesh.json" \
	"[.results[0].fleet.nodes[].odd] == [range(1; $((N + 1))) | (. == $FW or . == $SLOW)]"
schema_check "$J/mesh.json"

ip netns exec "ixf$$-h1" "$IXPERF" mesh --test lat -n 200 -w 0 --token-file "$TOK" "$hosts" \
	>"$J/mesh.txt" 2>"$J/mesh.err"
grep -E '^(Inventory|ODD|FINDING)' "$J/mesh.txt" | sed 's/^/  /'
check "text names host $FW's firmware" \
	grep -qF "ODD: $(h $FW): ibp1s0 fw $fw_odd, where $((N - 1)) of $N nodes have $fw_all" "$J/mesh.txt"
check "text names host $SLOW's PCIe link" grep -q "^ODD: $(h $SLOW): ibp1s0 pcie Gen" "$J/mesh.txt"
check "text gives host $SLOW's finding" grep -q "^FINDING: $(h $SLOW): warning $slow_bdf: " "$J/mesh.txt"

"$IXPERF" report -f html -o "$J/mesh.html" "$J/mesh.json" 2>"$J/html.err"
check "the HTML report has every node's inventory" grep -q "Every node's inventory" "$J/mesh.html"
check "HTML names host $FW with its firmware" \
	grep -qF "<tr class=\"fail\"><td>$(h $FW)</td><td>ibp1s0</td><td>fw</td><td>$fw_odd</td>" "$J/mesh.html"
check "HTML names host $SLOW with its PCIe link" \
	grep -qF "<tr class=\"fail\"><td>$(h $SLOW)</td><td>ibp1s0</td><td>pcie</td>" "$J/mesh.html"
check "HTML gives host $SLOW's finding" \
	grep -qF "<tr class=\"warn\"><td>$(h $SLOW)</td><td>warning</td><td>pcie_downtrained</td>" "$J/mesh.html"

"$IXPERF" report "$J/mesh.json" >"$J/report.txt" 2>&1
check "ixperf report of the saved mesh gives the same odd ones and finding" bash -c \
	"grep -E '^(ODD|FINDING):' '$J/mesh.txt' | diff - <(grep -E '^(ODD|FINDING):' '$J/report.txt')"

ip netns exec "ixf$$-h1" "$IXPERF" incast -t 0.5 -w 0 --sweep 1,3 --token-file "$TOK" -J "$hosts" \
	>"$J/incast.json" 2>"$J/incast.err"
check "incast names the same two odd ones out" jq_true "$J/incast.json" \
	"[.results[0].fleet.odd_ones_out[] | [.host, .field]] | sort ==
	 ([[\"$(h $FW)\", \"fw\"], [\"$(h $SLOW)\", \"pcie\"]] | sort)"
schema_check "$J/incast.json"

# ixperf run: the agents of its checks, one run document and HTML report.
cat >"$J/plan.ini" <<INI
[plan]
name = fleet
hosts = $hosts
token_file = $TOK

[lat]
probe = mesh
test = lat
iters = 100
warmup = 0
INI
ip netns exec "ixf$$-h1" "$IXPERF" run --output-dir "$J/run" -J "$J/plan.ini" \
	>"$J/run.json" 2>"$J/run.err"
check "run keeps the coordinating host's inventory and topology" jq_true "$J/run.json" \
	'.results[0].inventory.kernel != null and (.results[0] | has("topology"))'
check "run names the same two odd ones out from its check's agents" jq_true "$J/run.json" \
	".results[0].fleet.answered == $N and ([.results[0].fleet.odd_ones_out[] | [.host, .field]] | sort ==
	 ([[\"$(h $FW)\", \"fw\"], [\"$(h $SLOW)\", \"pcie\"]] | sort))"
schema_check "$J/run.json"
"$IXPERF" report "$J/run.json" >"$J/run-report.txt" 2>&1
check "ixperf report of the run names them" bash -c \
	"grep -qF 'ODD: $(h $FW): ibp1s0 fw $fw_odd' '$J/run-report.txt' &&
	 grep -q '^FINDING: $(h $SLOW): ' '$J/run-report.txt'"
check "the run's HTML report names them" bash -c \
	"grep -qF '<td>$(h $FW)</td><td>ibp1s0</td><td>fw</td>' '$J'/run/*.html &&
	 grep -qF '<td>$(h $SLOW)</td><td>warning</td><td>pcie_downtrained</td>' '$J'/run/*.html"

# An acceptance plan that judges them: probe = inventory over the agents
# (max_odd_nodes and max_findings default to 0) fails, naming each odd
# one out and the finding with its node, in the summary, JSON and HTML.
cat >"$J/health.ini" <<INI
[plan]
name = health
hosts = $hosts
token_file = $TOK

[health]
probe = inventory

[health-lenient]
probe = inventory
max_odd_nodes = 2
max_findings = 1
INI
ip netns exec "ixf$$-h1" "$IXPERF" run --output-dir "$J/health" "$J/health.ini" \
	>"$J/health.txt" 2>"$J/health.err"
rc=$?
sed 's/^/# /' "$J/health.txt"
check "a plan's inventory check fails on the odd ones out (exit 4)" test "$rc" = 4
hdoc=$(ls "$J"/health/ixperf-run-*.json | head -n 1)
check "it names both odd nodes and host $SLOW's finding, each with its node" jq_true "$hdoc" \
	"[.results[0].checks[0].expectations[] | {(.key): .findings}] | add as \$e
	 | (\$e.max_odd_nodes | length == 2) and (\$e.max_odd_nodes | map(test(\"^198\\\\.18\\\\.0\\\\.($FW|$SLOW):\")) | all)
	 and (\$e.max_findings | length >= 1) and (\$e.max_findings[0] | startswith(\"$(h $SLOW): \"))"
check "the check allowing them passes" jq_true "$hdoc" '.results[0].checks[1].verdict == "PASS"'
check "the summary lists them under the failed expectations" bash -c \
	"grep -q 'FAIL max_odd_nodes = 0 (default): 2' '$J/health.txt' &&
	 grep -qF 'finding: $(h $FW): ibp1s0 fw $fw_odd, where 3 of 4 nodes have' '$J/health.txt'"
schema_check "$hdoc"
check "the HTML report names the odd firmware" grep -qF "$(h $FW)" "$J"/health/*.html

# --- Hostile clients. -----------------------------------------------------------
# An agent with the token answers nothing before authentication; one
# without it refuses requests that name anything or are too large, and
# goes on serving.
IX_NS="ixf$$-h4" ix_server open --sysfs "$J/fx4" || exit 99
open_port=$IX_PORT
cat >"$J/hostile.py" <<'PY'
import json, os, socket, sys

sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests"))
from ixframe import ERROR, HELLO, HELLO_ACK, INVENTORY, INVENTORY_REPLY, frame, hello, recv

host, token_port, open_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def refused(port, body, what, want, greet=True):
    s = socket.create_connection((host, port), timeout=10)
    if greet:
        hello(s)
    else:
        s.sendall(frame(HELLO, {"host": "hostile", "version": "0", "protocol": 1,
                                "nonce": "0123456789abcdef" * 4}))
        t, ack = recv(s)
        assert t == HELLO_ACK and ack.get("auth") == "hmac-sha256", (t, ack)
    try:
        s.sendall(frame(INVENTORY, body))
        t, b = recv(s)
    except (ConnectionResetError, BrokenPipeError):
        t, b = None, None
    msg = (b or {}).get("error") or ""
    print(("ok" if t == ERROR and want in msg else "not ok") + " - %s -> %r" % (what, msg))
    s.close()

refused(token_port, {"version": 1}, "INVENTORY without the token", "authentication failed",
        greet=False)
refused(open_port, {"version": 1, "path": "/etc/shadow"}, "a request that names a path",
        "unexpected member 'path'")
refused(open_port, {"version": 2}, "another version", "version must be 1")
refused(open_port, {"version": 1, "pad": "x" * 60000}, "an oversized request",
        "over the 64-byte limit")
refused(open_port, b"x" * 70000, "a frame over the protocol's limit", "exceeds the")
s = socket.create_connection((host, open_port), timeout=10)
hello(s)
s.sendall(frame(INVENTORY, {"version": 1}))
t, b = recv(s)
ok = t == INVENTORY_REPLY and len(b["nics"]) == 2
print(("ok" if ok else "not ok") + " - then a well-formed request is answered")
PY
ip netns exec "ixf$$-h1" python3 "$J/hostile.py" 198.18.0.4 "${port[4]}" "$open_port" \
	>"$J/hostile.out" 2>&1
sed 's/^/  /' "$J/hostile.out"
check "every hostile request gets an ERROR" test "$(grep -c '^ok - [^t]' "$J/hostile.out")" = 5
check "and the agent goes on answering" grep -q '^ok - then a well-formed request is answered' "$J/hostile.out"
check "the agents survive them" kill -0 "$IX_SPID"
ip netns exec "ixf$$-h1" "$IXPERF" mesh --test lat -n 50 -w 0 --token-file "$TOK" -J "$hosts" \
	>"$J/after.json" 2>"$J/after.err"
check "the token agents still answer a mesh's inventory" jq_true "$J/after.json" \
	".results[0].fleet.answered == $N"

ix_done
