#!/usr/bin/env bash
# shellcheck disable=SC2034 # the IX_VM_ settings here are read by tests/rdma/vm.sh
# ixperf mem and topo where the kernel sees CXL memory and HMAT: a VM of
# Debian's own kernel under QEMU (tests/rdma/vm.sh) on a q35 machine with
# CXL on and HMAT: node 0 with the CPUs and 1 GiB (HMAT: 10 ns, 10 GB/s),
# node 1 CPU-less with 1 GiB (HMAT: 30 ns, 5 GB/s from node 0), a CXL
# host bridge with two root ports: a type 3 memory device on the first, a
# CXL switch on the second with another below it; a fixed memory window.
# ixperf mem must find node 1, measure it from node 0's CPUs and give the
# advertised figures beside; ixperf topo must show the CXL bus as libcxl
# reads it (each memory device on its PCI function with its link, both
# ends' CXL protocols and firmware; root, host bridge, switch and endpoint
# ports; decoders) equal to what the ndctl project's `cxl list` prints,
# again after `cxl create-region` maps the first device's memory
# (region0), and an ERROR once CXL.mem is switched off in that device's
# control register (a link left at PCIe only); in text, JSON, the live
# tree and the HTML report. Emulated timings say nothing about hardware:
# the checks are of structure and of node 1 being measured, not of speed.
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
truncate -s 256M "$O/cxl/mem.raw" "$O/cxl/lsa.raw" "$O/cxl/mem2.raw" "$O/cxl/lsa2.raw"

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
	-object "memory-backend-file,id=cxl-mem2,share=on,mem-path=$O/cxl/mem2.raw,size=256M"
	-object "memory-backend-file,id=cxl-lsa2,share=on,mem-path=$O/cxl/lsa2.raw,size=256M"
	-device cxl-rp,port=1,bus=cxl.1,id=rp1,chassis=0,slot=3
	-device cxl-upstream,bus=rp1,id=us0
	-device cxl-downstream,port=0,bus=us0,id=swport0,chassis=0,slot=4
	-device cxl-type3,bus=swport0,memdev=cxl-mem2,lsa=cxl-lsa2,id=cxl-pmem1
	-M cxl-fmw.0.targets.0=cxl.1,cxl-fmw.0.size=4G
)

cat >"$O/mem.sh" <<VMEOF
X=$IXPERF
O=$O
T=$top_srcdir/tests/topo
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
timeout 60 "$X" top --topo --once >"$O/tree.txt" 2>&1
cxl list -vvv >"$O/cxl-list.json" 2>"$O/cxl-list.err"
# The memory device right below root port 0000:0c:00.0 (cxl_pci probes
# the two devices in either order, so their names are read).
D=
for m in /sys/bus/cxl/devices/mem*; do
	case $(readlink -f "$m") in */0000:0d:00.0/*) D=${m##*/} ;; esac
done
echo "$D" >"$O/direct.name"
cxl create-region -m -d decoder0.0 -w 1 -t pmem "$D" >"$O/region.json" 2>"$O/region.err"
echo $? >"$O/region.rc"
cxl list -vvv >"$O/cxl-list-region.json" 2>&1
timeout 60 "$X" topo -J -o "$O/topo-region.json" 2>"$O/topo-region.err"
timeout 60 "$X" topo >"$O/topo-region.txt" 2>&1
# A link gone PCIe only: CXL.mem switched off in the device's CXL DVSEC
# control register (as a host whose training failed leaves it).
python3 "$T/cxl_mem_off.py" 0000:0d:00.0 >"$O/mem-off.txt" 2>&1
timeout 60 "$X" topo -J -o "$O/topo-off.json" 2>"$O/topo-off.err"
timeout 60 "$X" top --topo --once >"$O/tree-off.txt" 2>&1
timeout 60 "$X" report --format html -o "$O/topo.html" "$O/topo.json" 2>"$O/html.err"
VMEOF

ix_vm_boot "$CACHE" "$O" "$O/mem.sh" 1
check "the VM ran its script" test -e "$O/vm1.rc"
[ -e "$O/vm1.rc" ] || {
	tail -n 30 "$O/console1.log" "$O/qemu1.log" >&2
	ix_done
}

