#!/usr/bin/env bash
# ixperf topo on sysfs trees built by tests/topo/mkfixture.py: device counts,
# the GPU/NIC path matrix, links (and their retimers), NUMA, interfaces, RDMA
# ports and GIDs, CXL, every finding and --check's exit status for each
# layout; a damaged tree; the live host; and how long discovery takes on a
# large tree.
. "${top_srcdir:-.}/tests/lib.sh"

command -v python3 >/dev/null || ix_skip "python3 is not installed (tests/topo/mkfixture.py builds the fixtures)"
MK="$top_srcdir/tests/topo/mkfixture.py"
J=$IX_TMP

# jq definitions shared by the checks below, kept in a module so that a
# failing check prints its own filter only.
cat >"$J/topo.jq" <<'EOF'
def t: .results[0];
def dev($b): first(t.pci[] | select(.bdf == $b));
def count($ty): [t.pci[] | select(.type == $ty)] | length;
def port($d): first(t.rdma[] | select(.device == $d));
def iface($n): first(t.interfaces[] | select(.name == $n));
def path($a; $b): t.paths as $p | $p.matrix[$p.devices | index($a)][$p.devices | index($b)];
def near($x; $y): ($x - $y | fabs) <= 1e-9 * ($y | fabs) + 1e-6;
def finds: [t.findings[] | [.kind, .severity, .device]] | sort;
def gen5x16: 32e9 * 16 * 128 / 130;
EOF
P="include \"topo\" {search: \"$J\"};"

# jt FILE FILTER: the filter (with the definitions above) is true.
jt() { jq_true "$1" "$P $2"; }
# je FILE FILTER JSON: the filter's value, as compact JSON, is JSON.
je() { jq_eq "$1" "$P $2 | @json" "$3"; }

# topo LAYOUT: build the layout in $J/LAYOUT and run topo --json --check on
# it into $J/LAYOUT.json; RC is the exit status. Also checks the exit status
# without --check (0 whatever was found) and the schema.
topo() {
	local l=$1
	if ! python3 "$MK" "$l" "$J/$l" 2>"$J/$l.mk.err"; then
		not_ok "mkfixture.py builds the $l layout: $(head -c 300 "$J/$l.mk.err")"
		RC=99
		return 1
	fi
	timeout 60 "$IXPERF" topo --sysfs "$J/$l" --json --check >"$J/$l.json" 2>"$J/$l.err"
	RC=$?
	timeout 60 "$IXPERF" topo --sysfs "$J/$l" --json >/dev/null 2>&1
	check "$l: without --check topo exits 0 whatever it found" test "$?" = 0
	check "$l: the output is one JSON document of command topo" \
		jq_true "$J/$l.json" '.command == "topo" and .results[0].kind == "topo"'
	schema_check "$J/$l.json"
}

# matrix FILE ROWS: paths.matrix equals ROWS (one row a line, labels
# separated by blanks); prints the matrix it got when they differ.
matrix() {
	local want got
	want=$(jq -R -s -c 'split("\n") | map(select(length > 0) | split(" ") | map(select(length > 0)))' <<<"$2")
	got=$(jq -c '.results[0].paths.matrix' "$1")
	[ "$got" = "$want" ] && return 0
	echo "  paths.matrix is:" >&2
	jq -r '.results[0].paths.matrix[] | join(" ")' "$1" | sed 's/^/    /' >&2
	return 1
}

# text LAYOUT: the text report (no --json) exits as the JSON one did and
# says something; it lands in $J/LAYOUT.txt.
text() {
	timeout 60 "$IXPERF" topo --sysfs "$J/$1" --check >"$J/$1.txt" 2>"$J/$1.txt.err"
	check "$1: the text report exits $RC like the JSON one and is not empty" \
		test "$?" = "$RC" -a -s "$J/$1.txt"
}

# --- dgx-h100: 8 H100, 4 PCIe switches, 8 IB NICs, a RoCE storage NIC. ------
# Each switch hangs from its own root port on its own host bridge, so GPUs
# of two switches on one socket are NODE, never PHB; the two ports of the
# storage NIC (functions 0 and 1 of one device on a root port) are PIX.
topo dgx-h100
D=$J/dgx-h100.json
check "dgx-h100: --check exits 0 (nothing flagged)" test "$RC" = 0
check "dgx-h100: no findings" je "$D" 't.findings' '[]'
check "dgx-h100: 80 functions: 8 GPUs, 8 IB + 2 Ethernet NICs, 10 NVMe, 4 switches, 8 root ports, 1 bridge" \
	je "$D" '[(t.pci | length), count("gpu"), count("ib"), count("nic"), count("nvme"), count("switch_upstream"),
	  count("switch_downstream"), count("root_port"), count("bridge"), count("cxl")]' '[80,8,8,2,10,4,28,8,1,0]'
check "dgx-h100: the ASPEED VGA (class 0x030000, vendor 0x1a03) and the NVSwitches (0x068000) are 'other'" \
	jt "$D" '[dev("0000:02:00.0", "0000:1e:00.0", "0000:c2:00.0").type] == ["other", "other", "other"]'
want='["0000:18:00.0","0000:19:00.0","0000:3a:00.0","0000:3b:00.0",'
want+='"0000:9a:00.0","0000:9b:00.0","0000:bc:00.0","0000:bd:00.0",'
want+='"0000:1a:00.0","0000:1b:00.0","0000:3c:00.0","0000:3d:00.0","0000:5a:00.0","0000:5a:00.1",'
want+='"0000:9c:00.0","0000:9d:00.0","0000:be:00.0","0000:bf:00.0"]'
check "dgx-h100: paths list the GPUs then the NICs, each in BDF order" \
	je "$D" 't.paths.devices' "$want"
check "dgx-h100: labels GPU0-7, NIC0-9" \
	je "$D" 't.paths.labels' '["GPU0","GPU1","GPU2","GPU3","GPU4","GPU5","GPU6","GPU7",'\
