#!/usr/bin/env bash
# The RDMA wire analysis on real RoCEv2 traffic: two VMs of Debian's own
# kernel (tests/rdma/vm.sh), each with its own soft-RoCE device (rdma_rxe)
# on its eth0. On VM 1, dumpcap (Wireshark's capture engine) records eth0
# while ixperf and perftest move data to and from VM 2: once as it is, once
# with netem on VM 1's eth0 losing, duplicating and reordering packets,
# which makes the responder NAK, the requester go back and packets arrive
# out of sequence. On the host 'ixperf wire' reads each capture; every
# direction's figures must equal the oracle's over tshark's fields
# (tests/tools/rdma-oracle.py: opcode, PSN, AETH syndrome), and the lossy
# capture must hold what netem caused.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/rdma/vm.sh"

for t in dumpcap tshark python3; do
	command -v "$t" >/dev/null || ix_need "$t is not installed (contrib/setup.sh deps installs it)"
done
ix_vm_test_setup
ORACLE=$top_srcdir/tests/tools/rdma-oracle.py
cat >"$O/wire.sh" <<EOF
X=$IXPERF
O=$O
EOF
cat >>"$O/wire.sh" <<'EOF'
# The VMs' CPUs are emulated, each at a fraction of a host core that other
# work shares: soft-RoCE can go seconds without a completion there and be
# fine. ixperf's ends wait 60 s, not 5, before they call the peer gone.
export IXPERF_RDMA_TIMEOUT=60
rdma link add rxe0 type rxe netdev eth0 || exit 3
PT=(-d rxe0 -x 1 -F -s 16384 -n 300)
ROUND=(write read write read)
if [ "$IX_VM_NODE" = 2 ]; then
	$X server -B 10.77.0.2 --allow-run 10.77.0.1,10.77.0.2 >"$O/agent.log" 2>&1 &
	# perftest's servers, one a run, in the order VM 1 runs its clients.
	for i in 0 1 2 3; do
		touch "$O/pt-ready-$i"
		timeout 300 "ib_${ROUND[$i]}_bw" "${PT[@]}" >"$O/pt-server-$i.out" 2>&1
	done
	for _ in $(seq 1200); do [ -e "$O/done" ] && exit 0; sleep 0.5; done
	exit 1
fi
$X server -B 10.77.0.1 --allow-run 10.77.0.1,10.77.0.2 >"$O/agent1.log" 2>&1 &
for _ in $(seq 600); do (exec 3<>/dev/tcp/10.77.0.2/5301) 2>/dev/null && break; sleep 0.2; done
k=0
# perftest CLIENT: the next server's run (a refused connect is tried again).
perftest() {
	for _ in $(seq 600); do [ -e "$O/pt-ready-$k" ] && break; sleep 0.1; done
	for _ in $(seq 30); do
		timeout 300 "ib_${ROUND[$k]}_bw" "${PT[@]}" 10.77.0.2 >"$O/$1-pt-${ROUND[$k]}.out" 2>&1 && break
		grep -q "Couldn't connect" "$O/$1-pt-${ROUND[$k]}.out" || break
		sleep 1
	done
	k=$((k + 1))
}
# round NAME: a capture while ixperf and perftest write and read.
round() {
	dumpcap -q -i eth0 -f "udp port 4791" -s 128 -w "$O/$1.pcapng" 2>"$O/$1.dumpcap" &
	local cap=$!
	for _ in $(seq 300); do grep -q "Capturing on" "$O/$1.dumpcap" && break; sleep 0.1; done
	timeout 200 $X bw --path rdma --op write --iters 300 -s 16Ki -J -o "$O/$1-write.json" 10.77.0.2 \
		2>"$O/$1-write.err"
	timeout 200 $X bw --path rdma --op read --iters 300 -s 16Ki -J -o "$O/$1-read.json" 10.77.0.2 \
		2>"$O/$1-read.err"
	perftest "$1"
	perftest "$1"
	sleep 1 # the last ACKs
	kill -INT $cap
	wait $cap
}
round clean
# About one packet in a hundred lost, one duplicated, one in ten held back
# and so reordered.
tc qdisc add dev eth0 root netem delay 200us loss 1% duplicate 1% reorder 90% 50% \
	2>"$O/netem.err" || exit 4
round lossy
# ixperf's own --capture over --path rdma, netem still on: a bandwidth test
# keeping its packets, a latency test, an incast sweep into this host and a
# mesh.
timeout 200 $X bw --path rdma --op write --iters 300 -s 16Ki --capture eth0 --pcap "$O/self.pcap" \
	-J -o "$O/self-bw.json" 10.77.0.2 2>"$O/self-bw.err"
timeout 200 $X lat --path rdma --op send --iters 200 -s 64 --capture eth0 \
	-J -o "$O/self-lat.json" 10.77.0.2 2>"$O/self-lat.err"
timeout 200 $X incast --path rdma --op write -t 1 -w 0.2 --sweep 1 --capture eth0 \
	-J -o "$O/self-incast.json" 10.77.0.1,10.77.0.2 2>"$O/self-incast.err"
