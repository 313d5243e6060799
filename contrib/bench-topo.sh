#!/usr/bin/env bash
# Benchmark topology discovery: the large layout of tests/topo (hundreds of
# PCI functions: 8 GPUs, 8 NICs with 32 virtual functions each, NVMe,
# switches), discovery alone (tests/tools/topobench) and the whole command
# with its JSON document (ixperf topo --json), medians.
#
#   contrib/bench-topo.sh [BUILDDIR]      (default: the current directory)
#
# Goal: discovery well under 100 ms. A benchmark, not a test.
set -euo pipefail
BUILD=${1:-.}
SRC=$(cd "$(dirname "$0")/.." && pwd)
RUNS=${BENCH_RUNS:-21}
[ -x "$BUILD/tests/tools/topobench" ] || { echo "bench-topo: $BUILD/tests/tools/topobench not built (make check builds it)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-topo.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
python3 "$SRC/tests/topo/mkfixture.py" large "$WORK/large" >/dev/null
"$BUILD/tests/tools/topobench" "$WORK/large" "$RUNS"
for ((i = 0; i < RUNS; i++)); do
	s=$(date +%s%N)
	"$BUILD/ixperf" topo --sysfs "$WORK/large" --json >/dev/null
	echo $((($(date +%s%N) - s) / 1000))
done | sort -n | awk '{v[NR]=$1} END {printf "ixperf topo --json (process, discovery and rendering): median %.1f ms over %d runs\n", v[int((NR+1)/2)]/1000, NR}'
