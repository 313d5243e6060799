#!/usr/bin/env bash
# ixperf run launched as tasks by the real launchers: Open MPI's mpirun
# (PMIx) and a single-node Slurm started here (srun --mpi=pmix, and
# --mpi=none with IXPERF_TOKEN): every task an agent, rank 0 runs the plan
# over them and writes the only result; a sweep larger than the job is an
# error, not a smaller sweep; hosts = tasks outside a launch is an error; a
# task killed mid-plan fails the checks that involve it and the run goes on.
. "${top_srcdir:-.}/tests/lib.sh"
. "${top_srcdir:-.}/tests/integration/launchers.sh"

J=$IX_TMP
grep -q "define HAVE_PMIX 1" config.h 2>/dev/null || pmix_missing="built without PMIx (libpmix-dev)"
jqt() { jq -e "$@" >/dev/null; }
# result DIR: the one result document rank 0 wrote there.
result() { find "$1" -name 'ixperf-run-*.json' 2>/dev/null | head -1; }
# files DIR: what is there, on one line.
files() { find "$1" -type f -printf '%f ' 2>/dev/null; }
# task RANK MARK: the PID of the ixperf task of that rank whose command line
# holds MARK (other tests may run ixperf at the same time), 30 s at most.
task() {
	local p
	for _ in $(seq 1 300); do
		for p in $(pgrep -x ixperf); do
			grep -qF -- "$2" "/proc/$p/cmdline" 2>/dev/null || continue
			{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null |
				grep -qE "^(PMIX_RANK|SLURM_PROCID)=$1\$" && { echo "$p"; return 0; }
		done
		sleep 0.1
	done
}

# A permanent agent, for a check that names its own host under a launch.
ix_server perm || not_ok "a permanent agent starts"
# What is checked here is the launch: every check runs over the tasks and
# is judged against limits that a launch carrying nothing fails and any
# loaded machine's loopback meets by far: 100 Mbit/s (loopback carries
# gigabits between tasks), a p50 of 50 ms and a p99 of 100 ms (loopback
# answers in tens of microseconds; a reply later than the 1 s timeout
# fails the test anyway). No pair's latency is a million times the
# others' when every one lies between a microsecond and the timeout.
# (The plan's unit tests judge limits on crafted results.)
cat >"$J/plan.ini" <<PLAN
[plan]
name = launched acceptance
[lat-mesh]
probe = mesh
test = lat
time = 0.3
lat_factor = 1000000
max_p50 = 50ms
[incast]
probe = incast
senders = 1,3
time = 0.5
warmup = 0.2
min_bw = 100Mbit
[bw]
probe = bw
time = 0.5
warmup = 0.2
min_bw = 100Mbit
[lat]
probe = lat
time = 0.3
max_p99 = 100ms
[named-host]
probe = bw
hosts = 127.0.0.1:${IX_PORT:-1}
time = 0.3
warmup = 0.1
min_bw = 100Mbit
PLAN
cat >"$J/big.ini" <<'PLAN'
[incast-big]
probe = incast
senders = 2,8,16
time = 0.3
warmup = 0.1
min_bw = 1
PLAN
cat >"$J/die.ini" <<'PLAN'
[lat-mesh]
probe = mesh
test = lat
time = 2
lat_factor = 1000000
[incast]
probe = incast
senders = 1,3
time = 0.3
warmup = 0.1
[bw]
probe = bw
time = 0.3
warmup = 0.1
PLAN
# check_launched NAME DIR OUT RC BACKEND: what every launched run of plan.ini
# must show.
check_launched() {
	local f
	f=$(result "$2")
	check "$1: ixperf run PLAN as 4 tasks exits 0" test "$4" = 0 || cat "$3"
	check "$1: rank 0 alone wrote a result ($(files "$2"))" \
		test "$(find "$2" -type f 2>/dev/null | wc -l)" = 2 -a -n "$f"
	[ -n "$f" ] || { cat "$3"; return; }
	schema_check "$f"
	check "$1: every check judged PASS ($(jq -c '[.results[0].checks[] | .verdict]' "$f"))" \
		jqt '[.results[0].checks[] | .verdict == "PASS"] | length == 5 and all' "$f"
	check "$1: mesh and incast over the four tasks, named by rank" \
		jqt '[.results[0].checks[] | select(.probe == "mesh" or .probe == "incast")
		      | .hosts | map(test("^r[0-3]@")) | length == 4 and all] | length == 2 and all' "$f"
	check "$1: the mesh's own result names them by rank" \
		jqt '.results[0].checks[0].results[0].hosts | map(test("^r[0-3]@")) | all' "$f"
	check "$1: the incast's receiver is rank 0" \
		jqt '.results[0].checks[1].results[0].receiver | test("^r0@")' "$f"
	check "$1: bw and lat: rank 0 towards rank 1" \
		jqt '[.results[0].checks[2,3].hosts == [.results[0].checks[0].hosts[1]]] | all' "$f"
	check "$1: a check naming its host measures that host" \
		jqt '.results[0].checks[4].hosts == ["127.0.0.1:'"${IX_PORT:-1}"'"]' "$f"
	check "$1: the summary names the tasks" grep -q "^Tasks: 4 ($5), hosts named by rank" "$3"
	check "$1: every task's agent and the named host gave its inventory ($(jq -c '[.results[0].fleet.nodes[] | .host]' "$f"))" \
		jqt '.results[0].fleet | .answered == 5 and ([.nodes[].host | select(test("^r[0-3]@"))] | length == 4)' "$f"
}

