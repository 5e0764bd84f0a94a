#!/bin/bash
# End-to-end tests of kernel_delay: real eBPF against tests/workload, a
# process that does exactly known things on command (see tests/workload.c).
#
# Usage: tests/e2e.sh [PATH_TO_KERNEL_DELAY]     (default ./kernel_delay)
#
# Environment: E2E_SCENARIOS (a subset of the scenarios, see below) and
# E2E_ATTEMPTS (see run_with_retry), for debugging; E2E_TIME_SCALE (default
# 1) stretches the sample windows the jobs must fit in, for slow machines
# (the kernel lane's emulated guests); E2E_SCHED_SLICE_NS and
# E2E_SCHED_MAX_FLOOR_NS widen the schedstat tolerance (see sched_tolerance in tests/e2e/lib.sh).
# E2E_KEEP_TRACES=DIR keeps, in DIR, the traces that the evidence_*
# scenarios decode, with the run's output, for a look in ui.perfetto.dev.
#
# Run as root, from the source tree, on a machine where eBPF works.  Prints
# one "PASS: ..." or "FAIL: ..." line per check ("# ..." lines are notes,
# "SKIP: ..." lines say what could not be run here and why), then exactly one
# "N passed, N failed" line; exits non-zero if anything failed, or if the
# tests could not run at all (not root, no eBPF): that never counts as a
# pass.
#
# Every scenario is one kernel_delay run: start it with -p PID, wait until it
# samples, make the workload do one job, wait for the job to end and for
# kernel_delay to exit, then read the report and compare its numbers with
# what the job did and with the kernel's own per-thread schedstat.  Reports
# are read from --json with jq, but in the one layout-conformance scenario
# ("syscalls", whose text layout is checked line by line against the
# reference's) and where the text itself is under test.
#
# This file is the driver: the scenarios live in tests/e2e/, one file per
# theme (with the helpers only that theme uses), and the helpers they share
# in tests/e2e/lib.sh (shared with the kernel lane too).
#
#   syscalls.sh   smoke, syscalls, poll, exited
#   sched.sh      contend, stopped, udp, hardirq
#   cli.sh        bad_options, no_such_pid, not_root, not_capable,
#                 tid_as_pid, folded_unwritable,
#                 list_probes, autodetect
#   triggers.sh   trigger_*
#   events.sh     events_*, debuginfo
#   warnings.sh   upcall_note, map_full
#   lifecycle.sh  target_exit, target_exit_waiting, signals,
#                 signal_during_compile, kill9, stale_probe, long_run
#   json.sh       json, json_midrun, json_names
#   names.sh      hostile_names
#   filters.sh    filters
#   summary.sh    summary
#   histogram.sh  histogram
#   longpoll.sh   long_poll, long_poll_wait, long_poll_ovs,
#                 long_poll_wait_target, long_poll_usersys,
#                 long_poll_profile, long_poll_offcpu, long_poll_progress,
#                 sample_stacks
#   outputs.sh    empty_results, json_times, wall_clock, status_line
#   unwind.sh     unwind_* (user stacks from the call frame information)
#   metrics.sh    metrics_prometheus, metrics_hostile (--metrics)
#   evidence.sh   evidence_* (--trace-dir's traces, --on-long-poll)

