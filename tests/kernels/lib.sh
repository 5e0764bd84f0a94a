# shellcheck shell=sh
# Helpers shared by tests/kernels/fetch and tests/kernels/run: messages,
# host packages, the kernel cache and the lanes.  Sourced, never run.
#
# Everything here is POSIX sh.  Messages go to stderr, so that the scripts'
# stdout carries only their results.

# The name of the calling script, for messages.
KL_PROG=${0##*/}

# Prints a message on stderr.
note() {
    printf '%s: %s\n' "$KL_PROG" "$*" >&2
}

# Prints an error on stderr and exits with status $KL_DIE_STATUS (1 unless
# the calling script says otherwise).
die() {
    printf '%s: error: %s\n' "$KL_PROG" "$*" >&2
    exit "${KL_DIE_STATUS:-1}"
}

# The lanes this directory knows, in the order they are usually run: the
# x86_64 ones (make check-kernels), then the arm64 ones (make
# check-kernels-arm64), whose guests run an arm64 Debian user space.
KL_LANES='6.1 6.1-rt 6.12 6.12-rt arm64-6.1 arm64-6.12'

# The Debian architecture of lane $1: arm64 for arm64-*, else amd64.
lane_arch() {
    case $1 in
    arm64-*) echo arm64 ;;
    *) echo amd64 ;;
    esac
}

# The arm64 lanes' root file system: an arm64 Debian 12 built by
# tests/kernels/arm64-root, which holds the tree built for arm64 at the
# host tree's own path.  An absolute path without symbolic links.
arm64_root() {
    _dir=${KD_ARM64_ROOT:-/var/cache/kernel_delay/arm64/root}
    [ -d "$_dir" ] || die "no arm64 root file system at $_dir" \
        "(make check-kernels-arm64 builds it: tests/kernels/arm64-root)"
    (cd "$_dir" && pwd -P)
}

# Fails unless $1 is a known lane.
check_lane() {
    case " $KL_LANES " in
    *" $1 "*) ;;
    *) die "unknown lane '$1' (known lanes: $KL_LANES)" ;;
    esac
}

# The cache of unpacked kernels, an absolute path without symbolic links:
# the guest sees the host's root at the same paths, and the module trees
# hold absolute links into it.
cache_dir() {
    _dir=${KD_KERNEL_CACHE:-/var/cache/kernel_delay/kernels}
    mkdir -p "$_dir" || die "cannot create the kernel cache $_dir"
    (cd "$_dir" && pwd -P)
}

# Succeeds if the Debian package $1 is installed.
have_pkg() {
    [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = \
        installed ]
}

# Installs the Debian packages given as arguments that are missing.  A fresh
# CI machine lacks some of them; this needs root, and says so otherwise.
need_pkgs() {
    _missing=
    for _pkg in "$@"; do
        have_pkg "$_pkg" || _missing="$_missing $_pkg"
    done
    [ -z "$_missing" ] && return 0
    [ "$(id -u)" = 0 ] ||
        die "missing packages:$_missing (install them as root)"
    note "installing$_missing"
    # The package lists may be absent or stale on a fresh machine; update
    # them once if the first attempt fails.
    # shellcheck disable=SC2086  # The list is meant to be split.
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends $_missing >&2; then
        apt-get update -q >&2 || die "apt-get update failed"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends $_missing >&2 ||
            die "cannot install$_missing"
    fi
}
