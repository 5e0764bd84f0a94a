#!/bin/bash
# Tests the Debian package the way a user installs it ("make
# check-package", as root): in a fresh Debian 12 (bookworm) chroot, apt
# installs build/deb/kernel-delay_*.deb with its dependencies; then the
# installed kernel_delay --version runs, its man page and bash completion
# are where man and bash look, and a real 0.2 s sample of a process of the
# chroot is taken; then the package is purged and nothing of it may be
# left.  Prints one line per check and closes with "N passed, N failed".
#
# Usage: test-package.sh [DEB_DIR]
#
# The first run debootstraps the chroot and keeps it as a tarball in
# KD_CHROOT_CACHE (default /var/cache/kernel_delay/package-chroot), with
# the packages apt downloads into it, so that later runs start from a
# fresh copy of it in seconds; KD_CHROOT_REFRESH=1 debootstraps again.
# The chroot gets its packages from the mirror the host uses, with the
# host's apt settings for reaching it (validity checks, proxies).
set -u
cd "$(dirname "$0")/.." || exit 1

deb_dir=${1:-build/deb}
cache=${KD_CHROOT_CACHE:-/var/cache/kernel_delay/package-chroot}
suite=bookworm
arch=$(dpkg --print-architecture)
tarball=$cache/$suite-minbase-$arch.tar
archives=$cache/apt-archives-$suite-$arch
version=$(sed -n 's/^VERSION = //p' Makefile)

# shellcheck source=tests/testlib.sh
. tests/testlib.sh
# check_ok NAME COMMAND...: COMMAND exits 0.
check_ok() {
    local name=$1

    shift
    if "$@"; then
        pass "$name"
    else
        fail "$name (exit $?: $*)"
    fi
}
finish() {
    echo
    test_summary
    exit
}
log() {
    echo "test-package.sh: $*" >&2
}

if [[ $(id -u) != 0 ]]; then
    echo "test-package.sh: must run as root (chroot, mount)" >&2
    exit 1
fi
debs=("$deb_dir"/kernel-delay_"$version"_*.deb)
if [[ ! -f ${debs[0]} ]]; then
    echo "test-package.sh: no $deb_dir/kernel-delay_${version}_*.deb:" \
         "run \"make deb\" first" >&2
    exit 1
fi
if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends debootstrap >/dev/null || exit 1
fi

work=$(mktemp -d /var/tmp/kd-chroot.XXXXXX)
root=$work/root
mounts=()
workload_pid=

