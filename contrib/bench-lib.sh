# Shared by the contrib/bench-*.sh scripts (sourced, not run).

# bench_peak_fds PID NAME: wait until PID ends and print the most
# descriptors the process NAME it started (itself, or below a wrapper such
# as time or timeout) held at once, sampled every 50 ms.
bench_peak_fds() {
	local c n peak=0
	while kill -0 "$1" 2>/dev/null; do
		c=$1
		while [ -n "$c" ] && [ "$(cat "/proc/$c/comm" 2>/dev/null)" != "$2" ]; do
			c=$(pgrep -P "$c" | head -1 || true)
		done
		if [ -n "$c" ]; then
			n=$(find "/proc/$c/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l || true)
			[ "$n" -gt "$peak" ] && peak=$n
		fi
		sleep 0.05
	done
	echo "$peak"
}