'"NIC0","NIC1","NIC2","NIC3","NIC4","NIC5","NIC6","NIC7","NIC8","NIC9"]'
check "dgx-h100: the 18x18 path matrix (PIX below one switch, NODE across switches of a socket, SYS across sockets)" matrix "$D" '
X    PIX  NODE NODE SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE NODE NODE SYS  SYS  SYS  SYS
PIX  X    NODE NODE SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE NODE NODE SYS  SYS  SYS  SYS
NODE NODE X    PIX  SYS  SYS  SYS  SYS  NODE NODE PIX  PIX  NODE NODE SYS  SYS  SYS  SYS
NODE NODE PIX  X    SYS  SYS  SYS  SYS  NODE NODE PIX  PIX  NODE NODE SYS  SYS  SYS  SYS
SYS  SYS  SYS  SYS  X    PIX  NODE NODE SYS  SYS  SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE
SYS  SYS  SYS  SYS  PIX  X    NODE NODE SYS  SYS  SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE
SYS  SYS  SYS  SYS  NODE NODE X    PIX  SYS  SYS  SYS  SYS  SYS  SYS  NODE NODE PIX  PIX
SYS  SYS  SYS  SYS  NODE NODE PIX  X    SYS  SYS  SYS  SYS  SYS  SYS  NODE NODE PIX  PIX
PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  X    PIX  NODE NODE NODE NODE SYS  SYS  SYS  SYS
PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  PIX  X    NODE NODE NODE NODE SYS  SYS  SYS  SYS
NODE NODE PIX  PIX  SYS  SYS  SYS  SYS  NODE NODE X    PIX  NODE NODE SYS  SYS  SYS  SYS
NODE NODE PIX  PIX  SYS  SYS  SYS  SYS  NODE NODE PIX  X    NODE NODE SYS  SYS  SYS  SYS
NODE NODE NODE NODE SYS  SYS  SYS  SYS  NODE NODE NODE NODE X    PIX  SYS  SYS  SYS  SYS
NODE NODE NODE NODE SYS  SYS  SYS  SYS  NODE NODE NODE NODE PIX  X    SYS  SYS  SYS  SYS
SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  SYS  SYS  X    PIX  NODE NODE
SYS  SYS  SYS  SYS  PIX  PIX  NODE NODE SYS  SYS  SYS  SYS  SYS  SYS  PIX  X    NODE NODE
SYS  SYS  SYS  SYS  NODE NODE PIX  PIX  SYS  SYS  SYS  SYS  SYS  SYS  NODE NODE X    PIX
SYS  SYS  SYS  SYS  NODE NODE PIX  PIX  SYS  SYS  SYS  SYS  SYS  SYS  NODE NODE PIX  X'
check "dgx-h100: two NUMA nodes with their CPUs and memory" \
	je "$D" 't.numa' '[{"node":0,"cpus":"0-55,112-167","cpuless":false,"memory_bytes":1081675350016,"gpu_memory_of":null,"hmat":[null,null]},'\
'{"node":1,"cpus":"56-111,168-223","cpuless":false,"memory_bytes":1082331758592,"gpu_memory_of":null,"hmat":[null,null]}]'
check "dgx-h100: GPU0 hangs below downstream port 17:00.0 of switch 16:00.0 on host bridge pci0000:15, NUMA 0, driver nvidia" \
	jt "$D" 'dev("0000:18:00.0") | .type == "gpu" and .vendor == "0x10de" and .device == "0x2330" and .class == "0x030200"
	  and .parent == "0000:17:00.0" and .switch == "0000:16:00.0" and .host_bridge == "pci0000:15" and .numa_node == 0
	  and .driver == "nvidia"'
check "dgx-h100: the PCIe tree: root port, switch upstream and downstream ports" \
	jt "$D" '(dev("0000:15:01.0") | .type == "root_port" and .parent == null and .host_bridge == "pci0000:15")
	  and (dev("0000:16:00.0") | .type == "switch_upstream" and .parent == "0000:15:01.0")
	  and (dev("0000:17:00.0") | .type == "switch_downstream" and .parent == "0000:16:00.0")
	  and dev("0000:01:00.0").type == "bridge" and dev("0000:00:00.0").parent == null'
check "dgx-h100: a Gen5 x16 link: 32 GT/s, gen 5, x16, 32e9*16*128/130 bit/s, not downtrained" \
	jt "$D" 'dev("0000:18:00.0").link | .speed_gts == 32 and .gen == 5 and .width == 16 and .max_gen == 5 and .max_width == 16
	  and near(.bps; gen5x16) and near(.max_bps; gen5x16) and .downtrained == false
	  and .expected_gen == 5 and .expected_width == 16'
check "dgx-h100: a Gen4 x4 drive behind a Gen5 x4 port is expected at Gen4 x4 (16e9*4*128/130 bit/s)" \
	jt "$D" 'dev("0000:1c:00.0") | .type == "nvme" and .driver == "nvme" and (.link | .gen == 4 and .width == 4
	  and .expected_gen == 4 and .expected_width == 4 and .downtrained == false and near(.bps; 16e9 * 4 * 128 / 130))'
check "dgx-h100: the BMC bridge's Gen2 x1 link counts 8b/10b (4e9 bit/s); its conventional-PCI VGA has no link" \
	jt "$D" '(dev("0000:01:00.0").link | .gen == 2 and .width == 1 and near(.bps; 4e9) and .expected_gen == 2)
	  and dev("0000:02:00.0").link == null and dev("0000:00:00.0").link == null'
check "dgx-h100: zero AER counters read as zeros; a device without AER has aer null" \
	jt "$D" 'dev("0000:18:00.0").aer == {"correctable":0,"nonfatal":0,"fatal":0} and dev("0000:02:00.0").aer == null'
