# shellcheck shell=bash
# Soft-RoCE test VMs (sourced): Debian's own kernel (the release's
# backports' where it has them) under QEMU with TCG, whose rdma_rxe is a
# real verbs provider that this host's kernel lacks.
# The VMs run the host's own binaries and libraries (ixperf, libibverbs
# and its rxe provider, perftest) over a read-only virtio-9p root, write
# into one shared folder, and share one L2 segment (ix_vm_net): each VM a
# host with its own rxe device.
#
#   ix_vm_prepare CACHE      kernel + initramfs into CACHE (once; needs
#                            apt-get download, objcopy, busybox-static,
#                            qemu)
#   ix_vm_boot CACHE OUT SCRIPT N...
#                            boot VMs N... (node N is 10.77.0.N), each
#                            running SCRIPT, wait for all; OUT/vmN.log and
#                            OUT/vmN.rc hold their output and status
#                            (IX_VM_SHAPE="N TBF-ARGS": a tbf on the
#                            bridge's port to VM N, where root;
#                            IX_VM_CAPTURE="FILTER": a capture of every
#                            bridge port, see ix_vm_capture;
#                            IX_VM_FABRIC=ecmp: a routed fabric, see
#                            ix_vm_fabric; IX_VM_MACHINE: QEMU's -machine,
#                            IX_VM_QEMU_ARGS: an array of more arguments,
#                            IX_VM_PCI_BUS: the bus of the VM's own
#                            virtio devices)
#
# Nothing binary is committed: the kernel comes from Debian's registry at
# test time.

# The modules the VMs load, each after what its .modinfo says it depends
# on; one built into the kernel is left out. crc32_generic has no module
# depending on it: rdma_rxe asks the crypto layer for "crc32" by name.
# cxl_acpi, cxl_pci and cxl_mem: the CXL port tree and memory devices of
# a q35 machine with cxl=on (tests/integration/mem_cxl.sh); elsewhere they
# find nothing to bind.
IX_VM_MODULES="virtio_pci 9pnet_virtio 9p virtio_net crc32_generic rdma_rxe sch_netem cxl_acpi cxl_pci cxl_mem"

# Why VMs cannot run here, or nothing.
ix_vm_missing() {
	local t
	for t in qemu-system-x86_64 apt-get dpkg-deb apt-cache objcopy; do
		command -v "$t" >/dev/null || {
			echo "$t is not installed"
			return
		}
	done
	if [ ! -x /bin/busybox ] || ldd /bin/busybox >/dev/null 2>&1; then
		echo "busybox-static is not installed"
		return
	fi
	command -v ib_write_bw >/dev/null || echo "perftest is not installed"
}

# ix_vm_test_setup: for a test that boots VMs (after lib.sh): skipped,
# with the reason, where they cannot run; the kernel's cache made (CACHE),
# and O, the VMs' writable folder.
ix_vm_test_setup() {
	local why
	[ -n "${IX_SKIP_VM:-}" ] && ix_skip "IX_SKIP_VM is set"
	why=$(ix_vm_missing)
	[ -z "$why" ] || ix_need "$why (contrib/setup.sh deps installs it)"
	CACHE=${IX_VM_CACHE:-$(pwd)/tests/rdma/vm-cache}
	ix_vm_prepare "$CACHE" 2>"$IX_TMP/prepare.err" ||
		ix_need "no kernel for the VMs: $(cat "$IX_TMP/prepare.err")"
	echo "# kernel: $(cat "$CACHE/kernel-package")"
	O=$IX_TMP/vm
	mkdir -p "$O"
	chmod 777 "$O"
}

