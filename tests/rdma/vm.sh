# shellcheck shell=bash
# Soft-RoCE test VMs (sourced): Debian's own kernel under QEMU with TCG,
# whose rdma_rxe is a real verbs provider that this host's kernel lacks.
# The VMs run the host's own binaries and libraries (ixperf, libibverbs
# and its rxe provider, perftest) over a read-only virtio-9p root, write
# into one shared folder, and share one L2 segment (ix_vm_net): each VM a
# host with its own rxe device.
#
#   ix_vm_prepare CACHE      kernel + initramfs into CACHE (once; needs
#                            apt-get download, busybox-static, qemu)
#   ix_vm_boot CACHE OUT SCRIPT N...
#                            boot VMs N... (node N is 10.77.0.N), each
#                            running SCRIPT, wait for all; OUT/vmN.log and
#                            OUT/vmN.rc hold their output and status
#
# Nothing binary is committed: the kernel comes from Debian's registry at
# test time.

IX_VM_MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
	netfs fscache 9pnet 9pnet_virtio 9p failover net_failover virtio_net crc32_generic
	ib_core ib_uverbs udp_tunnel ip6_udp_tunnel rdma_rxe veth sch_tbf sch_netem"

# Why VMs cannot run here, or nothing.
ix_vm_missing() {
	local t
	for t in qemu-system-x86_64 apt-get dpkg-deb apt-cache; do
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
		ix_skip "no kernel for the VMs: $(cat "$IX_TMP/prepare.err")"
	echo "# kernel: $(cat "$CACHE/kernel-package")"
	O=$IX_TMP/vm
	mkdir -p "$O"
	chmod 777 "$O"
}

ix_vm_prepare() {
	local c=$1 pkg kver m f d
	# A cache made for another list of modules is made again.
	[ -f "$c/ready" ] && [ "$(cat "$c/modules-list" 2>/dev/null)" = "$IX_VM_MODULES" ] && return 0
	mkdir -p "$c" && rm -rf "$c/kernel" "$c/initrd.d" "$c"/*.deb
	pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
		awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
	[ -n "$pkg" ] || { echo "ix_vm_prepare: no kernel package behind linux-image-amd64" >&2 && return 1; }
	(cd "$c" && apt-get download "$pkg" >/dev/null 2>&1) ||
		{ echo "ix_vm_prepare: apt-get download $pkg failed" >&2 && return 1; }
	dpkg-deb -x "$c"/"$pkg"_*.deb "$c/kernel" || return 1
	kver=$(ls "$c/kernel/lib/modules")
	cp "$c/kernel/boot/vmlinuz-$kver" "$c/vmlinuz" || return 1
	d=$c/initrd.d
	mkdir -p "$d/bin" "$d/mod" "$d/proc" "$d/sys" "$d/dev"
	cp /bin/busybox "$d/bin/busybox"
	cp "${top_srcdir:-.}/tests/rdma/init" "$d/init" && chmod 755 "$d/init"
	for m in $IX_VM_MODULES; do
		f=$(find "$c/kernel/lib/modules/$kver" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
		[ -n "$f" ] || { echo "ix_vm_prepare: $pkg has no module $m" >&2 && return 1; }
		case $f in *.xz) xz -dc "$f" >"$d/mod/$m.ko" ;; *) cp "$f" "$d/mod/$m.ko" ;; esac
		echo "$m" >>"$d/modules"
	done
	(cd "$d" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) >"$c/initrd.gz" || return 1
	echo "$pkg" >"$c/kernel-package"
	printf '%s' "$IX_VM_MODULES" >"$c/modules-list"
	rm -rf "$c/kernel" "$d" "$c"/*.deb
	touch "$c/ready"
}

# The VMs' network: as root, a bridge in a network namespace made for the
# run, one tap per VM (QEMU reads them fast, and the queues hold a
# window of RoCE packets); otherwise a QEMU multicast socket on loopback,
# whose default socket buffer drops bursts (rxe then retransmits).
ix_vm_net() {
	local n
	IX_VM_NS=
	[ "$(id -u)" = 0 ] && [ -c /dev/net/tun ] || return 0
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

# ix_vm_boot CACHE OUT SCRIPT NODE...: OUT must be an absolute path.
ix_vm_boot() {
	local c=$1 out=$2 script=$3 n pids=() port net
	shift 3
	port=$((20000 + RANDOM % 20000))
	ix_vm_net "$@"
	for n in "$@"; do
		rm -f "$out/vm$n.rc" "$out/vm$n.log"
		if [ -n "$IX_VM_NS" ]; then
			net="tap,id=n0,ifname=tap$n,script=no,downscript=no"
		else
			net="socket,id=n0,mcast=230.77.0.1:$port,localaddr=127.0.0.1"
		fi
		${IX_VM_NS:+ip netns exec "$IX_VM_NS"} \
			qemu-system-x86_64 -accel tcg -cpu max -smp "${IX_VM_SMP:-1}" -m "${IX_VM_MEM:-768}" \
			-display none -monitor none -no-reboot -serial "file:$out/console$n.log" \
			-kernel "$c/vmlinuz" -initrd "$c/initrd.gz" \
			-append "console=ttyS0 panic=-1 quiet rdinit=/init ix.node=$n ix.ip=10.77.0.$n ix.script=$script ix.out=$out" \
			-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
			-device virtio-9p-pci,fsdev=root,mount_tag=hostroot \
			-fsdev local,id=out,path="$out",security_model=none \
			-device virtio-9p-pci,fsdev=out,mount_tag=out \
			-netdev "$net" \
			-device virtio-net-pci,netdev=n0,mac="52:54:00:77:00:$(printf %02x "$n")" \
			>"$out/qemu$n.log" 2>&1 &
		pids+=($!)
		IX_PIDS+=($!)
	done
	for n in "${pids[@]}"; do
		wait "$n"
	done
	if [ -n "$IX_VM_NS" ]; then
		ip netns del "$IX_VM_NS"
	fi
}
