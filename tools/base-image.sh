#!/bin/bash
# Makes the base of the kernel_delay image without any container
# registry: a minimal Debian 12 (debootstrap --variant=minbase, from the
# Debian mirror the host's apt uses) with the runtime dependencies of the
# project's .deb and a kernel header tree, imported with "podman import".
# The image's own build (Containerfile) then needs no network at all.
#
# Usage: tools/base-image.sh DEB [TAG]     (root; minutes)
#
# The header tree is Debian 12's linux-headers-ARCH, unpacked only (its
# compiler dependencies are not needed): on a kernel with BTF, kernel_delay
# reads the kernel's layouts from BTF and any header tree will do for
# libbcc (docs/fleet.md, "Kernel headers and BTF").

set -euo pipefail

deb=${1:?usage: tools/base-image.sh DEB [TAG]}
tag=${2:-localhost/kernel-delay-base:bookworm}
suite=bookworm
arch=$(dpkg --print-architecture)

log() {
    printf 'base-image: %s\n' "$*" >&2
}

mirror=${KD_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
                      'Created-By: Packages' 2>/dev/null |
                      awk -v s="$suite" '$2 == s { print $1; exit }')}
mirror=${mirror:-http://deb.debian.org/debian/}

# The .deb's dependencies, without versions or alternatives.
deps=$(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/[(|].*//' |
       awk 'NF { print $1 }' | paste -sd, -)

work=$(mktemp -d /var/tmp/kd-base-image.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root

log "debootstrap --variant=minbase $suite ($deps) from $mirror"
if ! debootstrap --variant=minbase --arch="$arch" --include="$deps" \
        "$suite" "$root" "$mirror" > "$work/debootstrap.log" 2>&1; then
    tail -n 20 "$work/debootstrap.log" >&2
    exit 1
fi

# The header tree: linux-headers-ARCH's own package and its -common one.
log "kernel headers (linux-headers-$arch, unpacked)"
mkdir -p "$work/headers"
hdr=$(apt-cache depends "linux-headers-$arch" |
      awk '/Depends: linux-headers-/ { print $2; exit }')
common=$(apt-cache depends "$hdr" |
         awk '/Depends: linux-headers-.*-common/ { print $2; exit }')
(cd "$work/headers" && apt-get download -q "$hdr" "$common" >/dev/null)
# Only their /usr/src: their /lib/modules links would replace the /lib
# symbolic link of the merged /usr.
for f in "$work"/headers/*.deb; do
    dpkg-deb -x "$f" "$work/headers/tree"
done
cp -a "$work/headers/tree/usr/src/." "$root/usr/src/"

# Slim: no package lists, caches, documentation or locales.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
       "$root"/usr/share/doc/* "$root"/usr/share/man/* \
       "$root"/usr/share/locale/* "$root"/usr/share/info/*
log "podman import $tag"
tar -C "$root" -c . | podman import --change 'CMD ["/bin/bash"]' - "$tag"
