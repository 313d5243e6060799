#!/usr/bin/env bash
# Rails: 3 hosts with two NICs each, NIC i of every host on rail i (its
# own bridge, its own subnet: 198.18.0.0/24 on eth0, 198.19.0.0/24 on
# eth1). Rail 1's ports are shaped far below rail 0's. `mesh --rails auto`
# finds both rails in the agents' inventories, measures each rail's pairs
# only, both rails at once, and names rail 1 as the bad rail; no packet
# crosses from one rail's subnet to the other's (nftables counters in every
# host), and the named forms (interfaces, subnets) pick the same rails.
. "${top_srcdir:-.}/tests/lib.sh"

[ "${IX_SKIP_NETNS:-0}" = 1 ] && ix_skip "IX_SKIP_NETNS=1"
command -v nft >/dev/null || ix_need "nft (nftables) is not installed"
N=3
P="ixr$$-"
ix_fabric "$P" "$N"
SW2="${P}sw2"
J=$IX_TMP

# The second rail: its own switch, eth1 in every host.
ip netns add "$SW2" && IX_NETNS+=("$SW2")
ip -n "$SW2" link add br1 type bridge && ip -n "$SW2" link set dev br1 up
for ((i = 1; i <= N; i++)); do
	ip link add eth1 netns "${P}h$i" type veth peer name "swq$i" netns "$SW2"
	ip -n "$SW2" link set dev "swq$i" master br1 up
	ip -n "${P}h$i" link set dev eth1 up
	ip -n "${P}h$i" addr add "198.19.0.$i/24" dev eth1
done
# Rail 0 at 400 Mbit/s, rail 1 at 80 Mbit/s: each port and its cable.
for ((i = 1; i <= N; i++)); do
	tc -n "${P}sw" qdisc add dev "swp$i" root tbf rate 400mbit burst 64kb latency 20ms ||
		ix_skip "no tbf"
	tc -n "${P}h$i" qdisc add dev eth0 root tbf rate 400mbit burst 64kb latency 20ms
	tc -n "$SW2" qdisc add dev "swq$i" root tbf rate 80mbit burst 32kb latency 20ms
	tc -n "${P}h$i" qdisc add dev eth1 root tbf rate 80mbit burst 32kb latency 20ms
done
# Counters of what leaves each host across the rails (never expected) and
# on each rail.
for ((i = 1; i <= N; i++)); do
	ip netns exec "${P}h$i" nft -f - <<'EOF'
table inet ixrail {
	chain out {
		type filter hook output priority 0;
		ip saddr 198.18.0.0/24 ip daddr 198.19.0.0/24 counter comment "cross01"
		ip saddr 198.19.0.0/24 ip daddr 198.18.0.0/24 counter comment "cross10"
		oifname "eth0" counter comment "rail0"
		oifname "eth1" counter comment "rail1"
	}
}
EOF
done
# bytes HOST COMMENT: the bytes the counter named COMMENT counted in HOST.
bytes() {
	ip netns exec "${P}h$1" nft -j list table inet ixrail |
		jq "[.nftables[].rule? | select(.comment == \"$2\") | .expr[] | .counter?.bytes // empty] | add // 0"
}

# The coordinator in host 1 asks the agents at their rail-0 addresses
# alone (the rails need not route to it): RUN is allowed from 198.18.0.1
# only, and each rail's tests run between that rail's addresses.
hosts=
for ((i = 1; i <= N; i++)); do
	IX_NS="${P}h$i" ix_server "a$i" --allow-run 198.18.0.1 || exit 99
	hosts="${hosts:+$hosts,}198.18.0.$i:$IX_PORT"
done
run() { ip netns exec "${P}h1" "$IXPERF" mesh --test bw -t 1 -w 0.2 "$@"; }

mkdir -p "$J/textfile"
run --rails auto -J --post "textfile=$J/textfile" --post-job rails "$hosts" >"$J/auto.json" 2>"$J/auto.err"
rc=$?
jq -r '.results[-1].rails[] | "  rail \(.index) \(.name) (\(.iface)): median \(.median_bw_bps), bad \(.bad) \(.reason // "")"' "$J/auto.json"
jq -r '.results[-1].nodes[] | "  \(.host): all rails send \(.bw_out_bps) recv \(.bw_in_bps) over \(.rails)"' "$J/auto.json"
check "the rail mesh exits 4: a bad rail" test "$rc" = 4 || cat "$J/auto.err"
check "auto finds the two rails by subnet, each on its interface" jq_true "$J/auto.json" \
	'.results[-1].by == "subnet" and [.results[-1].rails[] | [.name, .iface]] ==
	 [["198.18.0.0/24", "eth0"], ["198.19.0.0/24", "eth1"]]'
