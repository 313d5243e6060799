#!/usr/bin/env bash
# ixperf gpu end to end without a GPU: no backend, a missing library, the
# CUDA toolkit's stub, a library that is not a driver (exit 3 and the reason
# on one line, nothing on stdout, JSON or not); bad options (exit 2 naming
# the option); help and the test list; the IPC test's second process spoken
# to over its socket. On a machine with a GPU, a short real run whose JSON
# must validate against the schema.
. "${top_srcdir:-.}/tests/lib.sh"

G=$IX_TMP

# run NAME ARGS...: ixperf ARGS with stdout in $G/NAME.out, stderr in
# $G/NAME.err, the exit status in RC.
run() {
	local name=$1
	shift
	timeout 60 "$IXPERF" "$@" </dev/null >"$G/$name.out" 2>"$G/$name.err"
	RC=$?
}

# expect NAME RC TEXT: the exit status was RC and stderr holds TEXT.
expect() {
	if [ "$RC" = "$2" ] && grep -qF -- "$3" "$G/$1.err"; then
		return 0
	fi
	echo "  exit $RC, stderr: $(head -c 400 "$G/$1.err")" >&2
	return 1
}

# one_line NAME: stderr is one line and stdout is empty.
one_line() {
	[ "$(wc -l <"$G/$1.err")" -eq 1 ] && [ ! -s "$G/$1.out" ]
}

# --- help and the list, which need no GPU ----------------------------------
run help gpu --help
check "gpu --help exits 0 with the usage" \
	bash -c "[ $RC = 0 ] && grep -q 'usage: ixperf gpu' '$G/help.out'"
run list gpu list
check "gpu list names every test (nvbandwidth's names) and the groups" \
	bash -c "[ $RC = 0 ] && [ \$(grep -c '_ce \|_sm \|device_local_copy' '$G/list.out') -ge 25 ] &&
		grep -q '^device_to_device_through_host_memcpy_ce ' '$G/list.out' &&
		grep -q '^ipc_memcpy_ce ' '$G/list.out' && grep -q '^Groups: all' '$G/list.out'"

# --- no backend: exit 3, one line per backend tried -------------------------
run none gpu --lib "$G/no-such-lib.so"
check "no backend opens: exit 3, the reason of each backend on one line" \
	expect none 3 "ixperf gpu: no GPU backend available (cuda: $G/no-such-lib.so"
check "no backend: rocm's reason too" grep -qF "; rocm: $G/no-such-lib.so" "$G/none.err"
check "no backend: one line on stderr, nothing on stdout" one_line none
run nonejson gpu --json --lib "$G/no-such-lib.so"
check "no backend with --json: exit 3, a document saying why on stdout, the reason on stderr" \
	bash -c "[ $RC = 3 ] && jq -e '.complete == false and .results == [] and (.error | test(\"no GPU backend\"))' '$G/nonejson.out' >/dev/null && grep -q 'no GPU backend' '$G/nonejson.err'"
schema_check "$G/nonejson.out"
run noneinv gpu inventory --lib "$G/no-such-lib.so"
check "no backend: inventory exits 3 as well" expect noneinv 3 "no GPU backend available"

if "$IXPERF" gpu inventory >/dev/null 2>&1; then
	HAVE_GPU=1
	echo "# this machine has a GPU backend: plain 'ixperf gpu' is checked by the short run below"
else
	HAVE_GPU=
	run plain gpu
	check "plain 'ixperf gpu' here: exit 3 naming libcuda.so.1 and libamdhip64.so" \
		bash -c "[ $RC = 3 ] && grep -q 'cuda: .*libcuda\.so\.1' '$G/plain.err' &&
			grep -q 'rocm: .*libamdhip64\.so' '$G/plain.err'"
	check "plain 'ixperf gpu': one line, nothing on stdout" one_line plain
fi

# --- one backend, a library that is missing or not a driver -----------------
run missing gpu --backend cuda --lib /nonexistent/libcuda.so.1
check "--backend cuda --lib /nonexistent: exit 3 naming the library" \
	expect missing 3 "/nonexistent/libcuda.so.1"
