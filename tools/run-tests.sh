#!/bin/bash
# Runs every test of kernel_delay: the unit tests (no kernel needed), then
# the end-to-end tests (real eBPF against a real workload, as root).  Each
# suite ends with an "N passed, N failed" line; this script adds them up
# into one closing line of the same form and fails if anything failed or a
# suite did not run.
set -u
cd "$(dirname "$0")/.." || exit 1

passed=0
failed=0

run_suite() {
    local name=$1
    shift
    local log
    log=$(mktemp)
    echo "=== $name: $*"
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    local line
    line=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" |
           tail -n 1)
    rm -f "$log"
    if [ -z "$line" ]; then
        echo "$name: did not report its results (exit $rc)"
        failed=$((failed + 1))
        return
    fi
    local p f
    p=$(echo "$line" | sed -E 's/^([A-Za-z]+: )?([0-9]+) passed.*/\2/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "$name: exited $rc"
        failed=$((failed + 1))
    fi
}

# "make check SANITIZE=1" (tests/fuzz/fuzz.mk) has the sanitized builds
# run instead.
kd_bin=${KD_BIN:-./kernel_delay}
unit_tests=${KD_UNIT_TESTS:-tests/test_units}

run_suite unit "$unit_tests"
run_suite template tests/test_kernel
run_suite install tests/test-install.sh
run_suite fuzz tests/fuzz/run-fuzz.sh 10
run_suite e2e tests/e2e.sh "$kd_bin"

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
