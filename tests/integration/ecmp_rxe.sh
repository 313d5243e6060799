#!/usr/bin/env bash
# ixperf ecmp --path rdma on a real verbs provider over a real routed
# multipath fabric: two soft-RoCE VMs (tests/rdma/vm.sh, IX_VM_FABRIC=ecmp),
# VM 1 behind router leaf1, VM 2 behind leaf2, the leaves joined by two
# spines with multipath routes (every spine link a tbf). The switch agent
# is the host's ixperf in leaf1's namespace, and so is the coordinator.
# Cases: a layer-4 hash (fib_multipath_hash_policy 1: the packets come
# from QEMU's taps, with no socket's hash on them) spreads the QPs over
# both spines; a layer-3 hash (policy 0) puts them all on one (exit 4,
# named). The oracles are the kernel's: nft counters per RoCE v2 source
# port and uplink in leaf1's forward path, leaf1's port counters (ip -s -j
# link), a capture of the source ports on VM 1's tap, and what VM 1's tap
# received against the QPs' bytes. About 4 minutes (two VMs booting under
# emulation). IX_K=N runs N QPs (8); IX_KEEP_VM_OUT=DIR keeps the VMs'
# folder there (logs, captures, counters).
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/rdma/vm.sh"

[ "$(id -u)" = 0 ] || ix_skip "needs root for the routed fabric's namespaces (CI runs as root)"
command -v nft >/dev/null || ix_need "nft (nftables) is not installed"
command -v tshark >/dev/null || ix_need "tshark is not installed"
ix_vm_test_setup
for n in leaf1 leaf2 spine1 spine2; do IX_NETNS+=("$(ix_vm_fabric_ns $n)"); done
# On any exit: the VMs told to end, given 30 s, then their QEMUs (the
# children of the background boot) stopped by PID; then lib.sh's cleanup.
boot=
vm_end() {
	[ -n "${IX_KEEP_VM_OUT:-}" ] && cp -r "$O" "$IX_KEEP_VM_OUT"
	[ -n "$boot" ] || return 0
	touch "$O/done"
	for _ in $(seq 300); do kill -0 "$boot" 2>/dev/null || return 0; sleep 0.1; done
	for p in $(pgrep -P "$boot"); do kill "$p"; done
}
trap 'vm_end; ix_cleanup' EXIT
L1=$(ix_vm_fabric_ns leaf1)
K=${IX_K:-8}
SPORT=50000
SIZE=16384 # four packets a write: few in flight, for the emulated VMs' sake
RATE=500mbit

