#!/usr/bin/env bash
# The bash completion (contrib/ixperf) against the command table: every
# command, every long option of each, and the words of every option that
# takes one of a few; each row of those words names an option the command
# has. The completion asks the binary, so this runs it as a shell would.
. "${top_srcdir:-.}/tests/lib.sh"

COMP=${top_srcdir:-.}/contrib/ixperf
# shellcheck source=/dev/null
. "$COMP"

# complete WORDS...: what _ixperf offers for the last word, one per line.
complete_words() {
	COMP_WORDS=("$IXPERF" "$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_ixperf 2>/dev/null
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

mapfile -t cmds < <("$IXPERF" --list-cmds)
check "the command table lists commands (${#cmds[@]})" test "${#cmds[@]}" -gt 10
check "every command completes from an empty word" \
	test "$(complete_words "" | paste -sd' ')" = "$(printf '%s\n' "${cmds[@]}" | sort | paste -sd' ')"

missing= wrong= words=0 opts=0
for c in "${cmds[@]}"; do
	want=$("$IXPERF" help --list-opts "$c" | sort)
	got=$(complete_words "$c" --)
	opts=$((opts + $(printf '%s\n' "$want" | grep -c .)))
	[ "$got" = "$want" ] || missing="$missing $c"
	while read -r opt vals; do
		[ -n "$opt" ] || continue
		words=$((words + 1))
		grep -qx -- "$opt" <<<"$want" || wrong="$wrong $c:$opt(not an option)"
		got=$(complete_words "$c" "$opt" "" | paste -sd' ')
		exp=$(printf '%s\n' $vals | sort | paste -sd' ')
		[ "$got" = "$exp" ] || wrong="$wrong $c:$opt(got '$got')"
	done < <("$IXPERF" help --list-values "$c")
done
check "every command completes every one of its long options ($opts in all)${missing:+; not:$missing}" \
	test -z "$missing"
check "every option with a few words completes exactly them ($words options)${wrong:+; not:$wrong}" \
	test -z "$wrong"
check "bw --path offers pcie as well as the network paths" \
	test "$(complete_words bw --path "" | paste -sd' ')" = "pcie rdma tcp udp"
check "lat --path does not offer pcie (lat refuses it)" \
	test "$(complete_words lat --path "" | paste -sd' ')" = "rdma tcp udp"
check "post -f offers textfile" grep -qx textfile <(complete_words post -f "")
gputests=$({ "$IXPERF" gpu list | awk 'NF && $1 != "Groups:" {print $1}'
	"$IXPERF" gpu list | sed -n 's/^Groups: //p' | sed 's/ ([^)]*)//g' | tr -d ',' | tr ' ' '\n'; } |
	sort | paste -sd' ')
check "gpu --test completes the tests and groups of 'gpu list', host_to_all_memcpy_ce among them" \
	test "$(complete_words gpu --test "" | paste -sd' ')" = "$gputests" -a \
	-n "$(complete_words gpu --test host_to_all)"
subs=$("$IXPERF" gpu --help | sed -n '1s/^usage: ixperf gpu \[\([a-z|]*\)\].*/\1/p' | tr '|' '\n' | sort | paste -sd' ')
check "gpu completes its subcommands ($subs)" test -n "$subs" -a "$(complete_words gpu "" | paste -sd' ')" = "$subs"
ix_done
