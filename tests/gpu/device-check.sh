#!/usr/bin/env bash
# The GPU probes on a machine with a GPU: build ixperf, run the whole
# 'ixperf gpu' suite (minutes: the host_to_all and all_to_host tests run N
# cells of up to 2N copies, so 8 GPUs take longer than one; it is stopped
# after ten), and print each figure beside its physical reference, with
# PASS or FAIL against the goal: at least 90% of what the hardware's own
# best copy reaches.
#
#   device-local copy   read + write traffic (2 x the bytes copied) against
#                       the best copy in one GPU's memory: nvbandwidth's
#                       device_local_copy when nvbandwidth is installed, else
#                       90% of the HBM bandwidth the driver reports (an H200:
#                       4.8 TB/s HBM, a plain copy about 4.3 TB/s read + write)
#   host <-> device     pinned copies against nvbandwidth's, else 88% of the
#                       PCIe link per direction (Gen5 x16: 63 GB/s after
#                       128b/130b, 64 GB/s raw; TLP headers take the rest)
#   host <-> every GPU  host_to_all / all_to_host (every GPU copying at
#                       once, each GPU's figure) against nvbandwidth's tests
#                       of the same names; without nvbandwidth they are
#                       shown beside the link, not judged (GPUs that share
#                       host memory or a switch uplink rightly fall short)
#   CUDA/HIP IPC        against the same copy within one process
#   collectives         ixperf coll all_reduce over the machine's NCCL (the
#                       nvidia-nccl wheel PyTorch uses, else the system's)
#                       beside torch.distributed's all_reduce timed the same
#                       way on the same GPUs: algbw within 10% from 64 MiB up
#
# Usage: tests/gpu/device-check.sh [IXPERF]   (IXPERF: a built binary to use)
# Exit status: 0 every check passed, 1 a check failed, 2 nothing to check
# (the build failed, no GPU, no python3).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
top=$(pwd)
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ixperf-gpu-check.XXXXXX")}
mkdir -p "$out"
start=$SECONDS

say() { printf '%s\n' "$*"; }

# --- build --------------------------------------------------------------------
ixperf=${1:-}
if [ -z "$ixperf" ]; then
	say "== building ixperf in _build-gpu"
	if [ ! -x configure ] || [ configure -ot configure.ac ] || [ configure -ot Makefile.am ]; then
		autoreconf -fi >"$out/autoreconf.log" 2>&1 || {
			tail -20 "$out/autoreconf.log"
			say "FAIL build: autoreconf"
			exit 2
		}
	fi
	mkdir -p _build-gpu
	if ! (cd _build-gpu && { [ -f Makefile ] || ../configure >"$out/configure.log" 2>&1; } &&
		make -j"$(nproc)" ixperf >"$out/make.log" 2>&1); then
		tail -n 30 "$out/configure.log" "$out/make.log" 2>/dev/null
		say "FAIL build (logs in $out)"
		exit 2
	fi
	ixperf=$top/_build-gpu/ixperf
fi
[ -x "$ixperf" ] || { say "FAIL no ixperf binary at $ixperf"; exit 2; }
command -v python3 >/dev/null || { say "FAIL python3 is needed to read the results"; exit 2; }
say "== $("$ixperf" --version) ($(( SECONDS - start )) s)"

# --- the machine ----------------------------------------------------------------
if ! timeout 60 "$ixperf" gpu inventory; then
	say "FAIL no GPU backend opens here"
	exit 2
fi
command -v nvidia-smi >/dev/null &&
	timeout 20 nvidia-smi --query-gpu=name,pcie.link.gen.max,pcie.link.width.max,clocks.max.memory \
		--format=csv 2>/dev/null

# --- the suite: JSON for the checks; the text report is printed from it ------
say "== ixperf gpu (every test, defaults: 512 MiB copies, 16 repetitions, 3 samples)"
timeout 600 "$ixperf" gpu --json -o "$out/gpu.json" 2>"$out/gpu.err"
rc=$?
cat "$out/gpu.err"
if [ "$rc" = 124 ] || [ ! -s "$out/gpu.json" ]; then
	say "FAIL ixperf gpu did not finish within 10 minutes (exit $rc)"
	exit 1
