#!/bin/sh
# Makes the source tarball the packages are built from: the files of the
# work tree that git tracks or would track (so uncommitted changes are in),
# or, outside a git checkout, every file but build/, under the directory
# NAME-VERSION/, with fixed owners, order and time, so that the same tree
# gives the same tarball.
#
# Usage: dist.sh NAME VERSION OUTPUT.tar.gz
set -eu

name=${1:?usage: dist.sh NAME VERSION OUTPUT.tar.gz}
version=${2:?usage: dist.sh NAME VERSION OUTPUT.tar.gz}
output=${3:?usage: dist.sh NAME VERSION OUTPUT.tar.gz}
top=$(cd "$(dirname "$0")/.." && pwd)

list=$(mktemp)
trap 'rm -f "$list" "$output.tmp" "$output.tmp.gz"' EXIT
cd "$top"
if git rev-parse --show-toplevel >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel)" = "$top" ]; then
    # Tracked files deleted from the work tree are left out.
    git ls-files -z --cached --others --exclude-standard |
        xargs -0 -r sh -c 'for f; do
            [ -e "$f" ] || [ -L "$f" ] && printf "%s\n" "$f"
        done' sh | sort -u > "$list"
    mtime=$(git log -1 --format=%cI 2>/dev/null || date -u +%FT%TZ)
else
    find . -path ./build -prune -o -path ./.git -prune -o \
         \( -type f -o -type l \) -print | sed 's|^\./||' | sort > "$list"
    mtime=$(date -u +%FT%TZ)
fi

mkdir -p "$(dirname "$output")"
tar --create --file="$output.tmp" --sort=name --owner=0 --group=0 \
    --numeric-owner --mtime="$mtime" --mode=u+rw,go-w,go+rX \
    --transform="s|^|$name-$version/|" --verbatim-files-from \
    --files-from="$list"
gzip -n -9 "$output.tmp"
mv "$output.tmp.gz" "$output"
echo "$output"
