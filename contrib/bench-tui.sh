#!/usr/bin/env bash
# Benchmark the heatmap's frame time: tests/tools/heatbench draws a mesh
# heatmap through curses (to /dev/null) as a running mesh updates it.
#
#   contrib/bench-tui.sh [BUILDDIR]      (default: the current directory)
#
# Cases: 256 hosts with one cell per pair on a 540x270 terminal, frames
# that change one round of pairs and frames that redraw every cell (a zoom
# or a pan); 256 hosts zoomed out to fit 80x24; 1024 hosts on 300x100.
# Goal: a frame of a 256 x 256 heatmap under 10 ms. Runs alternate; the
# medians of BENCH_RUNS (default 5) runs are printed. A benchmark, not a
# test: a slow result still exits 0.
set -euo pipefail
BUILD=${1:-.}
BENCH=$BUILD/tests/tools/heatbench
RUNS=${BENCH_RUNS:-5}
[ -x "$BENCH" ] || { echo "bench-tui: $BENCH not built (make check builds it)" >&2; exit 2; }
export TERM=xterm-256color LANG=C.UTF-8
WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-tui.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

cases=("256 540 270 200" "256 540 270 100 full" "256 80 24 200" "1024 300 100 100")
for ((r = 1; r <= RUNS; r++)); do
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		"$BENCH" $c >>"$WORK/$(echo "$c" | tr ' ' _)"
	done
done
echo "heatmap frame times, median of $RUNS runs (ms):"
for c in "${cases[@]}"; do
	f="$WORK/$(echo "$c" | tr ' ' _)"
	first=$(sed -n 's/.*first frame \([0-9.]*\) ms.*/\1/p' "$f" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	medf=$(sed -n 's/.*median \([0-9.]*\) ms.*/\1/p' "$f" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	p99=$(sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p' "$f" | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
	printf "  %-60s first %7s  median %7s  p99 %7s\n" "$(head -1 "$f" | sed 's/: first.*//')" "$first" "$medf" "$p99"
done
