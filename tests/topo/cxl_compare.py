#!/usr/bin/env python3
"""Compare the CXL bus of an `ixperf topo --json` document with what the
ndctl project's own tool prints of the same system (`cxl list -vvv`):
every port with its host and dports, every memory device with its PCI
function, serial and capacities, every decoder with its port, range,
interleave and region, every region with its range, interleave and
targets. Prints each difference; exit 1 when there is one.

Usage: cxl_compare.py CXL_LIST_JSON TOPO_JSON
"""

import json
import sys


def walk(o, parent, out):
    """Collect cxl list's objects: ports, memdevs, decoders, regions."""
    if isinstance(o, list):
        for v in o:
            walk(v, parent, out)
        return
    if not isinstance(o, dict):
        return
    name = parent
    for key in ("bus", "port", "endpoint"):
        if isinstance(o.get(key), str):
            name = o[key]
            out["ports"][name] = {
                "host": o.get("host"),
                "parent": parent,
                "dports": sorted(d["dport"] for d in o.get("dports", [])),
            }
    if isinstance(o.get("memdev"), str) and "position" not in o:
        out["memdevs"][o["memdev"]] = o
    if isinstance(o.get("decoder"), str) and "position" not in o:
        out["decoders"][o["decoder"]] = dict(o, port=parent)
    if isinstance(o.get("region"), str) and "decode_state" in o:
        out["regions"][o["region"]] = o
    for k, v in o.items():
        if isinstance(v, (list, dict)):
            walk(v, name, out)


def main():
    ref = {"ports": {}, "memdevs": {}, "decoders": {}, "regions": {}}
    walk(json.load(open(sys.argv[1])), None, ref)
    doc = json.load(open(sys.argv[2]))["results"][0]
    bus = doc["cxl_bus"]
    diffs = []

    def same(what, a, b):
        if a != b:
            diffs.append("%s: ixperf %r, cxl list %r" % (what, a, b))

    ours = {p["name"]: p for p in bus["ports"]}
    same("ports", sorted(ours), sorted(ref["ports"]))
    for n, r in ref["ports"].items():
        p = ours.get(n)
        if not p:
            continue
        if r["host"] is not None:
            same(n + " host", p["host"], r["host"])
        same(n + " parent", p["parent"], r["parent"])
        same(n + " dports", sorted(d["name"] for d in p["dports"]), r["dports"])
    mem = {m["name"]: m for m in doc["cxl"]}
    same("memdevs", sorted(mem), sorted(ref["memdevs"]))
    for n, r in ref["memdevs"].items():
        m = mem.get(n, {})
        same(n + " pci", m.get("pci"), r.get("host"))
        same(n + " serial", m.get("serial"), r.get("serial"))
        same(n + " pmem", m.get("pmem_bytes"), r.get("pmem_size", 0))
        same(n + " ram", m.get("ram_bytes"), r.get("ram_size", 0))
    dec = {d["name"]: d for d in bus["decoders"]}
    same("decoders", sorted(dec), sorted(ref["decoders"]))
    for n, r in ref["decoders"].items():
        d = dec.get(n, {})
        same(n + " port", d.get("port"), r["port"])
        same(n + " ways", d.get("ways"), r.get("interleave_ways"))
        same(n + " region", d.get("region"), r.get("region"))
        if "resource" in r:
            same(n + " base", d.get("base"), r["resource"])
            same(n + " size", d.get("size"), r["size"])
        if "mode" in r:
            same(n + " mode", d.get("mode"), r["mode"])
    reg = {r["name"]: r for r in bus["regions"]}
    same("regions", sorted(reg), sorted(ref["regions"]))
    for n, r in ref["regions"].items():
        g = reg.get(n, {})
        same(n + " base", g.get("base"), r.get("resource"))
        same(n + " size", g.get("size"), r.get("size"))
        same(n + " ways", g.get("ways"), r.get("interleave_ways"))
        same(n + " granularity", g.get("granularity"), r.get("interleave_granularity"))
        same(n + " committed", g.get("committed"), r.get("decode_state") == "commit")
        targets = [m["decoder"] for m in sorted(r.get("mappings", []),
                                                 key=lambda m: m["position"])]
        same(n + " targets", g.get("targets"), targets)
    for d in diffs:
        print(d)
    print("%d ports, %d memory devices, %d decoders, %d regions compared, %d differences"
          % (len(ref["ports"]), len(ref["memdevs"]), len(ref["decoders"]),
             len(ref["regions"]), len(diffs)))
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