# Everything mounted is unmounted, in reverse order; the chroot is only
# deleted once nothing is mounted in it any more.
cleanup() {
    local i

    if [[ -n $workload_pid ]]; then
        kill "$workload_pid" 2>/dev/null
        wait "$workload_pid" 2>/dev/null
    fi
    for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
        umount "${mounts[i]}" 2>/dev/null || umount -l "${mounts[i]}" ||
            log "could not unmount ${mounts[i]}"
    done
    mounts=()
    if awk -v r="$root/" 'index($2 "/", r) == 1 { found = 1 }
                          END { exit !found }' /proc/mounts; then
        log "something is still mounted in $root: not deleting $work"
    else
        rm -rf --one-file-system "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# mount_in DIR MOUNT-ARGS...: mounts on the chroot's DIR, to be unmounted.
mount_in() {
    local dir=$root$1

    shift
    mkdir -p "$dir"
    mount "$@" "$dir" || return
    mounts+=("$dir")
}

in_chroot() {
    chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# The host's Debian mirror for the suite, and its other bookworm suites
# (updates, security), from its apt configuration.
mirror=${KD_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
                      'Created-By: Packages' 2>/dev/null |
                      awk -v s="$suite" '$2 == s { print $1; exit }')}
mirror=${mirror:-http://deb.debian.org/debian/}

start=$(date +%s)

# The chroot: a fresh copy of the cached debootstrap, made first if need be.
mkdir -p "$cache" "$archives" "$root"
if [[ ! -f $tarball || ${KD_CHROOT_REFRESH:-0} == 1 ]]; then
    log "debootstrap --variant=minbase $suite from $mirror (minutes)"
    if ! debootstrap --variant=minbase --arch="$arch" "$suite" "$root" \
            "$mirror" > "$work/debootstrap.log" 2>&1; then
        tail -n 20 "$work/debootstrap.log" >&2
        fail "debootstrap $suite"
        finish
    fi
    tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
else
    tar -C "$root" -xf "$tarball"
fi
check_ok "a fresh $suite chroot" test -x "$root/usr/bin/apt-get"

# apt in the chroot reaches the mirror as the host's apt does.
apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
    'Created-By: Packages' 2>/dev/null | sort -u |
    awk -v s="$suite" '$2 ~ "^" s "(-|$)" { print "deb " $1 " " $2 " main" }' \
    > "$root/etc/apt/sources.list"
[[ -s $root/etc/apt/sources.list ]] ||
    echo "deb $mirror $suite main" > "$root/etc/apt/sources.list"
for key in Acquire::Check-Valid-Until Acquire::Check-Date \
           Acquire::http::Proxy Acquire::https::Proxy; do
    value=$(apt-config dump --no-empty --format '%v' "$key" 2>/dev/null)
    if [[ -n $value ]]; then
        printf '%s "%s";\n' "$key" "$value"
    fi
done > "$root/etc/apt/apt.conf.d/00host"
cp /etc/resolv.conf "$root/etc/resolv.conf"

mount_in /proc -t proc proc &&
mount_in /sys -t sysfs sysfs &&
mount_in /sys/kernel/tracing -t tracefs nodev &&
mount_in /sys/kernel/debug -t debugfs nodev &&
mount_in /sys/fs/bpf -t bpf bpf &&
mount_in /dev --bind /dev &&
mount_in /var/cache/apt/archives --bind "$archives"
check "mounts proc, sys, tracefs, debugfs, bpf, dev" 0 $?

# Installing the package, with its dependencies and recommendations (the
# kernel headers), and man-db to look for its man page as a user does.
cp "${debs[0]}" "$root/tmp/"
deb=/tmp/$(basename "${debs[0]}")
in_chroot apt-get update -q > "$work/apt.log" 2>&1
check "apt-get update in the chroot" 0 $?
in_chroot apt-get install -y -q "$deb" man-db >> "$work/apt.log" 2>&1
status=$?
check "apt-get install ./$(basename "$deb") man-db" 0 $status
if [[ $status != 0 ]]; then
    tail -n 20 "$work/apt.log"
    finish
fi
check "the package is installed" "install ok installed" \
      "$(in_chroot dpkg-query -W -f '${Status}' kernel-delay)"
check "its dependencies include libbpfcc" yes \
      "$(in_chroot dpkg-query -W -f '${Depends}' kernel-delay |
         grep -q 'libbpfcc' && echo yes || echo no)"
check "the recommended kernel headers are installed" "install ok installed" \
      "$(in_chroot dpkg-query -W -f '${Status}' "linux-headers-$arch")"
in_chroot dpkg -L kernel-delay > "$work/files"

# The installed program.
check "/usr/sbin/kernel_delay is executable" yes \
      "$([[ -x $root/usr/sbin/kernel_delay ]] && echo yes || echo no)"
in_chroot kernel_delay --version > "$work/version" 2>&1
check "kernel_delay --version exits 0" 0 $?
check "--version's first line" "kernel_delay $version" \
      "$(head -n 1 "$work/version")"
for line in "libbcc: [0-9]" "libbpf: [0-9]" "kernel: $(uname -r) " \
            "BTF: yes" "kprobes: " "ring buffer: yes" "kernel headers: "; do
    check "--version names '$line'" yes \
          "$(grep -q "^$line" "$work/version" && echo yes || echo no)"
done
sed 's/^/    /' "$work/version"

# Its man page and bash completion, where man and bash look for them.
check "man -w kernel_delay" /usr/share/man/man8/kernel_delay.8.gz \
      "$(in_chroot man -w kernel_delay 2>&1)"
check "man kernel_delay shows its page" yes \
      "$(in_chroot env MANPAGER=cat MANWIDTH=80 man kernel_delay 2>/dev/null |
         grep -q '^NAME' && echo yes || echo no)"
