#!/usr/bin/env bash
# ixperf topo and top --topo on sysfs trees of real machines (hwloc's test
# suite, tests/data/hwloc): each reads without error, and what it shows is
# read from the dump itself: the PCI functions of sys/bus/pci/devices, the
# NUMA nodes of sys/devices/system/node (CPU-less ones, and those NVIDIA's
# driver names as a GPU's memory), each link's current_link_* files, the
# InfiniBand devices of sys/class/infiniband, and the links judged by
# tests/topo/linkhealth.py: none of these machines has a downtrained link,
# so none has a finding.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || ix_skip "python3 is not installed (tests/topo/linkhealth.py judges the links)"
command -v bzip2 >/dev/null || ix_skip "bzip2 is not installed (the dumps are .tar.bz2)"
J=$IX_TMP
D=$top_srcdir/tests/data/hwloc

# gen_of "8 GT/s" -> 3
gen_of() {
	case "${1%% *}" in
	2.5) echo 1 ;; 5 | 5.0) echo 2 ;; 8 | 8.0) echo 3 ;; 16 | 16.0) echo 4 ;; 32 | 32.0) echo 5 ;; 64 | 64.0) echo 6 ;; *) echo 0 ;;
	esac
}

for tb in "$D"/*.tar.bz2; do
	name=$(basename "$tb" .tar.bz2)
	mkdir -p "$J/$name"
	tar -C "$J/$name" -xjf "$tb" || { not_ok "$name: unpacks"; continue; }
	root=$(find "$J/$name" -mindepth 2 -maxdepth 2 -type d -name sys -printf '%h\n' | head -1)
	out=$J/$name.json
	timeout 60 "$IXPERF" topo --sysfs "$root" --json --check >"$out" 2>"$J/$name.err"
	check "$name: topo --json --check exits 0 (nothing flagged)" test "$?" = 0
	schema_check "$out"
	timeout 60 "$IXPERF" topo --sysfs "$root" >"$J/$name.txt" 2>&1
	check "$name: the text report exits 0" test "$?" = 0
	timeout 60 "$IXPERF" top --topo --once -i 0.1 --sysfs "$root" >"$J/$name.top" 2>"$J/$name.top.err"
	check "$name: top --topo --once exits 0 and draws a tree ($(head -c 200 "$J/$name.top.err"))" \
		test "$?" = 0 -a -s "$J/$name.top"

	# PCI functions: every entry of sys/bus/pci/devices, by address.
	want=$(ls "$root/sys/bus/pci/devices" | sort | tr '\n' ' ')
	check "$name: the $(echo $want | wc -w) PCI functions of sys/bus/pci/devices" \
		test "$(jq -r '[.results[0].pci[].bdf] | sort | join(" ")' "$out") " = "$want"
	# NUMA nodes, and which have no CPU.
	want=$(cd "$root/sys/devices/system/node" && ls -d node[0-9]* | sed 's/node//' | sort -n | tr '\n' ' ')
	check "$name: the NUMA nodes of sys/devices/system/node ($want)" \
		test "$(jq -r '[.results[0].numa[].node] | join(" ")' "$out") " = "$want"
	want=$(for n in "$root"/sys/devices/system/node/node[0-9]*; do
		[ -n "$(tr -d '[:space:]' <"$n/cpulist")" ] || echo "${n##*node}"
	done | sort -n | tr '\n' ' ')
	check "$name: the CPU-less nodes are those with an empty cpulist ($want)" \
		test "$(jq -r '[.results[0].numa[] | select(.cpuless) | .node] | join(" ")' "$out")$([ -n "$want" ] && echo ' ')" = "$want"
	# GPU memory as NUMA nodes: NVIDIA's numa_status names the node.
	want=$(for f in "$root"/proc/driver/nvidia/gpus/*/numa_status; do
		[ -f "$f" ] || continue
		b=$(basename "$(dirname "$f")")
		echo "$(awk '/^Node:/ { print $2 }' "$f")=$b"
	done | sort -n | tr '\n' ' ')
	check "$name: the nodes holding a GPU's memory, as numa_status says ($want)" \
		test "$(jq -r '[.results[0].numa[] | select(.gpu_memory_of) | "\(.node)=\(.gpu_memory_of)"] | join(" ")' "$out")$([ -n "$want" ] && echo ' ')" = "$want"
	# Each link as its files say.
	want=$(for f in "$root"/sys/bus/pci/devices/*/current_link_width; do
		[ -f "$f" ] || continue
		d=$(dirname "$f")
		echo "$(basename "$d")=Gen$(gen_of "$(cat "$d/current_link_speed")")x$(cat "$f")"
	done | sort | tr '\n' ' ')
	check "$name: the links as their current_link_* files say ($want)" \
		test "$(jq -r '[.results[0].pci[] | select(.link) | "\(.bdf)=Gen\(.link.gen)x\(.link.width)"] | sort | join(" ")' "$out")$([ -n "$want" ] && echo ' ')" = "$want"
	# InfiniBand HCAs: the PCI function of each sys/class/infiniband device.
	want=$(for ib in "$root"/sys/class/infiniband/*; do
		[ -e "$ib/device" ] || continue
		b=$(basename "$(readlink -f "$ib/device")")
		[ -e "$root/sys/bus/pci/devices/$b" ] && echo "$b"
	done | sort -u | tr '\n' ' ')
	check "$name: the PCI functions of sys/class/infiniband are typed ib ($want)" \
		test "$(jq -r '[.results[0].pci[] | select(.type == "ib") | .bdf] | sort | join(" ")' "$out")$([ -n "$want" ] && echo ' ')" = "$want"
	# Link health: the oracle's verdict, and no finding.
	want=$(python3 "$top_srcdir/tests/topo/linkhealth.py" "$root" | cut -d' ' -f1 | tr '\n' ' ')
	check "$name: the downtrained links are the oracle's (${want:-none})" \
		test "$(jq -r '[.results[0].pci[] | select(.link.downtrained) | .bdf] | join(" ")' "$out")$([ -n "$want" ] && echo ' ')" = "$want"
	check "$name: no finding" jq_true "$out" '.results[0].findings == []'
	check "$name: no row of the trees is tagged" \
		bash -c "! grep -qE 'DOWNTRAINED|PROBLEM' '$J/$name.txt' '$J/$name.top'"
done

# 2pa-pcidomain32bits: the functions of domain 10000 sit below their own
# host bridge, pci10000:00.
R=$J/2pa-pcidomain32bits.json
check "2pa-pcidomain32bits: domain 10000's functions are below host bridge pci10000:00" \
	jq_true "$R" '[.results[0].pci[] | select(.bdf | startswith("10000:")) | .host_bridge] == ["pci10000:00", "pci10000:00"]'
# nvidiagpunumanodes: its GPUs' places in the tree are unknown (the dump's
# sys/bus/pci/devices holds directories): their paths say so, never PHB.
R=$J/nvidiagpunumanodes.json
check "nvidiagpunumanodes: six NVIDIA GPUs (named by the driver's /proc list)" \
	jq_true "$R" '[.results[0].pci[] | select(.type == "gpu" and .vendor == "0x10de")] | length == 6'
check "nvidiagpunumanodes: GPU to GPU paths are unknown ('?'), not a host bridge" \
	jq_true "$R" '[.results[0].paths.matrix[][]] | unique == ["?", "X"]'
check "nvidiagpunumanodes: the GPU memory nodes are not taken for sockets: 2 nodes with CPUs" \
	jq_true "$R" '[.results[0].numa[] | select(.cpuless | not)] | map(.node) == [0, 8]'
check "nvidiagpunumanodes: the text report names whose memory node 250 is" \
	grep -qE '^  node 250 cpus none \(memory of GPU 0035:05:00\.0\)' "$J/nvidiagpunumanodes.txt"

ix_done
