# shellcheck shell=bash
# The pass and fail of the test scripts (tests/*.sh, tests/e2e/ and the
# kernel lane's lane.sh, tests/fuzz/run-fuzz.sh): one line per check,
# "PASS: WHAT" or "FAIL: WHAT", counted in TEST_PASSED and TEST_FAILED;
# test_summary prints the closing "N passed, N failed" line that
# tools/run-tests.sh adds up.  Sourced, never run.

TEST_PASSED=0
TEST_FAILED=0

# pass WHAT
pass() {
    TEST_PASSED=$((TEST_PASSED + 1))
    printf 'PASS: %s\n' "$1"
}

# fail WHAT [EXPECTED GOT]
fail() {
    TEST_FAILED=$((TEST_FAILED + 1))
    if (($# >= 3)); then
        printf 'FAIL: %s (expected %s, got %s)\n' "$1" "$2" "${3:-nothing}"
    else
        printf 'FAIL: %s\n' "$1"
    fi
}

# check WHAT EXPECTED GOT: passes when GOT is EXPECTED.
check() {
    if [[ $3 == "$2" ]]; then
        pass "$1"
    else
        fail "$1 (expected '$2', got '$3')"
    fi
}

# test_summary: the closing "N passed, N failed" line; true when none
# failed.
test_summary() {
    printf '%d passed, %d failed\n' "$TEST_PASSED" "$TEST_FAILED"
    ((TEST_FAILED == 0))
}
