#!/usr/bin/env bash
# shellcheck disable=SC2034 # the IX_VM_ settings here are read by tests/rdma/vm.sh
# ixperf mem and topo where the kernel sees CXL memory and HMAT: a VM of
# Debian's own kernel under QEMU (tests/rdma/vm.sh) on a q35 machine with
# CXL on and HMAT: node 0 with the CPUs and 1 GiB (HMAT: 10 ns, 10 GB/s),
# node 1 CPU-less with 1 GiB (HMAT: 30 ns, 5 GB/s from node 0), and a CXL
# type 3 memory device behind a CXL host bridge and root port, with a
# fixed memory window. ixperf mem must find node 1, measure it from node
# 0's CPUs and give the advertised figures beside; ixperf topo must list
# the CXL memory device. Emulated timings say nothing about hardware: the
# checks are of structure and of node 1 being measured, not of speed.
. "${top_srcdir:-.}/tests/lib.sh"
. "$top_srcdir/tests/rdma/vm.sh"

# The release's own kernel (6.1), in a cache of its own: from 6.3 on
# cxl_pci fails a memory device whose event logs have no interrupt, and
# QEMU 7.2's type 3 device gives them none (its root port and decoders
# still show, its mem0 does not).
IX_VM_KERNEL_SUITE=release
IX_VM_CACHE=${IX_VM_CACHE_RELEASE:-$(pwd)/tests/rdma/vm-cache-release}
ix_vm_test_setup
mkdir -p "$O/cxl"
truncate -s 256M "$O/cxl/mem.raw" "$O/cxl/lsa.raw"

IX_VM_SMP=2
IX_VM_MEM=2G,maxmem=4G,slots=4
IX_VM_MACHINE=q35,cxl=on,hmat=on
IX_VM_PCI_BUS=pcie.0 # else QEMU puts the VM's own devices behind the CXL bridge
# shellcheck disable=SC2054 # QEMU's arguments hold commas
IX_VM_QEMU_ARGS=(
	-object memory-backend-ram,id=m0,size=1G
	-object memory-backend-ram,id=m1,size=1G
	-numa node,nodeid=0,memdev=m0,cpus=0-1
	-numa node,nodeid=1,memdev=m1,initiator=0
	-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-latency,latency=10
	-numa hmat-lb,initiator=0,target=0,hierarchy=memory,data-type=access-bandwidth,bandwidth=10G
	-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-latency,latency=30
	-numa hmat-lb,initiator=0,target=1,hierarchy=memory,data-type=access-bandwidth,bandwidth=5G
	-object "memory-backend-file,id=cxl-mem1,share=on,mem-path=$O/cxl/mem.raw,size=256M"
	-object "memory-backend-file,id=cxl-lsa1,share=on,mem-path=$O/cxl/lsa.raw,size=256M"
	-device pxb-cxl,bus_nr=12,bus=pcie.0,id=cxl.1
	-device cxl-rp,port=0,bus=cxl.1,id=rp0,chassis=0,slot=2
	-device cxl-type3,bus=rp0,memdev=cxl-mem1,lsa=cxl-lsa1,id=cxl-pmem0
	-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
)

cat >"$O/mem.sh" <<VMEOF
X=$IXPERF
O=$O
VMEOF
cat >>"$O/mem.sh" <<'VMEOF'
ls /sys/bus/cxl/devices >"$O/cxl.ls" 2>&1
dmesg >"$O/dmesg.txt" 2>&1
ls /sys/devices/system/node >"$O/nodes.ls" 2>&1
S=(-s 4Mi --latency-size 8Mi -t 0.05)
timeout 300 "$X" mem "${S[@]}" -J -o "$O/mem.json" 2>"$O/mem.err"
echo $? >"$O/mem.rc"
timeout 300 "$X" mem "${S[@]}" --tests read,latency >"$O/mem.txt" 2>&1
timeout 60 "$X" topo -J -o "$O/topo.json" 2>"$O/topo.err"
timeout 60 "$X" topo >"$O/topo.txt" 2>&1
VMEOF

ix_vm_boot "$CACHE" "$O" "$O/mem.sh" 1
check "the VM ran its script" test -e "$O/vm1.rc"
[ -e "$O/vm1.rc" ] || {
	tail -n 30 "$O/console1.log" "$O/qemu1.log" >&2
	ix_done
}

check "the kernel shows the CXL port tree and memory device" bash -c \
	"grep -qx root0 '$O/cxl.ls' && grep -qx mem0 '$O/cxl.ls' && grep -q '^decoder' '$O/cxl.ls'" ||
	{ cat "$O/cxl.ls"; grep -i -e cxl -e acpi0016 -e acpi0017 "$O/dmesg.txt" | tail -n 20; } >&2
check "ixperf mem exits 0" test "$(cat "$O/mem.rc")" = 0
schema_check "$O/mem.json"
check "node 1: CPU-less, HMAT class 0 from node 0: 30 ns, 5120 MB/s" jq_true "$O/mem.json" \
	'.results[0].nodes[] | select(.node == 1) | .cpus == null and .hmat[0].read_latency_ns == 30 and .hmat[0].read_bandwidth_Bps == 5120000000 and .hmat[0].initiators == [0]'
check "node 1 measured from node 0's CPUs, its pages on node 1" jq_true "$O/mem.json" \
	'.results[0].cells[] | select(.initiator == 0 and .target == 1) | .measured and .placed == 1 and .bandwidth_Bps.read > 0 and .latency_ns > 0'
check "node 1's advertised figures beside, with the ratios" jq_true "$O/mem.json" \
	'.results[0].cells[] | select(.initiator == 0 and .target == 1) | .advertised.read_ratio > 0 and .advertised.latency_ratio > 0'
check "node 0 from node 0 against its own HMAT figures (10 ns)" jq_true "$O/mem.json" \
	'(.results[0].nodes[] | select(.node == 0) | [.hmat[] | select(. != null) | .read_latency_ns] | index(10) != null) and (.results[0].cells[] | select(.target == 0) | .advertised != null)'
check "text: node 1's row with HMAT 5.1 GB/s, 30 ns" grep -Eq '^ +0 -> 1 .*HMAT 5\.1 GB/s, 30 ns' "$O/mem.txt"
check "ixperf topo lists the CXL memory device on its PCI function" jq_true "$O/topo.json" \
	'[.results[0].cxl[] | select(.name == "mem0" and .pci != null)] | length == 1'

ix_done
