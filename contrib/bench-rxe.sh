#!/usr/bin/env bash
# ixperf against perftest on a real verbs provider any Linux host can
# have: soft-RoCE (rdma_rxe) in a VM of Debian's own kernel under QEMU
# (tests/rdma/vm.sh), one rxe device used by both ends. Prints
# contrib/rdma-compare.sh's table: write, read and send bandwidth and
# latency, the medians of alternating runs of both tools and their ratio
# (bandwidth by count, 4000 messages a run: perftest's -D reports 0 Gbit/s
# in some runs here);
# then write bandwidth at 1, 2, 4 and 8 QPs (BENCH_RXE_QPS), 8000 messages
# a run, against perftest -q (one thread), ixperf with its default threads
# and with --threads 2. BENCH_RXE_ARGS: more options of rdma-compare.sh
# (-Q: only those rows).
# Soft-RoCE under emulation is slow and noisy: read the ratios, not the
# absolute figures, which say nothing of real hardware.
#
#   contrib/bench-rxe.sh [IXPERF [RUNS]]     (make bench-rxe)
#
# Needs what tests/integration/rdma_rxe.sh needs (contrib/setup.sh deps).
set -u
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
IXPERF=$(realpath "${1:-$top_srcdir/_build/ixperf}")
RUNS=${2:-5}
. "$top_srcdir/tests/lib.sh"
. "$top_srcdir/tests/rdma/vm.sh"

why=$(ix_vm_missing)
[ -z "$why" ] || { echo "bench-rxe: $why" >&2 && exit 1; }
CACHE=${IX_VM_CACHE:-$(dirname "$IXPERF")/tests/rdma/vm-cache}
ix_vm_prepare "$CACHE" || exit 1
O=$IX_TMP/vm
mkdir -p "$O"
cat >"$O/bench.sh" <<SCRIPT
rdma link add rxe0 type rxe netdev eth0 || exit 3
cd /run/tmp
IXPERF=$IXPERF "$top_srcdir/contrib/rdma-compare.sh" -l -d rxe0 -x 1 -N 4000 -n 10000 -r $RUNS \\
	-q ${BENCH_RXE_QPS:-1,2,4,8} -T 2 -m 8000 ${BENCH_RXE_ARGS:-} 10.77.0.1
rc=\$?
# Without a TSC clocksource clock_gettime is a system call: ixperf then
# times its samples with the TSC, as perftest always does.
echo "guest clocksource: \$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
exit \$rc
SCRIPT
echo "bench-rxe: $(cat "$CACHE/kernel-package"), QEMU TCG, 2 vCPUs, soft-RoCE on one VM;" \
	"$RUNS alternating runs of each tool, medians"
IX_VM_SMP=2 ix_vm_boot "$CACHE" "$O" "$O/bench.sh" 1
cat "$O/vm1.log"
exit "$(cat "$O/vm1.rc" 2>/dev/null || echo 1)"
