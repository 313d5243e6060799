#!/usr/bin/env bash
# The packages, end to end. make deb and make rpm build them from this
# tree's release tarball (lintian and rpmlint clean of errors); the .deb is
# installed by apt-get into a clean minimal root of this machine's own
# distribution (debootstrap --variant=minbase from the mirror apt uses
# here), which pulls its dependencies, and runs there: ixperf --version,
# ixperf topo against the kernel's own lists, and the README's main job,
# ixperf run, on loopback. The .rpm's file list and Requires are read with
# rpm -qlp and -qpR against what the binary links.
# The minimal root is cached in tests/pkg-cache of the build tree (as the
# VMs' kernel is); apt-get reaches the mirror on every run. The root's
# mounts are undone and its processes killed by PID on any exit.
. "${top_srcdir:-.}/tests/lib.sh"

[ "$(id -u)" = 0 ] || ix_skip "needs root for debootstrap, chroot and mounts (CI runs as root)"
for t in debootstrap dpkg-buildpackage dh lintian rpmbuild rpm readelf; do
	command -v "$t" >/dev/null || ix_need "$t is not installed (contrib/setup.sh deps installs it)"
done

B=$(pwd)
V=$(sed -n 's/^PACKAGE_VERSION = //p' "$B/Makefile")
ROOT=$(mktemp -d /var/tmp/ixperf-pkgroot.XXXXXX)
MOUNTS=()
JOBS=()

# Every process whose root is the chroot, by PID, then the mounts in
# reverse order. The root is removed only when nothing is mounted in it,
# and never across a file system (rm --one-file-system).
pkg_cleanup() {
	local p i left=0
	for p in "${JOBS[@]}"; do
		kill -TERM -- "-$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$ROOT" ] && kill -KILL "${p#/proc/}" 2>/dev/null
	done
	for ((i = ${#MOUNTS[@]} - 1; i >= 0; i--)); do
		umount "${MOUNTS[i]}" 2>/dev/null || umount -l "${MOUNTS[i]}" 2>/dev/null || left=1
	done
	if [ "$left" = 0 ] && ! grep -q " $ROOT/" /proc/self/mounts; then
		rm -rf --one-file-system "$ROOT"
	else
		echo "package_deb: $ROOT still has mounts: left in place" >&2
	fi
}
trap 'pkg_cleanup; ix_cleanup' EXIT

# ---- the distribution apt uses here: its deb entries as URI SUITE COMPONENTS KEYRING ----
# From sources.list (one-line) and sources.list.d (one-line and deb822),
# the distribution's own archives only: entries signed by a keyring under
# /usr/share/keyrings named for the distribution, or by apt's default keys.
. /etc/os-release
SUITE=${VERSION_CODENAME:-}
[ -n "$SUITE" ] || ix_skip "/etc/os-release names no VERSION_CODENAME"
apt_entries() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] || continue
		sed -n 's/^deb[[:space:]]\+//p' "$f" | awk '{
			key = "-"
			if ($1 ~ /^\[/) { while ($1 !~ /\]$/) { if ($1 ~ /signed-by=/) key = $1; $1 = ""; $0 = $0 }
				if ($1 ~ /signed-by=/) key = $1; $1 = ""; $0 = $0 }
			sub(/.*signed-by=/, "", key); sub(/[],].*/, "", key)
			comps = ""; for (i = 3; i <= NF; i++) comps = comps (i > 3 ? "," : "") $i
			print $1, $2, comps, key }'
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk 'function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no")
				for (u in uris) for (s in suites) print uris[u], suites[s], comps, key
			types = ""; enabled = ""; comps = ""; key = "-"; delete uris; delete suites }
		BEGIN { key = "-" }
		/^#/ { next }
		/^[[:space:]]*$/ { flush(); next }
		{ k = tolower($1); sub(/:$/, "", k); $1 = ""; sub(/^ +/, "")
		  if (k == "types") types = $0
		  else if (k == "enabled") enabled = tolower($0)
		  else if (k == "uris") split($0, uris, " ")
		  else if (k == "suites") split($0, suites, " ")
		  else if (k == "components") { comps = $0; gsub(/ +/, ",", comps) }
		  else if (k == "signed-by") key = $0 }
		END { flush() }' "$f"
	done | awk -v id="$ID" '$4 == "-" || $4 ~ ("^/usr/share/keyrings/" id "-archive-keyring")'
}
apt_entries >"$IX_TMP/entries"
MIRROR=$(awk -v s="$SUITE" '$2 == s { print $1; exit }' "$IX_TMP/entries")
KEYRING=$(awk -v s="$SUITE" '$2 == s { print $4; exit }' "$IX_TMP/entries")
[ -n "$MIRROR" ] || ix_skip "apt's sources name no archive for $ID $SUITE"
echo "# $ID $SUITE from $MIRROR (apt's sources here)"

