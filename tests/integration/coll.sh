#!/usr/bin/env bash
# ixperf coll end to end over a SIMULATED NCCL (tests/gpu/libfakenccl.so) on
# the SIMULATED CUDA driver (tests/gpu/libfakecuda.so): no GPU and no
# network; what is checked is ixperf's plumbing and arithmetic, never a
# speed. One process over the fake's two GPUs for every collective; four
# ranks under mpirun (PMIx) with the unique id handed round; the bus
# bandwidth against nccl-tests' formulas; a rank that never joins, a rank
# made slow and a wrong result, each named.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/integration/launchers.sh"

G=$IX_TMP
jqt() { jq -e "$@" >/dev/null; }
FAKE=(--gpu-lib "${IX_FAKECUDA:-}" --lib-path "${IX_FAKENCCL:-}")

if [ ! -f "${IX_FAKECUDA:-}" ] || [ ! -f "${IX_FAKENCCL:-}" ]; then
	ix_skip "IX_FAKECUDA and IX_FAKENCCL name no libraries (run under make check)"
fi

# Every shared segment the fake makes is unlinked by it; any left is a
# leak, removed at the end.
shm_left() { find /dev/shm -maxdepth 1 -name 'fakenccl-*' -newer "$G/start" 2>/dev/null; }
touch "$G/start"

# busbw_ok FILE NRANKS: every measured cell's busbw is its algbw times the
# collective's factor for NRANKS, and its algbw S / time.
busbw_ok() {
	jqt --argjson n "$2" '.results[0] as $r
		| ($r.params.op) as $op
		| (if $op == "all_reduce" then 2 * ($n - 1) / $n
		   elif ($op == "all_gather" or $op == "reduce_scatter" or $op == "alltoall") then ($n - 1) / $n
		   else 1 end) as $f
		| ($r.bus_factor - $f | fabs) < 1e-12
		  and ([$r.rows[] | .out_of_place, .in_place | select(. != null and .measured)]
		       | length > 0 and all((.busbw_Bps - .algbw_Bps * $f | fabs) <= 1e-9 * .algbw_Bps + 1e-6))' "$1"
}

# --- one process, every GPU a rank -------------------------------------------
for op in all_reduce all_gather reduce_scatter alltoall broadcast reduce sendrecv; do
	timeout 60 "$IXPERF" coll "$op" "${FAKE[@]}" -b 1K -e 64K -f 4 -n 4 -w 1 -J \
		-o "$G/one-$op.json" >"$G/one-$op.out" 2>"$G/one-$op.err"
	check "one process, 2 GPUs: $op exits 0" test "$?" = 0 || cat "$G/one-$op.err"
	check "$op: 4 sizes, both placements, every element right (in-place sendrecv and alltoall: not checked)" \
		jqt '.results[0] | .complete and .wrong == 0 and (.rows | length == 4)
		     and (.params.op as $op | all(.rows[]; .out_of_place.measured and .in_place.measured
				      and .out_of_place.wrong == 0
				      and .in_place.wrong == (if $op == "sendrecv" or $op == "alltoall" then null else 0 end)))' \
			"$G/one-$op.json"
	check "$op: busbw = algbw x the factor for 2 ranks" busbw_ok "$G/one-$op.json" 2
done
schema_check "$G/one-all_reduce.json"
check "the simulation is named in the document" \
	jqt '.results[0].simulation | test("SIMULATED|simulat")' "$G/one-all_reduce.json"

timeout 60 "$IXPERF" coll all_reduce "${FAKE[@]}" -b 8 -e 1K -f 2 -n 3 -w 1 -d bfloat16 --op max \
	>"$G/text.out" 2>"$G/text.err"
check "text: exits 0" test "$?" = 0 || cat "$G/text.err"
check "text: the simulation named on its own line" grep -q '^SIMULATED library: ' "$G/text.out"
check "text: nccl-tests' columns and 8 sizes" \
	bash -c "grep -q 'busbw' '$G/text.out' && [ \$(grep -cE '^ +[0-9]+ +[0-9]+ ' '$G/text.out') = 8 ]"
check "text: the data type, reduction and factor in the header" \
	grep -q '^bfloat16, max; 3 iterations after 1 warm-up; busbw = algbw x 2(n-1)/n = 1' "$G/text.out"

# A wrong result in one process: rank 1's output corrupted.
FAKENCCL_WRONG=1 timeout 60 "$IXPERF" coll all_gather "${FAKE[@]}" -b 1K -e 1K -n 2 -w 1 -J \
	-o "$G/wrong1.json" >"$G/wrong1.out" 2>"$G/wrong1.err"
