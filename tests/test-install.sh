#!/bin/bash
# Tests "make install" (PREFIX, DESTDIR) and the bash completion.  Prints
# one line per check and closes with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1

passed=0
failed=0
check() {
    if [[ $2 == "$3" ]]; then
        passed=$((passed + 1))
        echo "PASS: $1"
    else
        failed=$((failed + 1))
        echo "FAIL: $1 (expected '$2', got '$3')"
    fi
}

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

echo
echo "$passed passed, $failed failed"
[[ $failed == 0 ]]
