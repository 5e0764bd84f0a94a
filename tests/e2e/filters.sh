# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# --thread and --tid (beyond the reference): exactly the matching threads
# are reported, numbers unchanged, and their syscall events only.  Read
# from --json with jq.  Sourced by tests/e2e.sh.

# --thread and --tid keep exactly the matching threads, numbers unchanged.
scenario_filters() {
    local tag=filters pid=${WL_PID[main]} h1=${WL_TID[main:handler1]}
    local u3=${WL_TID[main:urcu3]} r2=${WL_TID[main:revalidator2]}

    kd_json_begin ${tag}_thread 0.8 -p "$pid" --thread '^handler1$' || return
    wl_cmd main "syscalls 20 1" || fail "$tag: job"
    kd_json_end
    check_eq "$tag --thread: only handler1" "$h1" "$(r tids)"
    check_syscall ${tag}_thread handler1 "$h1" getppid 20
    check_syscall ${tag}_thread handler1 "$h1" clock_nanosleep 1

    kd_json_begin ${tag}_tid 0.8 -p "$pid" --tid "$u3" || return
    wl_cmd main "syscalls 20 1" || fail "$tag: job"
    kd_json_end
    check_eq "$tag --tid: nothing else (urcu3 idle, not reported)" "" \
             "$(r tids)"

    kd_json_begin ${tag}_both 0.8 -p "$pid" --thread '^handler1$' \
        --tid "$u3,${WL_PID[main]}" || return
    wl_cmd main "contend 100 0" || fail "$tag: job"
    wl_cmd main "syscalls 7 0" || fail "$tag: job"
    kd_json_end
    check_eq "$tag both: handler1, urcu3 and main, no pmd4" \
             "$(printf '%s\n' "$h1" "$u3" "$pid" | sort -n | xargs)" \
             "$(jq -r '.threads[].tid' "$KD_JSON" | sort -n | xargs)"
    check_syscall ${tag}_both handler1 "$h1" getppid 7

    # Syscall events follow the filter too: with every syscall an event,
    # the workload's main thread (its reply) has some, but only
    # revalidator2's, the 4 poll() of "poll 3 1", are printed.
    events_json_run ${tag}_events 0.8 "poll 3 1" -s 0 --stack-trace-size 0 \
        --thread '^revalidator2$' || return
    check_eq "$tag events: only revalidator2's" "$r2" \
             "$(jq -r '.syscall_events[].tid' "$KD_JSON" | sort -u | xargs)"
    check_eq "$tag events: revalidator2 poll events" 4 \
             "$(json_events "$r2" "$POLL_SYSCALL")"
}