check "a wrong result: exit 1" test "$?" = 1
check "naming rank 1 (stderr: $(head -c 200 "$G/wrong1.err"))" \
	grep -q 'wrong results: 1 element at 1024 bytes out-of-place, first on rank 1 (1 rank)' "$G/wrong1.err"
check "the document keeps the figures and counts the wrong element per row" \
	jqt '.results[0].rows[0].out_of_place | .measured and .wrong == 1 and .first_wrong_rank == 1' \
	"$G/wrong1.json"

# One GPU alone: a job of one rank (all_reduce's factor 0, as nccl-tests).
timeout 60 "$IXPERF" coll all_reduce "${FAKE[@]}" --gpus 1 -b 4K -e 4K -n 2 -w 1 -J \
	-o "$G/alone.json" >"$G/alone.out" 2>"$G/alone.err"
check "one rank on GPU 1: exits 0 with busbw 0 and no pair to scan" \
	jqt '.results[0] | .nranks == 1 and .bus_factor == 0 and .ranks[0].device == 1
	     and .rows[0].out_of_place.busbw_Bps == 0 and (.verdict.pairs | length == 0)' \
	"$G/alone.json"

# --- What the links allow --------------------------------------------------------
# The fake's GPUs (0000:1a:00.0, 0000:3b:00.0) in a saved sysfs tree
# (tests/topo/mkfixture.py coll-pair: each below its own switch with an NDR
# NIC beside it, GPU 1 at Gen4 x8) and the SIMULATED NVML of
# tests/gpu/fakenvml.c.
NOLINK="0000:1a:00.0=0,0000:3b:00.0=0"
FACTS=()
if python3 "${top_srcdir:-.}/tests/topo/mkfixture.py" coll-pair "$G/fx" 2>"$G/fx.err" &&
	[ -f "${IX_FAKENVML:-}" ]; then
	FACTS=(--sysfs "$G/fx" --nvml-lib "$IX_FAKENVML")
	FAKENVML_LINKS=$NOLINK timeout 60 "$IXPERF" coll all_reduce "${FAKE[@]}" "${FACTS[@]}" \
		-b 1M -e 1M -n 2 -w 1 -J -o "$G/pcie.json" >"$G/pcie.out" 2>&1
	check "no NVLink: the links allow GPU 1's downtrained PCIe link" \
		jqt '.results[0] | .ceiling.limit == "pcie" and .ceiling.Bps == 15753846150
		     and (.ceiling.why | test("PCIe Gen4 x8, 15.8 GB/s each way \\(rank 1 on .*, GPU 0000:3b:00.0\\)"))
		     and .ceiling.share > 0 and .ceiling.unknown == null
		     and (.ranks[1].facts | .pcie.downtrained and .pcie.max_gen == 5 and .nvlinks == 0
			  and .nic == "mlx5_1/1" and .nic_path == "PIX" and .nic_Bps == 5e10)' "$G/pcie.json"
	schema_check "$G/pcie.json"
	FAKENVML_LINKS="0000:1a:00.0=18,0000:3b:00.0=18:6" timeout 60 "$IXPERF" coll all_reduce \
		"${FAKE[@]}" "${FACTS[@]}" -b 1M -e 1M -n 2 -w 1 >"$G/nvlink.out" 2>&1
	check "every GPU on NVLink: the links allow 18 x 25 GB/s ($(grep 'links allow' "$G/nvlink.out"))" \
		grep -q '^Bus bandwidth the links allow: 450.0 GB/s (nvlink, NVLink 4.0, 18 links x 25 GB/s each way (rank 0 on ' "$G/nvlink.out"
	timeout 60 "$IXPERF" coll all_reduce "${FAKE[@]}" --sysfs "$G/fx" \
		--nvml-lib /nonexistent/libnvidia-ml.so.1 -b 1M -e 1M -n 2 -w 1 >"$G/nonvml.out" 2>&1
	check "NVLinks not read: the ceiling is unknown, and says why, never a PCIe figure" \
		grep -q '^Bus bandwidth the links allow: unknown (rank 0 on .*: NVLink not read (no /nonexistent/libnvidia-ml.so.1' "$G/nonvml.out"
	# The NIC's counters that moved while the collectives ran: rank 1's
	# symbol errors bumped once the communicators exist (after the start's
	# reading; the fake says when), while every call of rank 1 takes 300 ms.
	(
		for _ in $(seq 1 400); do
			[ -s "$G/joined" ] && break
			sleep 0.05
		done
		echo 12 >"$G/fx/sys/class/infiniband/mlx5_1/ports/1/counters/symbol_error"
	) &
	bump=$!
	IX_PIDS+=("$bump")
	FAKENCCL_JOINED=$G/joined FAKENCCL_SLOW=1:300 FAKENVML_LINKS=$NOLINK timeout 60 \
		"$IXPERF" coll all_reduce "${FAKE[@]}" \
		"${FACTS[@]}" -b 1M -e 1M -n 3 -w 1 -J -o "$G/moved.json" >"$G/moved.out" 2>&1
	wait "$bump"
	check "the counters that moved during the run, on rank 1's NIC only" \
		jqt '.results[0].ranks | .[1].facts.moved == {errors: 12} and .[0].facts.moved == {}' \
		"$G/moved.json"
