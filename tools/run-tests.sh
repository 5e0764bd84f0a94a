#!/bin/bash
# Runs every test of kernel_delay: the unit tests (no kernel needed), then
# the end-to-end tests (real eBPF against a real workload, as root).  Each
# suite ends with an "N passed, N failed" line; this script adds them up
# into one closing line of the same form and fails if anything failed or a
# suite did not run.
set -u
cd "$(dirname "$0")/.." || exit 1

# shellcheck source=tools/suite-lib.sh
. tools/suite-lib.sh

# "make check SANITIZE=1" (tests/fuzz/fuzz.mk) has the sanitized builds
# run instead: KD_BIN here, KD_UNIT_TESTS in tests/unit/run.
kd_bin=${KD_BIN:-./kernel_delay}

run_suite unit tests/unit/run
run_suite man tests/test-man.sh
run_suite bench-analyze tests/test-bench-analyze.sh
run_suite prometheus-rules tests/test-prometheus-rules.sh
run_suite podman-flags tests/test-podman-flags.sh
run_suite template tests/test_kernel
run_suite install tests/test-install.sh
run_suite fuzz tests/fuzz/run-fuzz.sh 10
run_suite e2e tests/e2e.sh "$kd_bin"

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