check "dgx-h100: each compute NIC lists its IPoIB netdev and RDMA device" \
	jt "$D" 'dev("0000:1a:00.0") | .type == "ib" and .netdevs == ["ibp26s0"] and .rdma == ["mlx5_0"] and .driver == "mlx5_core"'
check "dgx-h100: 10 interfaces: 8 IPoIB (MTU 4092) and the 2 storage ports (MTU 9000)" \
	jt "$D" '(t.interfaces | length) == 10
	  and (iface("ibp26s0") | .pci == "0000:1a:00.0" and .mtu == 4092 and .speed_bps == 4e11 and .state == "up" and .driver == "mlx5_core")
	  and (iface("enp90s0f0np0") | .pci == "0000:5a:00.0" and .mtu == 9000)
	  and (iface("enp90s0f1np1") | .pci == "0000:5a:00.1" and .mtu == 9000)'
check "dgx-h100: 10 RDMA ports, all ACTIVE/LinkUp at 400 Gb/s" \
	jt "$D" '(t.rdma | length) == 10 and all(t.rdma[]; .port == 1 and .state == "ACTIVE" and .phys_state == "LinkUp" and .rate_bps == 4e11)'
check "dgx-h100: an IB port: link layer InfiniBand, one GID (the port GUID) of type IB" \
	jt "$D" 'port("mlx5_0") | .link_layer == "InfiniBand" and .pci == "0000:1a:00.0"
	  and .gids == [{"index":0,"gid":"fe80:0000:0000:0000:a088:c203:0000:101a","type":"IB","netdev":null}]'
check "dgx-h100: the RoCE ports map to their netdevs" \
	jt "$D" '(port("mlx5_4") | .link_layer == "Ethernet" and .netdev == "enp90s0f0np0" and .pci == "0000:5a:00.0")
	  and (port("mlx5_5") | .link_layer == "Ethernet" and .netdev == "enp90s0f1np1" and .pci == "0000:5a:00.1")'
ll=fe80:0000:0000:0000:ba3f:d2ff:fe5a:1020 # from MAC b8:3f:d2:5a:10:20
v4=0000:0000:0000:0000:0000:ffff:c612:0001 # 198.18.0.1
want='[{"index":0,"gid":"'$ll'","type":"RoCE v1","netdev":"enp90s0f0np0"},'
want+='{"index":1,"gid":"'$ll'","type":"RoCE v2","netdev":"enp90s0f0np0"},'
want+='{"index":2,"gid":"'$v4'","type":"RoCE v1","netdev":"enp90s0f0np0"},'
want+='{"index":3,"gid":"'$v4'","type":"RoCE v2","netdev":"enp90s0f0np0"}]'
check "dgx-h100: a RoCE port's GIDs: link-local and IPv4-mapped, RoCE v1 and v2, each with its netdev; unused ones left out" \
	je "$D" 'port("mlx5_4").gids' "$want"
check "dgx-h100: no CXL memory devices" je "$D" 't.cxl' '[]'
# The tree's links are relative: moved elsewhere it reads the same.
mv "$J/dgx-h100" "$J/dgx-h100-moved"
timeout 60 "$IXPERF" topo --sysfs "$J/dgx-h100-moved" --json >"$J/moved.json" 2>/dev/null
check "dgx-h100: a moved tree gives the same results" \
	test "$(jq -c '.results' "$J/moved.json")" = "$(jq -c '.results' "$D")"
mv "$J/dgx-h100-moved" "$J/dgx-h100"
text dgx-h100

# --- amd-mi300x: 8 MI300X, each under a switch with one Thor2 RoCE NIC. -----
# Two switches share each host bridge through different root ports: PHB.
topo amd-mi300x
A=$J/amd-mi300x.json
check "amd-mi300x: --check exits 0" test "$RC" = 0
check "amd-mi300x: no findings" je "$A" 't.findings' '[]'
check "amd-mi300x: 52 PCI functions: 8 GPUs (class 0x120000), 8 Ethernet NICs, 8 switches, 8 root ports" \
	je "$A" '[(t.pci | length), count("gpu"), count("nic"), count("ib"), count("switch_upstream"),
	  count("switch_downstream"), count("root_port")]' '[52,8,8,0,8,16,8]'
want='["0000:03:00.0","0000:0b:00.0","0000:43:00.0","0000:4b:00.0",'
want+='"0000:83:00.0","0000:8b:00.0","0000:c3:00.0","0000:cb:00.0",'
want+='"0000:04:00.0","0000:0c:00.0","0000:44:00.0","0000:4c:00.0",'
want+='"0000:84:00.0","0000:8c:00.0","0000:c4:00.0","0000:cc:00.0"]'
check "amd-mi300x: paths list the GPUs then the NICs" \
	je "$A" 't.paths.devices' "$want"
