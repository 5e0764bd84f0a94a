#!/bin/bash
# Tests "make install" (PREFIX, DESTDIR) and the bash completion.  Prints
# one line per check and closes with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1

# shellcheck source=tests/testlib.sh
. tests/testlib.sh

dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
make -s install DESTDIR="$dest" PREFIX=/opt/kd >/dev/null 2>&1
check "make install exits 0" 0 $?
for f in sbin/kernel_delay share/man/man8/kernel_delay.8 \
         share/bash-completion/completions/kernel_delay; do
    check "installs /opt/kd/$f" yes \
          "$([[ -f $dest/opt/kd/$f ]] && echo yes || echo no)"
done
check "the binary is executable" yes \
      "$([[ -x $dest/opt/kd/sbin/kernel_delay ]] && echo yes || echo no)"
check "the installed binary runs" "kernel_delay 0.1.0" \
      "$("$dest/opt/kd/sbin/kernel_delay" --version | head -n 1)"
check "--version names the libbcc it runs with" yes \
      "$("$dest/opt/kd/sbin/kernel_delay" --version |
         grep -q '^libbcc: .*built with' && echo yes || echo no)"
make -s uninstall DESTDIR="$dest" PREFIX=/opt/kd >/dev/null 2>&1
check "make uninstall removes the files" 0 \
      "$(find "$dest" -type f | wc -l)"

# "make install-compat": kernel_delay.py in OVS's usdt-scripts directory
# runs the installed kernel_delay, as a shell or a Python script, and one
# that is not ours is only replaced with FORCE=1, and put back.
prefix=$dest/usr
usdt=$prefix/share/openvswitch/scripts/usdt
make -s install PREFIX="$prefix" >/dev/null 2>&1
make -s install-compat PREFIX="$prefix" >/dev/null 2>&1
check "make install-compat exits 0" 0 $?
check "installs an executable kernel_delay.py" yes \
      "$([[ -x $usdt/kernel_delay.py ]] && echo yes || echo no)"
runs=("$usdt/kernel_delay.py" "./kernel_delay.py")
if command -v python3 >/dev/null; then
    runs+=("python3 kernel_delay.py")
fi
for run in "${runs[@]}"; do
    check "'${run/#$usdt\//USDT-SCRIPTS/} --version' runs kernel_delay" \
          "kernel_delay 0.1.0" \
          "$(cd "$usdt" && $run --version | head -n 1)"
done
check "kernel_delay.py passes its arguments as they are" \
      "$("$prefix/sbin/kernel_delay" --thread 'a b' -p x 2>&1; echo $?)" \
      "$("$usdt/kernel_delay.py" --thread 'a b' -p x 2>&1; echo $?)"
make -s install-compat PREFIX="$prefix" >/dev/null 2>&1
check "make install-compat again replaces its own wrapper" 0 $?
make -s uninstall-compat PREFIX="$prefix" >/dev/null 2>&1
check "make uninstall-compat removes it" no \
      "$([[ -e $usdt/kernel_delay.py ]] && echo yes || echo no)"

echo "#!/usr/bin/env python3" > "$usdt/kernel_delay.py"
out=$(make -s install-compat PREFIX="$prefix" 2>&1)
check "install-compat refuses to replace OVS's kernel_delay.py" 2 $?
check "and says how to force it" yes \
      "$([[ $out == *"FORCE=1"* ]] && echo yes || echo no)"
check "OVS's kernel_delay.py is left as it was" "#!/usr/bin/env python3" \
      "$(cat "$usdt/kernel_delay.py")"
make -s install-compat PREFIX="$prefix" FORCE=1 >/dev/null 2>&1
check "FORCE=1 replaces it" "kernel_delay 0.1.0" \
      "$("$usdt/kernel_delay.py" --version | head -n 1)"
check "FORCE=1 keeps it as kernel_delay.py.orig" "#!/usr/bin/env python3" \
      "$(cat "$usdt/kernel_delay.py.orig")"
make -s uninstall-compat PREFIX="$prefix" >/dev/null 2>&1
check "uninstall-compat puts OVS's kernel_delay.py back" \
      "#!/usr/bin/env python3" "$(cat "$usdt/kernel_delay.py")"
check "and leaves no .orig" no \
      "$([[ -e $usdt/kernel_delay.py.orig ]] && echo yes || echo no)"
make -s uninstall-compat PREFIX="$prefix" >/dev/null 2>&1
check "uninstall-compat leaves a kernel_delay.py not ours alone" \
      "#!/usr/bin/env python3" "$(cat "$usdt/kernel_delay.py")"
make -s uninstall PREFIX="$prefix" >/dev/null 2>&1

# complete WORDS...: what the completion offers for the last word.
complete_words() {
    bash -c '
        source completion/kernel_delay
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        COMP_LINE="${COMP_WORDS[*]}"
        COMP_POINT=${#COMP_LINE}
        _kernel_delay
        echo "${COMPREPLY[*]}"' _ "$@"
}
check "completes options" "--stack-trace-size --start-trigger" \
      "$(complete_words kernel_delay --sta)"
check "completes --json and --list-probes" "--json" \
      "$(complete_words kernel_delay --js)"
check "completes trigger kinds" "u: usdt: up: uprobe: ur: upr: uretprobe:" \
      "$(complete_words kernel_delay --start-trigger u)"
check "completes trigger kinds for --stop-trigger" "k: kprobe: kr: kretprobe:" \
      "$(complete_words kernel_delay --stop-trigger k)"
check "no option completion for values" "" \
      "$(complete_words kernel_delay --sample-time '')"
check "completes file names after --folded" "completion/kernel_delay" \
      "$(complete_words kernel_delay --folded completion/kernel_del)"
check "completes --off-cpu" "--off-cpu" \
      "$(complete_words kernel_delay --off)"

# "make demo" installs what the demo needs, and nothing the tests alone
# need (clang, Open vSwitch, stress-ng, jq).
check "make demo installs the demo's set of packages" \
      "tools/install-deps.sh demo" \
      "$(make --no-print-directory -n demo 2>/dev/null | head -n 1)"
check "the demo's packages: build, and the workload's USDT header" \
      "gcc libbpf-dev libbpfcc-dev libdw-dev libelf-dev linux-headers-amd64\
 make pkg-config systemtap-sdt-dev" \
      "$(tools/install-deps.sh --print demo | xargs)"
check "the tests' packages still hold clang and Open vSwitch" yes \
      "$(tools/install-deps.sh --print test |
         grep -qx clang && tools/install-deps.sh --print test |
         grep -qx openvswitch-switch && echo yes || echo no)"

echo
test_summary