else
	not_ok "mkfixture.py coll-pair and IX_FAKENVML: $(head -c 300 "$G/fx.err")"
fi

# --- ixperf run: probe = coll checks -------------------------------------------
# The collective of a plan's check over the fake's two GPUs: judged on the
# average bus bandwidth, wrong elements FAIL it by default (max_wrong = 0),
# a missing library is an ERROR naming it.
COLLSET="probe = coll\nbackend = cuda\nlib = ${IX_FAKECUDA:-}\nlibrary_path = ${IX_FAKENCCL:-}\nmin_bytes = 4K\nmax_bytes = 64K\nstep_factor = 4\niters = 3\nwarmup_iters = 1\n"
printf '%b' "[ar]\n${COLLSET}min_busbw = 1bit\n[rs]\n${COLLSET}collective = reduce_scatter\ndatatype = int32\nreduction = min\n[fast]\n${COLLSET}min_busbw = 1000TB/s\n[nolib]\n${COLLSET}library_path = /nonexistent/libnccl.so.2\n" >"$G/coll.ini"
timeout 120 "$IXPERF" run -J -d "$G/run1" "$G/coll.ini" >"$G/run1.json" 2>"$G/run1.err"
check "ixperf run with coll checks: exit 1 (one ERROR, one FAIL)" test "$?" = 1 || cat "$G/run1.err"
schema_check "$G/run1.json"
check "coll check: PASS on its average bus bandwidth, headline and figures measured" \
	jqt '.results[0].checks[0] | .verdict == "PASS" and .probe == "coll" and .path == "gpu"
	     and .headline.name == "average bus bandwidth" and .headline.value > 0
	     and ([.expectations[] | {key, pass}] == [{key: "min_busbw", pass: true},
		 {key: "max_wrong", pass: true}, {key: "max_slow", pass: true}])
	     and ((.expectations[0].measured - .results[0].avg_busbw_Bps * 8) | fabs) <= 1e-6 * .expectations[0].measured
	     and .results[0].kind == "coll" and .results[0].params.op == "all_reduce"
	     and (.results[0].rows | length == 3)' "$G/run1.json"
check "coll check: the plan's collective, type and reduction ran (int32, min)" \
	jqt '.results[0].checks[1] | .verdict == "PASS" and .results[0].params.op == "reduce_scatter"
	     and .results[0].params.datatype == "int32" and .results[0].params.redop == "min"
	     and .results[0].params.iters == 3 and .results[0].params.warmup == 1' "$G/run1.json"
check "coll check: a bus bandwidth above what was measured FAILs with the figure" \
	jqt '.results[0].checks[2] | .verdict == "FAIL" and .expectations[0].pass == false
	     and .expectations[0].measured > 0' "$G/run1.json"
check "coll check: no library is an ERROR naming it" \
	jqt '.results[0].checks[3] | .verdict == "ERROR" and (.error | test("/nonexistent/libnccl.so.2"))' \
	"$G/run1.json"

printf '%b' "[ag]\n${COLLSET}collective = all_gather\n[allowed]\n${COLLSET}collective = all_gather\nmax_wrong = 1000000\n" >"$G/wrong.ini"
FAKENCCL_WRONG=1 timeout 120 "$IXPERF" run -J -d "$G/run2" "$G/wrong.ini" >"$G/run2.json" 2>"$G/run2.err"
check "coll check: wrong elements FAIL it (max_wrong = 0 by default), exit 4" test "$?" = 4 ||
	cat "$G/run2.err"
check "coll check: the wrong elements counted, rank 1 named in the rows; allowed where the plan says so" \
	jqt '.results[0].checks as $c | $c[0].verdict == "FAIL"
	     and ($c[0].expectations[] | select(.key == "max_wrong") | .measured > 0 and .text == "0 (default)")
	     and ([$c[0].results[0].rows[].out_of_place.first_wrong_rank] | all(. == 1))
	     and $c[1].verdict == "PASS"' "$G/run2.json"

# --- mpirun: a rank a task ------------------------------------------------------
if [ -n "$(mpi_unavailable)" ]; then
	skip_check "mpirun runs ixperf coll over PMIx" "$(mpi_unavailable)"