check "the kernel shows the CXL port tree and memory devices" bash -c \
	"grep -qx root0 '$O/cxl.ls' && grep -qx mem0 '$O/cxl.ls' && grep -qx mem1 '$O/cxl.ls' && grep -q '^decoder' '$O/cxl.ls'" ||
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
# The device below root port 0000:0c:00.0 (D) and the one below the
# switch (W), whatever names cxl_pci gave them.
DJ='(.results[0].cxl[] | select(.pci == "0000:0d:00.0"))'
WJ='(.results[0].cxl[] | select(.pci == "0000:10:00.0"))'
D=$(cat "$O/direct.name" 2>/dev/null)
check "ixperf topo lists both CXL memory devices on their PCI functions" jq_true "$O/topo.json" \
	"[$DJ, $WJ] | length == 2 and .[0].name == \"$D\" and .[1].name != .[0].name"
schema_check "$O/topo.json"
check "topo: $D below its root port, with firmware, enabled, an endpoint" jq_true "$O/topo.json" \
	"$DJ | .port == \"0000:0c:00.0\" and .firmware != null and .enabled and (.endpoint | test(\"^endpoint\"))"
check "topo: the CXL protocols of $D and of its port read, CXL.mem enabled at both" jq_true "$O/topo.json" \
	"$DJ.flexbus | (.device.enabled | index(\"mem\") != null) and (.port.enabled | index(\"mem\") != null) and .port.flit68 and .device.source == \"device\" and .port.source == \"flexbus\""
check "topo: its PCIe link as trained against both ends' capability" jq_true "$O/topo.json" \
	".results[0] as \$r | $DJ.pci as \$p | \$r.pci[] | select(.bdf == \$p) | .type == \"cxl\" and .link.width > 0 and .link.expected_width > 0"
check "topo: the CXL bus through libcxl: root, host bridge, switch and endpoint ports" jq_true "$O/topo.json" \
	'.results[0].cxl_bus | .read and ([.ports[].kind] | sort == ["endpoint", "endpoint", "host_bridge", "root", "switch"]) and ([.ports[] | select(.kind == "endpoint") | .memdev] | sort == ["mem0", "mem1"])'
check "topo: the host bridge's dports are both root ports, $D's among them" jq_true "$O/topo.json" \
	"[.results[0].cxl_bus.ports[] | select(.kind == \"host_bridge\") | .dports[].pci] == [\"0000:0c:00.0\", \"0000:0c:01.0\"]"
check "topo: the other device below the switch: its host the switch's upstream port, its port a switch dport" jq_true "$O/topo.json" \
	".results[0] as \$r | $WJ as \$m | (\$r.cxl_bus.ports[] | select(.kind == \"switch\")) as \$s | ([\$s.dports[].pci] | index(\$m.port) != null) and (\$r.pci[] | select(.bdf == \$s.host) | .type == \"switch_upstream\") and (\$r.cxl_bus.ports[] | select(.name == \$m.endpoint) | .parent == \$s.name) and \$s.parent == \"port1\""
check "topo: decoders of the root (4 GiB window), the host bridge, the switch and the endpoints" jq_true "$O/topo.json" \
	'.results[0].cxl_bus.decoders as $d | ([$d[] | select(.port == "root0" and .size == 4294967296)] | length == 1) and ([$d[] | select(.port | test("^endpoint"))] | length == 2) and ([$d[] | select(.port | test("^port"))] | length == 2)'
check "topo: node 1's HMAT figures (30 ns, 5120 MB/s from node 0)" jq_true "$O/topo.json" \
	'.results[0].numa[] | select(.node == 1) | .cpuless and .hmat[0].read_latency_ns == 30 and .hmat[0].read_bandwidth_Bps == 5120000000'
check "topo text: $D with its links, the CXL ports, node 1's HMAT" bash -c \
	"grep -Eq '^  $D +on 0000:0d:00.0 below 0000:0c:00.0' '$O/topo.txt' && grep -q 'CXL: device mem+io enabled of mem+io (device control); port 0000:0c:00.0 mem+io enabled of mem+io (Flex Bus), 68B flit' '$O/topo.txt' && grep -q '^CXL ports:' '$O/topo.txt' && grep -q 'HMAT class 0 (any initiator) from node 0: read 5.12 GB/s, 30 ns' '$O/topo.txt'"
