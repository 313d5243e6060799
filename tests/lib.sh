# Shared helpers for the shell-driven tests (sourced, not run).
# Every process and namespace a test makes is recorded and removed on exit,
# by PID and by name, even when the test fails.

set -u
IXPERF=${IXPERF:-$(pwd)/ixperf}
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
IX_PIDS=()
IX_NETNS=()
IX_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ixperf-test.XXXXXX")
IX_PASS=0
IX_FAIL=0
IX_SKIPPED=0

ix_cleanup() {
	local pid ns
	for pid in "${IX_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${IX_PIDS[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ns in "${IX_NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	rm -rf "$IX_TMP"
}
trap ix_cleanup EXIT
trap 'exit 130' INT TERM

ok() {
	IX_PASS=$((IX_PASS + 1))
	echo "ok - $*"
}

not_ok() {
	IX_FAIL=$((IX_FAIL + 1))
	echo "not ok - $*"
}

# check DESCRIPTION COMMAND...: passes when the command succeeds; its
# status is the command's, so 'check ... || diagnostics' shows them.
check() {
	local desc=$1
	shift
	if "$@"; then
		ok "$desc"
	else
		not_ok "$desc"
		return 1
	fi
}

# skip_check DESCRIPTION REASON: a check that cannot run here for want of an
# optional package, counted and said as a TAP skip. Under IX_CI=1 it is a
# failure: CI installs every package contrib/setup.sh names.
skip_check() {
	if [ "${IX_CI:-0}" = 1 ]; then
		not_ok "$1 (IX_CI=1, but $2)"
		return
	fi
	IX_SKIPPED=$((IX_SKIPPED + 1))
	echo "ok - $1 # SKIP $2"
}

# Print the closing line and exit with the right status.
ix_done() {
	echo "$IX_PASS passed, $IX_FAIL failed, $IX_SKIPPED skipped in ${SECONDS} s"
	[ "$IX_FAIL" -eq 0 ]
	exit $?
}

# ix_skip REASON: the whole file cannot run here. Under IX_CI=1 a failure:
# CI runs as root with every package contrib/setup.sh names, on a kernel
# with namespaces, veth, bridges and tbf, so a skip there hides a lost
# check. A bounded target that asks for skips (IX_SKIP_NETNS=1 in the
# sanitizer and TSan trees, IX_SKIP_VM) keeps them.
ix_skip() {
	if [ "${IX_CI:-0}" = 1 ] && [ "${IX_SKIP_NETNS:-0}" != 1 ] && [ -z "${IX_SKIP_VM:-}" ]; then
		echo "not ok - IX_CI=1, but the test would skip: $*"
		exit 1
	fi
	echo "SKIP: $*"
	exit 77
}

# ix_need REASON: a package the test needs is missing: a skip, but under
# IX_CI=1 a failure (CI installs every package contrib/setup.sh names).
ix_need() {
	[ "${IX_CI:-0}" = 1 ] && { echo "not ok - IX_CI=1, but $*"; exit 1; }
	ix_skip "$@"
}

# ix_server NAME [ARGS...]: start a server on a free port in the background
# (prefix with IX_NS=namespace to run it there). Sets IX_PORT and IX_SPID.
ix_server() {
	local name=$1 out
	shift
	out="$IX_TMP/$name.out"
	if [ -n "${IX_NS:-}" ]; then
		ip netns exec "$IX_NS" "$IXPERF" server -p 0 "$@" >"$out" 2>"$IX_TMP/$name.err" &
	else
		"$IXPERF" server -p 0 "$@" >"$out" 2>"$IX_TMP/$name.err" &
	fi
	IX_SPID=$!
	IX_PIDS+=("$IX_SPID")
	IX_PORT=$(ix_wait_port "$out" "$IX_SPID") && return 0
	echo "server $name did not start:" >&2
	cat "$IX_TMP/$name.err" >&2
	return 1
}

# ix_wait_port FILE PID: print the port from PID's "listening on port N"
# line in FILE once it appears (20 s at most: a cap, not a measurement, so
# a sanitizer's build on a loaded machine has room); fails when PID dies
# first.
ix_wait_port() {
	local port
	for _ in $(seq 1 400); do
		port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$1")
		[ -n "$port" ] && { echo "$port"; return 0; }
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# ix_wait_for SECONDS COMMAND...: poll COMMAND every 50 ms until it
# succeeds; fails after SECONDS. Tests wait for the event they need (a log
# line, a file, a count) instead of sleeping for a guess at its time.
ix_wait_for() {
	local n=$(($1 * 20))
	shift
	for _ in $(seq 1 "$n"); do
		"$@" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "  waited in vain for: $*" >&2
	return 1
}

# ix_signal_wait SIGNAL PID WAITED: send SIGNAL to PID, then wait for the
# background job WAITED (PID itself, or a client of it); IX_RC is its exit
# status and IX_TOOK the seconds from the signal to its end.
ix_signal_wait() {
	local start
	start=$(date +%s.%N)
	kill "-$1" "$2"
	wait "$3"
	IX_RC=$?
	IX_TOOK=$(echo "$(date +%s.%N) - $start" | bc)
}

# ix_wait_log FILE REGEX [SECONDS]: wait (20 s by default) until a line of
# FILE matches REGEX (grep -E), e.g. the agent's "bw test over tcp" line
# that says a test holds its slot.
ix_wait_log() {
	ix_wait_for "${3:-20}" grep -qE "$2" "$1"
}

# jq_eq FILE FILTER EXPECTED
jq_eq() {
	local got
	got=$(jq -r "$2" "$1" 2>/dev/null)
	if [ "$got" = "$3" ]; then return 0; fi
	echo "  $2 = '$got', expected '$3'" >&2
	return 1
}

# jq_true FILE FILTER: the filter evaluates to true.
jq_true() {
	jq_eq "$1" "$2" true
}

# schema_check FILE: one check that FILE validates against the JSON schema
# (a skip when python3-jsonschema is missing, a failure then under IX_CI=1).
schema_check() {
	local schema="${top_srcdir:-.}/report/json/ixperf-result.schema.json"
	local desc
	desc="$(basename "$1") validates against the schema"
	if ! /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		skip_check "$desc" "python3-jsonschema is not installed"
		return 0
	fi
	check "$desc" /usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.validate(json.load(open(sys.argv[2])), schema,
                    cls=jsonschema.validators.validator_for(schema))' "$schema" "$1"
}

# ix_fabric PREFIX N [MTU]: N hosts on one switch. Host i lives in network
# namespace ${PREFIX}h$i with address 198.18.0.$i/24 (RFC 2544 benchmarking
# range) on its eth0; the switch is a bridge in ${PREFIX}sw whose port
# towards host i is swp$i (shape it with tc -n ${PREFIX}sw ... dev swp$i).
# Every namespace is removed on exit. Skips the test where that is impossible.
ix_fabric() {
	local prefix=$1 n=$2 mtu=${3:-1500} i sw=${1}sw
	[ "$(id -u)" = 0 ] || ix_skip "needs root to create network namespaces (CI runs as root)"
	command -v ip >/dev/null && command -v tc >/dev/null || ix_skip "iproute2 (ip, tc) is not installed"
	ip netns add "$sw" 2>/dev/null || ix_skip "cannot create network namespaces here"
	IX_NETNS+=("$sw")
	ip -n "$sw" link add br0 type bridge 2>/dev/null || ix_skip "bridges are not available in this kernel"
	ip -n "$sw" link set dev br0 mtu "$mtu" up
	for ((i = 1; i <= n; i++)); do
		ip netns add "${prefix}h$i" || return 1
		IX_NETNS+=("${prefix}h$i")
		ip link add eth0 netns "${prefix}h$i" type veth peer name "swp$i" netns "$sw" ||
			ix_skip "veth is not available in this kernel"
		ip -n "$sw" link set dev "swp$i" mtu "$mtu" master br0 up
		ip -n "${prefix}h$i" link set dev lo up
		ip -n "${prefix}h$i" link set dev eth0 mtu "$mtu" up
		ip -n "${prefix}h$i" addr add "198.18.0.$i/24" dev eth0
	done
}

# ix_two_leaves PREFIX UPLINK_TBF HOST_TBF: four hosts under two leaf
# switches, bridges in namespaces ${PREFIX}la and ${PREFIX}lb joined by one
# uplink veth (up0 at both ends); hosts 1 and 2 hang off leaf a, 3 and 4 off
# leaf b. Host i lives in ${PREFIX}h$i with 198.18.0.$i/24 on its eth0,
# cabled to its leaf's port swp$i. Both ends of the uplink are shaped with
# tbf UPLINK_TBF ("rate 100mbit burst 32kb"), both ends of every host's
# cable with tbf HOST_TBF, each with a 20 ms queue. Every namespace is
# removed on exit; skips the test where that is impossible.
ix_two_leaves() {
	local p=$1 up=$2 host=$3 leaf=(a a b b) l i
	for l in a b; do
		ip netns add "${p}l$l" 2>/dev/null || ix_skip "cannot create network namespaces here"
		IX_NETNS+=("${p}l$l")
		ip -n "${p}l$l" link add br0 type bridge || ix_skip "bridges are not available in this kernel"
		ip -n "${p}l$l" link set dev br0 up
		ip -n "${p}l$l" link set dev lo up
	done
	ip link add up0 netns "${p}la" type veth peer name up0 netns "${p}lb" || ix_skip "no veth"
	for l in a b; do
		ip -n "${p}l$l" link set dev up0 master br0 up
		# shellcheck disable=SC2086 # the tbf's parameters, word by word
		tc -n "${p}l$l" qdisc add dev up0 root tbf $up latency 20ms || ix_skip "no tbf"
	done
	for i in 1 2 3 4; do
		l=${leaf[i - 1]}
		ip netns add "${p}h$i" || return 1
		IX_NETNS+=("${p}h$i")
		ip link add eth0 netns "${p}h$i" type veth peer name "swp$i" netns "${p}l$l"
		ip -n "${p}l$l" link set dev "swp$i" master br0 up
		ip -n "${p}h$i" link set dev lo up
		ip -n "${p}h$i" link set dev eth0 up
		ip -n "${p}h$i" addr add "198.18.0.$i/24" dev eth0
		# shellcheck disable=SC2086
		tc -n "${p}h$i" qdisc add dev eth0 root tbf $host latency 20ms
		# shellcheck disable=SC2086
		tc -n "${p}l$l" qdisc add dev "swp$i" root tbf $host latency 20ms
	done
}

# ix_lldp_two_leaves PREFIX: an lldpd of its own in every namespace of
# ix_two_leaves PREFIX's fabric, leaf a and b announcing system names
# leaf-a and leaf-b, host i hosti; each one's control socket is
# $IX_TMP/lldp/NAME.sock (an agent reads its host's with
# IXPERF_LLDPD_SOCKET) and its PID is in IX_LLDP_PIDS. Then waits, 10 s at
# most, until every host sees its leaf (the leaves announce themselves
# again every 2 s meanwhile: a host's lldpd that came up late hears them):
# IX_LLDP_SEEN says how many do.
# lldpcli drops to lldpd's user: the directory must let it through.
IX_LLDP_PIDS=()
IX_LLDP_SEEN=0
ix_lldpd_in() { # NS NAME IFACES
	local d=$IX_TMP/lldp
	ip netns exec "$1" lldpd -d -u "$d/$2.sock" -I "$3" >"$IX_TMP/lldpd-$2.log" 2>&1 &
	IX_PIDS+=("$!")
	IX_LLDP_PIDS+=("$!")
	for _ in $(seq 1 50); do
		[ -S "$d/$2.sock" ] && break
		sleep 0.1
	done
	ip netns exec "$1" lldpcli -u "$d/$2.sock" configure system hostname "$2" >/dev/null
}
ix_lldp_two_leaves() {
	local p=$1 leaf=(a a b b) l i k
	mkdir -m 755 "$IX_TMP/lldp"
	chmod 711 "$IX_TMP"
	for l in a b; do ix_lldpd_in "${p}l$l" "leaf-$l" 'swp*,up0'; done
	for i in 1 2 3 4; do ix_lldpd_in "${p}h$i" "host$i" eth0; done
	for k in $(seq 0 99); do
		if [ $((k % 20)) = 0 ]; then
			for l in a b; do
				ip netns exec "${p}l$l" lldpcli -u "$IX_TMP/lldp/leaf-$l.sock" update >/dev/null
			done
		fi
		IX_LLDP_SEEN=0
		for i in 1 2 3 4; do
			ip netns exec "${p}h$i" lldpcli -u "$IX_TMP/lldp/host$i.sock" -f keyvalue show neighbors 2>/dev/null |
				grep -q "chassis.name=leaf-${leaf[i - 1]}\$" && IX_LLDP_SEEN=$((IX_LLDP_SEEN + 1))
		done
		[ "$IX_LLDP_SEEN" = 4 ] && break
		sleep 0.1
	done
}

command -v jq >/dev/null || ix_skip "jq is not installed (contrib/setup.sh installs it)"
[ -x "$IXPERF" ] || { echo "ixperf binary not found at $IXPERF" >&2; exit 99; }