check "bash completes kernel_delay --sample-" \
      "--sample-count --sample-interval --sample-time" \
      "$(in_chroot bash -c '
           . /usr/share/bash-completion/completions/kernel_delay
           COMP_WORDS=(kernel_delay --sample-); COMP_CWORD=1
           _kernel_delay; echo "${COMPREPLY[*]}"')"

# A real sample of a process of the chroot.  libbcc needs a kernel header
# tree for the running kernel: with none, kernel_delay says so; then it is
# linked to the installed linux-headers as the host has it
# (tools/prepare-host.sh, which the package does not ship).
chroot "$root" /bin/sh -c 'while :; do sleep 0.05; done' &
workload_pid=$!
sleep 0.2
if [[ ! -e $root/lib/modules/$(uname -r)/build ]]; then
    in_chroot kernel_delay -p "$workload_pid" --sample-time 0.2 \
        --skip-upcall-stats > "$work/no-headers" 2>&1
    check "without a header tree: exit 72" 72 $?
    check "without a header tree: says what is missing" yes \
          "$(grep -q "libbcc needs a kernel header tree" "$work/no-headers" &&
             echo yes || echo no)"
fi
cp tools/prepare-host.sh "$root/tmp/prepare-host.sh"
in_chroot sh /tmp/prepare-host.sh 2>&1 | sed 's/^/    /'
sample_start=$(date +%s.%N)
in_chroot kernel_delay -p "$workload_pid" --sample-time 0.2 \
    --skip-upcall-stats > "$work/sample" 2>&1
status=$?
sample_end=$(date +%s.%N)
check "kernel_delay -p PID --sample-time 0.2 exits 0" 0 $status
check "it prints '# Sample dump'" yes \
      "$(grep -q '^# Sample dump' "$work/sample" && echo yes || echo no)"
check "it reports the workload's syscalls" yes \
      "$(grep -q 'SYSCALL STATISTICS' "$work/sample" && echo yes || echo no)"
if [[ $status != 0 ]]; then
    sed 's/^/    /' "$work/sample"
fi
log "the sample run took $(awk -v a="$sample_start" -v b="$sample_end" \
                            'BEGIN { printf "%.2f", b - a }') s"
kill "$workload_pid" 2>/dev/null
wait "$workload_pid" 2>/dev/null
workload_pid=

# Purging it leaves nothing of it: no file it installed, no directory
# that no other package owns, no dpkg record.
in_chroot apt-get purge -y -q kernel-delay >> "$work/apt.log" 2>&1
check "apt-get purge kernel-delay" 0 $?
check "dpkg no longer knows it" "" \
      "$(in_chroot dpkg-query -W -f '${Status}' kernel-delay 2>/dev/null |
         grep -v '^unknown ok not-installed$')"
left=()
while IFS= read -r path; do
    [[ $path == /. ]] && continue
    if [[ -e $root$path || -L $root$path ]]; then
        if [[ -d $root$path && ! -L $root$path ]] &&
           in_chroot dpkg-query -S "$path" >/dev/null 2>&1; then
            continue
        fi
        left+=("$path")
    fi
done < "$work/files"
check "of its $(wc -l < "$work/files") paths, none is left" "" "${left[*]}"
check "no dpkg info file is left" "" \
      "$(ls "$root"/var/lib/dpkg/info/kernel-delay.* 2>/dev/null)"

log "took $(($(date +%s) - start)) s"
finish
