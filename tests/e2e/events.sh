# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# Syscall events (-s): a duration threshold, with stacks (events_threshold,
# which checks the text listing: its layout, DELTA column and frame lines),
# --skip-syscall-poll-events and --stack-trace-size 0 (read from --json),
# and every syscall either printed or counted as dropped, at full rate and
# with a one-page ring buffer (text: hundreds of thousands of events,
# streamed through awk).  Sourced by tests/e2e.sh.

# Threshold: with -s 2 ms, handler1's 4 slow sleeps (5 ms) and 3 polls
# (5 ms) appear and none of its 100 getppid(); each event is laid out and
# timed consistently, in exit order, and each sleep has kernel frames and a
# user stack naming the workload's function.
scenario_events_threshold() {
    local tag=events_threshold tid=${WL_TID[main:handler1]} i frames
    local prev=0 ok=1

    events_run $tag 0.8 "events 100 4 3" -s 2000000 || return
    check_syscall $tag handler1 "$tid" getppid 100
    check_eq "$tag: handler1 clock_nanosleep events" 4 \
             "$(wc -w <<<"$(events_of "$tid" clock_nanosleep)")"
    check_eq "$tag: handler1 poll events" 3 \
             "$(wc -w <<<"$(events_of "$tid" poll)")"
    check_eq "$tag: handler1 events in all" 7 \
             "$(wc -w <<<"$(events_of "$tid")")"
    for i in "${!EV_TID[@]}"; do
        ((EV_EXIT[i] >= prev)) || ok=0
        prev=${EV_EXIT[i]}
        if ((EV_DELTA[i] != (EV_EXIT[i] - EV_ENTRY[i]) / 1000)); then
            fail "$tag: event $i DELTA" $(((EV_EXIT[i] - EV_ENTRY[i]) / 1000)) \
                 "${EV_DELTA[i]}"
        fi
        ((EV_EXIT[i] - EV_ENTRY[i] > 2 * MS)) \
            || fail "$tag: event $i longer than the threshold" "> 2 ms" \
                    "$((EV_EXIT[i] - EV_ENTRY[i])) ns"
    done
    check_eq "$tag: events in exit order" 1 $ok
    for i in $(events_of "$tid"); do
        check_eq "$tag: event $i COMM" handler1 "${EV_NAME[i]}"
        check_range "$tag: event $i DELTA (us)" 5000 1000000 "${EV_DELTA[i]}"
    done
    for i in $(events_of "$tid" clock_nanosleep); do
        frames=${EV_FRAMES[i]}
        [[ $frames == *" [kernel]|"* ]] \
            && pass "$tag: event $i has kernel frames" \
            || fail "$tag: event $i kernel frames" "'... [kernel]'" "$frames"
        [[ $frames == *"|kd_workload_slow_syscall+0x"*" [workload]|"* ]] \
            && pass "$tag: event $i user stack names the workload's function" \
            || fail "$tag: event $i user stack" \
                    "'kd_workload_slow_syscall+0x... [workload]'" "$frames"
        [[ $frames != *bpf_prog_* && $frames != *__traceiter_* ]] \
            && pass "$tag: event $i stack free of tracing frames" \
            || fail "$tag: event $i tracing frames" "none" "$frames"
    done
    check_eq "$tag: no lost-stack warning" "" "$EV_WARNINGS"
}

# --skip-syscall-poll-events: poll() is counted, but not an event.
scenario_events_skip_poll() {
    local tag=events_skip_poll tid=${WL_TID[main:handler1]}

    events_json_run $tag 0.8 "events 0 2 3" -s 2000000 \
        --skip-syscall-poll-events || return
    check_syscall $tag handler1 "$tid" poll 3
    check_eq "$tag: handler1 clock_nanosleep events" 2 \
             "$(json_events "$tid" clock_nanosleep)"
    check_eq "$tag: handler1 poll events" 0 "$(json_events "$tid" poll)"
}

# --stack-trace-size 0: events without stacks, and no warning about it.
scenario_events_no_stacks() {
    local tag=events_no_stacks tid=${WL_TID[main:handler1]} i frames

    events_json_run $tag 0.8 "events 0 3 0" -s 2000000 \
        --stack-trace-size 0 || return
    check_eq "$tag: handler1 clock_nanosleep events" 3 \
             "$(json_events "$tid" clock_nanosleep)"
    i=0
    while read -r frames; do
        check_eq "$tag: event $i has no frames" 0 "$frames"
        i=$((i + 1))
    done < <(jq '.syscall_events[]
                 | (.kernel_stack // []) + (.user_stack // []) | length' \
                "$KD_JSON")
    # The warnings a text run prints after the events.
    check_eq "$tag: no warning" "0 0 {} {}" \
             "$(jq -r '.warnings | [.lost_stacks, .events_dropped,
                   (.map_full, .recursion_misses | tojson)]
                   | map(tostring) | join(" ")' "$KD_JSON")"
}

scenario_events_full_rate() {
    events_accounting events_full_rate 300
}

# A one-page ring buffer cannot keep up: drops happen and are counted.
scenario_events_drops() {
    events_accounting events_drops 300 --buffer-page-count 1
    check_range "events_drops: events were dropped" 1 100000000 "$DROPPED"
}
