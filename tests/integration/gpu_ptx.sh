#!/bin/sh
# The PTX the CUDA backend embeds (probes/gpu/ptx.c, printed by
# tests/tools/gpuptx) must assemble with ptxas for every GPU generation it
# targets (sm_70, sm_80, sm_90, and the newer ones this ptxas knows), and
# each kernel the backend looks up must be an entry of the module. Needs a
# CUDA toolkit (ptxas), not a GPU; skips without one. Architectures a
# toolkit no longer generates code for (CUDA 13 dropped sm_70) are noted
# and left out; at least one must assemble.
set -u

GPUPTX=${GPUPTX:-$(pwd)/tests/tools/gpuptx}
PTXAS=${PTXAS:-}
if [ -z "$PTXAS" ]; then
	if [ -x /usr/local/cuda/bin/ptxas ]; then
		PTXAS=/usr/local/cuda/bin/ptxas
	else
		PTXAS=$(command -v ptxas || true)
	fi
fi
if [ -z "$PTXAS" ]; then
	echo "SKIP: ptxas not found (no CUDA toolkit in /usr/local/cuda or on PATH)"
	exit 77
fi
[ -x "$GPUPTX" ] || { echo "tests/tools/gpuptx is not built ($GPUPTX)" >&2; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ixperf-ptx.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok - $*"; }
not_ok() { fail=$((fail + 1)); echo "not ok - $*"; }

echo "# $PTXAS: $("$PTXAS" --version 2>&1 | grep -i release)"
if ! "$GPUPTX" >"$tmp/ix.ptx" || ! "$GPUPTX" --entries >"$tmp/entries"; then
	echo "gpuptx failed" >&2
	exit 99
fi
if grep -q '^\.target sm_70$' "$tmp/ix.ptx"; then
	ok "the module targets sm_70, so drivers JIT it for every later GPU"
else
	not_ok "the module targets sm_70"
fi

built=0
names=$(tr '\n' ' ' <"$tmp/entries")
for arch in sm_70 sm_75 sm_80 sm_90 sm_100 sm_120; do
	log=$tmp/$arch.log
	if "$PTXAS" -arch="$arch" -v -o "$tmp/$arch.cubin" "$tmp/ix.ptx" >"$log" 2>&1; then
		missing=
		while read -r entry; do
			grep -q "Compiling entry function '$entry' for '$arch'" "$log" ||
				missing="$missing $entry"
		done <"$tmp/entries"
		if [ -z "$missing" ]; then
			ok "ptxas -arch=$arch assembles every entry (${names% })"
			built=$((built + 1))
		else
			not_ok "ptxas -arch=$arch: entries missing:$missing"
		fi
		grep -i 'warning' "$log" | sed 's/^/# /'
	elif grep -q "is not defined for option 'gpu-name'" "$log"; then
		echo "# this ptxas does not generate code for $arch: left out"
	else
		not_ok "ptxas -arch=$arch fails"
		sed 's/^/#   /' "$log"
	fi
done
if [ "$built" -gt 0 ]; then
	ok "assembled for $built architectures"
else
	not_ok "assembled for no architecture"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