check "topo text: the ports as a tree, the switch between the host bridge and an endpoint" \
	grep -Pzq '\n  root0 [^\n]*\n    port1 +host_bridge [^\n]*\n(      endpoint[0-9]+ +endpoint +mem[01] *\n)?      port[0-9]+ +switch +0000:0e:00.0 +dports: 0000:0f:00.0\n        endpoint[0-9]+ +endpoint +mem[01]' "$O/topo.txt"
check "no CXL finding on healthy devices" jq_true "$O/topo.json" '[.results[0].findings[] | select(.kind == "cxl")] == []'
check "the live tree names $D on its function with CXL.mem" grep -Eq "cxl $D CXL\.mem" "$O/tree.txt"
check "the HTML tree names $D on its function with CXL.mem" grep -q "cxl $D CXL.mem+io" "$O/topo.html"
check "HTML: the HMAT table and the CXL memory devices" bash -c \
	"grep -q '<h3>Memory nodes as the firmware advertises them (HMAT)</h3>' '$O/topo.html' && grep -q '<h3>CXL memory devices</h3>' '$O/topo.html'"
check "ixperf topo's CXL bus equals cxl list's (ports, memdevs, decoders)" \
	python3 "$top_srcdir/tests/topo/cxl_compare.py" "$O/cxl-list.json" "$O/topo.json"
check "cxl create-region made region0 of $D's pmem" test "$(cat "$O/region.rc")" = 0 ||
	cat "$O/region.err" >&2
schema_check "$O/topo-region.json"
check "topo: region0 committed, 256 MiB, $D's endpoint decoder its target" jq_true "$O/topo-region.json" \
	".results[0] as \$r | ($DJ | .endpoint | sub(\"endpoint\"; \"decoder\") + \".0\") as \$d | \$r.cxl_bus.regions == [\$r.cxl_bus.regions[0]] and (\$r.cxl_bus.regions[0] | .name == \"region0\" and .committed and .size == 268435456 and .targets == [\$d] and .decoder == \"decoder0.0\")"
check "ixperf topo's CXL bus with region0 equals cxl list's" \
	python3 "$top_srcdir/tests/topo/cxl_compare.py" "$O/cxl-list-region.json" "$O/topo-region.json"
check "topo text: the region and the decoders mapping it" bash -c \
	"grep -Eq '^  region0 +of decoder0.0 ' '$O/topo-region.txt' && grep -Eq '^  decoder[0-9.]+ +endpoint[0-9]+ .* region region0' '$O/topo-region.txt'"
check "CXL.mem switched off in $D's control register" grep -q -- '-> 0x0002$' "$O/mem-off.txt" ||
	cat "$O/mem-off.txt" >&2
check "topo: an ERROR finding names $D gone PCIe only" jq_true "$O/topo-off.json" \
	"[.results[0].findings[] | select(.kind == \"cxl\" and .severity == \"error\" and .device == \"$D\" and (.message | test(\"CXL.mem is not enabled\")))] | length == 1"
check "topo: $D's device end runs io only, its port still mem+io" jq_true "$O/topo-off.json" \
	"$DJ | .flexbus.device.enabled == [\"io\"] and .flexbus.port.enabled == [\"mem\", \"io\"] and (.issue | test(\"runs as PCIe only\"))"
check "the live tree flags $D's row" grep -Eq "cxl $D CXL\.io .*PROBLEM: CXL\.mem is not enabled" "$O/tree-off.txt"
"$IXPERF" report --format html -o "$O/region.html" "$O/topo-region.json"
"$IXPERF" report --format html -o "$O/off.html" "$O/topo-off.json"
check "HTML: region0 in the CXL regions table" grep -q '<td><code>region0</code></td><td><code>decoder0.0</code>' "$O/region.html"
check "HTML: $D's row failed, with why" grep -q "<tr class=\"fail\"><td><code>$D</code>.*CXL.mem is not enabled" "$O/off.html"
ix_done
