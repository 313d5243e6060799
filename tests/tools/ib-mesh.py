#!/usr/bin/env python3
"""Meshes for a simulated InfiniBand subnet (ibsim carries no data).

  ib-mesh.py paths NODE[PORT]...   the ordered pairs of adapters whose path,
                                   as ibtracert follows it under ibsim-run,
                                   leaves one of the ports given ("a b" lines)
  ib-mesh.py mesh N BAD OUT [--bw-only] [--by-guid]
                                   an 'ixperf mesh --json' document over the
                                   adapters h01..hN, every ordered pair
                                   measured, those listed in BAD at a quarter
                                   of the others' rate; --by-guid names the
                                   hosts by address and ties them to the
                                   subnet by the port GUID of their link
                                   (read with ibnetdiscover) instead
"""
import json
import re
import subprocess
import sys


def adapters():
    """name -> (LID, port GUID) as ibnetdiscover -p lists the adapters."""
    out = subprocess.run(["ibsim-run", "ibnetdiscover", "-p"], capture_output=True,
                         text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        m = re.match(r"CA\s+(\d+)\s+\d+\s+(0x[0-9a-f]+)\s.*\( '([^']+)' -", line)
        if m:
            found[m.group(3)] = (int(m.group(1)), m.group(2))
    return found


def paths(ports):
    want = set()
    for p in ports:
        m = re.match(r"(.+)\[(\d+)\]$", p)
        want.add((m.group(1), int(m.group(2))))
    ca = adapters()
    for a in sorted(ca):
        for b in sorted(ca):
            if a == b:
                continue
            out = subprocess.run(["ibsim-run", "ibtracert", str(ca[a][0]), str(ca[b][0])],
                                 capture_output=True, text=True).stdout
            cur, hit, arrived = a, False, False
            for line in out.splitlines():
                m = re.match(r'\[(\d+)\] -> .*"([^"]+)"$', line)
                if m:
                    hit |= (cur, int(m.group(1))) in want
                    cur = m.group(2)
                arrived |= line.startswith("To ")
            if not arrived:
                sys.exit("ibtracert found no path from %s to %s" % (a, b))
            if hit:
                print(a, b)


def mesh(n, bad_file, out, bw_only, by_guid):
    names = ["h%02d" % (i + 1) for i in range(n)]
    ca = adapters() if by_guid else {}
    hosts = [("10.9.0.%d:6200" % (i + 1)) if by_guid else (h + ":6200")
             for i, h in enumerate(names)]
    bad = set()
    for line in open(bad_file):
        if line.strip():
            a, b = line.split()
            bad.add((names.index(a), names.index(b)))
    good_bps, bad_bps, lat = 90e9, 20e9, 2000.0

    def grid(f):
        return [[None if a == b else f(a, b) for b in range(n)] for a in range(n)]

    def node(i):
        o = {"host": hosts[i], "error": None, "bw_out_bps": good_bps, "bw_in_bps": good_bps,
             "lat_p50_ns": None if bw_only else lat, "measured": 2 * (n - 1), "bad": 0,
             "suspect": False}
        if by_guid:
            o["link"] = {"iface": "mlx5_0", "bps": None, "source": "unknown", "pcie": None,
                         "ceiling_bps": None, "bottleneck": None,
                         "port_guid": "0x%016x" % int(ca[names[i]][1], 16)}
        return o

    res = {
        "kind": "mesh", "complete": True, "hosts": hosts,
        "params": {"tests": ["bw"] if bw_only else ["bw", "lat"], "both_directions": True,
                   "concurrency": 0, "retest": False,
                   "bw": {"path": "rdma", "msg_size": 65536, "duration_s": 1.0, "warmup_s": 0.0},
                   "lat": {"path": "rdma", "msg_size": 64, "iters": 0, "duration_s": 1.0},
                   "rules": {"bw_fraction": 0.7, "lat_factor": 2.0}},
        "rounds": n - 1,
        "pairs": {"planned": n * (n - 1), "measured": n * (n - 1), "failed": 0, "retested": 0},
        "wall_s": 1.0, "median_bw_bps": good_bps, "min_lat_ns": None if bw_only else lat,
        "matrix": {
            "bw_bps": grid(lambda a, b: bad_bps if (a, b) in bad else good_bps),
            "lat_p50_ns": grid(lambda a, b: None if bw_only else lat),
            "lat_p99_ns": grid(lambda a, b: None if bw_only else 2 * lat),
            "state": [["none" if a == b else "ok" for b in range(n)] for a in range(n)]},
        "nodes": [node(i) for i in range(n)],
        "bad_pairs": [{"from": hosts[a], "to": hosts[b], "retested": False, "reason": None}
                      for a, b in sorted(bad)],
        "suspects": [], "failures": [],
    }
    doc = {"schema_version": 1, "tool": {"name": "ixperf", "version": "0"}, "host": "sim",
           "time": "2026-01-01T00:00:00Z", "command_line": ["ixperf", "mesh"],
           "command": "mesh", "complete": True, "error": None, "results": [res]}
    with open(out + ".tmp", "w") as f:
        json.dump(doc, f)
    import os
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "paths":
        paths(sys.argv[2:])
    elif len(sys.argv) >= 5 and sys.argv[1] == "mesh":
        mesh(int(sys.argv[2]), sys.argv[3], sys.argv[4], "--bw-only" in sys.argv[5:],
             "--by-guid" in sys.argv[5:])
    else:
        sys.exit(__doc__)
