#!/usr/bin/env bash
# Data-driven CLI cases: each file in tests/cli/cases holds
#   args:   the command line after "ixperf" (split on spaces)
#   exit:   the expected exit code
#   stdout: a substring stdout must contain (optional, repeatable)
#   stderr: a substring stderr must contain (optional, repeatable)
#   nostdout: yes when stdout must stay empty
# Then the commands themselves: every command answers --help with exit 0
# and has a man page.
. "${top_srcdir:-.}/tests/lib.sh"

cases="${top_srcdir:-.}/tests/cli/cases"
for f in "$cases"/*; do
	name=$(basename "$f")
	args=$(sed -n 's/^args: *//p' "$f")
	args=${args//@SRC@/${top_srcdir:-.}}
	want=$(sed -n 's/^exit: *//p' "$f")
	# shellcheck disable=SC2086
	timeout 20 "$IXPERF" $args >"$IX_TMP/out" 2>"$IX_TMP/err"
	got=$?
	bad=
	[ "$got" = "$want" ] || bad="exit $got, expected $want"
	while IFS= read -r s; do
		grep -qF -- "$s" "$IX_TMP/out" || bad="$bad; stdout lacks '$s'"
	done < <(sed -n 's/^stdout: *//p' "$f")
	while IFS= read -r s; do
		grep -qF -- "$s" "$IX_TMP/err" || bad="$bad; stderr lacks '$s'"
	done < <(sed -n 's/^stderr: *//p' "$f")
	if grep -q '^nostdout: *yes' "$f" && [ -s "$IX_TMP/out" ]; then
		bad="$bad; stdout is not empty"
	fi
	if [ -z "$bad" ]; then
		ok "$name: ixperf $args"
	else
		not_ok "$name: ixperf $args: $bad"
		sed 's/^/    stderr: /' "$IX_TMP/err" | head -5
	fi
done

for cmd in $("$IXPERF" --list-cmds); do
	check "ixperf $cmd --help exits 0" bash -c "'$IXPERF' $cmd --help >/dev/null"
	check "ixperf help $cmd matches ixperf $cmd --help" \
		bash -c "diff <('$IXPERF' help $cmd) <('$IXPERF' $cmd --help) >/dev/null"
	check "ixperf-$cmd has a man page" test -f "${top_srcdir:-.}/man/ixperf-$cmd.1"
	for opt in $("$IXPERF" help --list-opts "$cmd"); do
		grep -q -- "${opt//-/\\\\-}" "${top_srcdir:-.}/man/ixperf-$cmd.1" ||
			grep -q -- "$opt" "${top_srcdir:-.}/man/ixperf-$cmd.1" ||
			not_ok "man page ixperf-$cmd.1 does not document $opt"
	done
done
check "ixperf.1 exists" test -f "${top_srcdir:-.}/man/ixperf.1"
# Every file in cmd/ but the shared ones has a page: a command's section 1,
# or a section 5/7 page for what several commands share (plan, rdma).
for f in "${top_srcdir:-.}"/cmd/*.c; do
	name=$(basename "$f" .c)
	case $name in common | main) continue ;; esac
	check "cmd/$name.c has a man page" \
		bash -c "ls '${top_srcdir:-.}'/man/ixperf-$name.[157] >/dev/null 2>&1"
done

ix_done
