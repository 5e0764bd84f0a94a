# shellcheck shell=bash
# run_suite, for the scripts that run several test suites and add up their
# results (tools/run-tests.sh, tests/kernels/guest-tests.sh).  Each suite
# ends with an "N passed, N failed" line; run_suite adds it to the globals
# 'passed' and 'failed', and counts one failure for a suite that did not
# report its results, or that failed without saying so.

passed=0
failed=0

# run_suite NAME CMD [ARG...]
run_suite() {
    local name=$1
    shift
    local log t0=$SECONDS
    log=$(mktemp)
    echo "=== $name: $*"
    "$@" 2>&1 | tee "$log"
    local rc=${PIPESTATUS[0]}
    echo "# $name: $((SECONDS - t0)) s"
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
