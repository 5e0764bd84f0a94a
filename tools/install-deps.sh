#!/bin/sh
# Installs the Debian packages kernel_delay needs to build, run and be
# tested, when they are missing.  Run as root on Debian 12.
#
# Usage: install-deps.sh [--print]
#            [build|demo|test|reference|bench|lane|lane-arm64|image] ...
#   --print    only print the packages of the sets, one a line.
#   build      libbcc, libbpf, libelf, libdw (the unwind tables), pkg-config,
#              kernel headers.
#   demo       build + systemtap-sdt-dev (the demo workload's USDT
#              probes): what "make demo" needs, nothing of the tests.
#   test       build + systemtap-sdt-dev, bpftool, jq, clang and its
#              sanitizer runtimes (for the tests and the fuzzers), Open
#              vSwitch (a real ovs-vswitchd for --long-poll-events),
#              stress-ng (the load the suite must pass beside), groff
#              (the man page rendered, tests/test-man.sh) and prometheus
#              (promtool for the shipped alerts, a real Prometheus for the
#              e2e scenario metrics_prometheus; its service is stopped and
#              disabled where this installs it and systemd runs), curl,
#              libc6-dbg (libc's symbols: the unwind scenarios' stacks
#              end in start_thread(), which only its debug file names).
#   reference  test + what the reference script needs (for comparisons).
#   bench      reference + perf (make bench: figure 9 sets ours beside
#              perf record --call-graph dwarf), Open vSwitch (figure 1:
#              the unwind tables of a real ovs-vswitchd) and curl (figure
#              8 scrapes --metrics).
#   lane       reference + what the kernel lane needs (tests/kernels):
#              qemu, a static busybox, kmod, cpio, xz, OVS, iproute2.
#   lane-arm64 what the arm64 lane needs on the host: qemu-system-arm,
#              qemu-user-static and binfmt-support, debootstrap, kmod,
#              cpio, xz (its user space is tests/kernels/arm64-root's).
#   image      what make base-image, image and check-image need: podman,
#              and runc beside the crun podman brings, as crun refuses a
#              cgroup v1/v2 hybrid ("cgroups in hybrid mode not
#              supported"; tools/podman-flags.sh then selects runc),
#              debootstrap, Open vSwitch, jq, and node and npm (the
#              manifests' validation, tests/validate-k8s.mjs).
set -eu

pkgs="gcc make libbpfcc-dev libbpf-dev libelf-dev libdw-dev pkg-config \
linux-headers-amd64"
print=no
if [ "${1:-}" = --print ]; then
    print=yes
    shift
fi
for what in "$@"; do
    case $what in
    build) ;;
    demo) pkgs="$pkgs systemtap-sdt-dev" ;;
    test) pkgs="$pkgs systemtap-sdt-dev bpftool procps util-linux jq \
clang libclang-rt-14-dev openvswitch-switch stress-ng groff-base \
prometheus curl libc6-dbg" ;;
    reference) pkgs="$pkgs systemtap-sdt-dev bpftool procps util-linux jq \
python3-bpfcc python3-tz python3-psutil" ;;
    bench) pkgs="$pkgs systemtap-sdt-dev bpftool procps util-linux jq \
python3-bpfcc python3-tz python3-psutil linux-perf openvswitch-switch curl" ;;
    lane) pkgs="$pkgs systemtap-sdt-dev bpftool procps util-linux jq \
python3-bpfcc python3-tz python3-psutil qemu-system-x86 busybox-static kmod \
cpio xz-utils openvswitch-switch iproute2" ;;
    lane-arm64) pkgs="$pkgs qemu-system-arm qemu-user-static binfmt-support \
debootstrap kmod cpio xz-utils" ;;
    image)
        pkgs="$pkgs podman runc debootstrap openvswitch-switch jq"
        # Node.js and npm: Debian's, unless some are there (NodeSource's
        # nodejs holds npm, and conflicts with Debian's).
        command -v node >/dev/null || pkgs="$pkgs nodejs"
        command -v npm >/dev/null || pkgs="$pkgs npm"
        ;;
    *) echo "install-deps.sh: unknown set '$what'" >&2; exit 2 ;;
    esac
done

if [ "$print" = yes ]; then
    # shellcheck disable=SC2086  # One package a word.
    printf '%s\n' $pkgs | sort -u
    exit 0
fi

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
            grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "install-deps.sh: missing packages:$missing (run as root)" >&2
    exit 1
fi
echo "install-deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
# The tests start Prometheus servers of their own: none is left running for
# good where this installed it.
case " $missing " in
*" prometheus "*)
    if [ -d /run/systemd/system ]; then
        systemctl disable --now prometheus >/dev/null 2>&1 || true
    fi
    ;;
esac