set -u
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/e2e/lib.sh
. "$HERE/e2e/lib.sh"
# shellcheck source=tests/e2e/syscalls.sh
. "$HERE/e2e/syscalls.sh"
# shellcheck source=tests/e2e/sched.sh
. "$HERE/e2e/sched.sh"
# shellcheck source=tests/e2e/cli.sh
. "$HERE/e2e/cli.sh"
# shellcheck source=tests/e2e/triggers.sh
. "$HERE/e2e/triggers.sh"
# shellcheck source=tests/e2e/events.sh
. "$HERE/e2e/events.sh"
# shellcheck source=tests/e2e/warnings.sh
. "$HERE/e2e/warnings.sh"
# shellcheck source=tests/e2e/lifecycle.sh
. "$HERE/e2e/lifecycle.sh"
# shellcheck source=tests/e2e/json.sh
. "$HERE/e2e/json.sh"
# shellcheck source=tests/e2e/names.sh
. "$HERE/e2e/names.sh"
# shellcheck source=tests/e2e/filters.sh
. "$HERE/e2e/filters.sh"
# shellcheck source=tests/e2e/summary.sh
. "$HERE/e2e/summary.sh"
# shellcheck source=tests/e2e/histogram.sh
. "$HERE/e2e/histogram.sh"
# shellcheck source=tests/e2e/longpoll.sh
. "$HERE/e2e/longpoll.sh"
# shellcheck source=tests/e2e/outputs.sh
. "$HERE/e2e/outputs.sh"
# shellcheck source=tests/e2e/unwind.sh
. "$HERE/e2e/unwind.sh"
# shellcheck source=tests/e2e/metrics.sh
. "$HERE/e2e/metrics.sh"
# shellcheck source=tests/e2e/evidence.sh
. "$HERE/e2e/evidence.sh"

# Attempts of a scenario that compares with schedstat (run_with_retry).
E2E_ATTEMPTS=${E2E_ATTEMPTS:-3}

# Scenarios to run, in this order (a subset can be given in the environment,
# e.g. E2E_SCENARIOS="contend stopped" when debugging).  "autodetect" stops
# the main workload instance, so it must come last.  "smoke" always runs
# first.
E2E_SCENARIOS=${E2E_SCENARIOS:-syscalls poll contend udp hardirq exited \
stopped bad_options no_such_pid folded_unwritable not_root not_capable \
trigger_usdt \
trigger_uprobe \
trigger_trace trigger_first_sample trigger_start_only trigger_stop_only \
trigger_delta \
trigger_interrupt trigger_errors events_threshold events_skip_poll debuginfo \
events_no_stacks events_full_rate events_drops upcall_note map_full \
target_exit target_exit_waiting signals signal_during_compile kill9 \
stale_probe tid_as_pid long_run json json_midrun json_names hostile_names \
filters \
summary \
list_probes histogram long_poll long_poll_wait long_poll_ovs \
long_poll_wait_target long_poll_usersys long_poll_profile long_poll_offcpu \
long_poll_progress sample_stacks \
evidence_wait evidence_wakeup evidence_stop evidence_action_env \
evidence_action_hang evidence_action_fail evidence_caps \
unwind_long_poll unwind_sample unwind_stripped unwind_events \
unwind_frame_pointers unwind_dlopen unwind_depth unwind_restart \
empty_results json_times wall_clock status_line \
metrics_prometheus metrics_hostile \
autodetect}

WORKLOAD=$HERE/workload
WORKDIR=

# Clean up on any exit, and turn SIGINT and SIGTERM into a clean stop (see
# on_exit and check_interrupt in tests/e2e/lib.sh).
exec {STDOUT_FD}>&1
trap on_exit EXIT
trap 'E2E_INTERRUPTED=INT' INT
trap 'E2E_INTERRUPTED=TERM' TERM

main() {
    local name errors times=()

    preflight "$@"
    declare -gA NR=()
    for name in getppid clock_nanosleep write "$POLL_SYSCALL" sendto \
                recvfrom sched_setaffinity; do
        NR[$name]=$(syscall_nr "$name")
    done

    wl_start main kd-workload || abort "the workload does not start"
    note "workload PID ${WL_PID[main]}, kernel_delay $KD"

    scenario_smoke
    for name in $E2E_SCENARIOS; do
        local t0=$EPOCHREALTIME
        case $name in
        autodetect)
            wl_stop main
            scenario_autodetect
            ;;
        syscalls|contend|long_poll|long_poll_wait)
            run_with_retry "scenario_$name"
            ;;
        *)
            "scenario_$name"
            ;;
        esac
        times+=("$name $(secs_since "$t0") s")
        check_interrupt
    done
    note_times scenario "${times[@]}"

    if ((${#E2E_ERRORS[@]} > 0)); then
        note "THREAD RUN/READY totals against schedstat:"
        for errors in "${E2E_ERRORS[@]}"; do
            note "  $errors"
        done
    fi
    summary
    ((TEST_FAILED == 0))
}

main "$@"