check "--lib /nonexistent: only the cuda backend was tried" \
	bash -c "! grep -q rocm '$G/missing.err'"
run missingrocm gpu --backend rocm --lib /nonexistent/libamdhip64.so
check "--backend rocm --lib /nonexistent: exit 3 naming the library" \
	expect missingrocm 3 "/nonexistent/libamdhip64.so"
libm=$(ldconfig -p 2>/dev/null | sed -n 's/.*libm\.so\.6 .*=> //p' | head -1)
if [ -n "$libm" ]; then
	run notdriver gpu --backend cuda --lib "$libm"
	check "a library that is not the driver: exit 3 saying so ($libm)" expect notdriver 3 "$libm"
fi
stub=
for s in /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda*/lib64/stubs/libcuda.so \
	/usr/local/cuda*/targets/*/lib/stubs/libcuda.so; do
	[ -f "$s" ] && { stub=$s; break; }
done
if [ -n "$stub" ]; then
	run stub gpu --backend cuda --lib "$stub"
	check "the CUDA toolkit's stub libcuda.so: exit 3 saying it is the stub" \
		bash -c "[ $RC = 3 ] && grep -qi 'stub' '$G/stub.err'"
	check "the stub: one line, nothing on stdout" one_line stub
else
	echo "# no CUDA toolkit stub libcuda.so here: the stub case is not checked"
fi

# --- bad command lines: exit 2 naming the option ----------------------------
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	run bad gpu $args
	check "gpu $args: exit 2 naming '$want'" expect bad 2 "$want"
	check "gpu $args: nothing on stdout" test ! -s "$G/bad.out"
done <<'EOF'
--backend opencl|--backend
--test nosuch|unknown test 'nosuch'
--test host_to_device_memcpy_ce,|--test
--gpus 1-x|--gpus
--gpus 64|--gpus
--gpus 3-1|--gpus
-s 0|-s/--size
-s 12x|-s/--size
--samples 0|--samples
-i many|-i/--iterations
-w -1|-w/--warmup
--hops 0|--hops
--bogus|--bogus
sprint|'sprint' is not a subcommand
run extra|unexpected argument 'extra'
latency --test pcie|no test of --test is a latency test
EOF

# --- the IPC test's second process ------------------------------------------
run child gpu ipc-child
check "gpu ipc-child by hand (stdin not a socket): exit 2 saying what it is" \
	expect child 2 "ipc-child"
if command -v python3 >/dev/null; then
	# The child on a socket pair, its backend missing: a COPY is answered
	# with ERR (exit status 3 and the reason), QUIT ends it with 0; a
	# message of the wrong size ends it with 1.
	check "ipc-child answers a COPY with the reason its backend did not open, exits 0 on QUIT" \
		python3 - "$IXPERF" <<'EOF'
import socket, struct, subprocess, sys
FMT = "@IIIiiIIQQd64s512s"      # struct ix_gpu_ipc_msg
MAGIC, VERSION, COPY, QUIT, OK, ERR = 0x49584750, 1, 1, 2, 3, 4
def msg(op, device=0, size=0, nbytes=0, reps=0):
    return struct.pack(FMT, MAGIC, VERSION, op, device, 0, reps, 0, size, nbytes, 0.0,
                       b"\0" * 64, b"")
def child():
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    p = subprocess.Popen([sys.argv[1], "gpu", "ipc-child", "--backend", "cuda", "--lib",
                          "/nonexistent/libcuda.so.1"], stdin=b, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    b.close()
    a.settimeout(20)
    return a, p
a, p = child()
a.send(msg(COPY, 0, 4096, 4096, 1))
r = a.recv(4096)
assert len(r) == struct.calcsize(FMT), len(r)
f = struct.unpack(FMT, r)
assert f[2] == ERR and f[4] == 3, f[:5]
text = f[11].split(b"\0")[0].decode()
assert "/nonexistent/libcuda.so.1" in text, text
a.send(msg(QUIT))
assert p.wait(20) == 0
a, p = child()
a.send(b"\1\2\3")
assert p.wait(20) == 1
err = p.stderr.read().decode()
assert "a message of 3 bytes" in err, err
EOF
else
	skip_check "the IPC child's socket" "python3 is not installed"
fi

# --- ixperf bw --path pcie ---------------------------------------------------
# (cmd/bw.c hands --path pcie to ix_gpu_cmd_pcie, whose help names PCIe.)
if "$IXPERF" bw --path pcie --help 2>/dev/null | grep -q "PCIe bandwidth between this host"; then
	run pcie bw --path pcie --backend cuda --lib /nonexistent/libcuda.so.1
	check "bw --path pcie without a backend: exit 3 naming the library, as ixperf bw" \
		expect pcie 3 "ixperf bw: /nonexistent/libcuda.so.1"
	run pcie2 bw --path pcie --test pcie
	check "bw --path pcie refuses gpu's --test (it runs the pcie group)" expect pcie2 2 "--test"
	run pcie3 bw --path pcie 127.0.0.1
	check "bw --path pcie takes no HOST" expect pcie3 2 "unexpected argument '127.0.0.1'"
else
	skip_check "ixperf bw --path pcie runs the GPU probes" "not in this build"
fi

# --- a machine with a GPU: a short run, JSON against the schema --------------
if [ -n "$HAVE_GPU" ]; then
	run real gpu -J -s 8Mi -i 2 --samples 1 -w 1 --hops 1000 -o "$G/real.json"
	check "a short run on this machine's GPUs exits 0 ($(head -c 200 "$G/real.err"))" test "$RC" = 0
	check "its JSON is one gpu result with every test" \
		jq_true "$G/real.json" '.command == "gpu" and (.results[0].tests | length) >= 25'
	schema_check "$G/real.json"
fi

# --- the simulated driver libraries ------------------------------------------
# ixperf gpu end to end on tests/gpu/fakecuda.c and fakehip.c: SIMULATED
# CUDA and HIP libraries for tests, each with two pretend GPUs (make check
# builds them and names them in IX_FAKECUDA and IX_FAKEHIP). No GPU runs:
# device memory is host memory and every copy is a memcpy on the host, so
# the figures they yield mean nothing. Only the structure of what ixperf
# reports is checked here, never a figure, and the bytes the libraries
# count each GPU moving to and from host memory. The IPC test runs for
# real: the second process maps the first one's memory through the handle.

# fake_suite BACKEND LIB GPU: the whole suite, the inventory and bw --path
# pcie on the simulated library LIB, whose GPUs are named "GPU 0" and "GPU 1".
fake_suite() {
	local be=$1 lib=$2 gpu=$3 short=(-s 4Mi -i 2 --samples 1 -w 1) why
	run "fake-$be" gpu --backend "$be" --lib "$lib" -J "${short[@]}" --hops 1000
	cp "$G/fake-$be.out" "$G/fake-$be.json"
	why=$(head -c 300 "$G/fake-$be.err")
	check "$be, simulated: ixperf gpu runs every test and exits 0${why:+ ($why)}" test "$RC" = 0
	schema_check "$G/fake-$be.json"
	check "$be, simulated: one complete gpu result on the library's two GPUs" \
		jq_true "$G/fake-$be.json" ".command == \"gpu\" and .complete and
			.results[0].backend.name == \"$be\" and .results[0].backend.devices == 2 and
			([.results[0].devices[].name] == [\"$gpu 0\", \"$gpu 1\"])"
	check "$be, simulated: every test of 'ixperf gpu list' is in the result, in order" \
		test "$("$IXPERF" gpu list | awk 'NF && $1 != "Groups:" {print $1}')" = \
		"$(jq -r '.results[0].tests[].name' "$G/fake-$be.json")"
	check "$be, simulated: each test ok or skipped with its reason; matrices fit 2 GPUs" \
		jq_true "$G/fake-$be.json" '[.results[0].tests[] | . as $c0 |
			(.status == "ok" or (.status == "skipped" and (.reason | length) > 0)) and
			(.status != "ok" or (
				(.rows + .columns | all(IN("host", "local", "all", "GPU0", "GPU1"))) and
				(.rows | length) as $r | (.columns | length) as $c |
				([.matrix.value, .matrix.state] |
					all(length == $r and all(length == $c))) and
				([.matrix.state[][]] | all(IN("ok", "none")) and any(. == "ok")) and
				([range($r) as $i | range($c) as $j |
					$c0.matrix.state[$i][$j] != "ok" or
					($c0.matrix.value[$i][$j] | type) == "number"] | all)))] | all'
	check "$be, simulated: host -> GPU is a row of the two GPUs, GPU -> host a column" \
		jq_true "$G/fake-$be.json" '.results[0].tests | map({(.name): .}) | add |
			(.host_to_device_memcpy_ce | .rows == ["host"] and .columns == ["GPU0", "GPU1"]) and
			(.device_to_host_memcpy_ce | .rows == ["GPU0", "GPU1"] and .columns == ["host"]) and
			(.device_local_copy | .rows == ["local"] and .columns == ["GPU0", "GPU1"]) and
			(.all_to_one_write_ce | .rows == ["all"] and .columns == ["GPU0", "GPU1"]) and
			(.one_to_all_read_ce | .rows == ["GPU0", "GPU1"] and .columns == ["all"])'
	check "$be, simulated: GPU -> GPU is 2 x 2, its diagonal not measured" \
		jq_true "$G/fake-$be.json" '[.results[0].tests[] |
			select(.name == "device_to_device_memcpy_read_ce" or
				.name == "device_to_device_through_host_memcpy_ce") |
			.status == "ok" and .rows == ["GPU0", "GPU1"] and .columns == ["GPU0", "GPU1"] and
			.matrix.state == [["none", "ok"], ["ok", "none"]]] | length == 2 and all'
	check "$be, simulated: IPC copies from a second process into every GPU (2 x 2, all ok)" \
		jq_true "$G/fake-$be.json" '.results[0].tests[] | select(.name == "ipc_memcpy_ce") |
			.status == "ok" and .matrix.state == [["ok", "ok"], ["ok", "ok"]]'

	run "fake-$be-inv" gpu inventory --backend "$be" --lib "$lib"
	check "$be, simulated: gpu inventory exits 0 listing $gpu 0 and $gpu 1" \
		bash -c "[ $RC = 0 ] && grep -q ' $gpu 0 ' '$G/fake-$be-inv.out' &&
			grep -q ' $gpu 1 ' '$G/fake-$be-inv.out'"

	run "fake-$be-pcie" bw --path pcie --backend "$be" --lib "$lib" -J "${short[@]}"
	cp "$G/fake-$be-pcie.out" "$G/fake-$be-pcie.json"
	why=$(head -c 300 "$G/fake-$be-pcie.err")
	check "$be, simulated: bw --path pcie exits 0${why:+ ($why)}" test "$RC" = 0
	schema_check "$G/fake-$be-pcie.json"
	check "$be, simulated: bw --path pcie runs the host <-> GPU tests only" \
		jq_true "$G/fake-$be-pcie.json" '.results[0].tests |
			length == 8 and all(.name | test("^(host_to_device|device_to_host)_"))'
	# The library reports each call that breaks the API's contract on stderr:
	# the IPC test's second process writes there too.
	check "$be, simulated: no call misused the library's API, in any process" \
		bash -c "! grep -h 'fake driver:' '$G/fake-$be.err' '$G/fake-$be-inv.err' \
			'$G/fake-$be-pcie.err' >&2"
}

# host_all_bytes BACKEND LIB TEST...: each of nvbandwidth's host_to_all and
# all_to_host tests alone, with the simulated library counting the bytes
# each of its GPUs received from and sent to host memory (FAKE_BYTES_FILE,
# one line a GPU per process). The oracle is the plan those tests follow:
# for each GPU's figure, that GPU copies S bytes the measured way while
# every other GPU copies 2S the same way (bidirectional: every GPU also
# copies 2S the other way), warmup + samples x iterations times. Over the
# N cells each GPU moves S + (N-1) 2S the measured way and, bidirectional,
# N 2S the other way.
host_all_bytes() {
	local be=$1 lib=$2 t s=$((1 << 20)) it=3 smp=2 w=1 n=2 reps want got to bi measured other
	shift 2
	reps=$((w + smp * it))
	for t in "$@"; do
		rm -f "$G/bytes-$be-$t"
		FAKE_BYTES_FILE="$G/bytes-$be-$t" run "bytes-$be-$t" gpu --backend "$be" --lib "$lib" \
			--test "$t" -J -s $s -i $it --samples $smp -w $w
		to=1 bi=0
		case $t in all_to_host*) to=0 ;; esac
		case $t in *bidirectional*) bi=1 ;; esac
		# host_to_gpu gpu_to_host of each GPU, as the plan has them
		measured=$(((s + (n - 1) * 2 * s) * reps))
		other=$((bi * n * 2 * s * reps))
		if [ $to = 1 ]; then want="$measured $other"; else want="$other $measured"; fi
		want="GPU0 $want;GPU1 $want;"
		got=$(awk '{ h[$2] += $3; d[$2] += $4 } END { for (g in h) print g, h[g], d[g] }' \
			"$G/bytes-$be-$t" 2>/dev/null | sort | tr '\n' ';')
		check "$be, simulated: $t moved per GPU (host->GPU GPU->host) $got as planned: $want" \
			test "$RC" = 0 -a "$got" = "$want"
		check "$be, simulated: $t is one figure per GPU, host the other side" \
			jq_true "$G/bytes-$be-$t.out" ".results[0].tests[0] | .status == \"ok\" and
				(if $to == 1 then .rows == [\"host\"] and .columns == [\"GPU0\", \"GPU1\"]
				 else .rows == [\"GPU0\", \"GPU1\"] and .columns == [\"host\"] end) and
				([.matrix.value[][]] | length == 2 and all(type == \"number\" and . > 0))"
	done
}
HOST_ALL_CE="host_to_all_memcpy_ce all_to_host_memcpy_ce host_to_all_bidirectional_memcpy_ce
	all_to_host_bidirectional_memcpy_ce"

if [ -n "${IX_FAKECUDA:-}" ] && [ -f "$IX_FAKECUDA" ]; then
	fake_suite cuda "$IX_FAKECUDA" "Fake GPU"
	# shellcheck disable=SC2086
	host_all_bytes cuda "$IX_FAKECUDA" $HOST_ALL_CE ${HOST_ALL_CE//_ce/_sm}
	check "cuda, simulated: every test ran (kernels, peer access, IPC: all there)" \
		jq_true "$G/fake-cuda.json" '.results[0].tests | all(.status == "ok")'
	check "cuda, simulated: bus ids in sysfs' form (the driver's: upper case, an 8-digit domain)" \
		jq_true "$G/fake-cuda.json" \
		'[.results[0].devices[].pci_bus_id] == ["0000:1a:00.0", "0000:3b:00.0"]'
else
	skip_check "ixperf gpu on the simulated CUDA driver" "IX_FAKECUDA does not name a built library"
fi
if [ -n "${IX_FAKEHIP:-}" ] && [ -f "$IX_FAKEHIP" ]; then
	fake_suite rocm "$IX_FAKEHIP" "Fake HIP GPU"
	# shellcheck disable=SC2086
	host_all_bytes rocm "$IX_FAKEHIP" $HOST_ALL_CE
	run rocm-lat gpu latency --backend rocm --lib "$IX_FAKEHIP" -s 1Mi --hops 100
	check "rocm, simulated: gpu latency exits 3 saying ROCm has no pointer chase" \
		expect rocm-lat 3 "no selected test can run here: the ROCm backend runs the copy-engine"
	check "rocm, simulated: only the kernel tests are skipped (SM copies, latency), saying what ROCm runs" \
		jq_true "$G/fake-rocm.json" '.results[0].tests | all(
			if (.name | test("_sm$")) then .status == "skipped" and
				(.reason | test("copy-engine \\(hipMemcpy\\) tests only.*no SM copy kernel and no pointer-chase latency"))
			else .status == "ok" end)'
else
	skip_check "ixperf gpu on the simulated HIP runtime" "IX_FAKEHIP does not name a built library"
fi

ix_done
