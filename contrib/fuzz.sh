#!/usr/bin/env bash
# Coverage-guided fuzzing (libFuzzer) of the parsers that read bytes from
# outside: control frames and message bodies, an RDMA peer's answers,
# captures, plans, result documents and spool entries, the documents
# 'ixperf top' reads back, saved InfiniBand subnets, host lists, LLDP
# neighbours, rtnetlink answers and a launcher's environment strings
# (tests/fuzz/fuzz_*.c).
#
#   contrib/fuzz.sh [NAME...]       (make fuzz; NAME: frame, wire, rdma,
#                                    pcap, plan, result, heatstate, hostlist,
#                                    inventory, ifstats, lldp, rtnl, launchenv,
#                                    ibfab)
#
# Configures a clang build tree with ASan+UBSan and libFuzzer's coverage
# ($FUZZ_BUILD, default ./fuz-build), builds libixperf.a there, links one
# fuzzer per tests/fuzz/fuzz_*.c and runs each on a copy of its seed corpus
# (tests/fuzz/corpus/NAME) for FUZZ_SECONDS seconds (default 30; 0 runs the
# seeds once), FUZZ_JOBS of them at once (default 2). A fuzzer's extra
# sources, outside the library, are named on a line "IX_FUZZ_EXTRA:
# path..." in its file. Findings (crash-*, leak-*,
# timeout-*, oom-*) are left in $FUZZ_BUILD/run/NAME/artifacts/.
# Exits 1 when a fuzzer fails to build or finds something, 77 when clang or
# libFuzzer is missing.
set -eu

top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-30}
FUZZ_CC=${FUZZ_CC:-clang}
BUILD=${FUZZ_BUILD:-$PWD/fuz-build}
JOBS=${FUZZ_JOBS:-2}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all"

case $FUZZ_SECONDS in
'' | *[!0-9]*)
	echo "fuzz: FUZZ_SECONDS must be a whole number of seconds" >&2
	exit 2
	;;
esac

if ! command -v "$FUZZ_CC" >/dev/null 2>&1; then
	echo "fuzz: SKIP: $FUZZ_CC not found (libFuzzer needs clang)"
	exit 77