check "amd-mi300x: the 16x16 path matrix (PIX GPU-NIC pairs, PHB on a host bridge, NODE on a socket, SYS across)" matrix "$A" '
X    PHB  NODE NODE SYS  SYS  SYS  SYS  PIX  PHB  NODE NODE SYS  SYS  SYS  SYS
PHB  X    NODE NODE SYS  SYS  SYS  SYS  PHB  PIX  NODE NODE SYS  SYS  SYS  SYS
NODE NODE X    PHB  SYS  SYS  SYS  SYS  NODE NODE PIX  PHB  SYS  SYS  SYS  SYS
NODE NODE PHB  X    SYS  SYS  SYS  SYS  NODE NODE PHB  PIX  SYS  SYS  SYS  SYS
SYS  SYS  SYS  SYS  X    PHB  NODE NODE SYS  SYS  SYS  SYS  PIX  PHB  NODE NODE
SYS  SYS  SYS  SYS  PHB  X    NODE NODE SYS  SYS  SYS  SYS  PHB  PIX  NODE NODE
SYS  SYS  SYS  SYS  NODE NODE X    PHB  SYS  SYS  SYS  SYS  NODE NODE PIX  PHB
SYS  SYS  SYS  SYS  NODE NODE PHB  X    SYS  SYS  SYS  SYS  NODE NODE PHB  PIX
PIX  PHB  NODE NODE SYS  SYS  SYS  SYS  X    PHB  NODE NODE SYS  SYS  SYS  SYS
PHB  PIX  NODE NODE SYS  SYS  SYS  SYS  PHB  X    NODE NODE SYS  SYS  SYS  SYS
NODE NODE PIX  PHB  SYS  SYS  SYS  SYS  NODE NODE X    PHB  SYS  SYS  SYS  SYS
NODE NODE PHB  PIX  SYS  SYS  SYS  SYS  NODE NODE PHB  X    SYS  SYS  SYS  SYS
SYS  SYS  SYS  SYS  PIX  PHB  NODE NODE SYS  SYS  SYS  SYS  X    PHB  NODE NODE
SYS  SYS  SYS  SYS  PHB  PIX  NODE NODE SYS  SYS  SYS  SYS  PHB  X    NODE NODE
SYS  SYS  SYS  SYS  NODE NODE PIX  PHB  SYS  SYS  SYS  SYS  NODE NODE X    PHB
SYS  SYS  SYS  SYS  NODE NODE PHB  PIX  SYS  SYS  SYS  SYS  NODE NODE PHB  X'
check "amd-mi300x: the GPU is an accelerator of AMD's, NUMA 1 on the second socket" \
	jt "$A" 'dev("0000:c3:00.0") | .type == "gpu" and .vendor == "0x1002" and .class == "0x120000" and .numa_node == 1
	  and .switch == "0000:c1:00.0" and .host_bridge == "pci0000:c0" and .driver == "amdgpu"'
check "amd-mi300x: 8 RoCE ports, each mapped to its netdev and PCI function" \
	jt "$A" '(t.rdma | length) == 8 and all(t.rdma[]; .link_layer == "Ethernet" and .state == "ACTIVE" and .phys_state == "LinkUp")
	  and (port("bnxt_re0") | .netdev == "enp4s0np0" and .pci == "0000:04:00.0")
	  and (port("bnxt_re7") | .netdev == "enp204s0np0" and .pci == "0000:cc:00.0")
	  and dev("0000:04:00.0").netdevs == ["enp4s0np0"] and dev("0000:04:00.0").rdma == ["bnxt_re0"]'
check "amd-mi300x: all RoCE netdevs at MTU 9000, 400 Gb/s, driver bnxt_en" \
	jt "$A" '(t.interfaces | length) == 8 and all(t.interfaces[]; .mtu == 9000 and .speed_bps == 4e11 and .driver == "bnxt_en")'
check "amd-mi300x: the RoCE v2 GID of 198.18.3.1 on bnxt_re3 names its netdev" \
	jt "$A" 'port("bnxt_re3").gids | any(.[]; .index == 3 and .gid == "0000:0000:0000:0000:0000:ffff:c612:0301"
	  and .type == "RoCE v2" and .netdev == "enp76s0np0")'
check "amd-mi300x: two NUMA nodes" je "$A" '[t.numa[] | [.node, .cpus, .cpuless]]' \
	'[[0,"0-95,192-287",false],[1,"96-191,288-383",false]]'

# --- downtrained: one NIC trained Gen4 x8 of Gen5 x16; one Gen4 by its port.
topo downtrained
W=$J/downtrained.json
check "downtrained: --check exits 4" test "$RC" = 4
check "downtrained: exactly one finding: pcie_downtrained, warn, on 0000:01:00.0" \
	je "$W" 'finds' '[["pcie_downtrained","warn","0000:01:00.0"]]'
check "downtrained: 2 IB NICs on 2 root ports, no GPU, no switch" \
	je "$W" '[(t.pci | length), count("ib"), count("nic"), count("gpu"), count("root_port"), count("switch_upstream")]' '[5,2,0,0,2,0]'
check "downtrained: the NIC's link: Gen4 x8 of an expected Gen5 x16" \
	jt "$W" 'dev("0000:01:00.0").link | .speed_gts == 16 and .gen == 4 and .width == 8 and .max_gen == 5 and .max_width == 16
	  and .expected_gen == 5 and .expected_width == 16 and .downtrained == true
	  and near(.bps; 16e9 * 8 * 128 / 130) and near(.max_bps; gen5x16)'
check "downtrained: behind a Gen4 root port Gen4 x16 is what is expected" \
	jt "$W" 'dev("0000:02:00.0").link | .gen == 4 and .width == 16 and .max_gen == 5 and .expected_gen == 4
	  and .expected_width == 16 and .downtrained == false'
check "downtrained: the finding has a message" jt "$W" 'all(t.findings[]; (.message | length) > 0)'
check "downtrained: paths hold the two NICs only" je "$W" '[t.paths.labels, t.paths.matrix]' '[["NIC0","NIC1"],[["X","PHB"],["PHB","X"]]]'
text downtrained

# --- slow-nic: a 25G NIC trained Gen1 x1 of Gen4 x16 (the ceiling test's).
topo slow-nic
W=$J/slow-nic.json
check "slow-nic: --check exits 4" test "$RC" = 4
check "slow-nic: exactly one finding: pcie_downtrained, warn, on 0000:3b:00.0" \
	je "$W" 'finds' '[["pcie_downtrained","warn","0000:3b:00.0"]]'
check "slow-nic: eth0's NIC trained 2.5 GT/s x1 of Gen4 x16, 2 Gbit/s" \
	jt "$W" 'dev("0000:3b:00.0").link | .gen == 1 and .width == 1 and .expected_gen == 4
	  and .expected_width == 16 and .downtrained == true and near(.bps; 2e9)'