# ---- not launched ----------------------------------------------------------
printf '[plan]\nhosts = tasks\n[m]\nprobe = mesh\ntest = lat\ntime = 0.2\n' >"$J/tasks.ini"
"$IXPERF" run -d "$J/plain" --no-html "$J/tasks.ini" >"$J/plain.out" 2>&1
check "hosts = tasks outside a launch: exit 1" test "$?" = 1
check "the check is an ERROR saying why" \
	jqt '.results[0].checks[0] | .verdict == "ERROR" and (.error | test("not started as tasks"))' \
	"$(result "$J/plain")"

# ---- Open MPI ---------------------------------------------------------------
if [ -n "$(mpi_unavailable)" ]; then
	skip_check "mpirun runs an SPMD plan" "$(mpi_unavailable)"
else
	MPI=(timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe -np 4)
	start=$(date +%s)
	"${MPI[@]}" "$IXPERF" run -d "$J/mpi" "$J/plan.ini" >"$J/mpi.out" 2>&1
	rc=$?
	echo "# mpirun: exit $rc after $(($(date +%s) - start)) s"
	check_launched mpirun "$J/mpi" "$J/mpi.out" "$rc" pmix

	# More senders than tasks: the steps that fit run, the check errors.
	"${MPI[@]}" "$IXPERF" run -d "$J/big" --no-html "$J/big.ini" >"$J/big.out" 2>&1
	rc=$?
	f=$(result "$J/big")
	check "a sweep beyond the job: exit 1 (rc $rc)" test "$rc" = 1
	check "the step that fits ran and is kept ($(jq -c '[.results[0].checks[0].results[0].steps[].senders]' "$f"))" \
		jqt '[.results[0].checks[0].results[0].steps[].senders] == [2]' "$f"
	check "the check is an ERROR naming what did not run ($(jq -c '.results[0].checks[0].error' "$f"))" \
		jqt '.results[0].checks[0] | .verdict == "ERROR"
		     and (.error | test("8,16 senders.*the job has 4 tasks"))' "$f"

	# A task killed mid-plan. Open MPI aborts the job when a task dies
	# unless recovery is on; rank 0's own status is recorded by the
	# wrapper (mpirun's under recovery is not rank 0's).
	start=$(date +%s)
	# shellcheck disable=SC2016
	"${MPI[@]}" --enable-recovery bash -c '"$@"; rc=$?; [ "$PMIX_RANK" = 0 ] && echo $rc >"$0"; exit $rc' \
		"$J/die.rc" "$IXPERF" run -d "$J/die" --no-html "$J/die.ini" >"$J/die.out" 2>&1 &
	job=$!
	IX_PIDS+=("$job")
	victim=$(task 3 "$J/die")
	# Rank 0 makes the output directory once it holds every agent: the
	# plan's first check, the mesh (6 s), runs from then on.
	for _ in $(seq 1 600); do [ -d "$J/die" ] && break; sleep 0.1; done
	sleep 1.5 # inside the mesh's 6 s however slow the machine: it is timed
	check "task 3 found and killed mid-plan (pid ${victim:-none})" test -n "$victim"
	[ -n "$victim" ] && kill -KILL "$victim"
	wait "$job"
	took=$(($(date +%s) - start))
	f=$(result "$J/die")
	echo "# task 3 (pid ${victim:-none}) killed: rank 0 exit $(cat "$J/die.rc" 2>/dev/null) after ${took} s"
	# The plan's checks take some 15 s; 60 s rules out a rank 0 left
	# waiting on a dead task, with room for a loaded machine.
	check "a killed task: rank 0 exits 1 within 60 s (${took} s)" \
		test "$(cat "$J/die.rc" 2>/dev/null)" = 1 -a "$took" -lt 60 || cat "$J/die.out"
	check "rank 0 still wrote its result, marked incomplete" \
		jqt '(.complete | not) and .results[0].verdict == "ERROR"' "$f"
	schema_check "$f"
	check "the mesh and incast with the dead task are ERRORs naming it by rank ($(jq -c '[.results[0].checks[] | .verdict]' "$f"))" \
		jqt '[.results[0].checks[0,1] | .verdict == "ERROR" and (.error | test("r3@"))] | all' "$f"
	check "the check without it still ran: bw from rank 0 to rank 1" \
		jqt '.results[0].checks[2] | .verdict == "INFO" and .error == null' "$f"
fi

# ---- Slurm ----------------------------------------------------------------

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
	skip_check "srun runs an SPMD plan" "no slurmctld, slurmd or munged"
elif [ -n "${pmix_missing:-}" ]; then
	skip_check "srun --mpi=pmix runs an SPMD plan" "$pmix_missing"
elif ! slurm_up $((20000 + RANDOM % 20000)); then
	not_ok "a single-node Slurm starts (slurmctld, slurmd, munged)"
else
	ok "a single-node Slurm starts (slurmctld, slurmd, munged)"
	start=$(date +%s)
	timeout -k 10 120 srun -n 4 -O --mpi=pmix "$IXPERF" run -d "$J/srun" "$J/plan.ini" \
		>"$J/srun.out" 2>&1
	rc=$?
	echo "# srun: exit $rc after $(($(date +%s) - start)) s"
	check_launched "srun --mpi=pmix" "$J/srun" "$J/srun.out" "$rc" pmix
	# Without PMIx: Slurm's environment and the user's token.
	IXPERF_TOKEN=$(head -c 32 /dev/urandom | base64) timeout -k 10 120 srun -n 4 -O --mpi=none \
		"$IXPERF" run -d "$J/srun-env" "$J/plan.ini" >"$J/srun-env.out" 2>&1
	check_launched "srun --mpi=none" "$J/srun-env" "$J/srun-env.out" "$?" slurm-env
fi

ix_done
