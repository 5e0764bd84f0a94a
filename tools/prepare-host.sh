#!/bin/sh
# Prepares a host for libbcc the way kernel_delay expects (see docs/install.md):
#  - mounts tracefs and debugfs when they are not mounted;
#  - when /lib/modules/$(uname -r)/build is missing and the running
#    kernel ships no headers of its own, links build and source to the
#    newest Debian linux-headers tree installed.  The struct layouts of
#    those headers are never used: kernel_delay reads them from BTF.
# Run as root.  Idempotent.
set -eu

mounted() {
    awk -v d="$1" '$2 == d { found = 1 } END { exit !found }' /proc/mounts
}

if ! mounted /sys/kernel/tracing; then
    mount -t tracefs nodev /sys/kernel/tracing
    echo "prepare-host.sh: mounted tracefs on /sys/kernel/tracing" >&2
fi
if ! mounted /sys/kernel/debug; then
    mount -t debugfs nodev /sys/kernel/debug
    echo "prepare-host.sh: mounted debugfs on /sys/kernel/debug" >&2
fi

mod=/lib/modules/$(uname -r)
if [ ! -e "$mod/build/include" ] && [ ! -e /sys/kernel/kheaders.tar.xz ]; then
    arch=$(ls -d /usr/src/linux-headers-*-amd64 /usr/src/linux-headers-*-arm64 \
           2>/dev/null | sort -V | tail -n 1)
    common=$(ls -d /usr/src/linux-headers-*-common 2>/dev/null |
             sort -V | tail -n 1)
    if [ -z "$arch" ] || [ -z "$common" ]; then
        echo "prepare-host.sh: no kernel headers under /usr/src;" \
             "install linux-headers-amd64" >&2
        exit 1
    fi
    mkdir -p "$mod"
    ln -sfn "$arch" "$mod/build"
    ln -sfn "$common" "$mod/source"
    echo "prepare-host.sh: linked $mod/build -> $arch and" \
         "$mod/source -> $common" >&2
fi
