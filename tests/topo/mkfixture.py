#!/usr/bin/env python3
"""Build a fake sysfs tree for `ixperf topo --sysfs`.

Usage: mkfixture.py LAYOUT OUTDIR      (creates OUTDIR/sys/...)
       mkfixture.py --list

The trees follow the kernel's sysfs layout: PCI functions are real
directories nested below their bridges under sys/devices/pci<dom>:<bus>/,
and sys/bus/pci/devices, sys/class/net, sys/class/infiniband and
sys/bus/cxl/devices hold RELATIVE symlinks into sys/devices, so a tree can
be moved or copied.  Attribute files hold what the kernel prints, newline
included ("0x15b3", "32.0 GT/s PCIe", "4: ACTIVE", "400 Gb/sec (4X NDR)").
Every PCI device also carries the back links Linux has (subsystem, driver
and its reverse link, physfn/virtfnN), so a reader that follows symlinks
while walking sys/devices finds the same cycles it would find on a host.
A layout may give a function its binary config file (config_space()),
which only root reads past its first 64 bytes on a host.

Layouts (bus numbers and bridge device ids are illustrative; vendor,
device and class codes of GPUs, NICs and drives are the real ones):

dgx-h100    After the NVIDIA DGX H100 user guide and system block diagram:
            2 Xeon sockets (NUMA 0, 1), four PCIe Gen5 switches (Broadcom
            PEX, 1000:c030), each on its own root port of its own host
            bridge (one IIO stack each, as on Sapphire Rapids), holding two
            H100 SXM5 GPUs (10de:2330, class 0x030200), two single-port
            ConnectX-7 compute NICs in InfiniBand NDR mode (15b3:1021, class
            0x020700, IPoIB netdevs with MTU 4092), two U.2 NVMe drives
            (Gen4 x4 behind Gen5 ports) and one NVSwitch (10de:22a3, class
            0x068000, a non-PCI-to-PCI bridge).  Switches 0-1 on NUMA 0,
            2-3 on NUMA 1.  Socket 0 also has a dual-port ConnectX-7 in
            Ethernet mode for storage (RoCE, both ports MTU 9000) and two
            M.2 boot drives on their own root ports, and the BMC's ASPEED
            bridge and VGA (1a03:1150, 1a03:2000; not a GPU) behind a Gen3
            x1 chipset port.  Healthy: every link at the lower of its two
            ends' maxima, every port ACTIVE/LinkUp, AER counters all zero.
amd-mi300x  After public AMD Instinct MI300X platform diagrams (8 OAM GPUs,
            each under its own PCIe Gen5 switch shared with one 400G NIC):
            8x MI300X (1002:74a1, class 0x120000) each with a Broadcom
            Thor2 BCM57608 (14e4:1760, class 0x020000, RoCE, bnxt_re, MTU
            9000) on 2 EPYC sockets.  Two switches share each host bridge
            (different root ports), two host bridges per socket, so the
            GPU pairs give PHB, NODE and SYS.  Healthy.
downtrained A small one-socket host: a ConnectX-7 (Gen5 x16 capable, IPoIB
            ibp1s0) behind a Gen5 x16 root port trained at 16.0 GT/s x8
            (one finding), and a second ConnectX-7 (ibp2s0) behind a root
            port that only supports Gen4 x16, trained at Gen4 x16 (not a
            finding: the expected link is the lower of both ends).  As on
            a host, the root port shows the same trained link as the
            device below it.
dgx-degraded dgx-h100 with four links trained below what both of their
            ends support, one of each kind the health rule tells apart:
            GPU 0000:18:00.0 at Gen5 x8 below a Gen5 x16 switch port (a
            narrow GPU: downtrained), switch 1's upstream port 0000:38:00.0
            at Gen4 x16 below its Gen5 x16 root port (a switch port below
            its partner), NVMe 0000:1c:00.0 at Gen4 x2 of Gen4 x4 (its Gen5
            port is faster by design: only the width counts) and GPU
            0000:19:00.0 at Gen1 x16 (a GPU slows its link when idle: noted,
            not flagged).  Three findings; each downtrained link is tagged
            on both of its rows, the port's and the device's.
gpu-numa    What hwloc's dumps of real machines hold (tests/data/hwloc): two
            sockets and two GH200-style GPUs whose memory NVIDIA's driver
            puts online as the CPU-less NUMA nodes 250 and 251 (its
            /proc/driver/nvidia/gpus/BDF/numa_status names the node); a
            QLogic InfiniBand HCA of the older class 0x0c0600 (ib_qib,
            qib0) and a ConnectX-3 in InfiniBand mode of class 0x028000
            (mlx4_core, mlx4_0); PCI domain 10000 (32-bit domain numbers)
            holding an NVMe drive; and one more GPU 0035:05:00.0 as a
            flattened copy of sysfs keeps it: a plain directory in
            /sys/bus/pci/devices with a class file only (no vendor, no link
            into /sys/devices; its place in the tree is unknown).  Healthy.
ib-init-aer Two sockets with one GPU: an IB port in "2: INIT" with
            "5: LinkUp" (no subnet manager), AER correctable errors on that
            NIC, AER non-fatal errors on the GPU, a RoCE port whose netdev
            MTU is 1500, and an IB NIC on NUMA 1 while the only GPU is on
            NUMA 0.
cxl         A two-socket host with a CXL type-3 memory expander (the id QEMU
            emulates, 8086:0d93, class 0x050210, Gen5 x8) below a Gen5 x16
            root port, its memdev at /sys/bus/cxl/devices/mem0 and its
            memory online as the CPU-less NUMA node 2 (256 GiB).  The
            memdev's numa_node is the node of the PCI device (0), as the
            kernel reports it.  Config space as root reads it: the root
            port's Flex Bus Port DVSEC and the device's CXL DVSEC, both
            with CXL.mem and CXL.io on.  HMAT: 90 ns, 250 GB/s for each
            socket's memory from itself; 250 ns, 60 GB/s for node 2 from
            node 0.  Also an Intel E810 without RDMA.  Healthy.
large       dgx-h100 plus 32 SR-IOV VFs on each compute NIC (bound to
            vfio-pci, links "Unknown"/0 as VFs show them), a second-level
            switch below each first-level switch with 12 NVMe drives (and,
            below switch 0's, an Intel E810 NIC: PXB to GPU0), the
            Sapphire Rapids per-stack system functions, and empty hotplug
            root ports (link down: width 0).  Over 400 PCI functions, for
            the discovery benchmark.  Healthy.
broken      What a damaged or racing sysfs can hold: a device without a
            class file, a root port without link files, "banana" in a
            numa_node, "99.9 GT/s PCIe" and width "x", a symlink to itself
            and two links pointing at each other in /sys/bus/pci/devices
            (and one to itself in /sys/class/infiniband), a dangling link
            there and in /sys/class/net, files mode 000 (root reads them
            anyway), and
            directories where files are expected (class, max_link_speed,
            mtu, a GID type), an RDMA port without phys_state, garbage rate
            and GID, a NUMA node without cpulist and with a garbage meminfo.
vmd         A one-socket Xeon host with Intel VMD (8086:28c0, class 0x010400,
            driver vmd) at 0000:00:0e.0 and PCI domain 10000 behind it, as
            the kernel lays it out: the domain's host bridge pci10000:e0 is
            a directory of the VMD function's, its functions report
            numa_node -1.  Root ports 10000:e0:02.0 and 03.0 with two NVMe
            drives (10000:e1:00.0, 10000:e2:00.0), root port 10000:e0:04.0
            with a ConnectX-7 in Ethernet mode (10000:e3:00.0, RoCE, MTU
            9000) whose GID table has an unused (all-zero) entry between
            used ones (0, 1 and 3 in use).  Outside VMD: an H100 PCIe GPU
            on root port 0000:00:01.0 and a ConnectX-7 InfiniBand NIC on
            root port 0000:00:03.0.  Healthy.
slow-nic    A one-socket host whose only NIC, an Intel E810 (Gen4 x16
            capable, 25 Gbit/s, netdev eth0), trained Gen1 x1 behind a
            Gen4 x16 root port: a 2 Gbit/s PCIe ceiling far below its line.
            `ixperf server --sysfs` reads it in the mesh and incast netns
            tests, whose hosts' ports are also named eth0 (one finding).
coll-pair   Where tests/gpu/fakecuda.c puts its two GPUs, 0000:1a:00.0 and
            0000:3b:00.0, each below its own Gen5 switch with an NDR
            InfiniBand NIC beside it (PIX; mlx5_0, mlx5_1, their error
            counters at 0); GPU 1 trained at Gen4 x8 (downtrained). ixperf
            coll --sysfs reads it in tests/integration/coll.sh.
vm          A cloud guest like QEMU's i440FX machine: host bridge 8086:1237,
            ISA bridge 8086:7000 (class 0x060100, not a PCI bridge),
            virtio-net 1af4:1041 (class 0x020000) whose netdev hangs below a
            virtioN device as on a guest, virtio-blk 1af4:1042; no link
            files, numa_node -1, one NUMA node.  Healthy.
retimer     A one-socket host whose functions carry a binary config file
            (config space as root reads it, 256 bytes, with a PCI Express
            capability of version 2): an H100 PCIe GPU (0000:01:00.0)
            behind a Gen5 x16 root port, both ends reporting one retimer in
            Link Status 2; a ConnectX-7 in InfiniBand mode (0000:02:00.0,
            ibp2s0, mlx5_0) whose link has two retimers, which only the NIC
            can detect (its root port has no Retimer Presence Detect
            Supported), with AER correctable errors (one finding, naming
            the retimers as suspects); an NVMe drive (0000:03:00.0) whose
            link detects retimers at both ends and has none; an Intel E810
            (0000:04:00.0, eth0) whose config file, like its root port's,
            holds only the 64 bytes a user other than root reads (retimers
            unknown, one note); and the host's system function
            (0000:00:00.0) with 256 bytes but no capability list.
"""

