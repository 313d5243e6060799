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

# documents PAGE OPTION: the man page names OPTION whole, as roff writes it
# (\-\-time, \fB\-\-time\fR, \-\-time=N) or plain (--time): --timeout or
# \-\-time\-zone do not count for --time.
documents() {
	local roff=${2//-/\\\\-}
	grep -qE -- "(^|[^-])$roff(\$|[^-A-Za-z0-9_\\]|\\\\[^-])" "$1" ||
		grep -qE -- "(^|[^-])$2(\$|[^-A-Za-z0-9_])" "$1"
}

# The man page check itself, on a small page that names --time only as a
# prefix of longer options, and on the ways a page does name it.
printf '%s\n' '.TH FAKE 1' '.B \-\-timeout' '\fB\-\-time\-zone\fR' 'see --timer' >"$IX_TMP/fake.1"
undocumented() { ! documents "$@"; }
check "the man page check does not take --timeout or --time-zone for --time" \
	undocumented "$IX_TMP/fake.1" --time
for form in '.B \-\-time' '.BR \-\-time ,' '\fB\-\-time\fR' '\-\-time=\fIN\fR' '--time' '(--time)'; do
	printf '%s\n' '.TH FAKE 1' "$form" >"$IX_TMP/fake.1"
	check "the man page check finds --time in '$form'" documents "$IX_TMP/fake.1" --time
done

for cmd in $("$IXPERF" --list-cmds); do
	check "ixperf $cmd --help exits 0" bash -c "'$IXPERF' $cmd --help >/dev/null"
	check "ixperf help $cmd matches ixperf $cmd --help" \
		bash -c "diff <('$IXPERF' help $cmd) <('$IXPERF' $cmd --help) >/dev/null"
	check "ixperf-$cmd has a man page" test -f "${top_srcdir:-.}/man/ixperf-$cmd.1"
	for opt in $("$IXPERF" help --list-opts "$cmd"); do
		documents "${top_srcdir:-.}/man/ixperf-$cmd.1" "$opt" ||
			not_ok "man page ixperf-$cmd.1 does not document $opt"
	done
done
check "ixperf.1 exists" test -f "${top_srcdir:-.}/man/ixperf.1"
# Every file in cmd/ but the shared ones has a page: a command's section 1,
# or a section 5/7 page for what several commands share (rdma, launch).
for f in "${top_srcdir:-.}"/cmd/*.c; do
	name=$(basename "$f" .c)
	case $name in common | main) continue ;; esac
	check "cmd/$name.c has a man page" \
		bash -c "ls '${top_srcdir:-.}'/man/ixperf-$name.[157] >/dev/null 2>&1"
done

ix_done
