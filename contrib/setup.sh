#!/usr/bin/env bash
# Set up a fresh Debian or Ubuntu machine for ixperf, build it, then run the
# main job or the whole test suite.
#
#   contrib/setup.sh run    install, build, run the local acceptance plan (ixperf run)
#   contrib/setup.sh test   install, build, make check (+ sanitizer pass), show logs
#   contrib/setup.sh deps   only install the Debian packages
#   contrib/setup.sh build  install and build into _build/
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

PKGS=(build-essential autoconf automake libtool pkg-config
	libjansson-dev libibverbs-dev libpcap-dev libncurses-dev libcurl4-openssl-dev
	libinih-dev libnuma-dev libcxl-dev libcriterion-dev libssl-dev liblldpctl-dev lldpd nftables
	iproute2 ethtool jq bc clang-format procps python3-jsonschema stress-ng mbw sysbench numactl ndctl
	chromium prometheus prometheus-pushgateway curl python3 tmux tshark
	qemu-system-x86 busybox-static perftest clang libclang-rt-14-dev
	libpmix-dev openmpi-bin slurmctld slurmd slurm-client slurm-wlm-basic-plugins munge
	libibnetdisc-dev libibmad-dev libibumad-dev ibsim-utils opensm infiniband-diags
	debhelper lintian rpm rpmlint cpio debootstrap)

deps() {
	local missing=() p sudo=
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "setup: installing ${missing[*]}"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

build() {
	deps
	[ -x configure ] && [ configure -nt configure.ac ] && [ configure -nt Makefile.am ] || autoreconf -fi
	mkdir -p _build
	cd _build
	[ -f Makefile ] && [ Makefile -nt ../Makefile.am ] || ../configure --enable-werror
	make -j"$(nproc)"
	cd "$top"
}

# The main job: the local acceptance run. It starts its own agents on
# loopback, runs the embedded plan, writes JSON and HTML under
# ./ixperf-results and prints PASS/FAIL per check.
run_main() {
	build
	"$top/_build/ixperf" run "$@"
}

# show_logs [TREE LABEL]: every test's .log under _build/TREE. Criterion
# prints its summary on stderr; automake keeps it in the .log files.
show_logs() {
	local tree=${1:-} label=${2:-}
	find "_build/${tree:+$tree/}tests" -name '*.log' | sort | while read -r log; do
		echo "===== $label${log#_build/"${tree:+$tree/}"} ====="
		cat "$log"
	done
}

# failed_logs [TREE LABEL]: the logs of the tests that failed under
# _build/TREE, again, last: a long run's output is read from its end.
failed_logs() {
	local tree=${1:-} label=${2:-} trs
	{ find "_build/${tree:+$tree/}tests" -name '*.trs' \
		-exec grep -lE '^:test-result: (FAIL|XPASS|ERROR)' {} + 2>/dev/null || true; } |
		sort | while read -r trs; do
			echo "===== ${label}failed: ${trs%.trs}.log ====="
			tail -n 150 "${trs%.trs}.log"
		done
}

# slowest [TREE]: the shell tests of _build/TREE by the seconds their
# closing line gives (tests/lib.sh), the slowest first: where the hour goes.
slowest() {
	local tree=${1:-}
	echo "===== the slowest tests (${SECONDS} s into the run) ====="
	find "_build/${tree:+$tree/}tests" -name '*.sh.log' -exec \
		sed -n 's/^[0-9]* passed, [0-9]* failed, [0-9]* skipped in \([0-9]*\) s$/\1/p; T; F' {} + |
		paste - - | sort -rn | head -15 | awk '{ printf "%6d s  %s\n", $1, $2 }'
}

run_tests() {
	local rc=0
	build
	echo "===== make check (${SECONDS} s into the run) ====="
	# the test programs on every core (TESTS= runs none), the unit tests and
	# source checks on every core, then the shell tests one at a time (every
	# test runs even after a failure: the logs show them all)
	make -C _build -j"$(nproc)" check TESTS= || rc=$?
	if [ "$rc" = 0 ]; then
		make -C _build -j"$(nproc)" check TESTS="$(make -s -C _build print-parallel-tests)" || rc=$?
		make -C _build check TESTS="$(make -s -C _build print-serial-tests)" || rc=$?
	fi
	show_logs
	slowest
	failed_logs
	[ "$rc" = 0 ] || { echo "setup: make check failed"; exit "$rc"; }
	echo "===== AddressSanitizer + UndefinedBehaviorSanitizer pass (${SECONDS} s into the run) ====="
	make -C _build check-sanitize || rc=$?
	show_logs san-build "sanitizers: "
	failed_logs san-build "sanitizers: "
	[ "$rc" = 0 ] || { echo "setup: make check-sanitize failed"; exit "$rc"; }
	# The standing checks of reliability, each bounded: threads under
	# ThreadSanitizer, the parsers under libFuzzer, an agent under a soak.
	echo "===== ThreadSanitizer pass (${SECONDS} s into the run) ====="
	make -C _build check-tsan || rc=$?
	show_logs tsan-build "tsan: "
	failed_logs tsan-build "tsan: "
	[ "$rc" = 0 ] || { echo "setup: make check-tsan failed"; exit "$rc"; }
	# The soak (an agent's memory, descriptors and threads under hostile
	# peers, bounded in time, not in speed) runs beside the fuzzers.
	echo "===== fuzzing (${FUZZ_SECONDS:-12} s per parser) and soak (${SOAK_SECONDS:-120} s) side by side (${SECONDS} s into the run) ====="
	local soak=_build/soak.out soak_rc=0
	make -C _build soak SOAK_SECONDS="${SOAK_SECONDS:-120}" >"$soak" 2>&1 &
	local soak_pid=$!
	make -C _build fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-12}" || rc=$?
	wait "$soak_pid" || soak_rc=$?
	echo "===== soak (${SECONDS} s into the run) ====="
	cat "$soak"
	[ "$rc" = 0 ] || { echo "setup: make fuzz failed"; exit "$rc"; }
	[ "$soak_rc" = 0 ] || echo "setup: make soak failed"
	return "$soak_rc"
}

case "${1:-run}" in
deps) deps ;;
build) build ;;
run)
	[ $# -gt 0 ] && shift
	run_main "$@"
	;;
test) run_tests ;;
*)
	echo "usage: contrib/setup.sh [run|test|deps|build]" >&2
	exit 2
	;;
esac
