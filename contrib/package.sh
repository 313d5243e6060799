#!/usr/bin/env bash
# contrib/package.sh deb|rpm TARBALL OUTDIR: build ixperf's Debian or RPM
# package from the release tarball (make dist) in a temporary directory,
# check it with lintian or rpmlint, and leave the package in OUTDIR. Run by
# make deb and make rpm.
#   deb: debian/ from the tarball, dpkg-buildpackage -us -uc -b; lintian's
#        errors fail the build, its warnings are printed.
#   rpm: rpmbuild -tb on the tarball's ixperf.spec; on Debian the
#        BuildRequires name RPM packages dpkg does not know, so they are not
#        checked (--nodeps); rpmlint's errors fail it where rpmlint is.
set -euo pipefail
kind=${1:-} tarball=${2:-} out=${3:-}
[ -n "$kind" ] && [ -f "$tarball" ] && [ -d "$out" ] ||
	{ echo "usage: contrib/package.sh deb|rpm TARBALL OUTDIR" >&2; exit 2; }
tarball=$(realpath "$tarball")
out=$(realpath "$out")
version=$(basename "$tarball" .tar.gz)
version=${version#ixperf-}
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null || { echo "package.sh: $t is missing (contrib/setup.sh deps installs it)" >&2; exit 1; }
	done
}
work=$(mktemp -d "${TMPDIR:-/tmp}/ixperf-pkg.XXXXXX")
trap 'rm -rf "$work"' EXIT
jobs=$(nproc)
start=$(date +%s)

deb() {
	need dpkg-buildpackage dh lintian
	tar -C "$work" -xzf "$tarball"
	local src=$work/ixperf-$version pv
	pv=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
	[ "${pv%-*}" = "$version" ] || {
		echo "package.sh: debian/changelog is at $pv, the tarball at $version: add an entry (dch -v $version-1)" >&2
		exit 1
	}
	echo "package.sh: dpkg-buildpackage -us -uc -b in $src (log: build.log)"
	if ! (cd "$src" && dpkg-buildpackage -us -uc -b -j"$jobs") >"$work/build.log" 2>&1; then
		tail -n 40 "$work/build.log" >&2
		echo "package.sh: dpkg-buildpackage failed" >&2
		exit 1
	fi
	echo "package.sh: built in $(($(date +%s) - start)) s; lintian:"
	# Errors fail the build; warnings and notes are printed for review.
	lintian --fail-on error "$work"/ixperf_*.changes || {
		echo "package.sh: lintian found errors" >&2
		exit 1
	}
	cp "$work"/ixperf_*.deb "$out/"
	ls "$work"/ixperf_*.deb | sed "s|.*/|package.sh: wrote $out/|"
}

rpm() {
	need rpmbuild
	local top=$work/rpmbuild nodeps=() f
	if [ -f /etc/debian_version ]; then
		echo "package.sh: on Debian the spec's BuildRequires cannot be checked (rpmbuild --nodeps)"
		nodeps=(--nodeps)
	fi
	echo "package.sh: rpmbuild -tb $(basename "$tarball") (log: build.log)"
	if ! rpmbuild -tb "${nodeps[@]}" --define "_topdir $top" \
		--define "_smp_mflags -j$jobs" "$tarball" >"$work/build.log" 2>&1; then
		tail -n 40 "$work/build.log" >&2
		echo "package.sh: rpmbuild failed" >&2
		exit 1
	fi
	echo "package.sh: built in $(($(date +%s) - start)) s"
	if command -v rpmlint >/dev/null; then
		# The one error set aside: the package is not signed (as the
		# .deb is built -us -uc); whoever distributes it signs it.
		echo 'addFilter("no-signature")' >"$work/rpmlintrc"
		echo "package.sh: rpmlint (no-signature set aside: unsigned, signed by who distributes it):"
		rpmlint -r "$work/rpmlintrc" "$top"/RPMS/*/ixperf-"$version"-*.rpm || {
			echo "package.sh: rpmlint found errors" >&2
			exit 1
		}
	else
		echo "package.sh: rpmlint is not installed: not checked"
	fi
	for f in "$top"/RPMS/*/ixperf-"$version"-*.rpm; do
		cp "$f" "$out/"
		echo "package.sh: wrote $out/$(basename "$f")"
	done
}

case $kind in
deb) deb ;;
rpm) rpm ;;
*)
	echo "usage: contrib/package.sh deb|rpm TARBALL OUTDIR" >&2
	exit 2
	;;
esac