# logged LOG COMMAND...: COMMAND's output into LOG.
logged() {
	local log=$1
	shift
	"$@" >"$log" 2>&1
}
# background LOG COMMAND...: COMMAND in a process group of its own (PID in
# JOB, killed as a group on exit), output into LOG.
background() {
	local log=$1
	shift
	setsid "$@" >"$log" 2>&1 &
	JOB=$!
	JOBS+=("$JOB")
}

# ---- the minimal root, in the background while the .deb builds ----
CACHE=$B/tests/pkg-cache
CACHED=$CACHE/$ID-$SUITE-minbase.tar
mkdir -p "$CACHE"
t0=$(date +%s)
# Each way writes the second it was done to bootstrap.end.
if [ -s "$CACHED" ]; then
	how="unpacked from $CACHED"
	background "$IX_TMP/debootstrap.log" bash -c 'tar -C "$2" -xf "$1" && date +%s >"$3"' _ \
		"$CACHED" "$ROOT" "$IX_TMP/bootstrap.end"
else
	how="debootstrap --variant=minbase $SUITE from $MIRROR"
	opts=(--variant=minbase)
	[ "$KEYRING" != - ] && opts+=(--keyring="$KEYRING")
	background "$IX_TMP/debootstrap.log" bash -c 'timeout 600 debootstrap "${@:4}" && date +%s >"$3" &&
		tar -C "$2" -cf "$1.tmp" . && mv "$1.tmp" "$1"' _ "$CACHED" "$ROOT" "$IX_TMP/bootstrap.end" \
		"${opts[@]}" "$SUITE" "$ROOT" "$MIRROR"
fi
bootstrap=$JOB
# The .rpm builds beside them, as make rpm does but from a copy of the
# tarball (make deb makes it again): their serial steps (configure,
# lintian, rpmlint, compression) overlap. ixperf run waits for it, to
# measure on a quiet machine.
mkdir "$IX_TMP/dist"
logged "$IX_TMP/dist.log" make -s dist-gzip && cp "ixperf-$V.tar.gz" "$IX_TMP/dist/" ||
	{ not_ok "make dist-gzip: $(tail -n 5 "$IX_TMP/dist.log")"; ix_done; }
background "$IX_TMP/rpm.log" timeout 1200 "$top_srcdir/contrib/package.sh" rpm "$IX_TMP/dist/ixperf-$V.tar.gz" "$B"
rpmjob=$JOB

check "make deb builds the package, lintian finds no error" \
	logged "$IX_TMP/deb.log" timeout 1200 make -s deb || tail -n 30 "$IX_TMP/deb.log"
sed -n 's/^package.sh: built in/# deb built in/p; /^[EWIN]: /s/^/# lintian /p' "$IX_TMP/deb.log"
wait "$bootstrap"
bootstrap_rc=$?
check "the minimal root: $how (in $(($(cat "$IX_TMP/bootstrap.end" 2>/dev/null || echo "$t0") - t0)) s)" \
	test "$bootstrap_rc" = 0 ||
	tail -n 20 "$IX_TMP/debootstrap.log"
DEB=$(ls "$B"/ixperf_"$V"-*_*.deb 2>/dev/null | tail -n 1)
if [ -z "$DEB" ] || [ "$bootstrap_rc" != 0 ]; then
	not_ok "no package or no root: nothing to install"
	ix_done
fi

# ---- the .deb into the root, while the .rpm may still build ----

mnt() { # FSTYPE|--bind SOURCE TARGET
	mkdir -p "$ROOT/$3"
	if [ "$1" = --bind ]; then mount --bind "$2" "$ROOT/$3"; else mount -t "$1" "$2" "$ROOT/$3"; fi &&
		MOUNTS+=("$ROOT/$3")
}
mnt proc proc /proc && mnt sysfs sysfs /sys && mnt --bind /dev /dev && mnt devpts devpts /dev/pts &&
	mnt tmpfs tmpfs /dev/shm || { not_ok "mounting /proc, /sys and /dev in the root"; ix_done; }
