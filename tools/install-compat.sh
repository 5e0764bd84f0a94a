#!/bin/sh
# Installs or removes the kernel_delay.py wrapper in Open vSwitch's
# usdt-scripts directory ("make install-compat", "make uninstall-compat";
# see docs/install.md), never replacing a file of someone else's silently.
#
# Usage: install-compat.sh install|uninstall DIR SBINDIR
#   DIR      the usdt-scripts directory, with any DESTDIR
#   SBINDIR  where kernel_delay is installed, without DESTDIR
# With FORCE=1 in the environment, "install" replaces a kernel_delay.py
# that is not ours, keeping it as kernel_delay.py.orig, which "uninstall"
# puts back.
set -eu

what=${1:?usage: install-compat.sh install|uninstall DIR SBINDIR}
dir=${2:?usage: install-compat.sh install|uninstall DIR SBINDIR}
sbindir=${3:?usage: install-compat.sh install|uninstall DIR SBINDIR}
template=$(dirname "$0")/../compat/kernel_delay.py.in
target=$dir/kernel_delay.py
orig=$target.orig
marker='# kernel_delay compat wrapper, installed by "make install-compat".'

# ours FILE: whether FILE is our wrapper.
ours() {
    [ -f "$1" ] && grep -qxF "$marker" "$1"
}

case $what in
install)
    if [ -e "$target" ] || [ -L "$target" ]; then
        if ours "$target"; then
            :
        elif [ "${FORCE:-0}" != 1 ]; then
            echo "install-compat: $target exists and is not kernel_delay's" \
                 "wrapper (Open vSwitch's own kernel_delay.py?): not" \
                 "replacing it.  Run \"make install-compat FORCE=1\" to" \
                 "replace it, keeping it as $orig." >&2
            exit 1
        elif [ -e "$orig" ] || [ -L "$orig" ]; then
            echo "install-compat: $orig exists already: move it away" \
                 "first, so that it is not lost" >&2
            exit 1
        else
            mv "$target" "$orig"
            echo "install-compat: kept $target as $orig" >&2
        fi
    fi
    install -d "$dir"
    tmp=$(mktemp "$dir/.kernel_delay.py.XXXXXX")
    sed "s|@SBINDIR@|$sbindir|g" "$template" > "$tmp"
    chmod 0755 "$tmp"
    mv -f "$tmp" "$target"
    echo "install-compat: $target runs $sbindir/kernel_delay" >&2
    ;;
uninstall)
    if { [ -e "$target" ] || [ -L "$target" ]; } && ! ours "$target"; then
        echo "install-compat: $target is not kernel_delay's wrapper:" \
             "left as it is" >&2
        exit 0
    fi
    rm -f "$target"
    if [ -e "$orig" ] || [ -L "$orig" ]; then
        mv "$orig" "$target"
        echo "install-compat: put $orig back as $target" >&2
    fi
    ;;
*)
    echo "install-compat.sh: unknown action '$what'" >&2
    exit 2
    ;;
esac