# ix_vm_kernel_pkg CACHE: download the kernel package into CACHE and
# print its name. Debian's newest for this release: from the release's
# backports when they have one (bookworm's 6.1 soft-RoCE can stop for good
# when a retransmission timer fires while the guest is starved of CPU:
# every QP of a multi-QP write test stalls, each retrying without end;
# 6.12 recovers), else the release's own. The backports index is read
# with apt's state kept in CACHE, from the mirror the host uses; the host's
# apt configuration is not touched. IX_VM_KERNEL_SUITE=release takes the
# release's own kernel.
ix_vm_kernel_pkg() {
	local c=$1 codename mirror a
	codename=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	mirror=$(apt-cache policy linux-image-amd64 2>/dev/null |
		awk -v s="$codename/main" '$3 == s { print $2; exit }')
	if [ "${IX_VM_KERNEL_SUITE:-backports}" = backports ] && [ -n "$codename" ] && [ -n "$mirror" ]; then
		mkdir -p "$c/apt/lists/partial" "$c/apt/cache/archives/partial"
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $codename-backports main" \
			>"$c/apt/sources.list"
		a=(-o "Dir::Etc::sourcelist=$c/apt/sources.list" -o Dir::Etc::sourceparts=-
			-o "Dir::State::Lists=$c/apt/lists" -o "Dir::Cache=$c/apt/cache")
		apt-get "${a[@]}" update >"$c/apt/update.log" 2>&1 &&
			ix_vm_kernel_download "$c" "$codename-backports" "${a[@]}" && return 0
		echo "ix_vm_prepare: $codename-backports has no kernel to download from $mirror" >&2
		[ "${IX_CI:-0}" = 1 ] && return 1
	fi
	ix_vm_kernel_download "$c" "${codename:-the release}"
}

# ix_vm_kernel_download CACHE SUITE [APT-OPTIONS...]: the package behind
# linux-image-amd64 into CACHE; prints its name and SUITE.
ix_vm_kernel_download() {
	local c=$1 suite=$2 pkg
	shift 2
	pkg=$(apt-cache "$@" depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "ix_vm_prepare: no kernel package behind linux-image-amd64 ($suite)" >&2 && return 1; }
	(cd "$c" && apt-get "$@" download "$pkg" >/dev/null 2>&1) ||
		{ echo "ix_vm_prepare: apt-get download $pkg failed ($suite)" >&2 && return 1; }
	echo "$pkg ($suite)"
}

# ix_vm_module_deps KO: the modules KO depends on, from its .modinfo.
ix_vm_module_deps() {
	objcopy -O binary --only-section=.modinfo "$1" "$1.info" 2>/dev/null || return 1
	tr '\0' '\n' <"$1.info" | sed -n 's/^depends=//p' | tr ',' ' '
	rm -f "$1.info"
}

# ix_vm_add_module DIR MODDIR M: M into DIR/mod, its dependencies first,
# each once; one built in is skipped.
ix_vm_add_module() {
	local d=$1 md=$2 m=$3 f dep
	grep -qx "$m" "$d/modules" 2>/dev/null && return 0
	grep -q "/$m\.ko\$" "$md/modules.builtin" 2>/dev/null && return 0
	f=$(find "$md" \( -name "$m.ko" -o -name "$m.ko.xz" -o -name "${m//_/-}.ko" -o -name "${m//_/-}.ko.xz" \) | head -1)
	[ -n "$f" ] || { echo "ix_vm_prepare: the kernel has no module $m" >&2 && return 1; }
	case $f in *.xz) xz -dc "$f" >"$d/mod/$m.ko" ;; *) cp "$f" "$d/mod/$m.ko" ;; esac
	for dep in $(ix_vm_module_deps "$d/mod/$m.ko"); do
		ix_vm_add_module "$d" "$md" "$dep" || return 1
	done
	echo "$m" >>"$d/modules"
}