# No service starts in the root (lldpd, say, comes with liblldpctl).
printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
chmod 755 "$ROOT/usr/sbin/policy-rc.d"
: >"$ROOT/etc/apt/sources.list"
while read -r uri suite comps key; do
	opt=
	if [ "$key" != - ]; then
		[ -f "$ROOT$key" ] || cp "$key" "$ROOT$key"
		opt="[signed-by=$key] "
	fi
	echo "deb $opt$uri $suite ${comps//,/ }" >>"$ROOT/etc/apt/sources.list"
done <"$IX_TMP/entries"
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
cp "$DEB" "$ROOT/tmp/"
inroot() { chroot "$ROOT" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
t1=$(date +%s)
check "apt-get install ./$(basename "$DEB") in the clean root pulls its dependencies" \
	logged "$IX_TMP/apt.log" inroot sh -c "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends /tmp/$(basename "$DEB")" ||
	tail -n 30 "$IX_TMP/apt.log"
echo "# apt-get update and install: $(($(date +%s) - t1)) s"

# ---- what is installed against the package's own lists and the sources ----
check "the root had no ixperf before: dpkg says the package installed it" \
	test "$(inroot dpkg-query -W -f '${Status} ${Version}' ixperf)" = "install ok installed $(dpkg-deb -f "$DEB" Version)"
for f in /usr/bin/ixperf /usr/share/bash-completion/completions/ixperf \
	/usr/share/ixperf/ixperf-result.schema.json /lib/systemd/system/ixperf-server.service; do
	check "$f is installed and dpkg owns it" inroot dpkg -S "$f" >/dev/null
done
check "the schema is the source's" cmp "$ROOT/usr/share/ixperf/ixperf-result.schema.json" \
	"$top_srcdir/report/json/ixperf-result.schema.json"
check "the completion is the source's" cmp "$ROOT/usr/share/bash-completion/completions/ixperf" "$top_srcdir/contrib/ixperf"
man_src=$(cd "$top_srcdir/man" && ls ixperf*.[1-8] | sort)
man_pkg=$(inroot dpkg -L ixperf | sed -n 's|^/usr/share/man/man[0-9]/\(.*\)\.gz$|\1|p' | sort)
check "every man page of man/ is installed ($(echo "$man_pkg" | wc -l))" \
	test "$man_src" = "$man_pkg" -a -n "$man_src"
for p in $man_src; do
	zcat "$ROOT/usr/share/man/man${p##*.}/$p.gz" | cmp -s - "$top_srcdir/man/$p" || not_ok "man/$p differs once installed"
done
check "the unit starts the package's binary" grep -q '^ExecStart=/usr/bin/ixperf server ' \
	"$ROOT/lib/systemd/system/ixperf-server.service"
# Depends: the package of every library the binary links, as dpkg on this
# machine knows them, must be named.
needed=$(readelf -d "$ROOT/usr/bin/ixperf" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
depends=$(dpkg-deb -f "$DEB" Depends)
bad=
for lib in $needed; do
	owner=$(inroot dpkg -S "*/$lib" 2>/dev/null | sed -n '1s/:.*//p')
	[ -n "$owner" ] && [[ ",$depends," =~ [,\ ]${owner}[\ ,] ]] || bad="$bad $lib (${owner:-no package})"
done
check "Depends names the package of each of the $(echo "$needed" | wc -w) libraries ixperf links${bad:+; not:$bad}" \
	test -n "$needed" -a -z "$bad"

# ---- it runs there ----
inroot ixperf --version >"$IX_TMP/version" 2>&1
check "ixperf --version in the root names the package's version ($(head -n 1 "$IX_TMP/version"))" \
	test "$(head -n 1 "$IX_TMP/version")" = "ixperf $V"
# Each optional part it says it was built with is linked; each linked one said.
built=$(sed -n 's/^built with: //p' "$IX_TMP/version")
for part in ibverbs:libibverbs pcap:libpcap ncurses:libncursesw curl:libcurl pmix:libpmix lldpctl:liblldpctl; do
	said=no linked=no
	[[ " $built " == *" ${part%%:*} "* ]] && said=yes
	grep -q "^${part#*:}\.so" <<<"$needed" && linked=yes
	check "--version says ${part%%:*}: $said, the binary links ${part#*:}: $linked" test "$said" = "$linked"
done
check "ixperf topo -J runs in the root" logged "$IX_TMP/topo.err" inroot ixperf topo -J -o /tmp/topo.json ||
	cat "$IX_TMP/topo.err"
check "topo's interfaces are the kernel's (/sys/class/net)" test \
	"$(jq -r '.results[0].interfaces[].name' "$ROOT/tmp/topo.json" | sort | tr '\n' ' ')" = \
	"$(ls /sys/class/net | sort | tr '\n' ' ')"
check "topo's PCI functions are the kernel's ($(ls /sys/bus/pci/devices | wc -l))" \
	test "$(jq '.results[0].pci | length' "$ROOT/tmp/topo.json")" = "$(ls /sys/bus/pci/devices | wc -l)"

wait "$rpmjob"
rpm_rc=$?
echo "# the .rpm was built $(($(date +%s) - t0)) s after the start"

# The main job, as contrib/setup.sh run runs it: the embedded plan on loopback.
t2=$(date +%s)
timeout 300 chroot "$ROOT" /bin/sh -c 'cd /tmp && exec ixperf run' >"$IX_TMP/run.txt" 2>"$IX_TMP/run.err"
rc=$?
echo "# ixperf run in the root: $(($(date +%s) - t2)) s"
sed 's/^/# /' "$IX_TMP/run.txt"
# As in run.sh: its thresholds are live loopback figures against fixed
# limits, so on a loaded machine a check may FAIL (exit 4); what must hold
# is that every check measured and was judged, never an ERROR (exit 1).
verdict=$(sed -n 's/^Verdict: //p' "$IX_TMP/run.txt")
failed=$(awk '/^  FAIL  / { printf " %s", $2 }' "$IX_TMP/run.txt")
check "ixperf run in the root runs to a verdict: exit $rc, $verdict${failed:+ (a loaded machine? failed:$failed)}" \
	test "$rc:$verdict" = 0:PASS -o "$rc:$verdict" = 4:FAIL || cat "$IX_TMP/run.err"
res=$(ls "$ROOT"/tmp/ixperf-results/ixperf-run-*.json 2>/dev/null | head -n 1)
nplan=$(inroot ixperf run --check-plan 2>&1 | sed -n 's/.*: \([0-9]*\) check(s).*/\1/p')
said=$(awk '/^  [A-Z]+  [^ ]/ { print $1, $2 }' "$IX_TMP/run.txt" | jq -R . | jq -s -c sort)
check "its result holds the plan's $nplan checks with the verdicts the text said" \
	jq_true "$res" "(.results[0].checks | length) == $nplan and
		([.results[0].checks[] | .verdict + \" \" + .name] | sort) == $said"
[ -n "$res" ] && schema_check "$res"

# ---- the .rpm: its files and Requires ----
check "contrib/package.sh rpm (make rpm) builds the package, rpmlint finds no error" test "$rpm_rc" = 0 || tail -n 30 "$IX_TMP/rpm.log"
sed -n 's/^package.sh: built in/# rpm built in/p; /^ixperf.*: [EW]: /s/^/# rpmlint /p; /packages and .* specfiles checked/s/^/# rpmlint /p' "$IX_TMP/rpm.log"
RPM=$(ls "$B"/ixperf-"$V"-*.rpm 2>/dev/null | tail -n 1)
if [ -n "$RPM" ]; then
	rpm -qlp "$RPM" >"$IX_TMP/rpm.files" 2>/dev/null
	for f in /usr/bin/ixperf /usr/share/bash-completion/completions/ixperf \
		/usr/share/ixperf/ixperf-result.schema.json /usr/lib/systemd/system/ixperf-server.service; do
		check "the .rpm holds $f" grep -qx "$f" "$IX_TMP/rpm.files"
	done
	# Compressed as the distribution's rpm does (gzip, bzip2, xz) or not.
	rman=$(sed -n 's|^/usr/share/man/man[0-9]/\(ixperf[^/]*\.[1-8]\)\(\.[a-z0-9]*\)\?$|\1|p' "$IX_TMP/rpm.files" | sort)
	check "the .rpm holds every man page of man/ ($(echo "$rman" | wc -l))" test "$rman" = "$man_src"
	rpm -qpR "$RPM" >"$IX_TMP/rpm.requires" 2>/dev/null
	rpmdir=$(mktemp -d "$IX_TMP/rpm.XXXXXX")
	(cd "$rpmdir" && rpm2cpio "$RPM" | cpio -idm --quiet ./usr/bin/ixperf) 2>/dev/null
	rneeded=$(readelf -d "$rpmdir/usr/bin/ixperf" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	bad=
	for lib in $rneeded; do
		grep -q "^$lib" "$IX_TMP/rpm.requires" || bad="$bad $lib"
	done
	check "the .rpm's Requires name each of the $(echo "$rneeded" | wc -w) libraries its binary links${bad:+; not:$bad}" \
		test -n "$rneeded" -a -z "$bad"
else
	not_ok "no .rpm to read"
fi
echo "# the whole test: $(($(date +%s) - t0)) s"
ix_done