else
	MPI=(timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe -np 4)
	for op in all_reduce all_gather reduce_scatter alltoall broadcast reduce sendrecv; do
		"${MPI[@]}" "$IXPERF" coll "$op" "${FAKE[@]}" -b 4K -e 64K -f 4 -n 4 -w 1 \
			-J -o "$G/mpi-$op.json" >"$G/mpi-$op.out" 2>&1
		check "mpirun -np 4 ixperf coll $op exits 0" test "$?" = 0 || cat "$G/mpi-$op.out"
		check "$op: 4 ranks, every size, every element right" \
			jqt '.results[0] | .nranks == 4 and .complete and .wrong == 0
			     and ([.ranks[] | .joined and .complete] | all)' "$G/mpi-$op.json"
		check "$op: busbw = algbw x the factor for 4 ranks" busbw_ok "$G/mpi-$op.json" 4
	done
	schema_check "$G/mpi-all_reduce.json"
	check "the pair scan measured the ring's four links" \
		jqt '.results[0].verdict | (.pairs | length == 4 and all(.Bps > 0))
		     and ([.pairs[] | [.a, .b]] == [[0, 1], [1, 2], [2, 3], [3, 0]])' \
		"$G/mpi-all_reduce.json"

	# A rank made slow: every call of rank 2 waits 40 ms.
	FAKENCCL_SLOW=2:40 FAKENVML_LINKS=$NOLINK "${MPI[@]}" -x FAKENCCL_SLOW -x FAKENVML_LINKS \
		"$IXPERF" coll all_reduce "${FAKE[@]}" "${FACTS[@]}" \
		-b 64K -e 64K -n 3 -w 1 >"$G/slow.out" 2>&1
	check "a slow rank: exit 0 (slow is not wrong)" test "$?" = 0 || cat "$G/slow.out"
	check "the pair scan names rank 2 ($(grep -E '^(Slow|No rank)' "$G/slow.out" | head -1))" \
		grep -Eq '^Slow rank: 2 on [^ ]+ \(GPU [0-9]' "$G/slow.out"
	check "with its links: its GPU's PCIe link, NVLinks and nearest NIC ($(grep -A1 '^Slow rank' "$G/slow.out" | tail -1))" \
		grep -qx '  its links: PCIe Gen5 x16; no NVLink; nearest NIC mlx5_0/1 (PIX, 50.0 GB/s); no fabric counter moved during the run' "$G/slow.out"

	# A wrong result on rank 3.
	FAKENCCL_WRONG=3 "${MPI[@]}" -x FAKENCCL_WRONG "$IXPERF" coll reduce_scatter "${FAKE[@]}" \
		-b 64K -e 64K -n 2 -w 1 >"$G/mwrong.out" 2>&1
	check "a wrong result under mpirun: the job fails" test "$?" != 0
	check "rank 0 names rank 3 as the first wrong one" \
		grep -q 'wrong results: .* first on rank 3 (1 rank)' "$G/mwrong.out"

	# A rank that never joins: rank 3 sleeps instead of running ixperf.
	mpi_stuck "$G" 3 "$G/stuck.out" "${MPI[@]}" -- "$IXPERF" coll all_reduce "${FAKE[@]}" \
		-b 4K -e 4K -n 2 -w 1 --timeout 4 -J -o "$G/stuck.json"
	left=("${STUCK_LEFT[@]}")
	check "no task outlives the job (${left[*]:-none left})" test "${#left[@]}" = 0
	rc0=$STUCK_RC0 took0=$STUCK_TOOK0
	echo "# rank 3 never joined: rank 0 exit ${rc0:-?} after ${took0:-?} s"
	check "rank 0 fails within its bounds (4 s to join, 4 s for the reports): exit 1 after ${took0:-?} s" \
		test "${rc0:-}" = 1 -a "${took0:-99}" -ge 4 -a "${took0:-99}" -lt 30
	check "rank 3 named as never joined ($(grep -o 'rank 3[^,]*' "$G/stuck.out" | head -1))" \
		grep -q 'ixperf coll: rank 3 never joined: no word from it within 4 s' "$G/stuck.out"
	schema_check "$G/stuck.json"
	check "the document marks rank 3 missing and the run incomplete" \
		jqt '.results[0] | (.complete | not) and .missing == 1
		     and (.ranks[3] | .missing and (.joined | not))
		     and ([.ranks[0,1,2] | .error | test("did not complete within 4 s")] | all)' \
		"$G/stuck.json"
fi

check "no shared segment of the simulated NCCL is left in /dev/shm ($(shm_left | paste -sd,))" \
	test -z "$(shm_left)"
shm_left | xargs -r rm -f

ix_done