timeout 200 $X mesh --path rdma --test bw -t 1 -w 0.2 --no-retest --capture eth0 \
	-J -o "$O/self-mesh.json" 10.77.0.1,10.77.0.2 2>"$O/self-mesh.err"
tc qdisc del dev eth0 root
touch "$O/done"
EOF
ix_vm_boot "$CACHE" "$O" "$O/wire.sh" 1 2
for n in 1 2; do
	check "VM $n ran (exit 0)" test "$(cat "$O/vm$n.rc" 2>/dev/null)" = 0 ||
		{ tail -5 "$O/console$n.log"; cat "$O/vm$n.log" "$O/netem.err" 2>/dev/null | tail -5; }
done

for c in clean lossy; do
	check "$c: ixperf's write and read ran (exit 0)" test \
		"$(jq -s '[.[].complete] | all' "$O/$c-write.json" "$O/$c-read.json" 2>/dev/null)" = true
	check "$c: perftest's write and read ran" bash -c \
		"grep -q '^ 16384 ' '$O/$c-pt-write.out' && grep -q '^ 16384 ' '$O/$c-pt-read.out'"
	"$IXPERF" wire --json "$O/$c.pcapng" >"$O/$c.json" 2>"$O/$c.err"
	check "$c: ixperf wire reads dumpcap's capture" test "$?" = 0
	schema_check "$O/$c.json"
	python3 "$ORACLE" "$O/$c.pcapng" >"$O/$c.oracle" 2>"$O/$c.oracle.err" ||
		not_ok "the oracle reads $c"
	python3 "$ORACLE" --ixperf "$O/$c.json" >"$O/$c.ours"
	echo "# $c: $(jq -c '.results[0].wire | {packets} + (.rdma.total | {requests, retransmitted,
		out_of_sequence, retries, acks, naks: .naks.psn_sequence, ack_latency})' "$O/$c.json")"
	check "$c: every direction's figures are what tshark's fields say ($(jq '.results[0].wire.rdma.flows | length' "$O/$c.json") directions)" \
		diff -u "$O/$c.oracle" "$O/$c.ours"
done
T='.results[0].wire.rdma.total'
check "lossy: packets lost before the capture arrive out of sequence" \
	jq_true "$O/lossy.json" "$T.out_of_sequence > 0"
check "lossy: the responder NAKs the gaps (PSN sequence error)" \
	jq_true "$O/lossy.json" "$T.naks.psn_sequence > 0"
check "lossy: the requester goes back: retransmitted requests in runs, each waited for" \
	jq_true "$O/lossy.json" "$T.retransmitted > 0 and $T.retries > 0 and $T.retry_wait.count == $T.retries"
check "lossy: ACKs timed against their requests" \
	jq_true "$O/lossy.json" "$T.ack_latency.count > 0"
"$IXPERF" wire "$O/lossy.pcapng" | sed -n '/RDMA transport/,$p' | head -8 | sed 's/^/# /'

W='.results[0].wire.rdma'
check "bw --path rdma --capture: the test's result holds its wire analysis ($(grep -v WARNING "$O/self-bw.err" | head -c 200))" \
	jq_true "$O/self-bw.json" ".results[0].complete and $W.total.requests > 0 and $W.total.retransmitted > 0"
schema_check "$O/self-bw.json"
"$IXPERF" wire --json "$O/self.pcap" >"$O/self-wire.json"
check "and its --pcap, read again, gives the same analysis" test \
	"$(jq -c "$W" "$O/self-bw.json")" = "$(jq -c "$W" "$O/self-wire.json")"
echo "# lat's capture: $(jq -c '.results[0] | {complete, p50_ns: .stats.p50_ns, wire: (.wire.rdma.total | {requests, acks, retransmitted, ack_latency})}' "$O/self-lat.json")"
check "lat --path rdma --capture: the test's result holds its wire analysis ($(grep -v WARNING "$O/self-lat.err" | head -c 200))" \
	jq_true "$O/self-lat.json" ".results[0].complete and $W.total.requests >= 400 and any($W.flows[].ops[]; .name == \"RC Send Only\")"
schema_check "$O/self-lat.json"
echo "# incast's capture: $(jq -c '.results[0] | {complete, steps: [.steps[] | {senders, ok, goodput_bps}], wire: (.wire | {filter, packets, roce_packets})}' "$O/self-incast.json")"
check "incast --path rdma --capture: the sweep's result holds its wire analysis ($(grep -v WARNING "$O/self-incast.err" | head -c 200))" \
	jq_true "$O/self-incast.json" ".results[0].wire.present and $W.total.requests > 0"
schema_check "$O/self-incast.json"
check "mesh --path rdma --capture: the mesh's result holds its wire analysis ($(grep -v WARNING "$O/self-mesh.err" | head -c 200))" \
	jq_true "$O/self-mesh.json" ".results[0].pairs.measured == 1 and $W.total.requests > 0"
schema_check "$O/self-mesh.json"

ix_done