check "each rail's mesh has every node's address on that rail, and only those" jq_true "$J/auto.json" \
	'[.results[0].hosts[] | startswith("198.18.0.")] + [.results[1].hosts[] | startswith("198.19.0.")]
	 | length == 6 and all'
check "every pair of both rails measured" jq_true "$J/auto.json" \
	'.results[0].pairs.measured == 3 and .results[1].pairs.measured == 3 and .results[-1].complete'
check "rail 1 is named the bad rail, with its median against the rails'" jq_true "$J/auto.json" \
	'.results[-1].bad_rails == ["198.19.0.0/24"] and
	 (.results[-1].rails[1].reason | test("^median [0-9.]+ Mbit/s is [0-9]+% of the rails. [0-9.]+ Mbit/s"))
	 and (.results[-1].rails[0].bad | not)'
check "each node's all-rail throughput sums its two rails" jq_true "$J/auto.json" \
	'[.results[-1].nodes[] | .rails == 2 and .bw_out_bps > 0] | all'
check "the rails ran at once: the whole took less than the two rails one after the other" \
	jq_true "$J/auto.json" '.results[-1].wall_s < 0.8 * (.results[0].wall_s + .results[1].wall_s)'
cross=0 r0=0 r1=0
for ((i = 1; i <= N; i++)); do
	cross=$((cross + $(bytes "$i" cross01) + $(bytes "$i" cross10)))
	r0=$((r0 + $(bytes "$i" rail0)))
	r1=$((r1 + $(bytes "$i" rail1)))
done
echo "  bytes sent: rail 0 $r0, rail 1 $r1, across the rails $cross"
check "no byte went from one rail's subnet to the other's" test "$cross" = 0
check "both rails carried their tests (over 1 MB each)" test "$r0" -gt 1000000 -a "$r1" -gt 1000000
schema_check "$J/auto.json"

# --post: the Prometheus series of the same run are the document's figures.
PROM=$J/textfile/ixperf-rails.prom
series() { # series NAME LABEL-REGEX: the value of the one matching series
	grep -E "^$1(\{| )" "$PROM" | grep -E -- "$2" | awk '{print $2}'
}
same() { python3 -c 'import sys; sys.exit(float(sys.argv[1]) != float(sys.argv[2]))' "$1" "$2"; }
check "the rail mesh was posted to the textfile" grep -q "ixperf mesh: posted to $J/textfile (textfile)" "$J/auto.err"
check "it reads back verdict FAIL, as the exit status 4 says" same "$(series ixperf_run_verdict 'verdict="FAIL"')" 1
check "its bad rails and rails are the document's" bash -c \
	"test '$(series ixperf_rails_bad .)' = \$(jq '.results[-1].bad_rails | length' '$J/auto.json') -a \
	 '$(series ixperf_rails_found .)' = \$(jq '.results[-1].rails | length' '$J/auto.json')"
rails_ok() { # each rail's median and bad flag as the document has them
	local k name bad=0
	for k in 0 1; do
		name=$(jq -r ".results[-1].rails[$k].name" "$J/auto.json")
		echo "    rail $name: $(series ixperf_rail_median_bandwidth_bytes_per_second "rail=\"$name\"") B/s, the document's $(jq ".results[-1].rails[$k].median_bw_bps / 8" "$J/auto.json")"
		same "$(series ixperf_rail_median_bandwidth_bytes_per_second "rail=\"$name\"")" \
			"$(jq ".results[-1].rails[$k].median_bw_bps / 8" "$J/auto.json")" || bad=1
		same "$(series ixperf_rail_bad "rail=\"$name\"")" \
			"$(jq ".results[-1].rails[$k].bad | if . then 1 else 0 end" "$J/auto.json")" || bad=1
		same "$(series ixperf_mesh_median_bandwidth_bytes_per_second "rail=\"$name\"")" \
			"$(jq ".results[$k].median_bw_bps / 8" "$J/auto.json")" || bad=1
	done
	return $bad
}
check "each rail's median, its bad flag and its mesh's median read back as the document's" rails_ok
if command -v promtool >/dev/null; then
	check "promtool check metrics accepts the rails' textfile" promtool check metrics <"$PROM"
