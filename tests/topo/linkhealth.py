#!/usr/bin/env python3
"""The PCIe links of a sysfs tree judged from its files alone, as an oracle
for `ixperf topo`: a link is downtrained when it runs below what both of
its ends support (each end's max_link_speed and max_link_width); a link
whose device end is a GPU and is only slower, not narrower, is not (GPUs
slow their link when idle).  A root or switch downstream port's link goes
to the function below it, anything else's to the function above it.

Usage: linkhealth.py ROOT      prints "BDF port|device" per downtrained
                               function, sorted by BDF; "port" where the
                               function is a port with a device below it
                               (the findings name the device instead)."""
import os
import re
import sys

GTS = {"2.5": 1, "5.0": 2, "5": 2, "8.0": 3, "8": 3, "16.0": 4, "16": 4,
       "32.0": 5, "32": 5, "64.0": 6, "64": 6}
BDF = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def attr(d, name):
    try:
        with open(os.path.join(d, name)) as f:
            return f.read().strip()
    except OSError:
        return None


def gen(s):
    m = re.match(r"^([0-9.]+) GT/s", s or "")
    return GTS.get(m.group(1)) if m else None


def width(s):
    return int(s) if s and s.isdigit() and 1 <= int(s) <= 32 else None


def main(root):
    bus = os.path.join(root, "sys/bus/pci/devices")
    devs = {}
    for name in sorted(os.listdir(bus)):
        real = os.path.realpath(os.path.join(bus, name))
        parts = real.split("/")
        parent = parts[-2] if len(parts) > 1 and BDF.match(parts[-2]) else None
        cls = int(attr(real, "class") or "0", 16)
        vendor = attr(real, "vendor") or ""
        cur = (gen(attr(real, "current_link_speed")), width(attr(real, "current_link_width")))
        mx = (gen(attr(real, "max_link_speed")), width(attr(real, "max_link_width")))
        devs[name] = {"parent": parent, "bridge": cls >> 8 == 0x0604, "cur": cur, "max": mx,
                      "gpu": vendor in ("0x10de", "0x1002") and
                      (cls >> 8 in (0x0300, 0x0302) or cls >> 16 == 0x12)}
    down_facing = {}

    def facing(n):
        if n not in down_facing:
            d, p = devs[n], devs[n]["parent"]
            if not d["bridge"]:
                down_facing[n] = False
            elif p is None or p not in devs or not devs[p]["bridge"]:
                down_facing[n] = True          # a root port
            else:
                down_facing[n] = not facing(p)  # ports alternate down a switch
        return down_facing[n]

    for n in sorted(devs):
        d = devs[n]
        if None in d["cur"]:
            continue
        if facing(n):
            below = [c for c in sorted(devs) if devs[c]["parent"] == n and None not in devs[c]["cur"]]
            partner = below[0] if below else None
        else:
            partner = d["parent"] if d["parent"] in devs else None
        eg, ew = d["max"][0] or d["cur"][0], d["max"][1] or d["cur"][1]
        if partner:
            pg, pw = devs[partner]["max"]
            eg, ew = min(eg, pg or eg), min(ew, pw or ew)
        device = devs[partner] if facing(n) and partner else d
        if d["cur"][1] < ew or (d["cur"][0] < eg and not device["gpu"]):
            print(n, "port" if facing(n) and partner else "device")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    main(sys.argv[1])
