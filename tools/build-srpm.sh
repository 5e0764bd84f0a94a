#!/bin/sh
# Builds the source RPM of kernel_delay.spec from TARBALL ("make dist")
# into OUTDIR, then runs rpmlint on the spec as a packager does (rpmlint
# finds kernel_delay.rpmlintrc beside it), and on the source RPM with that
# file and tools/srpm.rpmlintrc (the package's own filters).  Needs
# rpmbuild and rpmlint (on Debian: the rpm and rpmlint packages).  "make
# srpm" runs it.
#
# Usage: build-srpm.sh TARBALL OUTDIR
set -eu

tarball=${1:?usage: build-srpm.sh TARBALL OUTDIR}
out=${2:?usage: build-srpm.sh TARBALL OUTDIR}
cd "$(dirname "$0")/.."

for tool in rpmbuild rpmlint; do
    if ! command -v "$tool" >/dev/null; then
        echo "build-srpm.sh: $tool is missing (Debian: apt-get install" \
             "rpm rpmlint)" >&2
        exit 1
    fi
done

spec_version=$(sed -n 's/^Version:[[:space:]]*//p' kernel_delay.spec)
make_version=$(sed -n 's/^VERSION = //p' Makefile)
if [ "$spec_version" != "$make_version" ]; then
    echo "build-srpm.sh: kernel_delay.spec says version $spec_version," \
         "the Makefile $make_version" >&2
    exit 1
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
sources=$(cd "$(dirname "$tarball")" && pwd)
rm -f "$out"/kernel_delay-*.src.rpm
rpmbuild -bs kernel_delay.spec \
    --define "_topdir $out" --define "_sourcedir $sources" \
    --define "_srcrpmdir $out" --define "dist %{nil}"
rpmlint kernel_delay.spec
# rpmlint takes one -r file: both files, in one.
cat kernel_delay.rpmlintrc tools/srpm.rpmlintrc >"$out/srpm.rpmlintrc"
rpmlint -r "$out/srpm.rpmlintrc" "$out"/kernel_delay-*.src.rpm