cat >"$O/vm.sh" <<EOF
X=$IXPERF
O=$O
EOF
cat >>"$O/vm.sh" <<'EOF'
# soft-RoCE under emulation can stall for seconds and be fine
export IXPERF_RDMA_TIMEOUT=60
ip route replace default via "${IX_VM_IP%.*}.1"
rdma link add rxe0 type rxe netdev eth0 || exit 3
# A runs the test towards B at the coordinator's asking (leaf1's address
# towards A); B takes RDMA tests from A.
if [ "$IX_VM_NODE" = 1 ]; then allow=10.77.1.1; else allow=10.77.1.2; fi
$X server -B "$IX_VM_IP" --allow-run "$allow" >"$O/agent$IX_VM_NODE.log" 2>&1 &
touch "$O/up$IX_VM_NODE"
# B: its rxe port's hw_counters into NAME.ctr whenever the host asks for
# them with NAME.req.
for _ in $(seq 3600); do
	[ -e "$O/done" ] && exit 0
	for r in "$O"/*.req; do
		[ -e "$r" ] && [ "$IX_VM_NODE" = 2 ] || continue
		for c in /sys/class/infiniband/rxe0/ports/1/hw_counters/*; do
			echo "$(basename "$c") $(cat "$c")"
		done >"${r%.req}.tmp" && mv "${r%.req}.tmp" "${r%.req}.ctr" && rm -f "$r"
	done
	sleep 0.2
done
exit 1
EOF
IX_VM_FABRIC=ecmp ix_vm_boot "$CACHE" "$O" "$O/vm.sh" 1 2 &
boot=$!
IX_PIDS+=("$boot")
ix_wait_for 600 test -e "$O/up1" -a -e "$O/up2" || {
	cat "$O/fabric.err" 2>/dev/null
	tail -n 5 "$O"/console*.log
	not_ok "the VMs came up"
	ix_done
}
for n in 1 2; do
	ix_wait_for 60 timeout 5 ip netns exec "$L1" bash -c "exec 3<>/dev/tcp/10.77.$n.2/5301" ||
		not_ok "VM $n's agent answers"
done
for s in 1 2; do
	tc -n "$L1" qdisc replace dev "to-spine$s" root tbf rate $RATE burst 256kb latency 50ms
	tc -n "$(ix_vm_fabric_ns "spine$s")" qdisc replace dev l2 root tbf rate $RATE burst 256kb latency 50ms
done
IX_NS=$L1 ix_server leaf1 --allow-run 10.77.1.1 || exit 99
PL=$IX_PORT
A=10.77.1.2:5301
B=10.77.2.2:5301

policy() { # 1 (layer 4) or 0 (layer 3) in both leaves
	for n in leaf1 leaf2; do
		ip netns exec "$(ix_vm_fabric_ns $n)" sysctl -qw net.ipv4.fib_multipath_hash_policy="$1"
	done
}
# nft counters in leaf1's forward path, per RoCE v2 source port and uplink
nft_setup() {
	local i u
	ip netns exec "$L1" nft delete table inet ixr 2>/dev/null
	ip netns exec "$L1" nft add table inet ixr || return 1
	ip netns exec "$L1" nft add chain inet ixr fw '{ type filter hook forward priority 0; }' || return 1
	for ((i = 0; i < K; i++)); do
		for u in to-spine1 to-spine2; do
			ip netns exec "$L1" nft add rule inet ixr fw oifname "$u" udp sport $((SPORT + i)) counter || return 1
		done
	done
}
nft_uplinks() { # "sport uplink bytes" per rule
	ip netns exec "$L1" nft -j list table inet ixr |
		jq -r '.nftables[] | select(.rule) | .rule.expr as $e
		  | [($e[1].match.right), ($e[0].match.right), ($e[2].counter.bytes)] | @tsv'
}
# ctr_snap NAME: B's rxe hw_counters now, into NAME.ctr
ctr_snap() {
	touch "$O/$1.req"
	ix_wait_for 20 test -e "$O/$1.ctr"
}
# ctr_delta NAME COUNTER: how far COUNTER moved from NAME-0 to NAME-1
ctr_delta() {
	echo $(($(awk -v c="$2" '$1 == c {print $2}' "$O/$1-1.ctr") - $(awk -v c="$2" '$1 == c {print $2}' "$O/$1-0.ctr")))
}
ifbytes() { # IF rx|tx: leaf1's counter
	ip -n "$L1" -s -j link show dev "$1" | jq ".[0].stats64.$2.bytes"
}

run_case() { # NAME: ixperf ecmp --path rdma, the kernel's counters around it
	local name=$1 t1 t2 r0 cap
	nft_setup || { not_ok "$name: nft counters set up"; return 1; }
	ip netns exec "$L1" tshark -q -i tap1 -f "udp dst port 4791 and src host 10.77.1.2" -s 96 \
		-w "$O/$name.pcap" -F pcap >/dev/null 2>"$O/$name.tshark" &
	cap=$!
	IX_PIDS+=("$cap")
	ix_wait_for 20 grep -q "Capturing on" "$O/$name.tshark"
	ctr_snap "$name-0"
	t1=$(ifbytes to-spine1 tx) t2=$(ifbytes to-spine2 tx) r0=$(ifbytes tap1 rx)
	ip netns exec "$L1" timeout 300 "$IXPERF" ecmp --path rdma --flows $K --sport $SPORT -s $SIZE \
		--alone-time 1 -t 3 -w 0 --switch "10.77.1.1:$PL" -J "$A" "$B" \
		>"$O/$name.json" 2>"$O/$name.err"
	echo $? >"$O/$name.rc"
	ctr_snap "$name-1"
	echo "$(($(ifbytes to-spine1 tx) - t1)) $(($(ifbytes to-spine2 tx) - t2)) $(($(ifbytes tap1 rx) - r0))" >"$O/$name.tx"
	kill -INT "$cap"
	wait "$cap"
	nft_uplinks >"$O/$name.nft"
	jq -r '"  verdict: \(.results[0].verdict) (ports: \(.results[0].sport_how))", (.results[0].flows[] |
	  "  QP \(.qpn) sport \(.sport) flow label \(.flow_label): alone \(.alone.bytes) B \(.alone.bps // 0 | floor) bit/s, at once \(.bytes) B, uplink \(.hops[0].uplink // "-") \(.hops[0].why // "")")' \
		"$O/$name.json" 2>/dev/null || cat "$O/$name.err"
	echo "  kernel: leaf1 sent $(cut -d' ' -f1,2 "$O/$name.tx") bytes on to-spine1, to-spine2; tap1 received $(cut -d' ' -f3 "$O/$name.tx")"
}
# The oracle's mapping: per source port, the uplink nft counted (nearly)
# all its bytes on; ixperf's must be the same for every QP.
check_mapping() {
	local name=$1 bad=0 sport up want
	[ -s "$O/$name.nft" ] && [ -s "$O/$name.json" ] || return 1
	while read -r sport up; do
		want=$(jq -r --argjson s "$sport" '.results[0].flows[] | select(.sport == $s) | .hops[0].uplink' "$O/$name.json")
		[ "$want" = "$up" ] || { echo "  sport $sport: nft says $up, ixperf $want" >&2; bad=1; }
	done < <(awk '{b[$1" "$2]=$3; t[$1]+=$3} END {for (k in b) {split(k, a, " "); if (b[k] > 0.95 * t[a[1]]) print a[1], a[2]}}' "$O/$name.nft")
	[ "$(awk '$3 > 0 {print $1}' "$O/$name.nft" | sort -u | wc -l)" = $K ] || bad=1
	return $bad
}
# leaf1's ports: what each uplink sent against the QPs' bytes ixperf maps
# there (alone and at once, every byte counted) with RoCE v2's headers (58
# bytes a 4096-byte packet, 16 more a write), and no more than all that A
# sent beyond its QPs' packets (VM 1's tap: retransmissions, the control
# connections) and 1% more.
check_bytes() {
	local name=$1 i=0 sent pred all tap
	all=$(jq '[.results[0].flows[] | .alone.bytes + .bytes] | add' "$O/$name.json")
	tap=$(cut -d' ' -f3 "$O/$name.tx")
	for u in to-spine1 to-spine2; do
		i=$((i + 1))
		sent=$(cut -d' ' -f$i "$O/$name.tx")
		pred=$(jq --arg u "$u" '[.results[0].flows[] | select(.hops[0].uplink == $u) | (.alone.bytes + .bytes)] | add // 0' "$O/$name.json")
		echo "  $u: the kernel counted $sent bytes sent, ixperf's QPs carried $pred"
		awk -v s="$sent" -v p="$pred" -v a="$all" -v t="$tap" -v w="$SIZE" '
			function wire(b) { return b * 4154 / 4096 + b / w * 16 }
			BEGIN { x = t - wire(a); if (x < 0) x = 0
				exit !(p == 0 ? s < 2e6 : (s >= wire(p) && s <= 1.01 * (wire(p) + x))) }' || return 1
	done
}
# The QPs' bytes, alone and at once, against what B's rxe took in: its
# packets received, less the duplicates and those out of sequence (a
# retransmission's), each a full path MTU of payload (4096: the VMs' MTU
# of 4200, and every write a multiple of it), within 1% above: rxe counts
# only the first packet out of sequence of a run (rxe_resp.c, check_psn:
# the rest are dropped uncounted until the retransmission); and what VM
# 1's tap received
# against every packet B received (4096 bytes and RoCE v2's 58 of
# headers; 16 more on a write's first), within 2% (the control
# connections, packets lost on the way).
check_total() {
	local name=$1 got sum rcvd dup oos pkts
	got=$(cut -d' ' -f3 "$O/$name.tx")
	sum=$(jq '[.results[0].flows[] | .alone.bytes + .bytes] | add' "$O/$name.json")
	rcvd=$(ctr_delta "$name" rcvd_pkts) dup=$(ctr_delta "$name" duplicate_request)
	oos=$(ctr_delta "$name" out_of_seq_request)
	pkts=$((rcvd - dup - oos))
	echo "  the QPs carried $sum bytes; B's rxe took in $pkts packets ($rcvd received, $dup duplicate, $oos out of sequence): $((pkts * 4096)) bytes; VM 1's tap received $got"
	[ "$sum" -gt 0 ] && [ $((pkts * 4096)) -ge "$sum" ] && [ $((pkts * 4096)) -le $((sum + sum / 100)) ] &&
		awk -v s="$sum" -v r="$rcvd" -v g="$got" -v w="$SIZE" \
			'BEGIN { h = r * (4096 + 58) + s / w * 16; exit !(g >= h && g <= 1.02 * h) }'
}
# The source port each QP used, by the capture, against ixperf's.
check_ports() {
	local name=$1 seen want
	seen=$(tshark -r "$O/$name.pcap" -T fields -e udp.srcport 2>/dev/null | sort -un | tr '\n' ' ')
	want=$(jq -r '[.results[0].flows[].sport] | sort | map(tostring) | join(" ")' "$O/$name.json")
	echo "  captured source ports: $seen; ixperf's: $want"
	[ "$seen" = "$want " ]
}

# 1. A layer-4 hash: the QPs spread over both spines.
policy 1
run_case l4
# The hash of the fixed ports is seeded at boot: all $K on one spine by
# chance 1 in 2^($K-1). ixperf's verdict must be the one nft's counters
# call for either way.
used=$(awk '$3 > 0 {print $2}' "$O/l4.nft" | sort -u | wc -l)
echo "  layer 4: nft saw the QPs on $used of 2 spines"
check "layer 4: ixperf exits $([ "$used" = 2 ] && echo 0 || echo 4)" \
	test "$(cat "$O/l4.rc")" = "$([ "$used" = 2 ] && echo 0 || echo 4)" || tail -3 "$O/l4.err"
check "layer 4: the verdict is what nft's counters call for (a spread over 2 of 2 uplinks where they saw both)" jq_true "$O/l4.json" \
	"if $used == 2 then .results[0].state == \"spread\" and (.results[0].verdict | test(\"^$K flows over 2 of 2 uplinks\")) else .results[0].state == \"polarised\" end"
check "layer 4: every QP's ports were fixed by its flow label (sport + i)" jq_true "$O/l4.json" \
	".results[0].sport_how == \"flow_label\" and ([.results[0].flows[] | .sport == $SPORT + .index and .flow_label == .sport - 49152] | all)"
check "layer 4: the capture saw the QPs send from the ports ixperf names" check_ports l4
check "layer 4: every QP is on the uplink the kernel's nft counters saw it on" check_mapping l4
check "layer 4: leaf1's port counters agree with the bytes per uplink" check_bytes l4
check "layer 4: the QPs' bytes sum to what VM 1's tap received" check_total l4
check "layer 4: the pair's port and uplinks were found, and the QPs kept them at once" jq_true "$O/l4.json" \
	'.results[0].switches[0] | .edge == "tap1" and .first_hop and ([.uplinks[].name] | sort) == ["to-spine1", "to-spine2"] and .paths_kept'
schema_check "$O/l4.json"

# 2. A layer-3 hash: every QP of the pair on one spine.
policy 0
run_case l3
check "layer 3: ixperf exits 4" test "$(cat "$O/l3.rc")" = 4 || tail -3 "$O/l3.err"
check "layer 3: ixperf names the polarisation" jq_true "$O/l3.json" \
	".results[0].state == \"polarised\" and (.results[0].verdict | startswith(\"the flows between 10.77.1.2 and 10.77.2.2 share 1 of 2 uplinks: ECMP hash polarised (all $K on to-spine\"))"
check "layer 3: nft saw all of them on one uplink" test "$(awk '$3>0 {print $2}' "$O/l3.nft" | sort -u | wc -l)" = 1
check "layer 3: every QP is on the uplink the kernel's nft counters saw it on" check_mapping l3
check "layer 3: leaf1's port counters agree with the bytes per uplink" check_bytes l3
check "layer 3: the capture saw the QPs send from the ports ixperf names" check_ports l3
check "layer 3: the QPs' bytes sum to what B's rxe took in" check_total l3
schema_check "$O/l3.json"

touch "$O/done"
wait "$boot"
boot=
check "the VMs ended cleanly" test "$(cat "$O/vm1.rc" "$O/vm2.rc" 2>/dev/null | tr -d '\n')" = 00
ix_done
