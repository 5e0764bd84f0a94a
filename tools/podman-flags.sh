#!/bin/sh
# Prints the podman flags this host needs to run containers (make image,
# tests/test-image.sh): on a cgroup v1/v2 hybrid, which crun refuses
# ("cgroups in hybrid mode not supported"), "--runtime runc" (runc is in
# tools/install-deps.sh's set "image", which make base-image, image and
# check-image install first; without it, a warning says so); and limits
# the runtime may set where the host caps them (a sandboxed VM): open
# files and processes under their hard limits.
# Usage: tools/podman-flags.sh global|limits
# KD_CGROUP_ROOT (default /sys/fs/cgroup) is where the cgroups are
# mounted (tests/test-podman-flags.sh).

cgroups=${KD_CGROUP_ROOT:-/sys/fs/cgroup}

case ${1:-} in
global)
    if [ -d "$cgroups/unified" ]; then
        if command -v runc >/dev/null; then
            echo "--runtime runc"
        else
            echo "podman-flags.sh: a cgroup v1/v2 hybrid, which crun" \
                 "refuses, and no runc: tools/install-deps.sh image" >&2
        fi
    fi
    ;;
limits)
    # shellcheck disable=SC3045  # dash's ulimit, /bin/sh here, takes -H.
    nofile=$(ulimit -Hn)
    [ "$nofile" = unlimited ] || [ "$nofile" -gt 16384 ] && nofile=16384
    echo "--ulimit nofile=$nofile:$nofile --ulimit nproc=4096:4096"
    ;;
*)
    echo "usage: $0 global|limits" >&2
    exit 2
    ;;
esac
