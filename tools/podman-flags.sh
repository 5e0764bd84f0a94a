#!/bin/sh
# Prints the podman flags this host needs to run containers (make image,
# tests/test-image.sh): on a cgroup v1/v2 hybrid, which crun refuses,
# "--runtime runc"; and limits the runtime may set where the host caps
# them (a sandboxed VM): open files and processes under their hard limits.
# Usage: tools/podman-flags.sh global|limits

case ${1:-} in
global)
    if [ -d /sys/fs/cgroup/unified ] && command -v runc >/dev/null; then
        echo "--runtime runc"
    fi
    ;;
limits)
    nofile=$(ulimit -Hn)
    [ "$nofile" = unlimited ] || [ "$nofile" -gt 16384 ] && nofile=16384
    echo "--ulimit nofile=$nofile:$nofile --ulimit nproc=4096:4096"
    ;;
*)
    echo "usage: $0 global|limits" >&2
    exit 2
    ;;
esac