fi
say "ixperf gpu exited $rc after $(( SECONDS - start )) s in all"

# --- nvbandwidth's own figures, when it is installed ----------------------------
: >"$out/nvbandwidth.txt"
if command -v nvbandwidth >/dev/null; then
	say "== nvbandwidth (the hardware's best copies, for the goals)"
	timeout 240 nvbandwidth -t device_local_copy host_to_device_memcpy_ce \
		device_to_host_memcpy_ce host_to_all_memcpy_ce all_to_host_memcpy_ce \
		host_to_all_bidirectional_memcpy_ce all_to_host_bidirectional_memcpy_ce \
		>"$out/nvbandwidth.txt" 2>&1 ||
		say "note: nvbandwidth failed; the goals fall back to the physical estimates"
	grep '^SUM' "$out/nvbandwidth.txt"
fi

# --- figures beside their references --------------------------------------------
say "== checks (GB/s = 10^9 bytes/s)"
python3 - "$out/gpu.json" "$out/nvbandwidth.txt" "$rc" <<'EOF'
import json, re, sys

doc = json.load(open(sys.argv[1]))
res = doc["results"][0]
rc = int(sys.argv[3])
nvb = {}
for line in open(sys.argv[2], errors="replace"):
    m = re.match(r"SUM (\S+) ([0-9.]+)", line)
    if m:
        nvb[m.group(1)] = float(m.group(2)) * 1e9
devs = res["devices"]
ngpu = sum(1 for d in devs if d["selected"]) or 1
tests = {t["name"]: t for t in res["tests"]}
fails = 0
GOAL = 0.90

def gb(v):
    return "%.2f GB/s" % (v / 1e9)

def verdict(name, ok):
    global fails
    fails += not ok
    print("%s %s" % ("PASS" if ok else "FAIL", name))

for t in res["tests"]:
    print("%-48s %s%s" % (t["name"], t["status"], ": " + t["reason"] if t["reason"] else ""))
    if t["status"] == "failed":
        verdict(t["name"] + " ran", False)
if not doc["complete"] or rc not in (0,):
    verdict("ixperf gpu completed (exit %d): %s" % (rc, doc["error"]), False)

def cells(name):
    t = tests.get(name)
    if not t or t["status"] == "skipped":
        return
    m = t["matrix"]
    for a, row in enumerate(t["rows"]):
        for b, col in enumerate(t["columns"]):
            v = m["value"][a][b]
            if m["state"][a][b] != "none":
                yield "%s->%s" % (row, col), v, m["reference"][a][b], col if col.startswith("GPU") else row

def device(label):
    return devs[int(label[3:])]

print()
for name, v, ref, gpu in cells("device_local_copy"):
    d = device(gpu)
    hbm = d["hbm_bytes_per_second"] or (4.8e12 if "H200" in (d["name"] or "") else None)
    if v is None:
        verdict("device_local_copy %s measured" % gpu, False)
        continue
    if "device_local_copy" in nvb:
        best, how = 2 * nvb["device_local_copy"] / ngpu, "nvbandwidth's copy"
    elif hbm:
        best, how = GOAL * hbm, "estimate: 90% of HBM"
    else:
        best, how = None, "no HBM figure"
    print("device_local_copy %s: %s copied = %s read+write; HBM %s%s" % (
        gpu, gb(v), gb(2 * v), gb(hbm) if hbm else "unknown",
        " (%.1f%%)" % (100 * 2 * v / hbm) if hbm else ""))
    if best:
        print("  best copy %s (%s): %.1f%% of it, goal %.0f%%" % (gb(best), how, 100 * 2 * v / best, 100 * GOAL))
        verdict("device_local_copy %s" % gpu, 2 * v >= GOAL * best)

