# The launchers of the launch tests, sourced by launch.sh and launch_run.sh.

# mpi_unavailable: why Open MPI cannot run SPMD tasks here ("" when it can).
mpi_unavailable() {
	if ! command -v mpirun >/dev/null; then
		echo "no mpirun (openmpi-bin)"
	elif ! grep -q "define HAVE_PMIX 1" config.h 2>/dev/null; then
		echo "built without PMIx (libpmix-dev)"
	fi
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