fi
probe=$(mktemp -d "${TMPDIR:-/tmp}/ixfuzz.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
	'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { return d && n == 0; }' \
	>"$probe/probe.c"
if ! "$FUZZ_CC" -fsanitize=fuzzer,address,undefined -o "$probe/probe" "$probe/probe.c" \
	>"$probe/log" 2>&1; then
	echo "fuzz: SKIP: $FUZZ_CC cannot link with -fsanitize=fuzzer (no libFuzzer runtime):"
	sed 's/^/  /' "$probe/log" | head -5
	exit 77
fi

# The instrumented build tree.
mkdir -p "$BUILD"
BUILD=$(cd "$BUILD" && pwd)
if [ ! -f "$BUILD/Makefile" ]; then
	echo "fuzz: configuring $BUILD"
	(cd "$BUILD" && "$top_srcdir/configure" --disable-dependency-tracking CC="$FUZZ_CC" \
		CFLAGS="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" >"$BUILD/configure.out" 2>&1) || {
		echo "fuzz: FAIL: configure failed (see $BUILD/config.log)"
		exit 1
	}
fi
echo "fuzz: building libixperf.a in $BUILD"
if ! make -s -C "$BUILD" -j"$JOBS" libixperf.a >"$BUILD/make.out" 2>&1; then
	tail -20 "$BUILD/make.out"
	echo "fuzz: FAIL: make libixperf.a"
	exit 1
fi

# Compile and link flags as the project's own programs get them.
# shellcheck disable=SC2016 # make expands these, not the shell
printf '%s\n' 'ix-fuzz-print-%:' '	@echo $($*)' \
	'IX_FUZZ_CFLAGS = $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS)' \
	'IX_FUZZ_LIBS = $(LDADD_COMMON) $(LIBS)' >"$probe/vars.mk"
vars() { make -s --no-print-directory -C "$BUILD" -f Makefile -f "$probe/vars.mk" "ix-fuzz-print-$1"; }
cflags=$(vars IX_FUZZ_CFLAGS)
libs=$(vars IX_FUZZ_LIBS)

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$top_srcdir"/tests/fuzz/fuzz_*.c; do
		n=${f##*/fuzz_}
		names+=("${n%.c}")
	done
fi

# fuzz_one NAME: builds and runs one fuzzer; its lines on stdout, 1 when it
# failed to build or found something.
fuzz_one() {
	local n=$1 src bin run extra e limit rc execs cov files kb found
	src=$top_srcdir/tests/fuzz/fuzz_$n.c
	bin=$BUILD/fuzz/fuzz_$n
	run=$BUILD/run/$n
	if [ ! -f "$src" ]; then
		echo "fuzz: $n: FAIL: no $src"
		return 1
	fi
	extra=()
	# shellcheck disable=SC2013 # the names are words
	for e in $(sed -n 's/.*IX_FUZZ_EXTRA: *//p' "$src"); do
		extra+=("$top_srcdir/$e")
	done
	# shellcheck disable=SC2086 # flag lists split on purpose
	if ! (cd "$BUILD" && "$FUZZ_CC" $cflags -fsanitize=fuzzer $SAN \
		-o "$bin" "$src" "${extra[@]}" libixperf.a $libs) >"$BUILD/fuzz/$n.build" 2>&1; then
		sed 's/^/  /' "$BUILD/fuzz/$n.build" | tail -20
		echo "fuzz: $n: FAIL: does not build"
		return 1
	fi
	rm -rf "$run"
	mkdir -p "$run/corpus" "$run/artifacts" "$run/tmp"
	if [ -d "$top_srcdir/tests/fuzz/corpus/$n" ]; then
		cp "$top_srcdir/tests/fuzz/corpus/$n"/* "$run/corpus/" 2>/dev/null || true
	fi
	# Every crash found so far is replayed first: a regression fails here.
	if [ -d "$top_srcdir/tests/fuzz/crashes/$n" ]; then
		cp "$top_srcdir/tests/fuzz/crashes/$n"/* "$run/corpus/" 2>/dev/null || true
	fi
	chmod -R u+w "$run/corpus"
	if [ "$FUZZ_SECONDS" -gt 0 ]; then
		limit=(-max_total_time="$FUZZ_SECONDS")
	else
		limit=(-runs=0)
	fi
	rc=0
	(cd "$run" && TMPDIR=$run/tmp ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0} \
		UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
		"$bin" "${limit[@]}" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$run/artifacts/" "$run/corpus" \
		>"$run/log" 2>&1) || rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$run/log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$run/log" | tail -1 | cut -d' ' -f2)
	files=$(find "$run/corpus" -type f | wc -l)
	kb=$(du -sk --apparent-size "$run/corpus" | cut -f1)
	found=$(find "$run/artifacts" -type f | head -1)
	if [ "$rc" -ne 0 ] || [ -n "$found" ]; then
		echo "fuzz: $n: FAIL: exit $rc, execs ${execs:-?}, cov ${cov:-?}, input ${found:-none}"
		grep -m1 -A12 'ERROR: \|runtime error\|==ERROR\|deadly signal' "$run/log" |
			sed 's/^/  /' || true
		echo "  log: $run/log"
		return 1
	fi
	echo "fuzz: $n: ok: execs ${execs:-?}, cov ${cov:-?}, corpus $files files ($kb KB)"
	rm -rf "$run/tmp"
}

# JOBS fuzzers at once, each for FUZZ_SECONDS; their lines in NAME order.
failed=0
mkdir -p "$BUILD/fuzz" "$BUILD/run"
for n in "${names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n || true
	done
	rm -f "$BUILD/fuzz/$n.rc"
	(
		rc=0
		fuzz_one "$n" >"$BUILD/fuzz/$n.out" 2>&1 || rc=$?
		echo "$rc" >"$BUILD/fuzz/$n.rc"
	) &
done
wait
for n in "${names[@]}"; do
	cat "$BUILD/fuzz/$n.out"
	[ "$(cat "$BUILD/fuzz/$n.rc" 2>/dev/null)" = 0 ] || failed=1
done
exit $failed