for name in ("host_to_device_memcpy_ce", "device_to_host_memcpy_ce",
             "host_to_device_pageable_memcpy_ce", "device_to_host_pageable_memcpy_ce"):
    for cell, v, ref, gpu in cells(name):
        link = device(gpu)["pcie"]
        desc = ("Gen%d x%d" % (link["expected_gen"], link["expected_width"]) if link and ref
                else "link unknown, taken as Gen5 x16")
        ref = ref or 32e9 * 16 * 128 / 130 / 8
        print("%s %s: %s; PCIe %s %s per direction (%.1f%%), 64 GB/s raw for Gen5 x16" % (
            name, gpu, gb(v) if v else "-", desc, gb(ref), 100 * (v or 0) / ref))
        if "pageable" in name:
            continue  # pageable copies are staged by the driver: shown, not judged
        if name in nvb:
            best, how = nvb[name] / ngpu, "nvbandwidth"
        else:
            best, how = 0.88 * ref, "estimate: 88% of the link"
        print("  best copy %s (%s): %.1f%% of it, goal %.0f%%" % (gb(best), how, 100 * (v or 0) / best, 100 * GOAL))
        verdict("%s %s" % (name, gpu), v is not None and v >= GOAL * best)

# Every GPU at once: each GPU's figure against nvbandwidth's mean per GPU
# (its SUM over the GPUs); the _sm forms are shown beside the link.
for name in ("host_to_all_memcpy_ce", "all_to_host_memcpy_ce",
             "host_to_all_bidirectional_memcpy_ce", "all_to_host_bidirectional_memcpy_ce",
             "host_to_all_memcpy_sm", "all_to_host_memcpy_sm",
             "host_to_all_bidirectional_memcpy_sm", "all_to_host_bidirectional_memcpy_sm"):
    for cell, v, ref, gpu in cells(name):
        print("%s %s: %s; PCIe link %s (%s)" % (
            name, gpu, gb(v) if v else "-", gb(ref) if ref else "unknown",
            "%.1f%%" % (100 * v / ref) if v and ref else "-"))
        if name in nvb:
            best = nvb[name] / ngpu
            print("  nvbandwidth %s per GPU (SUM %s / %d): %.1f%% of it, goal %.0f%%" % (
                gb(best), gb(nvb[name]), ngpu, 100 * (v or 0) / best, 100 * GOAL))
            verdict("%s %s" % (name, gpu), v is not None and v >= GOAL * best)
        else:
            print("  not judged: no nvbandwidth figure to hold it against")
            if v is None:
                verdict("%s %s measured" % (name, gpu), False)

for cell, v, ref, gpu in cells("ipc_memcpy_ce"):
    if v is None or ref is None:
        verdict("ipc_memcpy_ce %s measured" % cell, False)
        continue
    print("ipc_memcpy_ce %s: %s across processes; in-process %s: %.1f%%, goal %.0f%%" % (
        cell, gb(v), gb(ref), 100 * v / ref, 100 * GOAL))
    verdict("ipc_memcpy_ce %s" % cell, v >= GOAL * ref)
if "ipc_memcpy_ce" not in tests or tests["ipc_memcpy_ce"]["status"] == "skipped":
    verdict("ipc_memcpy_ce ran (%s)" % tests.get("ipc_memcpy_ce", {}).get("reason"), False)

for name in ("host_device_latency_sm", "device_to_device_latency_sm"):
    for cell, v, ref, gpu in cells(name):
        print("%s %s: %s ns per hop" % (name, cell, "%.0f" % v if v else "-"))

print("\n%d check(s) failed" % fails if fails else "\nevery check passed")
sys.exit(1 if fails else 0)
EOF
status=$?

