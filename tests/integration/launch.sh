#!/usr/bin/env bash
# mesh and incast launched as tasks by the real launchers: Open MPI's
# mpirun (PMIx), and a single-node Slurm started here (srun --mpi=pmix, and
# --mpi=none with the environment fallback); a task killed mid-mesh, and the
# coordinator killed.
. "${top_srcdir:-.}/tests/lib.sh"

J=$IX_TMP
grep -q "define HAVE_PMIX 1" config.h 2>/dev/null || pmix_missing="built without PMIx (libpmix-dev)"
jqt() { jq -e "$@" >/dev/null; }
# wait_task RANK: the PID of that task once it runs (10 s at most).
wait_task() {
	local p
	for _ in $(seq 1 100); do
		p=$(tasks "$1")
		[ -n "$p" ] && { echo "$p"; return 0; }
		sleep 0.1
	done
}
# The ixperf processes that are tasks of a launch (srun sets SLURM_PROCID).
tasks() {
	local p
	for p in $(pgrep -x ixperf); do
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -q "^SLURM_PROCID=${1:-}" && echo "$p"
	done
}

# ---- Open MPI ---------------------------------------------------------------
if ! command -v mpirun >/dev/null; then
	skip_check "mpirun runs an SPMD mesh and incast" "no mpirun (openmpi-bin)"
elif [ -n "${pmix_missing:-}" ]; then
	skip_check "mpirun runs an SPMD mesh and incast" "$pmix_missing"
else
	MPI=(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 4)
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

# ---- Slurm ----------------------------------------------------------------
slurm_up() {
	local d=$J/slurm
	mkdir -p "$d/state" "$d/spool" "$d/munge" "$d/log"
	chmod 700 "$d/munge"
	head -c 1024 /dev/urandom >"$d/munge/munge.key"
	chmod 600 "$d/munge/munge.key"
	munged -F --key-file="$d/munge/munge.key" --socket="$d/munge/sock" \
		--pid-file="$d/munge/pid" --log-file="$d/munge/log" --seed-file="$d/munge/seed" \
		--force 2>"$d/log/munged.err" &
	IX_PIDS+=("$!")
	cat >"$d/slurm.conf" <<CONF
ClusterName=ixtest
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/sock
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldPort=$1
SlurmdPort=$(($1 + 1))
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
NodeName=localhost CPUs=$(nproc) State=UNKNOWN
PartitionName=ix Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
	export SLURM_CONF=$d/slurm.conf
	for _ in $(seq 1 50); do [ -S "$d/munge/sock" ] && break; sleep 0.1; done
	slurmctld -D -f "$SLURM_CONF" >"$d/log/slurmctld.out" 2>&1 &
	IX_PIDS+=("$!")
	slurmd -D -f "$SLURM_CONF" >"$d/log/slurmd.out" 2>&1 &
	IX_PIDS+=("$!")
	for _ in $(seq 1 100); do
		sinfo -h -o %t 2>/dev/null | grep -q idle && return 0
		sleep 0.2
	done
	cat "$d/log/"* >&2
	return 1
}

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	skip_check "srun runs an SPMD mesh" "no slurmctld, slurmd or munged"
elif ! slurm_up $((20000 + RANDOM % 20000)); then
	not_ok "a single-node Slurm starts (slurmctld, slurmd, munged)"
else
	ok "a single-node Slurm starts (slurmctld, slurmd, munged)"
	SRUN=(timeout 120 srun -n 4 -O)
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
		IXPERF_TOKEN=$(head -c 32 /dev/urandom | base64) "${SRUN[@]}" -K0 --mpi=none \
			"$IXPERF" mesh --test bw -t 1 -w 0.2 --bad-fraction 0.01 \
			-J -o "$J/kill.json" >"$J/kill.out" 2>&1 &
		job=$!
		IX_PIDS+=("$job")
		victim=$(wait_task 2)
		sleep 1.5
		kill -KILL "$victim" 2>/dev/null
		wait "$job"
		rc=$?
		took=$(($(date +%s) - start))
		echo "# task 2 killed: job exit $rc after ${took} s"
		# srun's status is the worst task's: the killed one (128 + 9).
		check "a killed task does not hang the job (srun exit $rc after ${took} s, bound 60 s)" \
			test "$rc" = 137 -a "$took" -lt 60
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
		check "a task that never starts: exit 1 after the 5 s retry (${took} s, bound 30 s)" \
			test "$rc" = 1 -a "$took" -ge 5 -a "$took" -lt 30
		check "it is the failed host, by rank ($(jq -c '.results[0].failures | length' "$J/never.json") failed pairs)" \
			jqt '[(.results[0].failures[] | .from, .to),
			      (.results[0].nodes[] | select(.error != null) | .host)]
			     | map(test("^r3@")) | any' "$J/never.json"
		check "named in rank 0's diagnostics" grep -q "r3@.*cannot connect" "$J/never.out"

		# The coordinator killed: every agent gone within seconds.
		"${SRUN[@]}" --mpi=pmix "$IXPERF" mesh --test bw -t 2 -w 0.2 >"$J/coord.out" 2>&1 &
		job=$!
		IX_PIDS+=("$job")
		coord=$(wait_task 0)
		sleep 1.5
		kill -KILL "$coord" 2>/dev/null
		t0=$(date +%s)
		for _ in $(seq 1 150); do
			[ -z "$(tasks)" ] && break
			sleep 0.1
		done
		gone=$(($(date +%s) - t0))
		check "the coordinator killed: no task left after ${gone} s (bound 15 s)" test -z "$(tasks)"
		wait "$job"
	fi
fi

ix_done