else
	skip_check "promtool check metrics" "promtool is not installed (Debian: prometheus; contrib/setup.sh installs it)"
fi

"$IXPERF" report "$J/auto.json" >"$J/report.txt" 2>&1
check "ixperf report of the saved rail mesh shows each rail's mesh and names rail 1" bash -c \
	"grep -q '^== Rail 0: 198.18.0.0/24 (eth0) ==' '$J/report.txt' &&
	 grep -q '^== Rail 1: 198.19.0.0/24 (eth1) ==' '$J/report.txt' &&
	 grep -qE '^  rail 1 \(198\.19\.0\.0/24\): median [0-9.]+ Mbit/s is [0-9]+% of the rails' '$J/report.txt' &&
	 grep -q 'Inventory of 3 node' '$J/report.txt'" || cat "$J/report.txt"
"$IXPERF" report -f html -o "$J/auto.html" "$J/auto.json" 2>"$J/html.err"
check "the HTML report draws each rail's mesh and names the bad rail" bash -c \
	"grep -q '<h2>rail 198.19.0.0/24 ' '$J/auto.html' && grep -q '<h3>Rails, measured at once</h3>' '$J/auto.html' &&
	 grep -qE 'median [0-9.]+ Mbit/s is [0-9]+% of the rails' '$J/auto.html'"

run --rails auto "$hosts" >"$J/auto.txt" 2>&1
sed 's/^/# /' "$J/auto.txt" | tail -n 16
check "the text names rail 1 and why" grep -qE \
	'^  rail 1 \(198\.19\.0\.0/24\): median [0-9.]+ Mbit/s is [0-9]+% of the rails' "$J/auto.txt"

run --rails eth0,eth1 -J "$hosts" >"$J/named.json" 2>"$J/named.err"
check "--rails eth0,eth1 names the same rails by interface" jq_true "$J/named.json" \
	'.results[-1].by == "interface" and [.results[-1].rails[].name] == ["eth0", "eth1"] and
	 .results[-1].bad_rails == ["eth1"]'
run --rails 198.19.0.0/24 -J "$hosts" >"$J/one.json" 2>"$J/one.err"
rc=$?
check "--rails SUBNET: that rail alone, uniform, exits 0" jq_true "$J/one.json" \
	"$rc == 0 and [.results[-1].rails[].name] == [\"198.19.0.0/24\"] and .results[-1].bad_rails == []"

# The same as an acceptance plan: a mesh check with rails fails on the
# bad rail (max_bad_rails = 0 unless the plan says otherwise), named.
printf '[plan]\nname = rails\nhosts = %s\n[rails]\nprobe = mesh\nrails = auto\ntest = bw\ntime = 1\nwarmup = 0.2\nmin_bw = 50Mbit\n' \
	"$hosts" >"$J/rails.ini"
ip netns exec "${P}h1" "$IXPERF" run -d "$J/run" "$J/rails.ini" >"$J/run.txt" 2>"$J/run.err"
rc=$?
sed 's/^/# /' "$J/run.txt"
check "ixperf run exits 4 on the bad rail" test "$rc" = 4
check "the summary fails max_bad_rails = 0 (the default), names rail 1, and holds min_bw to the slowest rail" bash -c \
	"grep -q 'FAIL max_bad_rails = 0 (the default): 1' '$J/run.txt' &&
	 grep -qE 'finding: rail 1 \(198.19.0.0/24\): median [0-9.]+ Mbit/s is [0-9]+% of the rails' '$J/run.txt' &&
	 grep -qE 'ok   min_bw = 50Mbit: [67][0-9.]+ Mbit/s' '$J/run.txt'"
check "the run's document holds each rail's mesh and the rails" jq_true "$(ls "$J"/run/*.json | head -1)" \
	'.results[0].checks[0].results | map(.kind) == ["mesh", "mesh", "rails"]'
schema_check "$(ls "$J"/run/*.json | head -1)"

run --rails 198.19.0.0/33 "$hosts" >/dev/null 2>"$J/bad.err"
check "a malformed rail is a usage error naming it" bash -c \
	"test $? = 2 && grep -q \"'198.19.0.0/33' is not a subnet\" '$J/bad.err'"
run --rails 10.9.0.0/24 "$hosts" >/dev/null 2>"$J/none.err"
check "a rail no node is on is refused, named" bash -c \
	"test $? = 2 && grep -q 'fewer than two nodes have an address in 10.9.0.0/24' '$J/none.err'"
ix_done
