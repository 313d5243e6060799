#!/usr/bin/env bash
# The tree's layering, checked over the #include lines. Every subsystem
# folder under probes/ and report/ has a README whose "May include:" line
# lists the folders its files may include; a file may always include its
# own folder, cmd/ may include anything, nothing includes cmd/. The
# folders' allowed edges must form no cycle, and no two files (or longer
# chains) may include each other's headers.
. "${top_srcdir:-.}/tests/lib.sh"

# allowed ROOT DIR: the folders DIR's README allows, one a line.
allowed() {
	awk '/^May include:/ { on = 1; sub(/^May include:/, "") }
	     on && /^[[:space:]]*$/ { exit }
	     on { gsub(/,/, " ")
		  for (i = 1; i <= NF; i++)
			  if ($i ~ /^(probes|report)\/[a-z_]+$/) print $i }' "$1/$2/README"
}

# includes FILE: the project headers FILE includes ("config.h" aside).
includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1" |
		grep -v '^config\.h$'
}

# violations ROOT: one line per problem; nothing when the tree is clean.
violations() (
	cd "$1" || exit 1
	local d f inc t mods folders
	mapfile -t folders < <(ls -d probes/*/ report/*/ 2>/dev/null | sed 's#/$##')
	for f in probes/*.[ch] report/*.[ch]; do
		[ -e "$f" ] && echo "$f: not in a subsystem folder"
	done
	declare -A ok=()
	for d in "${folders[@]}"; do
		if [ ! -f "$d/README" ] || ! grep -q '^May include:' "$d/README"; then
			echo "$d: no README with a 'May include:' line"
			continue
		fi
		while read -r t; do
			[ -d "$t" ] || echo "$d/README: may include $t, which does not exist"
			ok["$d $t"]=1
			echo "$d $t" >>"$IX_TMP/folder-edges"
		done < <(allowed . "$d")
	done
	touch "$IX_TMP/folder-edges" "$IX_TMP/file-edges"
	for f in $(find cmd probes report -name '*.[ch]' 2>/dev/null | sort); do
		d=$(dirname "$f")
		while read -r inc; do
			[ -n "$inc" ] || continue
			t=$(dirname "$inc")
			if [ ! -f "$inc" ]; then
				echo "$f: includes $inc, which does not exist"
				continue
			fi
			[ "${inc%.h}" = "${f%.[ch]}" ] || echo "${f%.[ch]} ${inc%.h}" >>"$IX_TMP/file-edges"
			[ "$t" = "$d" ] && continue
			case "$d" in cmd) continue ;; esac
			case "$t" in
			cmd) echo "$f: includes $inc: nothing outside cmd/ includes cmd/ (upward)" ;;
			report/*)
				case "$d" in probes/*) echo "$f: includes $inc: probes/ never includes report/ (upward)" ;;
				*) [ -n "${ok["$d $t"]:-}" ] || echo "$f: includes $inc: $d/README does not allow $t" ;; esac
				;;
			*) [ -n "${ok["$d $t"]:-}" ] || echo "$f: includes $inc: $d/README does not allow $t" ;;
			esac
		done < <(includes "$f")
	done
	tsort "$IX_TMP/folder-edges" >/dev/null 2>"$IX_TMP/tsort" ||
		echo "the folders' READMEs allow a cycle: $(grep -v 'input contains a loop' "$IX_TMP/tsort" | sed 's/^tsort: //' | tr '\n' ' ')"
	tsort "$IX_TMP/file-edges" >/dev/null 2>"$IX_TMP/tsort" ||
		echo "files include each other: $(grep -v 'input contains a loop' "$IX_TMP/tsort" | sed 's/^tsort: //' | tr '\n' ' ')"
	rm -f "$IX_TMP/folder-edges" "$IX_TMP/file-edges" "$IX_TMP/tsort"
)

# The checker itself, on a small tree with one of each mistake.
mk() {
	mkdir -p "$(dirname "$IX_TMP/tree/$1")"
	printf '%s\n' "${@:2}" >"$IX_TMP/tree/$1"
}
mk probes/low/README 'probes/low: the bottom.' '' 'May include: nothing of the project.'
mk probes/high/README 'probes/high: above low.' '' 'May include: probes/low'
mk report/out/README 'report/out.' '' 'May include: probes/high,' 'probes/low'
mk cmd/main.c '#include "config.h"' '#include "report/out/r.h"' '#include "probes/low/a.h"'
mk probes/low/a.h '/* a */'
mk probes/low/a.c '#include "config.h"' '#include "probes/low/a.h"' '#include "probes/high/b.h"'
mk probes/high/b.h '#include "probes/low/a.h"'
mk probes/high/b.c '#include "probes/high/b.h"' '#include "report/out/r.h"'
mk probes/high/p.h '/* p */'
mk probes/high/q.h '/* q */'
mk probes/high/p.c '#include "probes/high/q.h"'
mk probes/high/q.c '#include "probes/high/p.h"'
mk cmd/cmd.h "/* cmd */"
mk report/out/r.h '#include "probes/high/b.h"' '#include "cmd/cmd.h"'
mk report/out/r.c '#include "report/out/r.h"' '#include "probes/low/a.h"'
mk probes/loose.c '/* loose */'
mk probes/bare/x.h '/* no README */'
out=$(violations "$IX_TMP/tree")
echo "$out" | sed 's/^/# checker on a bad tree: /'
check "the checker names an include across a forbidden edge" \
	grep -q '^probes/low/a.c: includes probes/high/b.h: probes/low/README does not allow probes/high' <<<"$out"
check "the checker names probes/ including report/ as upward" \
	grep -q '^probes/high/b.c: includes report/out/r.h: probes/ never includes report/ (upward)' <<<"$out"
check "the checker names an include of cmd/ as upward" \
	grep -q '^report/out/r.h: includes cmd/cmd.h: nothing outside cmd/' <<<"$out"
check "the checker finds two files that include each other" \
	grep -Eq '^files include each other: .*probes/high/(p|q) .*probes/high/(p|q)' <<<"$out"
check "the checker finds a file outside the subsystem folders" \
	grep -q '^probes/loose.c: not in a subsystem folder' <<<"$out"
check "the checker finds a folder without a README" \
	grep -q "^probes/bare: no README" <<<"$out"
check "the checker passes the allowed includes (cmd/, report/ -> probes/, own folder)" \
	test -z "$(grep -E '^(cmd/main.c|report/out/r.c)' <<<"$out")"
mk probes/low/README 'probes/low.' '' 'May include: probes/high'
check "the checker finds READMEs that allow a cycle" \
	grep -q '^the folders. READMEs allow a cycle' <<<"$(violations "$IX_TMP/tree")"

# The real tree.
cd "$top_srcdir" || exit 99
out=$(violations .)
[ -z "$out" ] || echo "$out" | sed 's/^/# /'
check "every include follows the folders' READMEs, with no cycle" test -z "$out"
n=$(ls -d probes/*/ report/*/ | wc -l)
check "probes/ and report/ are organised in subsystem folders ($n)" test "$n" -ge 10

ix_done