ix_vm_prepare() {
	local c=$1 pkg kver m d key
	# A cache made for another list of modules or kernel suite is made again.
	key="$IX_VM_MODULES ${IX_VM_KERNEL_SUITE:-backports}"
	[ -f "$c/ready" ] && [ "$(cat "$c/modules-list" 2>/dev/null)" = "$key" ] && return 0
	mkdir -p "$c" && rm -rf "$c/ready" "$c/kernel" "$c/initrd.d" "$c"/*.deb
	pkg=$(ix_vm_kernel_pkg "$c") || return 1
	dpkg-deb -x "$c"/"${pkg%% *}"_*.deb "$c/kernel" || return 1
	kver=$(ls "$c/kernel/lib/modules")
	cp "$c/kernel/boot/vmlinuz-$kver" "$c/vmlinuz" || return 1
	d=$c/initrd.d
	mkdir -p "$d/bin" "$d/mod" "$d/proc" "$d/sys" "$d/dev"
	cp /bin/busybox "$d/bin/busybox"
	cp "${top_srcdir:-.}/tests/rdma/init" "$d/init" && chmod 755 "$d/init"
	: >"$d/modules"
	for m in $IX_VM_MODULES; do
		ix_vm_add_module "$d" "$c/kernel/lib/modules/$kver" "$m" || return 1
	done
	(cd "$d" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$c/initrd.gz" || return 1
	echo "$pkg" >"$c/kernel-package"
	printf '%s' "$key" >"$c/modules-list"
	rm -rf "$c/kernel" "$d" "$c"/*.deb "$c/apt"
	touch "$c/ready"
}

# ix_vm_fabric_ns NAME: the namespace of node NAME (leaf1, leaf2, spine1,
# spine2) of IX_VM_FABRIC=ecmp's fabric; the same in every subshell of the
# test, so a test that boots its VMs in the background names them too.
ix_vm_fabric_ns() {
	echo "ixvf-$$-$1"
}

# ix_vm_fabric: IX_VM_FABRIC=ecmp, as root. VM 1's tap (tap1) is a port of
# a router, leaf1 (10.77.1.1/24, VM 1 10.77.1.2 with its default route
# through it), VM 2's of leaf2 (10.77.2.1/24, VM 2 10.77.2.2); the leaves
# are joined through two spines (to-spine1 and to-spine2 at each leaf, l1
# and l2 at each spine, veths of /30s), with a multipath route between the
# leaves' subnets: each RoCE v2 packet takes the spine its leaf's hash
# picks (net.ipv4.fib_multipath_hash_policy, set by the test in the
# leaves). Every link is an MTU of 9000, as the bridge's ports.
ix_vm_fabric() {
	local n s l
	for n in leaf1 leaf2 spine1 spine2; do
		ip netns add "$(ix_vm_fabric_ns $n)" || return 1
		IX_NETNS+=("$(ix_vm_fabric_ns $n)")
		ip -n "$(ix_vm_fabric_ns $n)" link set dev lo up
		ip netns exec "$(ix_vm_fabric_ns $n)" sysctl -qw net.ipv4.ip_forward=1
	done
	for l in 1 2; do
		n=$(ix_vm_fabric_ns "leaf$l")
		ip -n "$n" tuntap add "tap$l" mode tap || return 1
		ip -n "$n" link set "tap$l" mtu 9000 txqueuelen 10000 up
		ip -n "$n" addr add "10.77.$l.1/24" dev "tap$l"
		for s in 1 2; do
			ip link add "to-spine$s" netns "$n" type veth peer name "l$l" \
				netns "$(ix_vm_fabric_ns "spine$s")" || return 1
			ip -n "$n" addr add "10.$l$s.0.1/30" dev "to-spine$s"
			ip -n "$(ix_vm_fabric_ns "spine$s")" addr add "10.$l$s.0.2/30" dev "l$l"
			ip -n "$n" link set "to-spine$s" mtu 9000 up
			ip -n "$(ix_vm_fabric_ns "spine$s")" link set "l$l" mtu 9000 up
		done
	done
	# A leaf's own traffic to the other side (an agent or coordinator run
	# in its namespace) leaves from its VM-facing address, which the other
	# leaf routes back.
	ip -n "$(ix_vm_fabric_ns leaf1)" route add 10.77.2.0/24 src 10.77.1.1 \
		nexthop via 10.11.0.2 nexthop via 10.12.0.2 &&
		ip -n "$(ix_vm_fabric_ns leaf2)" route add 10.77.1.0/24 src 10.77.2.1 \
			nexthop via 10.21.0.2 nexthop via 10.22.0.2 || return 1
	for s in 1 2; do
		ip -n "$(ix_vm_fabric_ns "spine$s")" route add 10.77.1.0/24 via "10.1$s.0.1"
		ip -n "$(ix_vm_fabric_ns "spine$s")" route add 10.77.2.0/24 via "10.2$s.0.1"
	done
}

# The VMs' network: as root, a bridge in a network namespace made for the
# run, one tap per VM (QEMU reads them fast, and the queues hold a
# window of RoCE packets); otherwise a QEMU multicast socket on loopback,
# whose default socket buffer drops bursts (rxe then retransmits).
# IX_VM_FABRIC=ecmp: ix_vm_fabric's routers instead (nodes 1 and 2).
ix_vm_net() {
	local n
	IX_VM_NS=
	[ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] || return 0
	if [ "${IX_VM_FABRIC:-}" = ecmp ]; then
		ix_vm_fabric || return 1
		IX_VM_NS=fabric
		return 0
	fi
	IX_VM_NS=ixvm-$$-$RANDOM
	ip netns add "$IX_VM_NS" || {
		IX_VM_NS=
		return 0
	}
	IX_NETNS+=("$IX_VM_NS")
	ip -n "$IX_VM_NS" link add br0 type bridge
	ip -n "$IX_VM_NS" link set br0 mtu 9000 up
	for n in "$@"; do
		ip -n "$IX_VM_NS" tuntap add "tap$n" mode tap
		ip -n "$IX_VM_NS" link set "tap$n" mtu 9000 txqueuelen 10000 master br0 up
	done
}

# ix_vm_capture OUT: what the bridge's ports carry (dumpcap on every tap,
# IX_VM_CAPTURE its capture filter), from when a VM's script touches
# OUT/capture.start until it touches OUT/capture.stop, into
# OUT/capture.pcapng; OUT/capture.ready once dumpcap listens (the script
# waits for it), OUT/capture.err why there is no capture.
ix_vm_capture() {
	local out=$1 pid
	rm -f "$out"/capture.*
	if [ -z "$IX_VM_NS" ] || ! command -v dumpcap >/dev/null; then
		echo "no bridge to capture on (not root, or no /dev/net/tun) or no dumpcap" >"$out/capture.err"
		touch "$out/capture.ready"
		return 0
	fi
	while [ ! -e "$out/capture.start" ]; do sleep 0.2; done
	ip netns exec "$IX_VM_NS" dumpcap -q -i any -f "$IX_VM_CAPTURE" -s 128 \
		-w "$out/capture.pcapng" 2>"$out/capture.log" &
	pid=$!
	# stopped by the test's cleanup: dumpcap with it
	trap 'kill -INT "$pid" 2>/dev/null; wait "$pid"; exit 0' TERM
	for _ in $(seq 150); do grep -q "Capturing on" "$out/capture.log" && break; sleep 0.2; done
	grep -q "Capturing on" "$out/capture.log" || cp "$out/capture.log" "$out/capture.err"
	touch "$out/capture.ready"
	while [ ! -e "$out/capture.stop" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
	kill -INT "$pid" 2>/dev/null
	wait "$pid"
}

# ix_vm_boot CACHE OUT SCRIPT NODE...: OUT must be an absolute path.
ix_vm_boot() {
	local c=$1 out=$2 script=$3 n pids=() port net cap='' ns ip gw bus=${IX_VM_PCI_BUS:+,bus=$IX_VM_PCI_BUS}
	shift 3
	[ -n "${IX_VM_QEMU_ARGS+x}" ] || IX_VM_QEMU_ARGS=()
	port=$((20000 + RANDOM % 20000))
	ix_vm_net "$@"
	# IX_VM_SHAPE="N TBF-ARGS": a tbf on the bridge's port to VM N, as on a
	# congested switch port: what it drops, the RoCE ends see as loss in
	# the network (sequence errors, retransmissions), not as sends their
	# own host refused. OUT/shape.err says why there is none.
	rm -f "$out/shape.err"
	if [ -n "${IX_VM_SHAPE:-}" ]; then
		if [ -z "$IX_VM_NS" ]; then
			echo "no bridge to shape: the VMs share a QEMU socket (not root, or no /dev/net/tun)" >"$out/shape.err"
		else
			# shellcheck disable=SC2086
			tc -n "$IX_VM_NS" qdisc add dev "tap${IX_VM_SHAPE%% *}" root tbf ${IX_VM_SHAPE#* } \
				2>"$out/shape.err" && rm -f "$out/shape.err"
		fi
	fi
	if [ -n "${IX_VM_CAPTURE:-}" ]; then
		ix_vm_capture "$out" &
		cap=$!
		IX_PIDS+=("$cap")
	fi
	if [ "${IX_VM_FABRIC:-}" = ecmp ] && [ "$IX_VM_NS" != fabric ]; then
		echo "no routed fabric: it needs root and /dev/net/tun" >"$out/fabric.err"
		return 1
	fi
	for n in "$@"; do
		rm -f "$out/vm$n.rc" "$out/vm$n.log"
		ns=$IX_VM_NS ip=10.77.0.$n gw=
		if [ "$IX_VM_NS" = fabric ]; then
			ns=$(ix_vm_fabric_ns "leaf$n") ip=10.77.$n.2 gw=10.77.$n.1
		fi
		if [ -n "$IX_VM_NS" ]; then
			net="tap,id=n0,ifname=tap$n,script=no,downscript=no"
		else
			net="socket,id=n0,mcast=230.77.0.1:$port,localaddr=127.0.0.1"
		fi
		${ns:+ip netns exec "$ns"} \
			qemu-system-x86_64 -accel tcg -cpu max -smp "${IX_VM_SMP:-1}" -m "${IX_VM_MEM:-768}" \
			${IX_VM_MACHINE:+-machine "$IX_VM_MACHINE"} "${IX_VM_QEMU_ARGS[@]}" \
			-display none -monitor none -no-reboot -serial "file:$out/console$n.log" \
			-kernel "$c/vmlinuz" -initrd "$c/initrd.gz" \
			-append "console=ttyS0 panic=-1 quiet rdinit=/init ix.node=$n ix.ip=$ip${gw:+ ix.gw=$gw} ix.script=$script ix.out=$out" \
			-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
			-device "virtio-9p-pci,fsdev=root,mount_tag=hostroot$bus" \
			-fsdev local,id=out,path="$out",security_model=none \
			-device "virtio-9p-pci,fsdev=out,mount_tag=out$bus" \
			-netdev "$net" \
			-device "virtio-net-pci,netdev=n0,mac=52:54:00:77:00:$(printf %02x "$n")$bus" \
			>"$out/qemu$n.log" 2>&1 &
		pids+=($!)
		IX_PIDS+=($!)
	done
	for n in "${pids[@]}"; do
		wait "$n"
	done
	if [ -n "$cap" ]; then
		touch "$out/capture.start" "$out/capture.stop"
		wait "$cap"
	fi
	if [ "$IX_VM_NS" = fabric ]; then
		for n in leaf1 leaf2 spine1 spine2; do ip netns del "$(ix_vm_fabric_ns $n)"; done
	elif [ -n "$IX_VM_NS" ]; then
		ip netns del "$IX_VM_NS"
	fi
}