# --- ib-init-aer: a port without a subnet manager, AER, a small MTU, a far NIC.
topo ib-init-aer
F=$J/ib-init-aer.json
check "ib-init-aer: --check exits 4" test "$RC" = 4
check "ib-init-aer: the five findings by kind, severity and device" \
	je "$F" 'finds' '[["aer","error","0000:18:00.0"],["aer","warn","0000:19:00.0"],'\
'["mtu_mismatch","warn","enp26s0f0np0"],["numa_far","warn","0000:98:00.0"],'\
'["rdma_port_state","error","mlx5_0/1"]]'
check "ib-init-aer: every finding has a message" jt "$F" 'all(t.findings[]; (.message | length) > 0)'
check "ib-init-aer: 1 GPU, 2 IB NICs, 1 Ethernet NIC, 1 switch, 2 root ports" \
	je "$F" '[(t.pci | length), count("gpu"), count("ib"), count("nic"), count("switch_upstream"), count("root_port")]' '[10,1,2,1,1,2]'
check "ib-init-aer: the AER totals are read from the TOTAL_ lines" \
	jt "$F" 'dev("0000:19:00.0").aer == {"correctable":17,"nonfatal":0,"fatal":0}
	  and dev("0000:18:00.0").aer == {"correctable":0,"nonfatal":2,"fatal":0}'
check "ib-init-aer: the port is INIT and LinkUp" \
	jt "$F" 'port("mlx5_0") | .state == "INIT" and .phys_state == "LinkUp" and .link_layer == "InfiniBand"'
check "ib-init-aer: the RoCE port's netdev has MTU 1500" \
	jt "$F" '(port("mlx5_1") | .link_layer == "Ethernet" and .netdev == "enp26s0f0np0" and near(.rate_bps; 1e11))
	  and iface("enp26s0f0np0").mtu == 1500'
check "ib-init-aer: the far NIC is SYS from the only GPU, the others PIX" \
	jt "$F" 'path("0000:18:00.0"; "0000:98:00.0") == "SYS" and path("0000:18:00.0"; "0000:19:00.0") == "PIX"
	  and path("0000:18:00.0"; "0000:1a:00.0") == "PIX" and dev("0000:98:00.0").numa_node == 1'
text ib-init-aer
# The text report names what it flags.
for f in "0000:18:00.0" "0000:19:00.0" "enp26s0f0np0" "0000:98:00.0" "mlx5_0/1"; do
	check "ib-init-aer: the text report names $f" grep -qF -- "$f" "$J/ib-init-aer.txt"
done

# --- cxl: a CXL type-3 memory expander and its CPU-less NUMA node. ----------
topo cxl
C=$J/cxl.json
check "cxl: --check exits 0" test "$RC" = 0
check "cxl: no findings" je "$C" 't.findings' '[]'
check "cxl: 6 PCI functions: 1 CXL device, 1 NVMe, 1 Ethernet NIC, 3 root ports, no GPU" \
	je "$C" '[(t.pci | length), count("cxl"), count("nvme"), count("nic"), count("root_port"), count("gpu")]' '[6,1,1,1,3,0]'
check "cxl: the memdev mem0 belongs to 0000:36:00.0; its numa_node is the PCI device's (0)" \
	je "$C" 't.cxl | map({name, pci, port, numa_node, firmware, ram_bytes, enabled})' \
	'[{"name":"mem0","pci":"0000:36:00.0","port":"0000:35:01.0","numa_node":0,"firmware":"BWFW VERSION 00","ram_bytes":274877906944,"enabled":true}]'
check "cxl: both ends' CXL protocols from config space, no issue" \
	je "$C" 't.cxl[0] | [.flexbus.device, .flexbus.port, .issue]' \
	'[{"source":"device","capable":["mem","io"],"enabled":["mem","io"],"flit68":null},{"source":"flexbus","capable":["mem","io"],"enabled":["mem","io"],"flit68":true},null]'
check "cxl: a saved tree says ports, decoders and regions are read live only" \
	je "$C" 't.cxl_bus | [.read, (.note | test("live system only")), .ports]' '[false,true,[]]'
check "cxl: node 2's HMAT figures from node 0 (250 ns, 60 GB/s)" \
	je "$C" 't.numa[2].hmat[0] | [.read_latency_ns, .read_bandwidth_Bps, .initiators]' '[250,60000000000,[0]]'
check "cxl: the expander (class 0x050210) trains Gen5 x8 as expected below a Gen5 x16 port" \
	jt "$C" 'dev("0000:36:00.0") | .type == "cxl" and .class == "0x050210" and .driver == "cxl_pci"
	  and (.link | .gen == 5 and .width == 8 and .expected_width == 8 and .downtrained == false)'
