#!/usr/bin/env bash
# Style checks run by make check: formatting, banned calls, include order.
. "${top_srcdir:-.}/tests/lib.sh"
cd "${top_srcdir:-.}" || exit 99

mapfile -t sources < <(find cmd probes report tests/unit -name '*.[ch]' | sort)
mapfile -t csources < <(printf '%s\n' "${sources[@]}" | grep '\.c$')
mapfile -t headers < <(find cmd probes report -name '*.h' | sort)
mapfile -t probes < <(find probes -name '*.c' | sort)

if command -v clang-format >/dev/null; then
	bad=$(for f in "${sources[@]}"; do
		clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || echo "$f"
	done)
	check "sources follow .clang-format${bad:+ (not: $bad)}" test -z "$bad"
else
	echo "# clang-format not installed: formatting not checked"
fi

# Unbounded or unchecked calls the project does not use.
banned=$(grep -nE '\b(sprintf|vsprintf|strcpy|strcat|atoi|atol|atof|strtok|gets)\s*\(' \
	"${sources[@]}" | grep -v 'snprintf\|vsnprintf' || true)
check "no sprintf/strcpy/strcat/atoi/strtok/gets${banned:+: $banned}" test -z "$banned"

# config.h first in every .c file, never in a header.
first=$(for f in "${csources[@]}"; do
	[ "$(grep -m1 '^#include' "$f")" = '#include "config.h"' ] || echo "$f"
done)
check "config.h is the first include of every .c file${first:+ (not: $first)}" test -z "$first"
inhdr=$(grep -l '#include "config.h"' "${headers[@]}" || true)
check "no header includes config.h${inhdr:+ ($inhdr)}" test -z "$inhdr"

# Probes fill result structs and never print.
prints=$(grep -nE '\b(printf|fprintf|puts|fputs|perror)\s*\(' "${probes[@]}" | grep -v snprintf || true)
check "probes never print${prints:+: $prints}" test -z "$prints"

# Small files: none over 800 lines.
big=$(wc -l "${sources[@]}" | awk '$2 != "total" && $1 > 800 {print $2}')
check "no source file over 800 lines${big:+ ($big)}" test -z "$big"

ix_done
