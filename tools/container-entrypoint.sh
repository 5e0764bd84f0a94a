#!/bin/sh
# The kernel_delay image's entry point: finds what libbcc needs on the
# host through the mounts docs/fleet.md lists, says which mount to add when
# something is missing, then runs kernel_delay with the arguments.
#
#   /sys/kernel/btf      the kernel's BTF (visible with --privileged): with
#                        it, the image's own Debian 12 header tree will do
#   /lib/modules, /usr/src   the host's headers, for a kernel without BTF
#   /sys/kernel/tracing, /sys/kernel/debug, /sys/fs/bpf   (--privileged
#                        has them; kernel_delay mounts tracefs if need be)
#   --pid=host (hostPID) the host's processes: ovs-vswitchd

release=$(uname -r)
arch=$(dpkg --print-architecture)
build=/lib/modules/$release/build

say() {
    echo "kernel_delay: $*" >&2
}

if [ -z "${BCC_KERNEL_SOURCE:-}" ] && ! [ -e "$build/include" ]; then
    own=$(ls -d /usr/src/linux-headers-*-"$arch" 2>/dev/null | tail -n 1)
    common=$(ls -d /usr/src/linux-headers-*-common 2>/dev/null | tail -n 1)
    if [ -r /sys/kernel/btf/vmlinux ] && [ -e "$own/include" ]; then
        # BTF gives the layouts: the image's header tree will do, where
        # libbcc looks for one (or, /lib/modules mounted, through
        # BCC_KERNEL_SOURCE).
        if ! { mkdir -p "/lib/modules/$release" 2>/dev/null \
               && ln -sfn "$own" "$build" 2>/dev/null \
               && ln -sfn "$common" "/lib/modules/$release/source"; }; then
            BCC_KERNEL_SOURCE=$own
            export BCC_KERNEL_SOURCE
        fi
    else
        say "ERROR: this kernel ($release) has no BTF here" \
            "(/sys/kernel/btf/vmlinux) and its headers are not at $build."
        say "Add the mounts: -v /sys/kernel/btf:/sys/kernel/btf:ro" \
            "(a kernel with BTF), or -v /lib/modules:/lib/modules:ro" \
            "-v /usr/src:/usr/src:ro (the host's headers installed)."
        exit 72
    fi
fi
if ! [ -d /sys/kernel/tracing/events ] \
   && ! [ -d /sys/kernel/debug/tracing/events ] \
   && ! [ -w /sys/kernel ]; then
    say "WARNING: no tracefs at /sys/kernel/tracing and /sys read-only:" \
        "add -v /sys/kernel/tracing:/sys/kernel/tracing" \
        "(or -v /sys/kernel/debug:/sys/kernel/debug)."
fi
if [ "$(cat /proc/1/comm 2>/dev/null)" = kernel-delay-en ]; then
    say "NOTE: PID 1 is this container's: without --pid=host (hostPID)" \
        "the host's ovs-vswitchd cannot be seen."
fi
exec /usr/sbin/kernel_delay "$@"