# --- collectives: ixperf coll over the machine's NCCL, beside torch.distributed --
# libnccl.so.2 from the nvidia-nccl wheel PyTorch came with (or the system's);
# the same all_reduce timed the same way through torch.distributed on the same
# GPUs: warm-up 5, then 20 back to back, host time to the stream's end over 20,
# the mean over the ranks, algbw = bytes / time and busbw = algbw x 2(n-1)/n.
say "== collectives: ixperf coll all_reduce and torch.distributed all_reduce"
nccl=$(python3 -c 'import os, nvidia.nccl as m; print(os.path.join(list(m.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)
[ -f "$nccl" ] || nccl=
coll_args=(all_reduce -b 1M -e 1G -f 4 -n 20 -w 5)
timeout 300 "$ixperf" coll "${coll_args[@]}" ${nccl:+--lib-path "$nccl"} -J -o "$out/coll.json" \
	2>"$out/coll.err"
crc=$?
cat "$out/coll.err"
timeout 300 "$ixperf" report "$out/coll.json" 2>/dev/null | head -40
cat >"$out/torch_allreduce.py" <<'TORCH'
import os, sys, time, json
import torch, torch.distributed as dist, torch.multiprocessing as mp

SIZES = [1 << 20 << (2 * i) for i in range(6)]  # 1M .. 1G, x4

def rank_main(rank, n, port, outq):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n)
    rows = []
    for size in SIZES:
        x = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(20):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        rows.append((size, (time.perf_counter() - t0) / 20))
    outq.put((rank, rows))
    dist.destroy_process_group()

if __name__ == "__main__":
    n = torch.cuda.device_count()
    q = mp.get_context("spawn").SimpleQueue()
    mp.spawn(rank_main, args=(n, 29500 + os.getpid() % 1000, q), nprocs=n, join=True)
    per = [q.get() for _ in range(n)]
    out = []
    for i, size in enumerate(SIZES):
        t = sum(r[1][i][1] for r in per) / n
        alg = size / t
        out.append({"bytes": size, "time_us": t * 1e6, "algbw": alg, "busbw": alg * 2 * (n - 1) / n})
    v = torch.cuda.nccl.version()
    json.dump({"nranks": n, "nccl": ".".join(map(str, v)) if isinstance(v, tuple) else str(v),
               "rows": out}, open(sys.argv[1], "w"))
TORCH
timeout 300 python3 "$out/torch_allreduce.py" "$out/torch.json" >"$out/torch.log" 2>&1 ||
	{ tail -5 "$out/torch.log"; say "note: torch.distributed did not run: no figure to compare"; }
python3 - "$out/coll.json" "$out/torch.json" "$crc" <<'EOF2'
import json, os, sys
rc = int(sys.argv[3])
try:
    doc = json.load(open(sys.argv[1]))
    res = doc["results"][0]
except Exception as e:
    print("FAIL ixperf coll wrote no result (exit %d): %s" % (rc, e))
    sys.exit(1)
torch = json.load(open(sys.argv[2])) if os.path.exists(sys.argv[2]) else None
fails = 0
print("ixperf coll: %s %s, %d ranks, exit %d, wrong %s%s" % (
    res["library"], res["library_version"], res["nranks"], rc, res["wrong"],
    "; SIMULATED" if res["simulation"] else ""))
if rc != 0 or not res["complete"] or res["wrong"]:
    print("FAIL ixperf coll completed with every element right")
    fails += 1
tr = {r["bytes"]: r for r in torch["rows"]} if torch else {}
if torch:
    print("torch.distributed: NCCL %s, %d ranks" % (torch["nccl"], torch["nranks"]))
print("%12s %12s %12s %12s %12s %8s" % ("bytes", "ixperf us", "torch us", "ixperf algbw", "torch algbw", "ratio"))
for row in res["rows"]:
    c = row["out_of_place"]
    t = tr.get(row["bytes"])
    if not c or not c.get("measured"):
        continue
    print("%12d %12.1f %12s %12.2f %12s %8s" % (
        row["bytes"], c["time_us"], "%.1f" % t["time_us"] if t else "-", c["algbw_Bps"] / 1e9,
        "%.2f" % (t["algbw"] / 1e9) if t else "-", "%.3f" % (c["algbw_Bps"] / t["algbw"]) if t else "-"))
    if t and row["bytes"] >= 64 << 20 and c["algbw_Bps"] < 0.9 * t["algbw"]:
        print("FAIL ixperf's all_reduce at %d bytes below 0.9 x torch.distributed's" % row["bytes"])
        fails += 1
sys.exit(1 if fails else 0)
EOF2
[ $? = 0 ] || status=1
say "== $(( SECONDS - start )) s; results in $out"
exit "$status"
