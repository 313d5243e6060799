#!/usr/bin/env bash
# Set up a fresh Debian or Ubuntu machine for ixperf, build it, then run the
# main job or the whole test suite.
#
#   contrib/setup.sh run    install, build, measure loopback bandwidth and latency
#   contrib/setup.sh test   install, build, make check (+ sanitizer pass), show logs
#   contrib/setup.sh deps   only install the Debian packages
#   contrib/setup.sh build  install and build into _build/
set -euo pipefail
cd "$(dirname "$0")/.."
top=$(pwd)

PKGS=(build-essential autoconf automake libtool pkg-config
	libjansson-dev libibverbs-dev libpcap-dev libncurses-dev libcurl4-openssl-dev
	libinih-dev libcriterion-dev libssl-dev
	iproute2 jq bc clang-format procps python3-jsonschema)

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

# The main job until 'ixperf run' exists: a loopback bandwidth and latency
# measurement against a server ixperf starts for the purpose and stops after.
SERVER_PID=
SERVER_OUT=
stop_server() {
	[ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
	[ -n "$SERVER_OUT" ] && rm -f "$SERVER_OUT" "$SERVER_OUT.log"
	return 0
}

run_main() {
	local bin=$top/_build/ixperf out port rc=0
	build
	out=$(mktemp)
	SERVER_OUT=$out
	trap stop_server EXIT
	"$bin" server -p 0 -q >"$out" 2>"$out.log" &
	SERVER_PID=$!
	for _ in $(seq 1 100); do
		port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$out")
		[ -n "$port" ] && break
		sleep 0.05
	done
	[ -n "$port" ] || { echo "setup: the server did not start" >&2; exit 1; }
	"$bin" bw -t 5 -p "$port" 127.0.0.1 || rc=$?
	echo
	"$bin" bw --path udp -b 1G -t 3 -p "$port" 127.0.0.1 || rc=$?
	echo
	"$bin" lat -t 2 -p "$port" 127.0.0.1 || rc=$?
	echo
	"$bin" lat --path udp -t 2 -p "$port" 127.0.0.1 || rc=$?
	return "$rc"
}

show_logs() {
	# Criterion prints its summary on stderr; automake keeps it in the .log files.
	find _build/tests -name '*.log' | sort | while read -r log; do
		echo "===== ${log#_build/} ====="
		cat "$log"
	done
}

run_tests() {
	local rc=0
	build
	make -C _build check || rc=$?
	show_logs
	[ "$rc" = 0 ] || { echo "setup: make check failed"; exit "$rc"; }
	echo "===== AddressSanitizer + UndefinedBehaviorSanitizer pass ====="
	make -C _build check-sanitize || rc=$?
	find _build/san-build/tests -name '*.log' | sort | while read -r log; do
		echo "===== sanitizers: ${log#_build/san-build/} ====="
		cat "$log"
	done
	return "$rc"
}

case "${1:-run}" in
deps) deps ;;
build) build ;;
run) run_main ;;
test) run_tests ;;
*)
	echo "usage: contrib/setup.sh [run|test|deps|build]" >&2
	exit 2
	;;
esac
