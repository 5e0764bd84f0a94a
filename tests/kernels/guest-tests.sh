#!/bin/bash
# The kernel lane's test set, run inside a guest (tests/kernels/run): the
# template through this kernel (tests/test_kernel), a subset of the
# end-to-end scenarios (tests/e2e.sh), and the lane's own checks
# (tests/kernels/lane.sh).  Ends with one "N passed, N failed" line.
#
# Environment: LANE_E2E_SCENARIOS (the e2e subset), LANE_SECTIONS (see
# lane.sh), KD_LANE_REFERENCE=1 to run the reference side by side.
set -u
cd "$(dirname "$0")/../.." || exit 1

# shellcheck source=tools/suite-lib.sh
. tools/suite-lib.sh

# Time mode, per kernel: exact syscall counts, run and run-queue totals
# against schedstat, stopped time, exited threads' names; USDT triggers and
# the first-sample race; long poll intervals against their ground truth and
# against a real ovs-vswitchd stopped for 2 s; what a thread ran and what it
# slept on, in an interval and in a sample; user stacks unwound from the
# call frame information of a binary built without frame pointers (and
# stripped, and a library loaded later); the --trace-dir traces of a
# run-queue wait, a wake-up and a stop, decoded; --metrics scraped by a
# real Prometheus, each interval under its cause, and beside hostile
# clients.  Counts and ground truth, not latencies: emulation inflates
# those.
scenarios="syscalls contend stopped exited trigger_usdt trigger_first_sample \
long_poll long_poll_wait long_poll_ovs long_poll_usersys long_poll_profile \
long_poll_offcpu long_poll_progress sample_stacks unwind_long_poll \
unwind_sample unwind_stripped unwind_dlopen unwind_depth unwind_restart \
evidence_wait evidence_wakeup evidence_stop metrics_prometheus \
metrics_hostile"
# Where glibc's poll() is the ppoll syscall (arm64: no poll syscall), the
# poll of LONG POLL STATISTICS and of the events is ppoll: prove it against
# the workload's truth (which the host's make check proves for poll), and
# the uprobe triggers, on an architecture the host cannot run.
if [ "$(uname -m)" != x86_64 ]; then
    scenarios="$scenarios poll events_skip_poll trigger_uprobe"
fi
export E2E_SCENARIOS=${LANE_E2E_SCENARIOS:-$scenarios}

# Emulation (TCG) runs jobs several times slower than the host, and the
# scheduler's code between schedstat's clock reads and the sched_switch
# tracepoint (which moves time between RUN and READY at every switch, 2 to
# 3.5 us on the host) about a hundred times slower, and a virtual CPU can
# stand still anywhere: measured up to 860 us a switch (2.3 ms over 7
# switches on 6.1-rt, 6 ms over 17 on 6.12, 7.7 ms over 20 on 6.12-rt,
# 6 ms over 7 in long_poll on 6.12), one guest at a time.  Two guests at
# once on a two-CPU host (tests/kernels/check) add the host's own
# preemptions of each guest: 4.2 ms over 3 switches seen in contend on
# 6.1.  So 2 ms a switch; the cap on that tolerance must let contend's 15
# to 25 timeslices a thread have it: 20 ms (of 100 to 260 ms totals; the
# switch counts themselves are checked exactly).
export E2E_TIME_SCALE=${E2E_TIME_SCALE:-5}
export E2E_SCHED_SLICE_NS=${E2E_SCHED_SLICE_NS:-2000000}
export E2E_SCHED_MAX_FLOOR_NS=${E2E_SCHED_MAX_FLOOR_NS:-20000000}

# Warnings and worse (stack traces included) on the console, as they come.
dmesg -n 5

# A compile takes about 15 s here: of the template's shapes, only those
# that no run of the tool below compiles (the default one, --json, k:/kr:
# triggers alone and together, USDT, --long-poll-events, the upcall
# kretprobe, --skip-upcall-stats, the headers fallback all are), so that
# every kernel still verifies them all; --trace-dir's, which no run below
# makes, with the default ring and with the largest.
export KD_TEST_SHAPES=${KD_TEST_SHAPES:-everything,events without stacks,summary,long poll events traced,long poll events traced with stacks}

echo "# kernel $(uname -r) ($(uname -v))"
run_suite template tests/test_kernel
run_suite e2e tests/e2e.sh ./kernel_delay
run_suite lane tests/kernels/lane.sh

# Whatever ran, the kernel must not have complained: no BUG (soft lockup,
# ...), WARNING or Oops in its log.
echo "=== kernel log"
if dmesg | grep -E 'BUG:|WARNING:|Oops|Call Trace' >/tmp/kd-dmesg; then
    echo "FAIL: the kernel logged $(grep -c . /tmp/kd-dmesg) alarming lines"
    failed=$((failed + 1))
else
    echo "PASS: no BUG, WARNING or Oops in the kernel log"
    passed=$((passed + 1))
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
