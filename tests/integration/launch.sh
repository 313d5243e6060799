#!/usr/bin/env bash
# mesh and incast launched as tasks by the real launchers: Open MPI's
# mpirun (PMIx), and a single-node Slurm started here (srun --mpi=pmix, and
# --mpi=none with the environment fallback); tasks bound to their own
# addresses (--task-bind), a task that never starts under PMIx, a task
# killed mid-mesh, and the coordinator killed.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/integration/launchers.sh"

J=$IX_TMP
grep -q "define HAVE_PMIX 1" config.h 2>/dev/null || pmix_missing="built without PMIx (libpmix-dev)"
jqt() { jq -e "$@" >/dev/null; }
# A job's tasks start through PIDS: each writes its PID into DIR/RANK.pid
# and becomes ixperf (exec keeps the PID). Nothing else on the machine, a
# test running beside this one or an earlier job, is mistaken for them.
# shellcheck disable=SC2016
PIDS=(bash -c 'echo $$ >"$0/$SLURM_PROCID.pid"; exec "$@"')
# wait_task DIR RANK: that task's PID once it runs (120 s at most, the
# jobs' own bound: a loaded machine can take long to launch them).
wait_task() {
	ix_wait_for 120 test -s "$1/$2.pid" && cat "$1/$2.pid"
}
# tasks DIR: the job's tasks still running.
tasks() {
	local f
	for f in "$1"/*.pid; do
		[ -s "$f" ] && running "$(cat "$f")" && cat "$f"
	done
}

# ---- Open MPI ---------------------------------------------------------------
if [ -n "$(mpi_unavailable)" ]; then
	skip_check "mpirun runs an SPMD mesh and incast" "$(mpi_unavailable)"
else
	MPI=(timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe -np 4)
	# The meshes here are judged with --lat-factor 1000: a pair is bad at a
	# median round trip a thousand times the others' (tens of ms against
	# tens of us). What is checked is the launch; a loaded machine slows
	# every pair alike, and a pair's typical round trip a thousandfold the
	# rest's would take a CPU kept from one task for tens of ms at every
	# wake-up, which no load here came near.
	"${MPI[@]}" "$IXPERF" mesh --test lat -n 200 --lat-factor 1000 -J -o "$J/mpi-mesh.json" \
		>"$J/mpi-mesh.out" 2>&1
	check "mpirun -np 4 ixperf mesh exits 0" test "$?" = 0 || cat "$J/mpi-mesh.out"
	schema_check "$J/mpi-mesh.json"
	check "every task's agent is a host, named by rank ($(jq -c '.results[0].hosts' "$J/mpi-mesh.json"))" \
		jqt '[.results[0].hosts[] | test("^r[0-3]@")] | length == 4 and all' "$J/mpi-mesh.json"
	check "every pair measured" jqt '.results[0].complete' "$J/mpi-mesh.json"
	"${MPI[@]}" "$IXPERF" incast -t 0.5 -w 0.2 -J -o "$J/mpi-incast.json" >"$J/mpi-incast.out" 2>&1
	check "mpirun -np 4 ixperf incast exits 0" test "$?" = 0 || cat "$J/mpi-incast.out"
	schema_check "$J/mpi-incast.json"
	check "three senders into rank 0" \
		jqt '.results[0].receiver | test("^r0@")' "$J/mpi-incast.json"
fi

# ---- Open MPI: a task per address on one node, and a task that never starts --
if [ -n "$(mpi_unavailable)" ]; then
	skip_check "mpirun runs tasks bound to their own addresses" "$(mpi_unavailable)"
else
	MPI=(timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe -np 4)
	# Four tasks on this node, each on its own loopback address (all of
	# 127/8 is local): local rank i takes entry i.
	"${MPI[@]}" "$IXPERF" mesh --task-bind 127.0.1.1,127.0.1.2,127.0.1.3,127.0.1.4 \
		--test lat -n 200 --lat-factor 1000 -J -o "$J/bind.json" >"$J/bind.out" 2>&1
	check "mpirun -np 4 ixperf mesh --task-bind exits 0" test "$?" = 0 || cat "$J/bind.out"
	schema_check "$J/bind.json"
	check "each task's agent on its own address, named by rank and node ($(jq -c '.results[0].hosts' "$J/bind.json"))" \
		jqt '[.results[0].hosts[]
		      | capture("^r(?<r>[0-3])@(?<node>[A-Za-z0-9._-]+)\\((?<addr>[0-9.]+)\\):[0-9]+$")]
		     | length == 4 and (map(.addr) | unique | length == 4)
		       and all(.addr == "127.0.1.\(.r | tonumber + 1)")' "$J/bind.json"
	check "every pair measured between the bound agents" jqt '.results[0].complete' "$J/bind.json"
	# Each task's own exit status goes to bad/RANK.rc: what is checked is
	# the tasks' refusal. Open MPI 4.1's mpirun has been seen to wedge
	# (a futex, SIGTERM caught and not acted on) after tasks that never
	# reached a fence exited, on a loaded machine: its status is checked
	# only when it exited by itself (the tasks refuse at once: 30 s).
	mkdir -p "$J/bad"
	# shellcheck disable=SC2016
	timeout -k 5 30 mpirun --allow-run-as-root --oversubscribe -np 4 bash -c '"$@"; rc=$?; echo "$rc" >"$0/$OMPI_COMM_WORLD_RANK.rc"; exit "$rc"' \
		"$J/bad" "$IXPERF" mesh --task-bind 127.0.1.1,nosuchif0 --test lat -n 10 \
		>"$J/bind-bad.out" 2>&1
	rc=$?
	# The first refusal ends the job: the other task given the interface
	# may be stopped by mpirun before it says anything.
	trc=$(cat "$J/bad/1.rc" "$J/bad/3.rc" 2>/dev/null | paste -sd,)
	check "an unknown interface: the tasks given it refuse (tasks 1 and 3: exit ${trc:-none})" \
		grep -Eqx '2(,2|,1[0-9]{2})?|1[0-9]{2},2' <<<"$trc"
	case $rc in
	124 | 137) echo "# mpirun did not exit by itself after its tasks ended (killed: $rc)" ;;
	*) check "mpirun reports the job failed (exit $rc)" test "$rc" != 0 ;;
	esac
	check "naming the task, its node and the entry" grep -Eq \
		"task [13] of 4 \(local rank [13] on [^)]+\): --task-bind: 'nosuchif0' is neither an IP address nor an interface" \
		"$J/bind-bad.out"

	# A task that never starts ixperf (stuck before it: rank 2 sleeps, 45 s
	# at most): the PMIx fence gives up after --connect-timeout, rank 0
	# measures the others and names it a failed host.
	mpi_stuck "$J" 2 "$J/stuck.out" "${MPI[@]}" -- "$IXPERF" mesh --test lat -n 50 \
		--lat-factor 1000 --connect-timeout 5 -J -o "$J/stuck.json"
	left=("${STUCK_LEFT[@]}")
	check "no task outlives the job (${left[*]:-none left})" test "${#left[@]}" = 0
	rc0=$STUCK_RC0 took0=$STUCK_TOOK0
	echo "# rank 2 never started: rank 0 exit ${rc0:-?} after ${took0:-?} s"
	# The 5 s fence is a lower bound by construction; above it, only the
	# launch and the tasks' exits: 25 s of room on a loaded machine.
	check "rank 0 does not wait out the 60 s startup bound: exit 1 after ${took0:-?} s (5 s fence, bound 30 s)" \
		test "${rc0:-}" = 1 -a "${took0:-99}" -ge 5 -a "${took0:-99}" -lt 30
	schema_check "$J/stuck.json"
	check "its result is marked incomplete" jqt '.results[0].complete | not' "$J/stuck.json"
	check "r2 is the failed host, with its node ($(jq -c '[.results[0].nodes[] | select(.error != null) | .host]' "$J/stuck.json"))" \
		jqt '[.results[0].nodes[] | select(.error != null)]
		     | length == 1 and (.[0].host | test("^r2@[A-Za-z0-9._-]+:0$"))
		       and (.[0].error | test("task 2 \\(on [^)]+\\) published no agent"))' \
		"$J/stuck.json"
	check "the three others measured each other" \
		jqt '[.results[0].nodes[] | select(.error == null and .measured > 0)] | length == 3' \
		"$J/stuck.json"
	check "named in rank 0's diagnostics" \
		grep -Eq "r2@[^ ]+:0: task 2 \(on [^)]+\) published no agent within 5 s" "$J/stuck.out"
fi

# ---- Slurm ----------------------------------------------------------------

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	skip_check "srun runs an SPMD mesh" "no slurmctld, slurmd or munged"
elif ! slurm_up $((20000 + RANDOM % 20000)); then
	not_ok "a single-node Slurm starts (slurmctld, slurmd, munged)"
else
	ok "a single-node Slurm starts (slurmctld, slurmd, munged)"
	SRUN=(timeout -k 10 120 srun -n 4 -O)
	if [ -n "${pmix_missing:-}" ]; then
		skip_check "srun --mpi=pmix runs an SPMD mesh" "$pmix_missing"
	else
		"${SRUN[@]}" --mpi=pmix "$IXPERF" mesh --test lat -n 200 --lat-factor 1000 -J \
			-o "$J/srun-pmix.json" >"$J/srun-pmix.out" 2>&1
		check "srun -n 4 --mpi=pmix ixperf mesh exits 0" test "$?" = 0 || cat "$J/srun-pmix.out"
		check "its four agents, named by rank, every pair measured" \
			jqt '(.results[0].hosts | length) == 4 and .results[0].complete' "$J/srun-pmix.json"
	fi
	IXPERF_TOKEN=$(head -c 32 /dev/urandom | base64) "${SRUN[@]}" --mpi=none "$IXPERF" mesh \
		--test lat -n 200 --lat-factor 1000 -J -o "$J/srun-env.json" >"$J/srun-env.out" 2>&1
	check "srun --mpi=none with IXPERF_TOKEN: the environment fallback exits 0" test "$?" = 0 ||
		cat "$J/srun-env.out"
	check "its four agents on derived ports, every pair measured" \
		jqt '(.results[0].hosts | length) == 4 and .results[0].complete' "$J/srun-env.json"
	env -u IXPERF_TOKEN "${SRUN[@]}" --mpi=none "$IXPERF" mesh --test lat -n 10 \
		>"$J/srun-notoken.out" 2>&1
	check "without PMIx or a token every task refuses (exit 2)" test "$?" = 2
	check "naming what to do" grep -q "set IXPERF_TOKEN" "$J/srun-notoken.out"

	# A task killed mid-mesh: a failed host, not a hung job.
	if [ -z "${pmix_missing:-}" ]; then
		start=$(date +%s)
		# Under --mpi=pmix Slurm cancels the step when a task dies; the
		# environment fallback leaves the others running (-K0).
		mkdir -p "$J/kill"
		IXPERF_TOKEN=$(head -c 32 /dev/urandom | base64) "${SRUN[@]}" -K0 --mpi=none \
			"${PIDS[@]}" "$J/kill" "$IXPERF" mesh --test bw -t 2.5 -w 0.5 --bad-fraction 0.01 \
			-J -o "$J/kill.json" >"$J/kill.out" 2>&1 &
		job=$!
		IX_PIDS+=("$job")
		victim=$(wait_task "$J/kill" 2)
		# Four tasks take three rounds of at least 3 s, task 2 in each: 2 s
		# after it started, the mesh has pairs of it left to fail (or has
		# not reached it yet, and it is a failed host), however slow the
		# machine.
		sleep 2
		check "task 2 (pid ${victim:-none found}) is killed while the job runs" \
			bash -c "kill -0 $job && kill -KILL '${victim:-none}'"
		wait "$job"
		rc=$?
		took=$(($(date +%s) - start))
		echo "# task 2 (pid ${victim:-none found}) killed: job exit $rc after ${took} s"
		# srun's status is the worst task's: the killed one (128 + 9).
		# The mesh's rounds take 9 s; what 120 s (from the launch) rules
		# out is a job left hanging (a task waiting on a dead peer for good).
		check "a killed task does not hang the job (srun exit $rc after ${took} s, bound 120 s)" \
			test "$rc" = 137 -a "$took" -lt 120
		check "rank 0 wrote the result, marked incomplete" jqt '.results[0].complete | not' \
			"$J/kill.json"
		check "the result names the failed task by rank ($(jq -c '[.results[0].nodes[] | select(.error != null) | .host]' "$J/kill.json") failed)" \
			jqt '[(.results[0].failures[] | .from, .to),
			      (.results[0].nodes[] | select(.error != null) | .host)]
			     | map(test("^r2@")) | any' "$J/kill.json"

		# A task that never starts its agent: a failed host once rank 0
		# has retried it for --connect-timeout.
		start=$(date +%s)
		# shellcheck disable=SC2016
		IXPERF_TOKEN=$(head -c 32 /dev/urandom | base64) "${SRUN[@]}" -K0 --mpi=none \
			bash -c '[ "$SLURM_PROCID" = 3 ] && exit 0; exec "$0" "$@"' "$IXPERF" mesh \
			--test lat -n 50 --lat-factor 1000 --connect-timeout 5 -J -o "$J/never.json" \
			>"$J/never.out" 2>&1
		rc=$?
		took=$(($(date +%s) - start))
		# As the fence above: 5 s by construction, 25 s of room above.
		check "a task that never starts: exit 1 after the 5 s retry (${took} s, bound 30 s)" \
			test "$rc" = 1 -a "$took" -ge 5 -a "$took" -lt 30
		check "it is the failed host, by rank ($(jq -c '.results[0].failures | length' "$J/never.json") failed pairs)" \
			jqt '[(.results[0].failures[] | .from, .to),
			      (.results[0].nodes[] | select(.error != null) | .host)]
			     | map(test("^r3@")) | any' "$J/never.json"
		check "named in rank 0's diagnostics" grep -q "r3@.*cannot connect" "$J/never.out"

		# The coordinator killed: every agent gone within seconds.
		mkdir -p "$J/coord"
		"${SRUN[@]}" --mpi=pmix "${PIDS[@]}" "$J/coord" "$IXPERF" mesh --test bw -t 2 -w 0.2 \
			>"$J/coord.out" 2>&1 &
		job=$!
		IX_PIDS+=("$job")
		coord=$(wait_task "$J/coord" 0)
		# Every task started (a loaded machine starts them late: one that
		# came after the check below would look like one left behind).
		for r in 1 2 3; do wait_task "$J/coord" "$r" >/dev/null; done
		sleep 1.5 # any time in the mesh (6.6 s of rounds) will do
		check "rank 0 (pid ${coord:-none found}) is killed mid-mesh" kill -KILL "${coord:-none}"
		t0=$(date +%s)
		for _ in $(seq 1 150); do
			[ -z "$(tasks "$J/coord")" ] && break
			sleep 0.1
		done
		gone=$(($(date +%s) - t0))
		check "the coordinator killed: no task left after ${gone} s (bound 15 s)" test -z "$(tasks "$J/coord")"
		wait "$job"
	fi
fi

ix_done