import os
import sys

# --- PCIe link speeds as the kernel prints them ------------------------------

GEN = {1: "2.5 GT/s PCIe", 2: "5.0 GT/s PCIe", 3: "8.0 GT/s PCIe",
       4: "16.0 GT/s PCIe", 5: "32.0 GT/s PCIe", 6: "64.0 GT/s PCIe"}

# Counter names of aer_dev_correctable and aer_dev_{nonfatal,fatal}, in the
# kernel's order, each file ending with its TOTAL_ line.
AER_COR = ["RxErr", "BadTLP", "BadDLLP", "Rollover", "Timeout", "NonFatalErr",
           "CorrIntErr", "HeaderOF"]
AER_UNCOR = ["Undefined", "DLP", "SDES", "TLP", "FCP", "CmpltTO", "CmpltAbrt",
             "UnxCmplt", "RxOF", "MalfTLP", "ECRC", "UnsupReq", "ACSViol",
             "UncorrIntErr", "BlockedTLP", "AtomicOpBlocked", "TLPBlockedErr",
             "PoisonTLPBlocked"]

GID_ZERO = "0000:0000:0000:0000:0000:0000:0000:0000"
GID_ENTRIES = 16            # real tables hold 128-256 entries; 16 will do
IB_GID_V1 = "IB/RoCE v1"    # what gid_attrs/types/<i> says for IB and RoCE v1
IB_GID_V2 = "RoCE v2"


