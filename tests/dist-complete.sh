#!/usr/bin/env bash
# tests/dist-complete.sh TARBALL: every file git tracks is in the release
# tarball (but the CI script and .gitignore, which are not shipped), so
# that a test run from the tarball finds every script, tool and data file
# the checkout's run used. Exit 1 naming the missing ones.
set -euo pipefail
tarball=${1:?usage: tests/dist-complete.sh TARBALL}
cd "$(dirname "$0")/.."
git rev-parse --git-dir >/dev/null 2>&1 || { echo "dist-complete: not a git checkout" >&2; exit 1; }
list=$(tar tzf "$tarball")
top=${list%%/*}
missing=$(comm -23 <(git ls-files | grep -v '^\.ci/\|^\.gitignore$' | sort) \
	<(sed -n "s|^$top/||p" <<<"$list" | sort))
if [ -n "$missing" ]; then
	echo "dist-complete: tracked files missing from $tarball (add them to EXTRA_DIST or a _SOURCES list):" >&2
	echo "$missing" >&2
	exit 1
fi
echo "dist-complete: all $(git ls-files | wc -l) tracked files are in $tarball (the CI script and .gitignore aside)"
