# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# --json (beyond the reference): one valid JSON object per sample with the
# same exact numbers as the text report of the same job (json_text, the
# text side of that comparison), events with stacks, the summary, -D kept
# off the JSON Lines, errors on standard error; any thread name valid JSON
# (json_names).  Sourced by tests/e2e.sh.

# --json: one valid JSON object per sample, with the same exact numbers as
# the text report of the same job, events with stacks, and the summary.
scenario_json() {
    local tag=json tid=${WL_TID[main:handler1]} out n

    kd_begin json_text 0.8 -p "${WL_PID[main]}" || return
    wl_cmd main "events 50 2 0" || fail "$tag: job"
    kd_end
    check_syscall json_text handler1 "$tid" getppid 50

    # A sample long enough for the job.
    kd_attached_job $tag "events 50 2 0" -p "${WL_PID[main]}" --json \
        --summary -s 2000000 --sample-time 2 || return
    out=$KD_OUT
    check_eq "$tag: one line, one sample" 1 "$(wc -l <"$out")"
    if ! jq -e . "$out" >/dev/null 2>&1; then
        fail "$tag: output parses as JSON" "" "$(head -c 300 "$out")"
        return
    fi
    pass "$tag: output parses as JSON"
    check_eq "$tag: version" 2 "$(jq '.version' "$out")"
    check_eq "$tag: pid" "${WL_PID[main]}" "$(jq '.pid' "$out")"
    check_eq "$tag: not skipped" false "$(jq '.skipped' "$out")"
    n=$(jq ".threads[] | select(.tid == $tid) | .syscalls[]
            | select(.name == \"getppid\") | .count" "$out")
    # The job may land in the window or not: the run was started early, so
    # check it did.
    check_eq "$tag: handler1 getppid count, as in the text report" 50 "$n"
    check_eq "$tag: handler1 clock_nanosleep count" 2 \
             "$(jq ".threads[] | select(.tid == $tid) | .syscalls[]
                    | select(.name == \"clock_nanosleep\") | .count" "$out")"
    check_eq "$tag: duration = stop - start" \
             "$(jq '.window.stop_ns - .window.start_ns' "$out")" \
             "$(jq '.window.duration_ns' "$out")"
    check_eq "$tag: handler1's 2 slow syscalls as events" 2 \
             "$(jq "[.syscall_events[] | select(.tid == $tid)] | length" \
                   "$out")"
    check_eq "$tag: their user stacks name the workload's function" 2 \
             "$(jq "[.syscall_events[] | select(.tid == $tid)
                    | select(any(.user_stack[];
                                 startswith(\"kd_workload_slow_syscall+\")))]
                    | length" "$out")"
    check_eq "$tag: summary ready_ns = READY total of each thread" 0 \
             "$(jq '[.threads[] as $t | .summary.threads[]
                     | select(.tid == $t.tid)
                     | select(.ready_ns != ($t.ready.total_ns // 0))]
                    | length' "$out")"
    check_eq "$tag: summary window = sample duration" \
             "$(jq '.window.duration_ns' "$out")" \
             "$(jq '.summary.window_ns' "$out")"
    check_eq "$tag: warnings are fields" 0 \
             "$(jq '.warnings.events_dropped' "$out")"
    check_eq "$tag: recursion misses, per hook" object \
             "$(jq -r '.warnings.recursion_misses | type' "$out")"

    # -D makes libbcc print the LLVM IR: never into the JSON Lines.
    kd_start ${tag}_debug -p "${WL_PID[main]}" --json --sample-time 0.1 -D 1
    wait_exit "$KD_PID" 60
    check_eq "${tag}_debug: exit status" 0 "$WAIT_RC"
    if jq -e . "$KD_OUT" >/dev/null 2>&1 && [[ -s $KD_OUT ]]; then
        pass "${tag}_debug: with -D, stdout is still JSON Lines"
    else
        fail "${tag}_debug: with -D, stdout is JSON Lines" "JSON" \
             "$(head -c 100 "$KD_OUT" | tr '\n' ' ')"
    fi
    grep -q 'ModuleID' "$KD_ERR" \
        && pass "${tag}_debug: libbcc's IR on stderr" \
        || fail "${tag}_debug: libbcc's IR on stderr"

    # Errors: in JSON mode, on standard error, never in the JSON Lines.
    local gone
    true &
    gone=$!
    wait "$gone"
    json_error ${tag}_no_pid 69 "No process with PID" -p "$gone"
    json_error ${tag}_bad_trigger 78 "Invalid start trigger" \
        -p "${WL_PID[main]}" --start-trigger u:no_such:probe
}

# An error in the middle of a JSON run: from the second sample on, the map
# reads fail (tests/inject_eio.so, an LD_PRELOAD library).  The first
# sample is one whole JSON line on standard output, the error is on
# standard error, the exit status EX_OSERR, and nothing stays attached.
# A tool built with AddressSanitizer ("make check SANITIZE=1") wants the
# sanitizer's runtime first among its libraries: it then goes first in
# LD_PRELOAD, before the injection, and the run is sanitized too.
scenario_json_midrun() {
    local tag=json_midrun so=$PWD/tests/inject_eio.so
    local count=$WORKDIR/json_midrun.reads reads asan

    asan=$(ldd "$KD" 2>/dev/null | awk '$1 ~ /^libasan\.so/ { print $3 }')
    if [[ -n $asan ]]; then
        so="$asan $so"
        note "$tag: a sanitized kernel_delay: LD_PRELOAD=\"$so\""
    fi
    # How many map reads the start and one sample make, measured.
    tool_start env ${tag}_count LD_PRELOAD="$so" \
        KD_INJECT_COUNT_FILE="$count" "$KD" -p "${WL_PID[main]}" --json \
        --sample-time 0.3 --sample-count 1
    wait_exit "$KD_PID" 60
    check_eq "${tag}_count: exit status" 0 "$WAIT_RC"
    reads=$(cat "$count" 2>/dev/null)
    if ! is_uint "$reads" || ((reads == 0)); then
        fail "$tag: map reads counted" "a number > 0" "$reads"
        return
    fi

    tool_start env $tag LD_PRELOAD="$so" KD_INJECT_EIO_AFTER="$reads" \
        "$KD" -p "${WL_PID[main]}" --json --sample-time 0.3 \
        --sample-count 3
    wait_exit "$KD_PID" 60
    check_eq "$tag: exit status (EX_OSERR)" 71 "$WAIT_RC"
    if jq -c . "$KD_OUT" >/dev/null 2>&1; then
        pass "$tag: stdout is JSON Lines"
    else
        fail "$tag: stdout is JSON Lines" "JSON" \
             "$(head -c 200 "$KD_OUT" | tr '\n' ' ')"
    fi
    check_eq "$tag: the samples reported, one line each" "1" \
             "$(jq -c '.sample' "$KD_OUT" | xargs)"
    check_eq "$tag: lines on stdout" 1 "$(wc -l <"$KD_OUT")"
    grep -q "^ERROR: Failed to read eBPF map" "$KD_ERR" \
        && pass "$tag: the error on stderr" \
        || fail "$tag: the error on stderr" "ERROR: Failed to read..." \
                "$(head -c 200 "$KD_ERR")"
    check_bpf_released "$tag"
}

# Any thread name stays valid JSON.
scenario_json_names() {
    local tag=json_names name

    kd_start $tag -p "${WL_PID[main]}" --json --sample-time 1.5
    kd_wait_attached 10 || { fail "$tag: kernel_delay starts"; return; }
    # A quote, a backslash, a control character, UTF-8 and a byte that is
    # not UTF-8 (the workload splits commands at white space).
    wl_cmd main $'spawn-exit q"\\\x01\xc3\xa9\xff' || fail "$tag: job"
    wait_exit "$KD_PID" 30
    [[ -s $KD_OUT ]] && jq -e . "$KD_OUT" >/dev/null 2>&1 \
        && pass "$tag: parses as JSON" \
        || fail "$tag: parses" "" "$(head -c 300 "$KD_OUT")"
    name=$(jq -r '.threads[] | select(.name | startswith("q")) | .name' \
               "$KD_OUT")
    # The byte that is not UTF-8 comes back as U+00FF.
    check_eq "$tag: the name round-trips" $'q"\\\x01\xc3\xa9\xc3\xbf' \
             "$name"
}

# ---------------------------------------------------------------------------
# Helpers of this theme.

# json_error TAG STATUS TEXT ARGS...: kernel_delay --json ARGS fails with
# exit STATUS and "ERROR: TEXT..." on standard error, nothing on standard
# output.
json_error() {
    local tag=$1 status=$2 text=$3

    shift 3
    kd_start "$tag" --json "$@"
    wait_exit "$KD_PID" 60
    check_eq "$tag: exit status" "$status" "$WAIT_RC"
    check_eq "$tag: nothing on stdout" 0 "$(wc -c <"$KD_OUT")"
    grep -q "^ERROR: $text" "$KD_ERR" \
        && pass "$tag: the error on stderr" \
        || fail "$tag: the error on stderr" "ERROR: $text..." \
                "$(head -c 200 "$KD_ERR")"
}