class Fixture:
    """Writes files and links below OUTDIR/sys; paths are relative to sys."""

    def __init__(self, outdir):
        self.sys = os.path.join(outdir, "sys")
        self.devices = {}       # bdf -> Dev, in creation order
        self.ifindex = 1        # the last interface index handed out

    def path(self, rel):
        return os.path.join(self.sys, rel)

    def mkdir(self, rel):
        os.makedirs(self.path(rel), exist_ok=True)

    def write(self, rel, text):
        """Write an attribute file, adding the newline sysfs prints."""
        full = self.path(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text if text.endswith("\n") else text + "\n")

    def link(self, rel, target_rel):
        """A relative symlink at sys/REL pointing at sys/TARGET_REL, spelt as
        the kernel spells it: up to an ancestor of the target's parent, then
        down, so a link to an ancestor reads "../../../0000:1a:00.0" (whose
        last component names the target) rather than "../.."."""
        full = self.path(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        target = self.path(target_rel)
        up = os.path.relpath(os.path.dirname(target), os.path.dirname(full))
        os.symlink(os.path.normpath(os.path.join(up, os.path.basename(target))), full)

    def rawlink(self, rel, target):
        """A symlink with a literal target (loops, dangling links)."""
        full = self.path(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        os.symlink(target, full)

    # --- PCI -----------------------------------------------------------------

    def hostbridge(self, name, numa, below=None):
        """The root complex directory sys/devices/pci0000:XX, or, BELOW a
        PCI function (an Intel VMD controller), that of the PCI domain the
        function opens: DEV.rel/pci10000:XX."""
        hb = HostBridge(name, numa)
        if below is not None:
            hb.rel = below.rel + "/" + name
        self.mkdir(hb.rel)
        self.write(hb.rel + "/uevent", "")
        self.mkdir(hb.rel + "/power")
        return hb

    def pci(self, parent, bdf, vendor, device, cls, driver=None, numa=None,
            link=None, aer=None, kind="ep", subsys=None):
        """Add the PCI function BDF below PARENT (a HostBridge or a Dev).

        link: (max_gen, max_width), None for no link files.  An endpoint or
        switch upstream port trains at its maximum unless Dev.train() says
        otherwise; root ports and switch downstream ports (kind "rp",
        "down") show the link to the device below them, filled in by
        finish_pci(), as the kernel shows the same link on both ends.
        kind: "ep" endpoint, "rp", "up", "down", "bridge" (another bridge),
        "conv" (conventional PCI), "vf" (an SR-IOV VF).  aer: None for
        no AER capability, or {"cor": {...}, "nonfatal": {...}, "fatal":
        {...}} with counts by name (missing names are zero)."""
        numa = parent.numa if numa is None else numa
        dev = Dev(bdf, parent, vendor, device, cls, driver, numa, link, aer, kind)
        dev.subsys = subsys or (vendor, "0x0000")
        parent.children.append(dev)
        self.devices[bdf] = dev
        return dev

    def write_pci(self, dev):
        """Write one PCI function's directory and its links."""
        d = dev.rel
        self.write(d + "/vendor", dev.vendor)
        self.write(d + "/device", dev.device)
        if dev.cls is not None:
            self.write(d + "/class", dev.cls)
        self.write(d + "/subsystem_vendor", dev.subsys[0])
        self.write(d + "/subsystem_device", dev.subsys[1])
        self.write(d + "/revision", "0x00")
        self.write(d + "/numa_node", str(dev.numa_text()))
        self.write(d + "/enable", "1")
        self.write(d + "/local_cpulist", NODE_CPUS.get(dev.numa, NODE_CPUS.get("all", "")))
        self.mkdir(d + "/power")
        cls = (dev.cls or "0x000000")[2:]
        self.write(d + "/uevent",
                   ("DRIVER=%s\n" % dev.driver if dev.driver else "") +
                   "PCI_CLASS=%X\nPCI_ID=%s:%s\nPCI_SUBSYS_ID=%s:%s\n"
                   "PCI_SLOT_NAME=%s\nMODALIAS=pci:v%08Xd%08Xsv%08Xsd%08X"
                   "bc%ssc%si%s\n" % (
                       int(cls, 16), dev.vendor[2:].upper(),
                       dev.device[2:].upper(), dev.subsys[0][2:].upper(),
                       dev.subsys[1][2:].upper(), dev.bdf,
                       int(dev.vendor, 16), int(dev.device, 16),
                       int(dev.subsys[0], 16), int(dev.subsys[1], 16),
                       cls[0:2].upper(), cls[2:4].upper(), cls[4:6].upper()))
        self.link(d + "/subsystem", "bus/pci")
        self.link("bus/pci/devices/" + dev.bdf, d)
        if dev.driver:
            self.mkdir("bus/pci/drivers/" + dev.driver)
            self.link(d + "/driver", "bus/pci/drivers/" + dev.driver)
            self.link("bus/pci/drivers/%s/%s" % (dev.driver, dev.bdf), d)
        if dev.cur is not None:
            self.write(d + "/current_link_speed", dev.cur[0])
            self.write(d + "/current_link_width", dev.cur[1])
            self.write(d + "/max_link_speed", dev.max[0])
            self.write(d + "/max_link_width", dev.max[1])
        if dev.aer is not None:
            self.write_aer(d, dev.aer)
        if dev.config is not None:
            with open(self.path(d + "/config"), "wb") as f:
                f.write(dev.config)

    def write_aer(self, d, aer):
        for fname, names, total, key in (
                ("aer_dev_correctable", AER_COR, "TOTAL_ERR_COR", "cor"),
                ("aer_dev_nonfatal", AER_UNCOR, "TOTAL_ERR_NONFATAL", "nonfatal"),
                ("aer_dev_fatal", AER_UNCOR, "TOTAL_ERR_FATAL", "fatal")):
            counts = aer.get(key, {})
            lines = ["%s %d" % (n, counts.get(n, 0)) for n in names]
            lines.append("%s %d" % (total, sum(counts.values())))
            self.write(d + "/" + fname, "\n".join(lines))

    def finish_pci(self):
        """Fill in the links seen from the upstream side, then write."""
        for dev in self.devices.values():
            dev.settle_link()
        for dev in self.devices.values():
            self.write_pci(dev)
        for dev in self.devices.values():
            if dev.physfn is not None:
                self.link(dev.rel + "/physfn", dev.physfn.rel)
        for dev in self.devices.values():
            for i, vf in enumerate(dev.vfs):
                self.link("%s/virtfn%d" % (dev.rel, i), vf.rel)
            if dev.vfs:
                self.write(dev.rel + "/sriov_totalvfs", str(len(dev.vfs)))
                self.write(dev.rel + "/sriov_numvfs", str(len(dev.vfs)))

    # --- Network interfaces and RDMA -------------------------------------------

    def netdev(self, dev, name, mtu, speed_mbps, mac, state="up", arptype=1,
               driver_dir=None, dev_port=0):
        """A netdev below PCI function DEV (or below DEV.rel/DRIVER_DIR for
        virtio, whose netdevs hang below a virtioN device)."""
        owner = dev.rel if driver_dir is None else dev.rel + "/" + driver_dir
        n = "%s/net/%s" % (owner, name)
        self.write(n + "/mtu", str(mtu))
        self.write(n + "/speed", str(speed_mbps))
        self.write(n + "/operstate", state)
        self.write(n + "/carrier", "1" if state == "up" else "0")
        self.write(n + "/address", mac)
        self.write(n + "/type", str(arptype))
        self.write(n + "/dev_port", str(dev_port))
        self.ifindex += 1
        self.write(n + "/ifindex", str(self.ifindex))
        self.write(n + "/uevent", "INTERFACE=%s\nIFINDEX=%d" % (name, self.ifindex))
        self.link(n + "/device", owner)
        self.link(n + "/subsystem", "class/net")
        self.link("class/net/" + name, n)
        dev.netdevs.append(name)
        return name

    def rdma(self, dev, name, ports, node_guid, hca="MT4129"):
        """An RDMA device below DEV with PORTS: a list of dicts with state,
        phys_state, rate, link_layer, lid and gids [(gid, type, ndev)]."""
        r = "%s/infiniband/%s" % (dev.rel, name)
        self.write(r + "/node_guid", node_guid)
        self.write(r + "/sys_image_guid", node_guid)
        self.write(r + "/node_type", "1: CA")
        self.write(r + "/hca_type", hca)
        self.write(r + "/fw_ver", "28.39.1002")
        self.write(r + "/board_id", "MT_0000000838")
        self.link(r + "/device", dev.rel)
        self.link(r + "/subsystem", "class/infiniband")
        self.link("class/infiniband/" + name, r)
        for num, port in enumerate(ports, start=1):
            p = "%s/ports/%d" % (r, num)
            for attr in ("state", "phys_state", "rate", "link_layer", "lid"):
                if port.get(attr) is not None:
                    self.write(p + "/" + attr, port[attr])
            self.write(p + "/sm_lid", port.get("sm_lid", "0x0"))
            self.write(p + "/lid_mask_count", "0")
            self.write(p + "/sm_sl", "0")
            self.write(p + "/cap_mask", port.get("cap_mask", "0x00010000"))
            self.write(p + "/pkeys/0", "0xffff")
            self.mkdir(p + "/gid_attrs/types")
            self.mkdir(p + "/gid_attrs/ndevs")
            gids = port.get("gids", [])
            for i in range(GID_ENTRIES):
                gid, gtype, ndev = gids[i] if i < len(gids) else (GID_ZERO, None, None)
                self.write("%s/gids/%d" % (p, i), gid)
                # The kernel fails reads of unused entries' attributes and
                # of the ndev of an IB GID: such files are left out here.
                if gtype is not None:
                    self.write("%s/gid_attrs/types/%d" % (p, i), gtype)
                if ndev is not None:
                    self.write("%s/gid_attrs/ndevs/%d" % (p, i), ndev)
        dev.rdma.append(name)
        return name

    # --- NUMA --------------------------------------------------------------------

    def numa(self, nodes):
        """NODES: {node: (cpulist, MemTotal kB)}; an empty cpulist is a
        CPU-less node."""
        base = "devices/system/node"
        ids = sorted(nodes)
        with_cpu = [n for n in ids if nodes[n][0]]
        with_mem = [n for n in ids if nodes[n][1]]
        self.write(base + "/online", ranges(ids))
        self.write(base + "/possible", ranges(ids))
        self.write(base + "/has_cpu", ranges(with_cpu))
        self.write(base + "/has_memory", ranges(with_mem))
        # A memory-only node (CXL) is onlined as movable memory.
        self.write(base + "/has_normal_memory",
                   ranges([n for n in with_mem if nodes[n][0]]))
        for n in ids:
            cpus, kb = nodes[n]
            d = "%s/node%d" % (base, n)
            self.write(d + "/cpulist", cpus)
            self.write(d + "/meminfo", meminfo(n, kb))
            self.write(d + "/distance", " ".join(
                "10" if m == n else ("20" if nodes[m][0] and cpus else "30")
                for m in ids))
            NODE_CPUS[n] = cpus
        NODE_CPUS["all"] = ",".join(nodes[n][0] for n in ids if nodes[n][0])


NODE_CPUS = {}   # numa node ("all": every node) -> cpulist, for local_cpulist


class HostBridge:
    """A root complex: the parent of the functions directly below it."""

    def __init__(self, name, numa):
        self.name = name
        self.rel = "devices/" + name
        self.numa = numa
        self.children = []


class Dev:
    """One PCI function and what the layout hangs on it."""

    def __init__(self, bdf, parent, vendor, device, cls, driver, numa, link,
                 aer, kind):
        self.bdf = bdf
        self.parent = parent
        self.rel = parent.rel + "/" + bdf
        self.vendor, self.device, self.cls = vendor, device, cls
        self.driver = driver
        self.numa = numa
        self.kind = kind            # see Fixture.pci()
        self.children = []
        self.netdevs, self.rdma = [], []
        self.aer = aer
        self.config = None          # its config file's bytes, None for none
        self.physfn, self.vfs = None, []
        # cur/max: (speed, width) as written; fixed_cur keeps a port's
        # current link as set instead of the one of the device below.
        self.max = self.cur = None
        self.fixed_cur = False
        if link is not None:
            gen, width = link
            self.max = (GEN[gen], str(width))
            self.cur = self.max

    def numa_text(self):
        return -1 if self.numa is None else self.numa

    def train(self, gen, width):
        """Train this device's upstream link below its maximum."""
        self.cur = (GEN[gen], str(width))
        return self

    def settle_link(self):
        """Root and downstream ports show the link to the device below."""
        if self.kind not in ("rp", "down") or self.max is None:
            return
        if self.fixed_cur:
            return
        below = [c for c in self.children if c.cur is not None and c.kind != "vf"]
        if below:
            self.cur = below[0].cur
        else:                       # empty slot: link down
            self.cur = (GEN[1], "0")


# --- Small helpers --------------------------------------------------------------

def ranges(ids):
    """[0, 1, 2, 5] -> "0-2,5" as sysfs masks print."""
    out, start = [], None
    for i, n in enumerate(ids):
        if start is None:
            start = n
        if i + 1 == len(ids) or ids[i + 1] != n + 1:
            out.append(str(start) if start == n else "%d-%d" % (start, n))
            start = None
    return ",".join(out)


def meminfo(node, kb):
    free = kb * 9 // 10
    return "\n".join("Node %d %-15s %8d kB" % (node, k + ":", v) for k, v in (
        ("MemTotal", kb), ("MemFree", free), ("MemUsed", kb - free),
        ("SwapCached", 0), ("Active", 0), ("Inactive", 0), ("Dirty", 0),
        ("FilePages", 0), ("AnonPages", 0), ("Shmem", 0), ("KernelStack", 0)))


def bdf(bus, dev=0, fn=0, dom=0):
    return "%04x:%02x:%02x.%x" % (dom, bus, dev, fn)


def mac_of(oui, bus, fn):
    return "%s:%02x:%02x:%02x" % (oui, bus, 0x10 + fn, 0x20 + fn)


def gid_from_mac(mac):
    """The fe80::/64 link-local GID a RoCE port derives from its MAC."""
    b = [int(x, 16) for x in mac.split(":")]
    eui = [b[0] ^ 2, b[1], b[2], 0xff, 0xfe, b[3], b[4], b[5]]
    return "fe80:0000:0000:0000:" + ":".join(
        "%02x%02x" % (eui[i], eui[i + 1]) for i in range(0, 8, 2))


def gid_from_ipv4(a, b, c, d):
    """The IPv4-mapped GID ::ffff:a.b.c.d."""
    return "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % (a, b, c, d)


def ib_guid(n):
    return "a088:c203:00%02x:%04x" % (n >> 8 & 0xff, 0x1000 + (n & 0xff))


def ib_port(guid, state="4: ACTIVE", phys="5: LinkUp", rate="400 Gb/sec (4X NDR)",
            lid="0x1", sm_lid="0x1"):
    """An InfiniBand port: GID 0 is the subnet prefix with the port GUID."""
    return {"state": state, "phys_state": phys, "rate": rate,
            "link_layer": "InfiniBand", "lid": lid, "sm_lid": sm_lid,
            "cap_mask": "0xa751e84a",
            "gids": [("fe80:0000:0000:0000:" + guid, IB_GID_V1, None)]}


def roce_port(mac, ipv4, ndev, state="4: ACTIVE", phys="5: LinkUp",
              rate="400 Gb/sec (4X NDR)"):
    """A RoCE port with its four GIDs: link-local v1 and v2, IPv4 v1 and v2."""
    ll, v4 = gid_from_mac(mac), gid_from_ipv4(*ipv4)
    return {"state": state, "phys_state": phys, "rate": rate,
            "link_layer": "Ethernet", "lid": "0x0",
            "gids": [(ll, IB_GID_V1, ndev), (ll, IB_GID_V2, ndev),
                     (v4, IB_GID_V1, ndev), (v4, IB_GID_V2, ndev)]}


# --- Config space, as sysfs's binary "config" file holds it ------------------

# PCI Express capability: Device/Port Type (bits 7:4 of its capabilities
# register) by Fixture.pci() kind.
PCIE_TYPE = {"ep": 0x0, "rp": 0x4, "up": 0x5, "down": 0x6, "bridge": 0x7}


def config_space(dev, detect, present, size=256, caps=True):
    """DEV's config space: vendor and device ids, class, the header type
    (1 for a bridge), and where CAPS a capability list (Status bit 4, the
    pointer at 0x34): power management at 0x40, then the PCI Express
    capability (ID 0x10, version 2) at 0x60.  DETECT: retimers its Link
    Capabilities 2 (cap+0x2c) can detect, 0 to 2 (bits 23, 24); PRESENT:
    retimers its Link Status 2 (cap+0x32) reports, 0 to 2 (bits 6, 7).
    SIZE: 256 or 4096 as root reads it, 64 as anyone else does."""
    cfg = bytearray(max(size, 256))

    def put(at, value, width):
        cfg[at:at + width] = value.to_bytes(width, "little")

    put(0x00, int(dev.vendor, 16), 2)
    put(0x02, int(dev.device, 16), 2)
    put(0x04, 0x0006, 2)                    # memory space, bus master
    put(0x09, int(dev.cls or "0x000000", 16), 3)
    bridge = dev.kind in ("rp", "up", "down", "bridge")
    cfg[0x0e] = 1 if bridge else 0
    if caps:
        put(0x06, 0x0010, 2)                # Status: capabilities list
        cfg[0x34] = 0x40
        cfg[0x40:0x42] = bytes((0x01, 0x60))    # power management, next 0x60
        pcie = 0x60
        cfg[pcie:pcie + 2] = bytes((0x10, 0x00))   # PCI Express, last
        put(pcie + 0x02, 0x0002 | PCIE_TYPE.get(dev.kind, 0) << 4, 2)
        lnkcap2 = 0x3e                      # 2.5 to 32.0 GT/s supported
        if detect >= 1:
            lnkcap2 |= 1 << 23
        if detect >= 2:
            lnkcap2 |= 1 << 24
        put(pcie + 0x2c, lnkcap2, 4)
        lnksta2 = (1 << 6 if present >= 1 else 0) | (1 << 7 if present >= 2 else 0)
        put(pcie + 0x32, lnksta2, 2)
    return bytes(cfg[:size])


def cxl_config_space(dev, dvsecs):
    """DEV's config space as root reads it (4096 bytes, config_space()'s
    first 256) with DVSECS in the extended capabilities from 0x100: each
    (id, capability, control, status) a DVSEC of the CXL consortium
    (vendor 0x1e98) 0x40 bytes apart: id 0 the PCIe DVSEC for CXL Devices
    (capability at +0x0a, control at +0x0c), id 7 the Flex Bus Port DVSEC
    (capability +0x0a, control +0x0c, status +0x0e)."""
    cfg = bytearray(config_space(dev, 0, 0, size=4096))
    for i, (dvid, cap, ctl, sta) in enumerate(dvsecs):
        at = 0x100 + 0x40 * i
        nxt = at + 0x40 if i + 1 < len(dvsecs) else 0
        cfg[at:at + 4] = (0x23 | 1 << 16 | nxt << 20).to_bytes(4, "little")
        cfg[at + 4:at + 8] = (0x1e98 | 0x38 << 20).to_bytes(4, "little")
        cfg[at + 8:at + 10] = dvid.to_bytes(2, "little")
        for off, v in ((0x0a, cap), (0x0c, ctl), (0x0e, sta)):
            cfg[at + off:at + off + 2] = v.to_bytes(2, "little")
    return bytes(cfg)


def zero_aer():
    """AER capable, every counter zero."""
    return {}


# --- Devices used by several layouts ------------------------------------------

MLX = "0x15b3"
CX7 = "0x1021"
CX7_VF = "0x101e"
CX6DX = "0x101d"
NV = "0x10de"
H100_SXM = "0x2330"
H100_PCIE = "0x2331"
NVSWITCH = "0x22a3"
AMD_GPU = "0x1002"
MI300X = "0x74a1"
BRCM = "0x14e4"
THOR2 = "0x1760"
PEX = ("0x1000", "0xc030")        # Broadcom PEX89xxx switch ports
SAMSUNG = "0x144d"
PM1733 = "0xa824"
PM9A3 = "0xa80a"
INTEL = "0x8086"
E810 = "0x159b"
SPR_RP = "0x352a"                 # root port
SPR_VTD = "0x09a2"                # per-stack system function
AMD = "0x1022"
GENOA_RC = "0x14a4"
GENOA_RP = "0x14ab"

CLS_BRIDGE = "0x060400"
CLS_HOST = "0x060000"
CLS_NVME = "0x010802"
CLS_IB = "0x020700"
CLS_ETH = "0x020000"
CLS_3D = "0x030200"
CLS_ACCEL = "0x120000"
CLS_SYSPERIPH = "0x088000"
CLS_OTHER_BRIDGE = "0x068000"
CLS_CXL_MEM = "0x050210"

OUI_MLX = "b8:3f:d2"
OUI_BRCM = "00:0a:f7"
OUI_INTEL = "b4:96:91"


def pcie_switch(fx, rp, up_bus, ports, numa=None, link=(5, 16)):
    """A PCIe switch below RP: its upstream port on bus UP_BUS and one
    downstream port per entry of PORTS ((max_gen, max_width) each) on bus
    UP_BUS+1.  Returns (upstream port, [downstream ports]); the device
    below downstream port i goes on bus UP_BUS+2+i."""
    up = fx.pci(rp, bdf(up_bus), PEX[0], PEX[1], CLS_BRIDGE, "pcieport",
                numa, link, zero_aer(), kind="up")
    downs = [fx.pci(up, bdf(up_bus + 1, i), PEX[0], PEX[1], CLS_BRIDGE,
                    "pcieport", numa, ports[i], zero_aer(), kind="down")
             for i in range(len(ports))]
    return up, downs


def root_port(fx, hb, devfn, link=(5, 16), vendor=INTEL, device=SPR_RP):
    bus = int(hb.name[-2:], 16)
    dev, fn = devfn
    return fx.pci(hb, bdf(bus, dev, fn), vendor, device, CLS_BRIDGE, "pcieport",
                  link=link, aer=zero_aer(), kind="rp")


def dgx_h100(fx, with_extras=False):
    """The DGX H100 layout; WITH_EXTRAS adds what `large` has on top."""
    fx.numa({0: ("0-55,112-167", 1056323584), 1: ("56-111,168-223", 1056964608)})
    counter = {"mlx": 0}            # mlx5_N in probe (BDF) order

    def mlx_name():
        n = "mlx5_%d" % counter["mlx"]
        counter["mlx"] += 1
        return n

    def ib_nic(parent, bus):
        nic = fx.pci(parent, bdf(bus), MLX, CX7, CLS_IB, "mlx5_core",
                     link=(5, 16), aer=zero_aer(), subsys=(MLX, "0x0041"))
        guid = ib_guid(bus)
        fx.netdev(nic, "ibp%ds0" % bus, 4092, 400000,
                  "00:00:10:49:fe:80:00:00:00:00:00:00:" +
                  ":".join(guid.replace(":", "")[i:i + 2] for i in range(0, 16, 2)),
                  arptype=32)
        fx.rdma(nic, mlx_name(), [ib_port(guid, lid="0x%x" % (bus + 1))], guid)
        return nic

    stacks = []
    # Socket 0: the chipset stack with the BMC's VGA.
    hb0 = fx.hostbridge("pci0000:00", 0)
    fx.pci(hb0, bdf(0), INTEL, SPR_VTD, CLS_SYSPERIPH, numa=0)
    pch = root_port(fx, hb0, (0x1c, 0), link=(3, 1), device="0x1bb8")
    ast_br = fx.pci(pch, bdf(1), "0x1a03", "0x1150", CLS_BRIDGE, link=(2, 1),
                    aer=None, kind="bridge")
    fx.pci(ast_br, bdf(2), "0x1a03", "0x2000", "0x030000", "ast", kind="conv")

    # The four GPU switches: (host bridge bus, numa).
    for sw, (hb_bus, numa) in enumerate(((0x15, 0), (0x37, 0), (0x97, 1), (0xb9, 1))):
        hb = fx.hostbridge("pci0000:%02x" % hb_bus, numa)
        fx.pci(hb, bdf(hb_bus), INTEL, SPR_VTD, CLS_SYSPERIPH)
        rp = root_port(fx, hb, (1, 0))
        ports = [(5, 16)] * 4 + [(5, 4)] * 2 + [(5, 2)]
        if with_extras:
            ports.append((5, 16))
        up, downs = pcie_switch(fx, rp, hb_bus + 1, ports)
        b = hb_bus + 3          # endpoints: GPU, GPU, NIC, NIC, NVMe, NVMe, NVSwitch
        for i in range(2):
            fx.pci(downs[i], bdf(b + i), NV, H100_SXM, CLS_3D, "nvidia",
                   link=(5, 16), aer=zero_aer(), subsys=(NV, "0x16c1"))
        nics = [ib_nic(downs[2 + i], b + 2 + i) for i in range(2)]
        for i in range(2):
            fx.pci(downs[4 + i], bdf(b + 4 + i), SAMSUNG, PM1733, CLS_NVME, "nvme",
                   link=(4, 4), aer=zero_aer())
        fx.pci(downs[6], bdf(b + 6), NV, NVSWITCH, CLS_OTHER_BRIDGE, "nvidia",
               link=(4, 2), aer=zero_aer())
        stacks.append((hb, rp, up, downs, nics, b))
        if sw == 1:
            storage_stack(fx, mlx_name)

    if with_extras:
        large_extras(fx, stacks)


def storage_stack(fx, mlx_name):
    """Socket 0's storage NIC and boot drives, host bridge pci0000:59."""
    hb = fx.hostbridge("pci0000:59", 0)
    fx.pci(hb, bdf(0x59), INTEL, SPR_VTD, CLS_SYSPERIPH)
    rp = root_port(fx, hb, (1, 0))
    for fn in range(2):
        nic = fx.pci(rp, bdf(0x5a, 0, fn), MLX, CX7, CLS_ETH, "mlx5_core",
                     link=(5, 16), aer=zero_aer(), subsys=(MLX, "0x0021"))
        name = "enp90s0f%dnp%d" % (fn, fn)
        mac = mac_of(OUI_MLX, 0x5a, fn)
        fx.netdev(nic, name, 9000, 400000, mac, dev_port=0)
        fx.rdma(nic, mlx_name(), [roce_port(mac, (198, 18, 0, 1 + fn), name)],
                ib_guid(0x5a00 + fn))
    for i, bus in enumerate((0x5b, 0x5c)):
        r = root_port(fx, hb, (2 + i, 0), link=(5, 4))
        fx.pci(r, bdf(bus), SAMSUNG, PM9A3, CLS_NVME, "nvme", link=(4, 4),
               aer=zero_aer())


def large_extras(fx, stacks):
    """SR-IOV VFs, second-level NVMe switches, system functions, hotplug ports."""
    for si, (hb, rp, up, downs, nics, b) in enumerate(stacks):
        bus = int(hb.name[-2:], 16)
        # Sapphire Rapids shows several system functions per stack.
        for fn in range(1, 5):
            fx.pci(hb, bdf(bus, 0, fn), INTEL, "0x%04x" % (0x09a2 + fn), CLS_SYSPERIPH)
        # 32 VFs per compute NIC, next to their PF (same bus, ARI numbering).
        for nic in nics:
            nb = int(nic.bdf[5:7], 16)
            for v in range(32):
                fn = v + 1
                vf = fx.pci(nic.parent, bdf(nb, fn >> 3, fn & 7), MLX, CX7_VF, CLS_IB,
                            "vfio-pci", aer=None, kind="vf")
                vf.cur = vf.max = ("Unknown", "0")
                vf.physfn = nic
                nic.vfs.append(vf)
        # A second-level switch with 12 NVMe drives (and an E810 below
        # switch 0's), on the spare downstream port.
        sub_bus = b + 7
        n = 13 if si == 0 else 12
        _, sub_downs = pcie_switch(fx, downs[7], sub_bus,
                                   [(5, 4)] * 12 + [(5, 16)] * (n - 12))
        for i in range(12):
            fx.pci(sub_downs[i], bdf(sub_bus + 2 + i), SAMSUNG, PM1733, CLS_NVME,
                   "nvme", link=(4, 4), aer=zero_aer())
        if si == 0:
            e810 = fx.pci(sub_downs[12], bdf(sub_bus + 14), INTEL, E810, CLS_ETH,
                          "ice", link=(4, 16), aer=zero_aer())
            fx.netdev(e810, "ens%df0" % (sub_bus + 14), 1500, 100000,
                      mac_of(OUI_INTEL, sub_bus + 14, 0))
        # Two empty hotplug root ports on this stack: link down.
        for dev in (2, 3):
            root_port(fx, hb, (dev, 0))


def amd_mi300x(fx):
    fx.numa({0: ("0-95,192-287", 1584087040), 1: ("96-191,288-383", 1585446912)})
    gpu = 0
    for hb_bus, numa in ((0x00, 0), (0x40, 0), (0x80, 1), (0xc0, 1)):
        hb = fx.hostbridge("pci0000:%02x" % hb_bus, numa)
        fx.pci(hb, bdf(hb_bus), AMD, GENOA_RC, CLS_HOST)
        for k, devfn in enumerate(((1, 1), (3, 1))):
            rp = root_port(fx, hb, devfn, vendor=AMD, device=GENOA_RP)
            up_bus = hb_bus + 1 + 8 * k
            up, downs = pcie_switch(fx, rp, up_bus, [(5, 16), (5, 16)])
            fx.pci(downs[0], bdf(up_bus + 2), AMD_GPU, MI300X, CLS_ACCEL, "amdgpu",
                   link=(5, 16), aer=zero_aer(), subsys=(AMD_GPU, "0x74a1"))
            nb = up_bus + 3
            nic = fx.pci(downs[1], bdf(nb), BRCM, THOR2, CLS_ETH, "bnxt_en",
                         link=(5, 16), aer=zero_aer(), subsys=(BRCM, "0x5300"))
            name = "enp%ds0np0" % nb
            mac = mac_of(OUI_BRCM, nb, 0)
            fx.netdev(nic, name, 9000, 400000, mac)
            fx.rdma(nic, "bnxt_re%d" % gpu, [roce_port(mac, (198, 18, gpu, 1), name)],
                    "020a:f7ff:fe%02x:0000" % nb, hca="bnxt_re")
            gpu += 1


def dgx_degraded(fx):
    dgx_h100(fx)
    fx.devices["0000:18:00.0"].train(5, 8)
    fx.devices["0000:19:00.0"].train(1, 16)
    fx.devices["0000:38:00.0"].train(4, 16)
    fx.devices["0000:1c:00.0"].train(4, 2)


def gpu_numa(fx):
    fx.numa({0: ("0-71", 527958016), 1: ("72-143", 528482304),
             250: ("", 100663296), 251: ("", 100663296), 252: ("", 16777216)})
    gpus = []
    for sock, hb_bus in ((0, 0x00), (1, 0x80)):
        hb = fx.hostbridge("pci0000:%02x" % hb_bus, sock)
        rp = root_port(fx, hb, (1, 0))
        gpus.append(fx.pci(rp, bdf(hb_bus + 1), NV, "0x2342", CLS_3D, "nvidia",
                           link=(5, 16), aer=zero_aer()))
    rp = root_port(fx, fx.hostbridge("pci0000:40", 0), (3, 0), link=(3, 8))
    qib = fx.pci(rp, bdf(0x41), "0x1077", "0x7322", "0x0c0600", "ib_qib", link=(2, 8))
    fx.rdma(qib, "qib0", [ib_port(ib_guid(0x41), rate="40 Gb/sec (4X QDR)")], ib_guid(0x41),
            hca="InfiniPath_QLE7340")
    rp = root_port(fx, fx.hostbridge("pci0000:c0", 1), (3, 0), link=(3, 8))
    mlx4 = fx.pci(rp, bdf(0xc1), MLX, "0x1003", "0x028000", "mlx4_core", link=(3, 8))
    fx.rdma(mlx4, "mlx4_0", [ib_port(ib_guid(0xc1), rate="56 Gb/sec (4X FDR)")], ib_guid(0xc1),
            hca="MT4099")
    hb = fx.hostbridge("pci10000:00", 0)
    fx.pci(hb, bdf(0, 4, 0, dom=0x10000), "0x1af4", "0x1001", "0x010000", "virtio-pci")
    fx.finish_pci()
    flat = "0035:05:00.0"
    fx.write("bus/pci/devices/%s/class" % flat, "0x030200")
    for node, b in ((250, gpus[0].bdf), (251, gpus[1].bdf), (252, flat)):
        fx.write("../proc/driver/nvidia/gpus/%s/numa_status" % b,
                 "Node:      %d\nStatus:    online\n" % node)


def downtrained(fx):
    fx.numa({0: ("0-31", 263921664)})
    hb = fx.hostbridge("pci0000:00", 0)
    fx.pci(hb, bdf(0), INTEL, SPR_VTD, CLS_SYSPERIPH)
    rp5 = root_port(fx, hb, (1, 0), link=(5, 16))
    rp4 = root_port(fx, hb, (3, 0), link=(4, 16), device="0x347a")
    for i, (rp, bus) in enumerate(((rp5, 0x01), (rp4, 0x02))):
        nic = fx.pci(rp, bdf(bus), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                     aer=zero_aer())
        guid = ib_guid(bus)
        fx.rdma(nic, "mlx5_%d" % i, [ib_port(guid)], guid)
        fx.netdev(nic, "ibp%ds0" % bus, 4092, 400000,
                  "80:00:00:00:fe:80:00:00:00:00:00:00:" + ":".join(
                      guid.replace(":", "")[k:k + 2] for k in range(0, 16, 2)),
                  arptype=32)
        if i == 0:
            nic.train(4, 8)         # Gen5 x16 on both ends, trained Gen4 x8
        else:
            nic.train(4, 16)        # the root port stops at Gen4: as expected


def ib_init_aer(fx):
    fx.numa({0: ("0-31,64-95", 527958016), 1: ("32-63,96-127", 528482304)})
    hb = fx.hostbridge("pci0000:15", 0)
    rp = root_port(fx, hb, (1, 0))
    up, downs = pcie_switch(fx, rp, 0x16, [(5, 16)] * 3)
    fx.pci(downs[0], bdf(0x18), NV, H100_PCIE, CLS_3D, "nvidia", link=(5, 16),
           aer={"nonfatal": {"CmpltTO": 2}})
    ib = fx.pci(downs[1], bdf(0x19), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                aer={"cor": {"RxErr": 12, "BadDLLP": 5}})
    guid = ib_guid(0x19)
    fx.rdma(ib, "mlx5_0", [ib_port(guid, state="2: INIT", lid="0xffff", sm_lid="0x0")], guid)
    roce = fx.pci(downs[2], bdf(0x1a), MLX, CX6DX, CLS_ETH, "mlx5_core",
                  link=(4, 16), aer=zero_aer())
    mac = mac_of(OUI_MLX, 0x1a, 0)
    fx.netdev(roce, "enp26s0f0np0", 1500, 100000, mac)
    fx.rdma(roce, "mlx5_1", [roce_port(mac, (198, 18, 0, 1), "enp26s0f0np0",
                                       rate="100 Gb/sec (4X EDR)")],
            ib_guid(0x1a), hca="MT4125")
    hb1 = fx.hostbridge("pci0000:97", 1)
    rp1 = root_port(fx, hb1, (1, 0))
    far = fx.pci(rp1, bdf(0x98), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                 aer=zero_aer())
    guid = ib_guid(0x98)
    fx.rdma(far, "mlx5_2", [ib_port(guid, lid="0x9")], guid)


def cxl(fx):
    fx.numa({0: ("0-31,64-95", 527958016), 1: ("32-63,96-127", 528482304),
             2: ("", 268435456)})
    hb = fx.hostbridge("pci0000:00", 0)
    rp = root_port(fx, hb, (1, 0), link=(4, 4))
    fx.pci(rp, bdf(0x01), SAMSUNG, PM9A3, CLS_NVME, "nvme", link=(4, 4),
           aer=zero_aer())
    hbc = fx.hostbridge("pci0000:35", 0)
    rpc = root_port(fx, hbc, (1, 0), link=(5, 16))
    mem = fx.pci(rpc, bdf(0x36), INTEL, "0x0d93", CLS_CXL_MEM, "cxl_pci",
                 link=(5, 8), aer=zero_aer())
    # Both ends run CXL.mem and CXL.io: the root port's Flex Bus status
    # (68B flit), the device's CXL DVSEC control (its own Flex Bus DVSEC
    # left out, as QEMU's type 3 device has none).
    rpc.config = cxl_config_space(rpc, [(7, 0x26, 0x02, 0x26)])
    mem.config = cxl_config_space(mem, [(0, 0x1e, 0x06, 0), (8, 0, 0, 0)])
    hb1 = fx.hostbridge("pci0000:80", 1)
    rp1 = root_port(fx, hb1, (1, 0), link=(4, 16))
    nic = fx.pci(rp1, bdf(0x81), INTEL, E810, CLS_ETH, "ice", link=(4, 16),
                 aer=zero_aer())
    fx.netdev(nic, "ens129f0", 1500, 100000, mac_of(OUI_INTEL, 0x81, 0))
    fx.finish_pci()
    # The memdev below the PCI function, and the rest of the CXL bus.
    m = mem.rel + "/mem0"
    fx.write(m + "/numa_node", "0")
    fx.write(m + "/dev", "250:0")
    fx.write(m + "/serial", "0x0")
    fx.write(m + "/firmware_version", "BWFW VERSION 00")
    fx.write(m + "/payload_max", "2048")
    fx.write(m + "/label_storage_size", "0")
    fx.write(m + "/ram/size", "0x4000000000")
    fx.write(m + "/pmem/size", "0x0")
    fx.write(m + "/uevent", "MAJOR=250\nMINOR=0\nDEVNAME=cxl/mem0\nDEVTYPE=cxl_memdev")
    fx.mkdir("bus/cxl/drivers/cxl_mem")
    fx.link(m + "/driver", "bus/cxl/drivers/cxl_mem")
    fx.link(m + "/subsystem", "bus/cxl")
    fx.link("bus/cxl/devices/mem0", m)
    # What the firmware advertises for node 2 from node 0 (HMAT class 0;
    # class 1, CPUs only, the same), and for the sockets' own memory.
    for node, lat, bw, ini in ((0, 90, 250000, 0), (1, 90, 250000, 1), (2, 250, 60000, 0)):
        for c in (0, 1):
            a = "devices/system/node/node%d/access%d/initiators" % (node, c)
            fx.write(a + "/read_latency", str(lat))
            fx.write(a + "/write_latency", str(lat))
            fx.write(a + "/read_bandwidth", str(bw))
            fx.write(a + "/write_bandwidth", str(bw))
            fx.link(a + "/node%d" % ini, "devices/system/node/node%d" % ini)
    # The CXL root object, which is no memdev.
    fx.write("devices/platform/ACPI0017:00/root0/uevent", "DEVTYPE=cxl_port")
    fx.link("bus/cxl/devices/root0", "devices/platform/ACPI0017:00/root0")


def vm(fx):
    fx.numa({0: ("0-1", 5990604)})
    hb = fx.hostbridge("pci0000:00", None)
    fx.pci(hb, bdf(0), INTEL, "0x1237", CLS_HOST)
    fx.pci(hb, bdf(0, 1, 0), INTEL, "0x7000", "0x060100")
    net = fx.pci(hb, bdf(0, 3, 0), "0x1af4", "0x1041", CLS_ETH, "virtio-pci",
                 subsys=("0x1af4", "0x1100"))
    blk = fx.pci(hb, bdf(0, 4, 0), "0x1af4", "0x1042", "0x010000", "virtio-pci",
                 subsys=("0x1af4", "0x1100"))
    fx.finish_pci()
    for dev, n, drv in ((net, 0, "virtio_net"), (blk, 1, "virtio_blk")):
        v = "%s/virtio%d" % (dev.rel, n)
        fx.write(v + "/device", "0x%04x" % (1 if n == 0 else 2))
        fx.write(v + "/vendor", "0x554d4551")
        fx.mkdir("bus/virtio/drivers/" + drv)
        fx.link(v + "/driver", "bus/virtio/drivers/" + drv)
        fx.link(v + "/subsystem", "bus/virtio")
    fx.netdev(net, "eth0", 1500, -1, "52:54:00:12:34:56", driver_dir="virtio0")


def slow_nic(fx):
    fx.numa({0: ("0-31", 263921664)})
    hb = fx.hostbridge("pci0000:00", 0)
    fx.pci(hb, bdf(0), INTEL, SPR_VTD, CLS_SYSPERIPH)
    rp = root_port(fx, hb, (1, 0), link=(4, 16))
    nic = fx.pci(rp, bdf(0x3b), INTEL, E810, CLS_ETH, "ice", link=(4, 16),
                 aer=zero_aer())
    fx.netdev(nic, "eth0", 1500, 25000, mac_of(OUI_INTEL, 0x3b, 0))
    nic.train(1, 1)


def vmd(fx):
    fx.numa({0: ("0-31,64-95", 527958016)})
    hb = fx.hostbridge("pci0000:00", 0)
    fx.pci(hb, bdf(0), INTEL, SPR_VTD, CLS_SYSPERIPH)
    rp_gpu = root_port(fx, hb, (1, 0))
    fx.pci(rp_gpu, bdf(0x01), NV, H100_PCIE, CLS_3D, "nvidia", link=(5, 16),
           aer=zero_aer())
    rp_ib = root_port(fx, hb, (3, 0))
    ib = fx.pci(rp_ib, bdf(0x02), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                aer=zero_aer())
    guid = ib_guid(0x02)
    fx.rdma(ib, "mlx5_0", [ib_port(guid)], guid)
    ctl = fx.pci(hb, bdf(0, 0x0e, 0), INTEL, "0x28c0", "0x010400", "vmd")
    dom = fx.hostbridge("pci10000:e0", None, below=ctl)
    ports = []
    for dev, link in ((2, (4, 4)), (3, (4, 4)), (4, (5, 16))):
        ports.append(fx.pci(dom, bdf(0xe0, dev, 0, dom=0x10000), INTEL, SPR_RP,
                            CLS_BRIDGE, "pcieport", link=link, aer=zero_aer(),
                            kind="rp"))
    for i in range(2):
        fx.pci(ports[i], bdf(0xe1 + i, dom=0x10000), SAMSUNG, PM9A3, CLS_NVME,
               "nvme", link=(4, 4), aer=zero_aer())
    nic = fx.pci(ports[2], bdf(0xe3, dom=0x10000), MLX, CX7, CLS_ETH, "mlx5_core",
                 link=(5, 16), aer=zero_aer(), subsys=(MLX, "0x0021"))
    fx.finish_pci()
    name = "ens4f0np0"
    mac = mac_of(OUI_MLX, 0xe3, 0)
    fx.netdev(nic, name, 9000, 400000, mac)
    port = roce_port(mac, (198, 18, 0, 1), name)
    port["gids"][2] = (GID_ZERO, None, None)    # an address since removed
    fx.rdma(nic, "mlx5_1", [port], ib_guid(0xe300))


def broken(fx):
    fx.numa({0: ("0-3", 16318464), 1: ("4-7", 16318464)})
    hb = fx.hostbridge("pci0000:00", 0)
    fx.pci(hb, bdf(0), INTEL, "0x1237", CLS_HOST)
    # A root port without link files, a NIC with a garbage numa_node below.
    rp = fx.pci(hb, bdf(0, 1, 0), INTEL, SPR_RP, CLS_BRIDGE, "pcieport", kind="rp")
    nic = fx.pci(rp, bdf(0x01), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                 aer=zero_aer())
    # A device without a class file.
    fx.pci(hb, bdf(0, 2, 0), INTEL, "0x1234", None)
    # A drive whose link files hold garbage.
    rp3 = root_port(fx, hb, (3, 0), link=(4, 4))
    nvme = fx.pci(rp3, bdf(0x02), SAMSUNG, PM9A3, CLS_NVME, "nvme", link=(4, 4))
    nvme.cur = ("99.9 GT/s PCIe", "x")
    rp3.fixed_cur = True
    rp3.cur = ("Unknown", "0")
    # A GPU and a device whose files are directories, or mode 000.
    rp5 = root_port(fx, hb, (5, 0))
    gpu = fx.pci(rp5, bdf(0x03), NV, H100_PCIE, CLS_3D, "nvidia", link=(5, 16),
                 aer=zero_aer())
    odd = fx.pci(hb, bdf(0, 6, 0), INTEL, "0x0b00", CLS_SYSPERIPH)
    fx.finish_pci()

    fx.write(nic.rel + "/numa_node", "banana")
    # A directory where a file is expected (root reads mode 000 files anyway).
    os.remove(fx.path(odd.rel + "/class"))
    fx.mkdir(odd.rel + "/class")
    os.remove(fx.path(gpu.rel + "/max_link_speed"))
    fx.mkdir(gpu.rel + "/max_link_speed")
    os.chmod(fx.path(gpu.rel + "/numa_node"), 0)
    os.chmod(fx.path(gpu.rel + "/aer_dev_correctable"), 0)

    # The NIC's netdev with an MTU that is a directory; its RDMA port lacks
    # phys_state and carries garbage.
    fx.netdev(nic, "ibp1s0", 4092, 400000, "00:00:10:49:fe:80:00:00:00:00:00:00:"
              "a0:88:c2:03:00:01:10:01", arptype=32)
    os.remove(fx.path(nic.rel + "/net/ibp1s0/mtu"))
    fx.mkdir(nic.rel + "/net/ibp1s0/mtu")
    port = ib_port(ib_guid(1), phys=None, rate="fast")
    port["gids"] = [("zzzz", IB_GID_V1, None), ("fe80:0000:0000:0000:" + ib_guid(1), None, None)]
    fx.rdma(nic, "mlx5_0", [port], ib_guid(1))
    p = nic.rel + "/infiniband/mlx5_0/ports/1"
    fx.mkdir(p + "/gid_attrs/types/1")

    # Loops and dangling links where the PCI bus lists its devices.
    fx.rawlink("bus/pci/devices/0000:99:00.0", "0000:99:00.0")
    fx.rawlink("bus/pci/devices/0000:98:00.0", "0000:98:00.1")
    fx.rawlink("bus/pci/devices/0000:98:00.1", "0000:98:00.0")
    fx.rawlink("bus/pci/devices/0000:97:00.0",
               "../../../devices/pci0000:97/0000:97:00.0")
    fx.rawlink("class/net/eth7", "../../devices/pci0000:00/0000:00:07.0/net/eth7")
    fx.rawlink("class/infiniband/mlx5_9", "mlx5_9")
    # A NUMA node without cpulist and with a garbage meminfo.
    os.remove(fx.path("devices/system/node/node1/cpulist"))
    fx.write("devices/system/node/node1/meminfo", "Node 1 MemTotal: lots kB")


def coll_pair(fx):
    """Where tests/gpu/fakecuda.c puts its two GPUs: 0000:1a:00.0 and
    0000:3b:00.0, each below its own PCIe Gen5 switch with an NDR
    InfiniBand NIC beside it (PIX); GPU 1 trained at Gen4 x8."""
    fx.numa({0: ("0-31", 263921664)})
    for i, (hb_name, up) in enumerate((("pci0000:17", 0x18), ("pci0000:38", 0x39))):
        hb = fx.hostbridge(hb_name, 0)
        rp = root_port(fx, hb, (1, 0))
        _, downs = pcie_switch(fx, rp, up, [(5, 16)] * 2)
        gpu = fx.pci(downs[0], bdf(up + 2), NV, H100_SXM, CLS_3D, "nvidia", link=(5, 16),
                     aer=zero_aer())
        nic = fx.pci(downs[1], bdf(up + 3), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                     aer=zero_aer())
        guid = ib_guid(up + 3)
        name = fx.rdma(nic, "mlx5_%d" % i, [ib_port(guid)], guid)
        for c in ("port_rcv_errors", "port_rcv_constraint_errors", "port_xmit_discards",
                  "port_rcv_switch_relay_errors", "symbol_error", "link_downed",
                  "port_xmit_data", "port_rcv_data"):
            fx.write("%s/infiniband/%s/ports/1/counters/%s" % (nic.rel, name, c), "0")
        if i == 1:
            gpu.train(4, 8)


def retimer(fx):
    fx.numa({0: ("0-31", 263921664)})
    hb = fx.hostbridge("pci0000:00", 0)
    sysfn = fx.pci(hb, bdf(0), INTEL, SPR_VTD, CLS_SYSPERIPH)
    sysfn.config = config_space(sysfn, 0, 0, caps=False)
    # The GPU's link: one retimer, seen from both ends.
    rp_gpu = root_port(fx, hb, (1, 0))
    gpu = fx.pci(rp_gpu, bdf(0x01), NV, H100_PCIE, CLS_3D, "nvidia", link=(5, 16),
                 aer=zero_aer())
    rp_gpu.config = config_space(rp_gpu, 2, 1)
    gpu.config = config_space(gpu, 1, 1)
    # The NIC's link: two retimers, which only the NIC can detect; AER
    # correctable errors on the NIC.
    rp_ib = root_port(fx, hb, (3, 0))
    ib = fx.pci(rp_ib, bdf(0x02), MLX, CX7, CLS_IB, "mlx5_core", link=(5, 16),
                aer={"cor": {"RxErr": 9, "BadTLP": 2}})
    rp_ib.config = config_space(rp_ib, 0, 0)
    ib.config = config_space(ib, 2, 2)
    guid = ib_guid(0x02)
    fx.rdma(ib, "mlx5_0", [ib_port(guid)], guid)
    fx.netdev(ib, "ibp2s0", 4092, 400000, "00:00:10:49:fe:80:00:00:00:00:00:00:" + ":".join(
        guid.replace(":", "")[k:k + 2] for k in range(0, 16, 2)), arptype=32)
    # The drive's link: both ends detect retimers, none is there.
    rp_nvme = root_port(fx, hb, (5, 0), link=(4, 4))
    nvme = fx.pci(rp_nvme, bdf(0x03), SAMSUNG, PM9A3, CLS_NVME, "nvme", link=(4, 4),
                  aer=zero_aer())
    rp_nvme.config = config_space(rp_nvme, 2, 0)
    nvme.config = config_space(nvme, 1, 0)
    # The E810's link: 64 bytes at both ends, as a user other than root
    # reads them: unknown.
    rp_eth = root_port(fx, hb, (7, 0), link=(4, 16))
    eth = fx.pci(rp_eth, bdf(0x04), INTEL, E810, CLS_ETH, "ice", link=(4, 16),
                 aer=zero_aer())
    rp_eth.config = config_space(rp_eth, 2, 1, size=64)
    eth.config = config_space(eth, 2, 1, size=64)
    fx.netdev(eth, "eth0", 1500, 100000, mac_of(OUI_INTEL, 0x04, 0))


LAYOUTS = {
    "dgx-h100": lambda fx: (dgx_h100(fx), fx.finish_pci()),
    "amd-mi300x": lambda fx: (amd_mi300x(fx), fx.finish_pci()),
    "dgx-degraded": lambda fx: (dgx_degraded(fx), fx.finish_pci()),
    "downtrained": lambda fx: (downtrained(fx), fx.finish_pci()),
    "gpu-numa": gpu_numa,
    "ib-init-aer": lambda fx: (ib_init_aer(fx), fx.finish_pci()),
    "cxl": cxl,
    "large": lambda fx: (dgx_h100(fx, with_extras=True), fx.finish_pci()),
    "broken": broken,
    "vm": vm,
    "slow-nic": lambda fx: (slow_nic(fx), fx.finish_pci()),
    "vmd": vmd,
    "coll-pair": lambda fx: (coll_pair(fx), fx.finish_pci()),
    "retimer": lambda fx: (retimer(fx), fx.finish_pci()),
}


def main(argv):
    if len(argv) == 2 and argv[1] == "--list":
        print("\n".join(LAYOUTS))
        return 0
    if len(argv) != 3 or argv[1] not in LAYOUTS:
        sys.stderr.write("usage: mkfixture.py LAYOUT OUTDIR  (LAYOUT: %s)\n"
                         % ", ".join(LAYOUTS))
        return 2
    outdir = argv[2]
    if os.path.lexists(os.path.join(outdir, "sys")):
        sys.stderr.write("mkfixture.py: %s/sys already exists\n" % outdir)
        return 1
    fx = Fixture(outdir)
    # sysfs always has these, even where a layout puts nothing in them.
    for d in ("bus/pci/devices", "bus/pci/drivers", "class/net", "devices/system/node"):
        fx.mkdir(d)
    NODE_CPUS.clear()
    LAYOUTS[argv[1]](fx)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
