# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# What the output says when there is little to say, and the times it
# gives (issue 26): an empty -s sample and a --thread that matches no
# thread say so, a --tid that names no thread of the target is an error;
# JSON times are UTC with "Z"; -s events carry wall-clock times (JSON,
# and text with --wall-clock); the status line on a terminal's standard
# error while the tool waits, and none in a pipe.  Uses run_sync and
# check_error_line (cli.sh).  Sourced by tests/e2e.sh.

# -s over a day: no event can be that long, and the sample says so where
# its events would be, once; --thread matching no thread: a note, exit 0;
# --tid naming no thread of the target: an error (exit 69, as -p naming no
# process) with where to see its threads.
scenario_empty_results() {
    local tag=empty_results pid=${WL_PID[main]}
    local line="# No syscall longer than 86,400,000,000,000 ns in this sample."

    kd_begin ${tag}_events 0.5 -p "$pid" -s 86400000000000 || return
    kd_finish ${tag}_events 30
    check_eq "$tag -s: the empty events line, once" 1 \
             "$(grep -cxF "$line" "$KD_OUT")"
    check_eq "$tag -s: no events header" 0 \
             "$(grep -c '^# SYSCALL EVENTS:' "$KD_OUT")"

    kd_begin ${tag}_thread 0.5 -p "$pid" --thread '^no such thread$' \
        || return
    kd_finish ${tag}_thread 30
    check_eq "$tag --thread: the note" 1 \
             "$(grep -cxF "# No thread of process $pid matched --thread or\
 --tid in this sample." "$KD_OUT")"

    run_sync ${tag}_tid "$KD" -p "$pid" --tid 1 --sample-time 0.1
    check_eq "$tag --tid 1: exit status" 69 "$RUN_RC"
    check_eq "$tag --tid 1: the error" \
             "ERROR: No thread of process $pid has TID 1!" "$(cat "$RUN_OUT")"
    check_error_line "$tag --tid 1: where its threads are" "$RUN_ERR" \
                     "ls /proc/$pid/task"
    check_bpf_released "$tag --tid 1"
}
