#!/bin/sh
# Builds the Debian package (debian/) into OUTDIR with dpkg-buildpackage,
# from an unpacked "make dist" tarball of the work tree, since
# dpkg-buildpackage writes its results next to the tree it builds; then
# runs lintian on them.  As root, installs what the build needs when it is
# missing, as "make check" does.  "make deb" runs it.
#
# Usage: build-deb.sh TARBALL OUTDIR
set -eu

tarball=${1:?usage: build-deb.sh TARBALL OUTDIR}
out=${2:?usage: build-deb.sh TARBALL OUTDIR}
cd "$(dirname "$0")/.."

# as_root COMMAND...: runs COMMAND to install what is missing, as root.
as_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "build-deb.sh: missing build tools or dependencies: as root," \
             "run \"$*\" here" >&2
        exit 1
    fi
    DEBIAN_FRONTEND=noninteractive "$@" >/dev/null
}

if ! command -v dpkg-buildpackage >/dev/null ||
   ! command -v lintian >/dev/null; then
    as_root apt-get install -y -q --no-install-recommends dpkg-dev lintian
fi
if ! dpkg-checkbuilddeps 2>/dev/null; then
    as_root apt-get build-dep -y -q ./
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$tarball" -C "$tmp"
src=$(ls -d "$tmp"/*/)
(cd "$src" && dpkg-buildpackage -us -uc -b)

version=$(cd "$src" && dpkg-parsechangelog -S Version)
make_version=$(sed -n 's/^VERSION = //p' Makefile)
if [ "${version%%-*}" != "$make_version" ]; then
    echo "build-deb.sh: debian/changelog says version $version," \
         "the Makefile $make_version" >&2
    exit 1
fi

mkdir -p "$out"
rm -f "$out"/kernel-delay*_*
mv "$tmp"/kernel-delay*_* "$out"/
changes=$(ls "$out"/kernel-delay_*.changes)
echo "build-deb.sh: built $(ls "$out"/*.deb | tr '\n' ' ')"
lintian --info --display-info --pedantic --fail-on error,warning "$changes"