check "cxl: NUMA node 2 is CPU-less with 256 GiB, nodes 0 and 1 have CPUs" \
	jt "$C" '(t.numa | length) == 3
	  and (t.numa[] | select(.node == 2) | .cpuless == true and (.cpus // "") == "" and .memory_bytes == 274877906944)
	  and ([t.numa[] | select(.node != 2) | .cpuless] == [false, false])'
check "cxl: without GPUs the paths hold the NIC only" je "$C" '[t.paths.devices, t.paths.matrix]' '[["0000:81:00.0"],[["X"]]]'

# --- vm: a virtio guest. --------------------------------------------------------
topo vm
V=$J/vm.json
check "vm: --check exits 0" test "$RC" = 0
check "vm: no findings" je "$V" 't.findings' '[]'
check "vm: 4 functions, one NIC (virtio-net), no GPU, no bridge of any kind" \
	je "$V" '[(t.pci | length), count("nic"), count("gpu"), count("root_port"), count("switch_upstream"), count("bridge")]' '[4,1,0,0,0,0]'
check "vm: the ISA bridge (class 0x060100) is no PCI bridge" jt "$V" 'dev("0000:00:01.0").type == "other"'
check "vm: virtio-net has no link, numa_node -1 reads null, it hangs from the host bridge" \
	jt "$V" 'dev("0000:00:03.0") | .type == "nic" and .link == null and .numa_node == null and .parent == null
	  and .host_bridge == "pci0000:00" and .switch == null and .driver == "virtio-pci"'
check "vm: eth0 (below virtio0) maps to its PCI function; speed -1 reads null" \
	jt "$V" '(t.interfaces | length) == 1 and (iface("eth0") | .pci == "0000:00:03.0" and .mtu == 1500
	  and .speed_bps == null and .state == "up")'
check "vm: one NUMA node, no RDMA, no CXL" jt "$V" '(t.numa | length) == 1 and t.rdma == [] and t.cxl == []'
check "vm: the paths hold the virtio NIC" je "$V" '[t.paths.labels, t.paths.matrix]' '[["NIC0"],[["X"]]]'
text vm

# --- vmd: PCI domain 10000 behind an Intel VMD controller. ---------------------
topo vmd
M=$J/vmd.json
check "vmd: --check exits 0" test "$RC" = 0
check "vmd: no findings, no note on the domain's addresses" \
	jt "$M" 't.findings == [] and all(t.notes[]; test("10000:") | not)'
check "vmd: 12 functions, 6 of them in domain 10000 (sorted after domain 0000)" \
	je "$M" '[(t.pci | length), [t.pci[].bdf | select(startswith("10000:"))]]' \
	'[12,["10000:e0:02.0","10000:e0:03.0","10000:e0:04.0","10000:e1:00.0","10000:e2:00.0","10000:e3:00.0"]]'
check "vmd: the domain's root ports hang from the VMD function, the devices from them" \
	jt "$M" '(dev("0000:00:0e.0") | .type == "other" and .driver == "vmd" and .parent == null)
	  and ([dev("10000:e0:02.0", "10000:e0:03.0", "10000:e0:04.0") | [.type, .parent, .host_bridge]]
	    == [range(3) | ["root_port", "0000:00:0e.0", "pci0000:00"]])
	  and (dev("10000:e1:00.0") | .type == "nvme" and .parent == "10000:e0:02.0" and .numa_node == null)
	  and (dev("10000:e3:00.0") | .type == "nic" and .parent == "10000:e0:04.0" and .netdevs == ["ens4f0np0"]
	    and .rdma == ["mlx5_1"] and .switch == null)'
check "vmd: links in the domain are read and judged against their ports" \
	jt "$M" '(dev("10000:e3:00.0").link | .gen == 5 and .width == 16 and .expected_gen == 5 and .downtrained == false)
	  and (dev("10000:e2:00.0").link | .gen == 4 and .width == 4 and .expected_width == 4)'
check "vmd: the NIC in the domain is PHB from the GPU and the other NIC, on NUMA node 0" \
	jt "$M" 't.paths.devices == ["0000:01:00.0","0000:02:00.0","10000:e3:00.0"]
	  and path("0000:01:00.0"; "10000:e3:00.0") == "PHB" and path("0000:02:00.0"; "10000:e3:00.0") == "PHB"'
check "vmd: the RDMA port and interface map to the NIC at 10000:e3:00.0" \
	jt "$M" 'port("mlx5_1").pci == "10000:e3:00.0" and iface("ens4f0np0").pci == "10000:e3:00.0"'
check "vmd: the unused (all-zero) GID entry 2 and the zero tail are left out" \
	je "$M" '[t.rdma[] | [.device, [.gids[].index], ([.gids[].gid | select(test("^[0:]*$"))] | length)]]' \
	'[["mlx5_0",[0],0],["mlx5_1",[0,1,3],0]]'
text vmd
for f in "10000:e0:04.0" "10000:e3:00.0" "0000:00:0e.0"; do
	check "vmd: the text report prints $f whole" grep -qE -- "(^| )$f " "$J/vmd.txt"
done
check "vmd: the text report lists no all-zero GID" \
	sh -c '! grep -q "0000:0000:0000:0000:0000:0000:0000:0000" "$1"' sh "$J/vmd.txt"

# --- broken: missing files, garbage, loops, dangling links. ------------------
topo broken
B=$J/broken.json
check "broken: topo neither crashes nor gives up (exit 0 or 4, got $RC)" test "$RC" = 0 -o "$RC" = 4
check "broken: the 9 resolvable functions are listed, the looping and dangling links are not" \
	je "$B" '[t.pci[].bdf] | sort' '["0000:00:00.0","0000:00:01.0","0000:00:02.0","0000:00:03.0",'\
'"0000:00:05.0","0000:00:06.0","0000:01:00.0","0000:02:00.0","0000:03:00.0"]'
check "broken: a note names the symlink loop" jt "$B" 'any(t.notes[]; test("loop"; "i"))'
check "broken: a note quotes the garbage numa_node" jt "$B" 'any(t.notes[]; test("banana"))'
check "broken: a note quotes the garbage link speed" jt "$B" 'any(t.notes[]; test("99\\.9"))'
check "broken: a note names the garbage link width" jt "$B" 'any(t.notes[]; test("width"; "i"))'
check "broken: a garbage numa_node reads null" jt "$B" 'dev("0000:01:00.0") | .numa_node == null and .type == "ib"'
check "broken: devices without a class, or with a directory for one, are 'other'" \
	jt "$B" 'dev("0000:00:02.0").type == "other" and dev("0000:00:06.0").type == "other"'
check "broken: the GPU is still found" jt "$B" 'dev("0000:03:00.0").type == "gpu"'
check "broken: garbage or missing link files are never a downtrained link" \
	jt "$B" '[t.findings[] | select(.kind == "pcie_downtrained")] == []'
check "broken: the notes are sentences" jt "$B" '(t.notes | length) >= 3 and all(t.notes[]; type == "string" and length > 0)'
text broken

# --- large: hundreds of functions, SR-IOV VFs, nested switches, empty slots. ---
topo large
L=$J/large.json
check "large: --check exits 0 (VF links 'Unknown'/0 and empty slots are not findings)" test "$RC" = 0
check "large: no findings" je "$L" 't.findings' '[]'
check "large: 466 functions: 8 GPUs, 264 IB (8 PFs, 256 VFs), 3 Ethernet, 58 NVMe, 8 switches, 16 root ports" \
	je "$L" '[(t.pci | length), count("gpu"), count("ib"), count("nic"), count("nvme"), count("switch_upstream"), count("root_port")]' \
	'[466,8,264,3,58,8,16]'
check "large: a VF sits next to its PF below the same downstream port" \
	jt "$L" 'dev("0000:1a:00.1") | .type == "ib" and .device == "0x101e" and .parent == "0000:17:02.0" and .switch == "0000:16:00.0"
	  and .driver == "vfio-pci"'
check "large: a NIC two switches away from GPU0 is PXB; a VF below GPU0's switch PIX" \
	jt "$L" 'path("0000:18:00.0"; "0000:2d:00.0") == "PXB" and path("0000:18:00.0"; "0000:1a:00.1") == "PIX"
	  and dev("0000:1f:00.0").type == "switch_upstream" and dev("0000:20:0c.0").type == "switch_downstream"'
check "large: an empty hotplug root port is a link of width 0, not downtrained" \
	jt "$L" 'dev("0000:15:02.0") | .type == "root_port" and ((.link == null) or (.link.width == 0 and .link.downtrained == false))'
check "large: paths hold 8 GPUs and 267 NICs" jt "$L" '(t.paths.devices | length) == 275 and (t.paths.matrix | length) == 275'
n=$(jq '.results[0].pci | length' "$L" 2>/dev/null)
times=()
for _ in 1 2 3 4 5; do
	t0=$(date +%s%N)
	"$IXPERF" topo --sysfs "$J/large" --json >/dev/null 2>&1
	t1=$(date +%s%N)
	times+=($(((t1 - t0) / 1000000)))
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
echo "# topo discovery on the large layout ($n PCI functions): median ${median} ms of 5 runs (${times[*]})"

# --- dgx-degraded: three links below both of their ends, an idle GPU. --------
topo dgx-degraded
G=$J/dgx-degraded.json
text dgx-degraded
check "dgx-degraded: --check exits 4, the text report too" test "$RC" = 4
check "dgx-degraded: three findings, on the GPU at x8, the switch at Gen4 and the NVMe drive at x2" \
	je "$G" 'finds' '[["pcie_downtrained","warn","0000:18:00.0"],["pcie_downtrained","warn","0000:1c:00.0"],["pcie_downtrained","warn","0000:38:00.0"]]'
check "dgx-degraded: the switch's upstream port expects its root port's Gen5 x16, the drive its Gen4 x4" \
	jt "$G" '(dev("0000:38:00.0").link | .gen == 4 and .expected_gen == 5 and .expected_width == 16)
	  and (dev("0000:1c:00.0").link | .width == 2 and .expected_gen == 4 and .expected_width == 4)'
check "dgx-degraded: the GPU idling at Gen1 x16 is a note, not a finding" \
	jt "$G" 'dev("0000:19:00.0").link.downtrained == false and any(t.notes[]; test("^0000:19:00.0 .*idle"))'

# --- gpu-numa: what hwloc's real dumps hold, in one tree. ------------------------
topo gpu-numa
N=$J/gpu-numa.json
check "gpu-numa: --check exits 0 (nothing flagged)" test "$RC" = 0
check "gpu-numa: the QLogic (0c0600) and ConnectX-3 (028000 with mlx4_0) HCAs are ib" \
	jt "$N" '[dev("0000:41:00.0", "0000:c1:00.0").type] == ["ib", "ib"]'
check "gpu-numa: nodes 250-252 hold the memory of the GPUs numa_status names; 0 and 1 have the CPUs" \
	je "$N" '[t.numa[] | [.node, .cpuless, .gpu_memory_of]]' \
	'[[0,false,null],[1,false,null],[250,true,"0000:01:00.0"],[251,true,"0000:81:00.0"],[252,true,"0035:05:00.0"]]'
check "gpu-numa: the flattened GPU is NVIDIA's, its paths unknown ('?'), never PHB" \
	jt "$N" 'dev("0035:05:00.0").type == "gpu" and dev("0035:05:00.0").vendor == "0x10de"
	  and path("0000:01:00.0"; "0035:05:00.0") == "?" and path("0000:01:00.0"; "0000:81:00.0") == "SYS"'
check "gpu-numa: domain 10000's function is below its own host bridge" \
	jt "$N" 'dev("10000:00:04.0").host_bridge == "pci10000:00"'

# --- retimer: config files with Link Status 2's retimer bits. ------------------
topo retimer
R=$J/retimer.json
check "retimer: --check exits 4 (the AER finding)" test "$RC" = 4
check "retimer: exactly one finding: aer, warn, on the NIC 0000:02:00.0" \
	je "$R" 'finds' '[["aer","warn","0000:02:00.0"]]'
check "retimer: the AER finding names the link's two retimers as suspects" \
	jt "$R" 't.findings[0].message | test("^0000:02:00.0 .* 11 correctable PCIe errors since boot; 2 retimers sit on this link [(]PCIe Link Status 2[)]: suspects beside the device and its slot[.]$")'
check "retimer: each link has what either end reports (1 at both ends, 2 seen by the NIC only, 0 detected, null where 64 bytes or no capability list)" \
	je "$R" '[t.pci[] | [.bdf, (.link // {}).retimers]]' \
	'[["0000:00:00.0",null],["0000:00:01.0",1],["0000:00:03.0",2],["0000:00:05.0",0],["0000:00:07.0",null],'\
'["0000:01:00.0",1],["0000:02:00.0",2],["0000:03:00.0",0],["0000:04:00.0",null]]'
check "retimer: one note says two functions' config space was read short, so their retimers are unknown" \
	jt "$R" '[t.notes[] | select(test("retimers"))] | length == 1 and (.[0] | test("^2 PCI function[(]s[)] .*64 bytes.*unknown"))'
check "dgx-h100 (no config files): no link knows its retimers, no note speaks of them" \
	jt "$D" 'all(t.pci[]; .link == null or .link.retimers == null) and all(t.notes[]; test("retimer") | not)'
text retimer
check "retimer: the text tree marks the GPU's link and its port's with a retimer" \
	test "$(grep -cE '^    0000:01:00\.0 gpu .*Gen5 x16 \(504 Gbit/s\)  retimer$|^  0000:00:01\.0 root_port .*Gen5 x16 \(504 Gbit/s\)  retimer$' "$J/retimer.txt")" = 2
check "retimer: the text tree marks the NIC's link with 2 retimers" \
	grep -qE '^    0000:02:00\.0 ib .*Gen5 x16 \(504 Gbit/s\)  2 retimers  \[ibp2s0 mlx5_0\]$' "$J/retimer.txt"
check "retimer: no retimer on the drive's and the E810's rows" \
	sh -c '! grep -E "^    0000:0[34]:00\.0 .*retimer" "$1"' sh "$J/retimer.txt"
check "retimer: the text report gives the finding and the note" \
	sh -c 'grep -qF "2 retimers sit on this link (PCIe Link Status 2)" "$1" && grep -q "^  note: 2 PCI function(s) gave only part of their config space" "$1"' sh "$J/retimer.txt"
"$IXPERF" top --topo --once --sysfs "$J/retimer" >"$J/retimer.top" 2>/dev/null
check "retimer: top --topo --once labels the links +R and +2R" \
	test "$(grep -cE '^ +0000:0(0:01\.0|1:00\.0) .* Gen5 x16 \+R ' "$J/retimer.top"):$(grep -cE '^ +0000:0(0:03\.0|2:00\.0) .* Gen5 x16 \+2R ' "$J/retimer.top")" = 2:2

# --- One rule in every view. ----------------------------------------------------
# linkhealth.py judges each tree's links from its files; the JSON's flags,
# the findings (a link named by its device end), the text tree's tags and
# the rows 'top --topo --once' marks must all name the same functions.
# health DIR NAME: the four views of the tree under DIR against the oracle.
health() {
	local d=$1 n=$2 want dev
	want=$(python3 "$top_srcdir/tests/topo/linkhealth.py" "$d" | cut -d' ' -f1 | tr '\n' ' ')
	dev=$(python3 "$top_srcdir/tests/topo/linkhealth.py" "$d" | awk '$2 == "device" { print $1 }' | tr '\n' ' ')
	"$IXPERF" topo --sysfs "$d" --json >"$J/h-$n.json" 2>/dev/null
	"$IXPERF" topo --sysfs "$d" >"$J/h-$n.txt" 2>/dev/null
	"$IXPERF" top --topo --once --sysfs "$d" >"$J/h-$n.top" 2>/dev/null
	check "$n: the links flagged downtrained in the JSON are the oracle's ([${want% }])" \
		test "$(jq -r '[.results[0].pci[] | select(.link.downtrained) | .bdf] | sort | join(" ")' "$J/h-$n.json")" = "${want% }"
	check "$n: the downtrained findings name the oracle's device ends ([${dev% }])" \
		test "$(jq -r '[.results[0].findings[] | select(.kind == "pcie_downtrained") | .device] | sort | join(" ")' "$J/h-$n.json")" = "${dev% }"
	check "$n: the text tree tags the same rows DOWNTRAINED" \
		test "$(awk '/DOWNTRAINED/ { print $1 }' "$J/h-$n.txt" | sort | tr '\n' ' ')" = "$want"
	check "$n: top --topo --once marks the same rows downtrained" \
		test "$(awk '/PROBLEM: downtrained/ { print $1 }' "$J/h-$n.top" | sort | tr '\n' ' ')" = "$want"
}
for l in dgx-h100 amd-mi300x downtrained slow-nic ib-init-aer cxl vmd large dgx-degraded gpu-numa retimer; do
	health "$J/$l" "$l"
done

# --- A tree that is not there. ------------------------------------------------
mkdir -p "$J/empty"
"$IXPERF" topo --sysfs "$J/empty" --json >/dev/null 2>"$J/empty.err"
check "a root without sys/bus/pci: exit 1" test "$?" = 1
"$IXPERF" topo --sysfs "$J/dgx-h100" stray-argument >/dev/null 2>&1
check "a stray argument: exit 2" test "$?" = 2

# --- The live host. ---------------------------------------------------------------
timeout 60 "$IXPERF" topo --json --check >"$J/live.json" 2>"$J/live.err"
rc=$?
check "live host: topo exits 0 or 4 (got $rc)" test "$rc" = 0 -o "$rc" = 4
check "live host: the JSON is valid and lists PCI functions" jq_true "$J/live.json" '.results[0].pci | length > 0'
schema_check "$J/live.json"
# Strict only where nothing can be flagged: no PCIe link files, no RDMA (a
# virtio guest such as the CI machine). Elsewhere real hardware may differ.
if ! ls /sys/bus/pci/devices/*/current_link_speed >/dev/null 2>&1 &&
	! ls /sys/class/infiniband/* >/dev/null 2>&1; then
	check "live host (a guest without PCIe links or RDMA): --check exits 0" test "$rc" = 0
	check "live host: no findings" jq_true "$J/live.json" '.results[0].findings == []'
else
	echo "# live host has PCIe links or RDMA ports: its findings are not asserted"
fi
"$IXPERF" topo >"$J/live.txt" 2>&1
check "live host: the text report exits 0 and is not empty" test "$?" = 0 -a -s "$J/live.txt"

ix_done
