# The launchers of the launch tests, sourced by launch.sh and launch_run.sh.

# mpi_unavailable: why Open MPI cannot run SPMD tasks here ("" when it can).
mpi_unavailable() {
	if ! command -v mpirun >/dev/null; then
		echo "no mpirun (openmpi-bin)"
	elif ! grep -q "define HAVE_PMIX 1" config.h 2>/dev/null; then
		echo "built without PMIx (libpmix-dev)"
	fi
}

# running PID: the process lives (a zombie does not).
running() {
	[ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}

# mpi_stuck DIR RANK OUT MPIRUN... -- IXPERF ARGS...: the job MPIRUN...
# of IXPERF ARGS... in which task RANK never runs ixperf (it sleeps 45 s
# instead), its output in OUT. Rank 0's exit status and seconds come back
# in STUCK_RC0 and STUCK_TOOK0 (empty when it did not end); the tasks still
# running once mpirun is gone (10 s allowed) in STUCK_LEFT, killed.
mpi_stuck() {
	local d=$1 rank=$2 out=$3 mpi=() job p spids
	shift 3
	while [ "$1" != -- ]; do
		mpi+=("$1")
		shift
	done
	shift
	cat >"$d/stuck.sh" <<'STUCK'
#!/usr/bin/env bash
# stuck.sh DIR RANK IXPERF ARGS...: task RANK never runs ixperf; rank 0's
# exit status and seconds go to DIR/stuck.rank0, every PID to DIR/stuck.pids.
d=$1 stuck=$2 ix=$3
shift 3
r=${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-}}
echo "$$" >>"$d/stuck.pids"
[ "$r" = "$stuck" ] && exec sleep 45
[ "$r" != 0 ] && exec "$ix" "$@"
# Once rank 0 has said it is done the other tasks exit non-zero, and
# mpirun then signals the process group of every task left: rank 0 runs in
# a session of its own, where what it did is written whatever becomes of
# this wrapper.
setsid bash -c 'start=$(date +%s)
"$@"
rc=$?
echo "$rc $(($(date +%s) - start))" >"$0"
exit "$rc"' "$d/stuck.rank0" "$ix" "$@" &
echo "$!" >>"$d/stuck.pids"
wait "$!"
STUCK
	chmod +x "$d/stuck.sh"
	rm -f "$d/stuck.pids" "$d/stuck.rank0"
	"${mpi[@]}" "$d/stuck.sh" "$d" "$rank" "$@" >"$out" 2>&1 &
	job=$!
	IX_PIDS+=("$job")
	wait "$job"
	mapfile -t spids <"$d/stuck.pids"
	for _ in $(seq 1 100); do
		STUCK_LEFT=()
		for p in "${spids[@]}"; do running "$p" && STUCK_LEFT+=("$p"); done
		[ "${#STUCK_LEFT[@]}" = 0 ] && break
		sleep 0.1
	done
	for p in "${STUCK_LEFT[@]}"; do
		IX_PIDS+=("$p")
		kill -KILL "$p" 2>/dev/null
	done
	# shellcheck disable=SC2034 # the caller's
	STUCK_RC0='' STUCK_TOOK0=''
	# shellcheck disable=SC2034
	[ -s "$d/stuck.rank0" ] && read -r STUCK_RC0 STUCK_TOOK0 <"$d/stuck.rank0"
	return 0
}

# A single-node Slurm: munged, slurmctld and slurmd started as root with a
# config in $J/slurm, every process on IX_PIDS (the test's cleanup stops
# them by PID).

# slurm_up PORT: 0 once sinfo shows the node idle (20 s at most); the
# config is exported as SLURM_CONF.
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
