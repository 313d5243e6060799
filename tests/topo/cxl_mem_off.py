#!/usr/bin/env python3
"""Switch CXL.mem off on a CXL device, as a host leaves a link that trained
as PCIe only: clear Mem_Enable (bit 2) of the control register of its
"PCIe DVSEC for CXL Devices" (DVSEC id 0 of vendor 0x1e98) in the config
space under /sys/bus/pci/devices/BDF/config. Root only; for test VMs.

Usage: cxl_mem_off.py BDF
"""

import struct
import sys


def main():
    path = "/sys/bus/pci/devices/%s/config" % sys.argv[1]
    with open(path, "r+b", buffering=0) as f:
        cfg = f.read(4096)
        off = 0x100
        for _ in range(64):
            if off < 0x100 or off + 16 > len(cfg):
                break
            hdr, = struct.unpack_from("<I", cfg, off)
            if hdr in (0, 0xFFFFFFFF):
                break
            vendor, = struct.unpack_from("<H", cfg, off + 4)
            dvsec, = struct.unpack_from("<H", cfg, off + 8)
            if hdr & 0xFFFF == 0x23 and vendor == 0x1E98 and dvsec == 0:
                ctl, = struct.unpack_from("<H", cfg, off + 0x0C)
                f.seek(off + 0x0C)
                f.write(struct.pack("<H", ctl & ~0x4))
                f.seek(off + 0x0C)
                now, = struct.unpack("<H", f.read(2))
                print("control 0x%04x -> 0x%04x" % (ctl, now))
                return 0 if not now & 0x4 else 1
            off = (hdr >> 20) & 0xFFC
    print("no CXL device DVSEC in %s" % path)
    return 1


if __name__ == "__main__":
    sys.exit(main())
