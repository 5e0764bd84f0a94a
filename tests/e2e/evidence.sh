# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# shellcheck disable=SC2016  # jq programs and the commands' own $s.
# The evidence of long poll intervals: --trace-dir's traces and
# --on-long-poll's command.  Each trace written is decoded by jq, a reader
# of its own (the JSON Trace Event Format), and held against the JSON
# long_poll record of the same interval in the same run: its slices of
# each thread state add up to the interval's parts, the hog's name is on
# the run-queue waits, one flow arrow goes from the waker's thread to the
# sleeper per wake-up, and what happened before the interval is there.
# The workload's jobs are those of tests/e2e/longpoll.sh, whose helpers
# these scenarios use (lp_start, lp_end, lp_record, lr).  Sourced by
# tests/e2e.sh.
#
#   evidence_wait  evidence_wakeup  evidence_stop  evidence_action_env
#   evidence_action_hang  evidence_action_fail  evidence_caps

# The poll loop's track of a thread: its TID plus this (KD_TRACE_LOOP_TID
# in src/trace.h).
EV_LOOP_TID=1073741824

# What ev_summary makes of one trace: the jq program, with $s and $e the
# interval's bounds (ns), $p and $t its PID and TID.  Times are the
# format's microseconds, to the nanosecond, turned back into ns.  The
# thread's state slices ("state"), sorted, clipped to the interval and
# added up per state; those that overlap (none should); its wake-ups (a
# runnable slice that begins where an asleep or stopped one ends); the
# flow arrows ("s" on the waker's track, "f" on the sleeper's), each
# bound to a wake-up or not; who ran instead ("ran_instead"), each within
# a runnable slice of the thread or not; the samples, each within a
# running slice or not; the poll loop's syscalls; the tracks' names.
EV_JQ='def ns: . * 1000 | round;
def span: {s: (.ts | ns), e: ((.ts | ns) + (.dur | ns))};
def clip: ([([.e, $e] | min) - ([.s, $s] | max), 0] | max);
.traceEvents as $ev
| ([$ev[] | select(.ph == "X" and .cat == "state" and .pid == $p
                   and .tid == $t)
    | span + {st: .args.state, cpu: .args.cpu, name,
              stack: (.args.stack // [])}] | sort_by(.s)) as $st
| [range(1; $st | length)
   | select(($st[. - 1].st == "asleep" or $st[. - 1].st == "stopped")
            and $st[.].st == "runnable" and $st[.].s == $st[. - 1].e)
   | {ts: $st[.].s, from: $st[. - 1].st}] as $wk
| [$ev[] | select(.ph == "s" and .cat == "wakeup")] as $fs
| [$ev[] | select(.ph == "f" and .cat == "wakeup") | . as $f
   | {id, pid, tid, ts: ((.ts | ns) - 1),
      from: [$fs[] | select(.id == $f.id) | {pid, tid}]}] as $fl
| [$ev[] | select(.ph == "X" and .cat == "ran_instead" and .pid == $p
                 and .tid == $t)
   | span + {tid: .args.tid, pid: .args.pid, name: .args.name,
             cpu: .args.cpu}] as $ran
| [$ev[] | select(.ph == "i" and .cat == "sample" and .pid == $p
                  and .tid == $t) | .ts | ns] as $smp
| {
    intervals: [$ev[] | select(.ph == "X" and .cat == "long_poll")
                | .args],
    other: .otherData,
    sums: (reduce $st[] as $x ({running: 0, runnable: 0, asleep: 0,
                                stopped: 0}; .[$x.st] += ($x | clip))),
    covered: ([$st[] | clip] | add // 0),
    first_state: ($st[0].s // null),
    overlaps: ([range(1; $st | length)
                | select($st[.].s < $st[. - 1].e)] | length),
    states_in: [$st[] | select(clip > 0) | . + {in: clip}],
    wakeups: ($wk | length),
    wakeups_in: ([$wk[] | select(.ts >= $s and .ts <= $e) | .from]
                 | group_by(.) | map({key: .[0], value: length})
                 | from_entries),
    asleep_at_end: ([$st[] | select(.st == "asleep" and .s < $e
                                     and .e >= $e)] | length),
    flows: ($fl | length),
    flow_starts: ($fs | length),
    flows_in: [$fl[] | select(.ts >= $s and .ts <= $e)
               | {ts, pid: .from[0].pid, tid: .from[0].tid}],
    flows_bad: [$fl[] | . as $f
                | select((.from | length) != 1 or .pid != $p
                         or .tid != $t
                         or ([$wk[] | select(.ts == $f.ts)] | length) != 1)
                | .id],
    ran: [$ran[] | select(clip > 0)],
    ran_outside: [$ran[] | . as $r
                  | select([$st[] | select(.st == "runnable"
                                           and .s <= $r.s
                                           and $r.e <= .e)]
                           | length == 0)] | length,
    samples_in: ([$smp[] | select(. >= $s and . <= $e)] | length),
    samples_off: ([$smp[] | . as $x
                   | select([$st[] | select(.st == "running" and .s <= $x
                                            and $x <= .e)]
                            | length == 0)] | length),
    loop_sys: [$ev[] | select(.ph == "X" and .cat == "syscall"
                              and .pid == $p and .tid == $t + '"$EV_LOOP_TID"')
               | span + {name}],
    names: [$ev[] | select(.ph == "M" and .name == "thread_name")
            | {pid, tid, name: .args.name}],
    wakers: [$ev[] | select(.ph == "X" and .cat == "wakeup")
             | {pid, tid, name, ts: (.ts | ns)}]
  }'

# The interval's parts as both the trace's interval slice and the JSON
# record have them (jq, on either).
EV_PARTS='[.gap_ns, .start_ns, .end_ns, .on_cpu_ns, .run_queue_ns,
  .stopped_ns, .hardirq_ns, .softirq_ns, .blocked_in_syscalls_ns,
  .blocked_outside_syscalls_ns, .unaccounted_ns, .dominant, .waits,
  .preemptions, .sleeps,
  ([.syscalls[] | [.name, .count, .total_ns, .blocked_ns]] | tojson),
  ([.ran_instead[] | [.tid, .pid, .name, .ns]] | tojson),
  .ran_instead_others_ns] | map(tostring) | join(" ")'

# ev_summary FILE: what EV_JQ makes of trace FILE, into EV_SUM, and its
# interval's record of the run (KD_OUT: the long_poll or
# long_poll_progress record of the same thread, start and end) into
# LP_REC.  Returns 1 if FILE is not a trace of one interval.
ev_summary() {
    local file=$1 head

    EV_SUM=
    LP_REC=
    head=$(jq -r '[.traceEvents[] | select(.ph == "X"
                                           and .cat == "long_poll")]
                  | if length == 1 then .[0] | "\(.pid)
                    \(.tid - '"$EV_LOOP_TID"') \(.args.start_ns)
                    \(.args.end_ns)" else empty end' "$file" 2>/dev/null \
           | xargs)
    read -r EV_PID EV_TID EV_START EV_END <<<"$head"
    is_uint "$EV_END" || return 1
    EV_SUM=$(jq -c --argjson s "$EV_START" --argjson e "$EV_END" \
                --argjson p "$EV_PID" --argjson t "$EV_TID" "$EV_JQ" \
                "$file" 2>/dev/null)
    LP_REC=$(jq -c --argjson t "$EV_TID" --argjson s "$EV_START" \
                --argjson e "$EV_END" \
                'select((.type == "long_poll"
                         or .type == "long_poll_progress")
                        and .tid == $t and .start_ns == $s
                        and .end_ns == $e)' "$KD_OUT" | tail -n 1)
    [[ -n $EV_SUM ]]
}

# es [JQ_ARG...] FILTER: FILTER (jq) of EV_SUM, with JQ_ARGs (--arg,
# --argjson).
es() {
    local filter=${!#}

    jq -r "${@:1:$#-1}" "$filter | values" <<<"${EV_SUM:-null}"
}

# ev_files DIR: the traces in DIR, one a line, oldest name first.
ev_files() {
    find "$1" -maxdepth 1 -name 'kernel_delay-*.json' -type f | sort
}

# ev_file_of DIR START: the trace in DIR of the interval that began at
# START (ns), into EV_FILE.
ev_file_of() {
    local f

    EV_FILE=
    for f in $(ev_files "$1"); do
        if [[ $(jq -r '.otherData.start_ns' "$f" 2>/dev/null) == "$2" ]]
        then
            EV_FILE=$f
            return 0
        fi
    done
    return 1
}

# ev_reports TID: how many intervals of thread TID the run (KD_OUT)
# reported, ended or in progress, and how many distinct ones:
# "REPORTS INTERVALS".
ev_reports() {
    jq -rs --argjson t "$1" '
        map(select((.type == "long_poll" or .type == "long_poll_progress")
                   and .tid == $t))
        | "\(length) \(map(.start_ns) | unique | length)"' "$KD_OUT"
}

# ev_dir_line: the run's closing line about --trace-dir (stderr):
# "WRITTEN AGAIN REMOVED FAILED", or nothing.
ev_dir_line() {
    sed -n 's/^kernel_delay: trace-dir: \([0-9]*\) traces written to .*, \([0-9]*\) written again, \([0-9]*\) removed for the caps, \([0-9]*\) not written.*$/\1 \2 \3 \4/p' \
        "$KD_ERR" | tail -n 1
}

# ev_check_traces TAG DIR NODE TID: every trace in DIR, decoded by jq, is
# one interval of thread TID that the run (KD_OUT) reported, as the run
# reported it; one trace per interval, rewritten for each report of it
# (in progress, then ended), as the run's closing line counts them; in
# each, with T the interval's |unaccounted_ns| (0 unless the kernel
# skipped the tool's programs, which it says): the state slices tile the
# thread's time (no overlap) from before the interval's start (the
# history) to its end, and within the interval add up to its parts,
# within T each: running to on CPU and the IRQs (which it holds),
# runnable to the run queue, asleep to blocked (in and outside
# syscalls), stopped to stopped; the poll() whose return opens the
# interval is on the loop's track, ending at its start; each flow arrow
# goes from one waker to one wake-up of the thread, one per wake-up, as
# many within the interval as the sleeps it counts (which count as they
# begin: but one going on at the end of an interval in progress); who
# ran instead lies within the thread's waits, and each sample within its
# runs.
ev_check_traces() {
    local tag=$1 dir=$2 node=$3 tid=$4 f n=0 files reports intervals
    local tol want got bad_parse='' bad_rec='' bad_parts='' bad_name=''
    local bad_hist='' bad_tile='' bad_state='' bad_poll='' bad_flow=''
    local bad_sleeps='' bad_ran='' bad_smp='' failed0=$TEST_FAILED

    files=$(ev_files "$dir")
    if [[ -n ${E2E_KEEP_TRACES:-} ]]; then
        mkdir -p "$E2E_KEEP_TRACES/$tag"
        cp "$dir"/* "$KD_OUT" "$KD_ERR" "$E2E_KEEP_TRACES/$tag/" 2>/dev/null
    fi
    read -r reports intervals <<<"$(ev_reports "$tid")"
    check_eq "$tag: one trace per interval reported" "$intervals" \
             "$(grep -c . <<<"$files")"
    check_eq "$tag: traces written, written again (one per report)" \
             "$intervals $((reports - intervals)) 0 0" "$(ev_dir_line)"
    for f in $files; do
        n=$((n + 1))
        if ! ev_summary "$f"; then
            bad_parse+=" ${f##*/}"
            continue
        fi
        if [[ -z $LP_REC ]]; then
            bad_rec+=" ${f##*/}"
            continue
        fi
        [[ ${f##*/} == "kernel_delay-$node-$EV_PID-$EV_TID-"*Z.json ]] \
            || bad_name+=" ${f##*/}"
        want=$(lr "$EV_PARTS")
        got=$(es ".intervals[0] | $EV_PARTS")
        [[ $want == "$got" && $(lr .pid) == "$EV_PID" ]] \
            || bad_parts+=" ${f##*/}: [$got] vs [$want];"
        [[ $(es '"\(.other.history_covers_interval)
                  \(.first_state != null
                     and .first_state < .other.start_ns)
                  \(.other.pid) \(.other.tid) \(.other.thread)"' \
             | xargs) == "true true $EV_PID $EV_TID $(lr .name)" ]] \
            || bad_hist+=" ${f##*/}"
        [[ $(es '"\(.overlaps) \(.covered)"') == "0 $(lr .gap_ns)" ]] \
            || bad_tile+=" ${f##*/}: $(es '"\(.overlaps) overlaps,
                  \(.covered) of"' | xargs) $(lr .gap_ns) ns;"
        tol=$(lr '.unaccounted_ns | fabs')
        want=$(lr '"\(.on_cpu_ns + .hardirq_ns + .softirq_ns)
                    \(.run_queue_ns)
                    \(.blocked_in_syscalls_ns
                      + .blocked_outside_syscalls_ns) \(.stopped_ns)"' \
               | xargs)
        got=$(es '.sums | "\(.running) \(.runnable) \(.asleep)
                           \(.stopped)"' | xargs)
        ev_within "$want" "$got" "$tol" \
            || bad_state+=" ${f##*/}: running runnable asleep stopped\
 $got vs parts $want (tolerance $tol);"
        [[ $(es --argjson s "$EV_START" '[.loop_sys[]
                 | select(.name == "'"$POLL_SYSCALL"'" and .e == $s)]
                 | length' 2>/dev/null) == 1 ]] \
            || bad_poll+=" ${f##*/}"
        [[ $(es '"\(.flows) \(.flow_starts) \(.flows_bad | length)"') \
           == "$(es .wakeups) $(es .wakeups) 0" ]] \
            || bad_flow+=" ${f##*/}: $(es '"\(.flows) arrows,
                  \(.flow_starts) starts, \(.wakeups) wake-ups, bad:
                  \(.flows_bad)"' | xargs);"
        # A sleep counts as it begins: one still going on at the end of
        # an interval in progress has no wake-up yet.
        [[ $(es '"\((.wakeups_in.asleep // 0) + .asleep_at_end)
                  \(.flows_in | length)"' | xargs) \
           == "$(lr .sleeps) $(es '[.wakeups_in[]] | add // 0')" ]] \
            || bad_sleeps+=" ${f##*/}: $(es '.wakeups_in' | xargs)\
 wake-ups, $(es .asleep_at_end) asleep at the end,\
 $(es '.flows_in | length') arrows, $(lr .sleeps) sleeps;"
        [[ $(es .ran_outside) == 0 ]] || bad_ran+=" ${f##*/}"
        [[ $(es .samples_off) == 0 ]] || bad_smp+=" ${f##*/}"
    done
    ((n > 0)) || return
    check_eq "$tag: $n traces, each one interval, valid JSON" "" \
             "$bad_parse"
    check_eq "$tag: each the interval of a record of the run" "" \
             "$bad_rec"
    check_eq "$tag: named by node, PID, TID and start" "" "$bad_name"
    check_eq "$tag: the interval's parts as the record has them" "" \
             "$bad_parts"
    check_eq "$tag: the history reaches before the interval" "" \
             "$bad_hist"
    check_eq "$tag: the states tile the interval, no overlap" "" \
             "$bad_tile"
    check_eq "$tag: each state's slices add up to its part" "" \
             "$bad_state"
    check_eq "$tag: the poll() that opens the interval, before it" "" \
             "$bad_poll"
    check_eq "$tag: one flow arrow per wake-up, from its waker" "" \
             "$bad_flow"
    check_eq "$tag: as many wake-ups from sleep as the record's sleeps\
 (but one going on at the end)" \
             "" "$bad_sleeps"
    check_eq "$tag: who ran instead, within the thread's waits" "" \
             "$bad_ran"
    check_eq "$tag: the samples, within the thread's runs" "" "$bad_smp"
    if ((TEST_FAILED > failed0)); then
        note "$tag: the run's stderr: $(head -c 600 "$KD_ERR" \
                                         | tr '\n' ' ')"
        for f in $files; do
            ev_summary "$f" || continue
            note "$tag: ${f##*/}: $(es 'del(.states_in, .ran, .names,
                                        .wakers, .loop_sys)' \
                                     | head -c 1500)"
            es '.states_in[] | "\(.st) \(.s) \(.e) \(.in) \(.name)"' \
                | tail -n 40 | sed 's/^/#     /'
        done
    fi
}

# ev_within WANT GOT TOL: each number of GOT is that of WANT (both
# space-separated, as many) within TOL.
ev_within() {
    local -a w g
    local i d

    read -r -a w <<<"$1"
    read -r -a g <<<"$2"
    ((${#w[@]} == ${#g[@]})) || return 1
    for i in "${!w[@]}"; do
        is_uint "${g[i]}" || return 1
        d=$((g[i] - w[i]))
        ((d <= $3 && -d <= $3)) || return 1
    done
}

# ev_at_most WANT GOT TOL: each number of GOT is at most that of WANT
# (both space-separated, as many) plus TOL.
ev_at_most() {
    local -a w g
    local i

    read -r -a w <<<"$1"
    read -r -a g <<<"$2"
    ((${#w[@]} == ${#g[@]})) || return 1
    for i in "${!w[@]}"; do
        is_uint "${g[i]}" && ((g[i] <= w[i] + $3)) || return 1
    done
}

# ev_start TAG ARGS...: a --trace-dir run: its directory (DIR,
# $WORKDIR/TAG.traces, made empty) and lp_start TAG ARGS... --trace-dir
# DIR.
ev_start() {
    local tag=$1

    shift
    EV_DIR=$WORKDIR/$tag.traces
    rm -rf "$EV_DIR"
    mkdir -p "$EV_DIR"
    lp_start "$tag" "$@" --trace-dir "$EV_DIR"
}

# A run-queue wait behind a hog: the "longpoll" job's long interval (a
# 20 ms spin, a 20 ms sleep, a 300 ms wait on CPU 0 behind pmd4, which
# holds it under SCHED_FIFO), with --profile-hz, and room in the ring for
# all of it (--trace-history 4096: a spin preempted a hundred times
# makes some 400 records).  Beyond the checks of every trace: in the
# trace of that interval, pmd4 (its name, TID, PID, CPU) holds the CPU
# for at least 90% of the longest wait, and its slices add up to the
# time the record says it ran instead; the samples in the interval are
# those the record counts (but those it says lost).  Then the same with
# a ring too small (--trace-history 16): the trace says that older
# records were overwritten and that it does not reach the start, and
# what it holds is within the parts.
scenario_evidence_wait() {
    local tag=evidence_wait pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local pmd=${WL_TID[main:pmd4]} cpu=0 longest ws we wc held n

    ev_start $tag -p "$pid" --long-poll-events $((100 * MS)) --tid "$rv" \
        --json --node-name e2e-node --profile-hz 997 --trace-history 4096 \
        || return
    wl_cmd main "longpoll 20 20 300 $cpu" \
        || fail "$tag: job" "done" "$WL_REPLY_LINE"
    lp_end $tag
    lp_check_records $tag
    ev_check_traces $tag "$EV_DIR" e2e-node "$rv"

    n=$(jq -s --argjson t "$rv" \
           'map(select(.type == "long_poll" and .tid == $t)) | length' \
           "$KD_OUT")
    check_eq "$tag: one interval of revalidator2 ended" 1 "$n"
    lp_record "$rv"
    if ! ev_file_of "$EV_DIR" "$(lr .start_ns)" || ! ev_summary "$EV_FILE"
    then
        fail "$tag: the trace of the long interval" "written" "none"
        return
    fi
    longest=$(es '[.states_in[] | select(.st == "runnable")] | max_by(.in)
                  | "\(.s) \(.e) \(.cpu)"')
    read -r ws we wc <<<"$longest"
    held=$(es --argjson s "${ws:-0}" --argjson e "${we:-0}" \
              --argjson m "$pmd" --argjson p "$pid" '
        [.ran[] | select(.tid == $m and .pid == $p and .name == "pmd4"
                         and .s >= $s and .e <= $e) | .e - .s]
        | add // 0')
    check_eq "$tag: the longest wait on CPU $cpu" "$cpu" "$wc"
    if is_uint "$ws" && is_uint "$we" && ((we > ws)); then
        check_range "$tag: pmd4 (TID $pmd) on it, in per mille of it" \
                    900 1000 $((1000 * held / (we - ws)))
    else
        fail "$tag: a wait in the interval" "one" "${longest:-none}"
    fi
    check_eq "$tag: pmd4's slices on CPU $cpu only" "" \
             "$(es --argjson m "$pmd" '[.ran[] | select(.tid == $m)
                                        | .cpu] | unique
                                       | map(select(. != '"$cpu"'))
                                       | .[]' | xargs)"
    check_close "$tag: pmd4's slices vs the record's ran_instead" \
                "$(lr ".ran_instead[] | select(.tid == $pmd) | .ns")" \
                "$(es --argjson m "$pmd" '[.ran[] | select(.tid == $m)
                                           | .e - .s] | add // 0')" \
                "$SCHED_BASE_NS"
    # A sample whose stack was lost may have been lost before its record
    # was made (the unwinder's tail calls failed): the record's count
    # less those lost, at least.
    check_range "$tag: the samples in the interval, as the record counts" \
                "$(lr '.profile.samples - .profile.lost_samples')" \
                "$(lr .profile.samples)" "$(es .samples_in)"
    ev_short_history "${tag}_short" "longpoll 20 20 300 $cpu"
}

# ev_short_history TAG JOB: a ring of 16 records for the interval of
# revalidator2 that JOB makes: the trace of that interval (the only one
# that ends) says that older records were overwritten and that it does
# not reach the interval's start; its parts are still the record's, and
# its states, which do not overlap, add up to less than the interval and
# to at most each part (within the record's |unaccounted_ns|).
ev_short_history() {
    local tag=$1 pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local want got tol

    ev_start "$tag" -p "$pid" --long-poll-events $((100 * MS)) \
        --tid "$rv" --json --trace-history 16 || return
    wl_cmd main "$2" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    lp_end "$tag"
    lp_record "$rv"
    if ! ev_file_of "$EV_DIR" "$(lr .start_ns)" || ! ev_summary "$EV_FILE"
    then
        fail "$tag: the trace of the interval" "written" "none"
        return
    fi
    check_eq "$tag: 16 records, older ones overwritten, said so" \
             "16 true false 1" \
             "$(es '"\(.other.history_records) \(.other.history_lost > 0)
                    \(.other.history_covers_interval)"' | xargs)\
 $(jq '[.traceEvents[] | select(.cat == "history" and .name
        == "history begins (16 records, older ones overwritten)")]
       | length' "$EV_FILE")"
    check_eq "$tag: the interval's parts as the record has them" \
             "$(lr "$EV_PARTS")" "$(es ".intervals[0] | $EV_PARTS")"
    check_eq "$tag: the states, no overlap, less than the interval" \
             "0 true" "$(es '"\(.overlaps) \(.covered < .intervals[0].gap_ns)"')"
    tol=$(lr '.unaccounted_ns | fabs')
    want=$(lr '"\(.on_cpu_ns + .hardirq_ns + .softirq_ns) \(.run_queue_ns)
                \(.blocked_in_syscalls_ns + .blocked_outside_syscalls_ns)
                \(.stopped_ns)"' | xargs)
    got=$(es '.sums | "\(.running) \(.runnable) \(.asleep) \(.stopped)"' \
          | xargs)
    ev_at_most "$want" "$got" "$tol" \
        && pass "$tag: each state within its part ($got of $want)" \
        || fail "$tag: each state within its part" "at most $want" "$got"
}

# A sleep woken by another thread: the "handoff 100" job (revalidator2
# blocked in one read() of a pipe until handler1 writes it), with
# --off-cpu.  Beyond the checks of every trace: the interval's longest
# sleep is in read(), its stack (taken as it slept) through the
# workload's function; the flow arrow to its wake-up comes from
# handler1's track (the workload's TID for it), named handler1, where a
# slice says whom it woke.
scenario_evidence_wakeup() {
    local tag=evidence_wakeup pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local waker longest se

    ev_start $tag -p "$pid" --long-poll-events $((50 * MS)) --tid "$rv" \
        --json --node-name e2e-node --off-cpu || return
    wl_cmd main "handoff 100" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    waker=$(reply_field waker_tid)
    lp_end $tag
    lp_check_records $tag
    ev_check_traces $tag "$EV_DIR" e2e-node "$rv"

    LP_REC=$(jq -c --argjson t "$rv" \
                'select(.type == "long_poll" and .tid == $t
                        and any(.syscalls[]; .name == "read"))' "$KD_OUT" \
             | head -n 1)
    if ! is_uint "$waker" || ! ev_file_of "$EV_DIR" "$(lr .start_ns)" \
       || ! ev_summary "$EV_FILE"; then
        fail "$tag: the trace of the handoff's interval, the waker" \
             "written, a TID" "${EV_FILE:-none}, '$waker'"
        return
    fi
    longest=$(es '[.states_in[] | select(.st == "asleep")] | max_by(.in)')
    se=$(jq -r '.e' <<<"$longest")
    check_eq "$tag: the longest sleep: in read(), through the workload" \
             "asleep in read true" \
             "$(jq -r '"\(.name) \(any(.stack[];
                       startswith("kd_workload_handoff_wait+")))"' \
                   <<<"$longest")"
    check_eq "$tag: its wake-up's arrow, from handler1's track" \
             "$pid $waker" \
             "$(es --argjson w "${se:-0}" '.flows_in[] | select(.ts == $w)
                                           | "\(.pid) \(.tid)"')"
    check_eq "$tag: handler1's track, named" handler1 \
             "$(es --argjson p "$pid" --argjson w "$waker" '
                 [.names[] | select(.pid == $p and .tid == $w)
                  | .name] | first')"
    check_eq "$tag: handler1's slice, whom it woke" \
             "wakes revalidator2 (TID $rv)" \
             "$(es --argjson p "$pid" --argjson w "$waker" '
                 [.wakers[] | select(.pid == $p and .tid == $w) | .name]
                 | first')"
}

# A stop: the "longpoll-stop" job's interval (a spin, a sleep, a wait
# behind pmd4, then revalidator2 stops the process), held stopped here
# for 500 ms and ended with SIGCONT; reported in progress meanwhile
# (--trace-history 4096, as for evidence_wait).
# Beyond the checks of every trace: its trace was written at each report
# and is one file; the stop in it lasts at least as long as it was seen
# stopped here, and the arrow that ends it comes from this shell, which
# sent SIGCONT.
scenario_evidence_stop() {
    local tag=evidence_stop pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local deadline t_all t_cont shell stop se

    ev_start $tag -p "$pid" --long-poll-events $((100 * MS)) --tid "$rv" \
        --json --node-name e2e-node --trace-history 4096 || return
    wl_send main "longpoll-stop 20 20 50 0"
    deadline=$(($(now_ns) + 30000 * WAIT_SCALE * MS))
    until [[ $(thread_state "$pid" "$rv") == T ]]; do
        if (($(now_ns) > deadline)); then
            fail "$tag: revalidator2 stops itself"
            break
        fi
        nap 0.001
    done
    t_all=$(now_ns)
    nap 0.5
    t_cont=$(now_ns)
    shell=$BASHPID
    kill -CONT "$pid"
    wl_reply main 30 || fail "$tag: job" "done" "$WL_REPLY_LINE"
    lp_end $tag
    lp_check_records $tag
    ev_check_traces $tag "$EV_DIR" e2e-node "$rv"

    lp_record "$rv"
    check_range "$tag: reported in progress before its end" 1 100 \
                "$(jq -s --argjson t "$rv" --argjson s "$(lr .start_ns)" '
                     map(select(.type == "long_poll_progress"
                                and .tid == $t and .start_ns == $s))
                     | length' "$KD_OUT")"
    if ! ev_file_of "$EV_DIR" "$(lr .start_ns)" || ! ev_summary "$EV_FILE"
    then
        fail "$tag: the trace of the stopped interval" "written" "none"
        return
    fi
    check_eq "$tag: its trace is the ended interval's" false \
             "$(es .other.in_progress)"
    stop=$(es '[.states_in[] | select(.st == "stopped")] | max_by(.in)')
    se=$(jq -r '.e' <<<"$stop")
    check_range "$tag: the stop, at least as seen stopped here" \
                $((t_cont - t_all - MS)) "$(lr .stopped_ns)" \
                "$(jq -r '.in' <<<"$stop")"
    check_eq "$tag: the arrow that ends it, from the shell that sent\
 SIGCONT" "$shell $shell" \
             "$(es --argjson w "${se:-0}" '.flows_in[] | select(.ts == $w)
                                           | "\(.pid) \(.tid)"')"
}

# ev_env_check TAG FILE: the environment that --on-long-poll's command
# recorded in FILE (env, then TRACE_START: the start_ns of the trace
# that KD_TRACE_FILE named, read by the command) against the record of
# its interval (KD_OUT: that thread's, of that start, in progress as
# KD_IN_PROGRESS says; the last one of those).
ev_env_check() {
    local tag=$1 file=$2 v want got type=long_poll
    local -A env=()

    while IFS= read -r v; do
        [[ $v == KD_*=* || $v == TRACE_START=* ]] && env[${v%%=*}]=${v#*=}
    done <"$file"
    [[ ${env[KD_IN_PROGRESS]:-} == 1 ]] && type=long_poll_progress
    LP_REC=$(jq -c --arg type "$type" --argjson t "${env[KD_TID]:-0}" \
                --arg s "${env[KD_START]:-}" \
                --argjson g "${env[KD_INTERVAL_NS]:-0}" \
                'select(.type == $type and .tid == $t and .start == $s
                        and .gap_ns == $g)' "$KD_OUT" | tail -n 1)
    if [[ -z $LP_REC ]]; then
        EV_ENV_BAD+=" ${file##*/}: no record of $type,\
 ${env[KD_TID]:-} ${env[KD_START]:-} ${env[KD_INTERVAL_NS]:-};"
        return
    fi
    want=$(lr '"\(.pid) \(.tid) \(.name) \(.gap_ns)
                \(.gap_ns / 1000000 | floor) \(.start) \(.end)
                \(.dominant) \(.[.dominant + "_ns"]) \(.node)
                \(.start_ns)"' | xargs)
    got="${env[KD_PID]:-} ${env[KD_TID]:-} ${env[KD_THREAD]:-}\
 ${env[KD_INTERVAL_NS]:-} ${env[KD_INTERVAL_MS]:-} ${env[KD_START]:-}\
 ${env[KD_END]:-} ${env[KD_DOMINANT]:-} ${env[KD_DOMINANT_NS]:-}\
 ${env[KD_NODE]:-} ${env[TRACE_START]:-}"
    [[ $got == "$want" ]] \
        || EV_ENV_BAD+=" ${file##*/}: [$got] vs [$want];"
}

# --on-long-poll's command records its environment: in each file it
# wrote, the KD_* variables are the facts of a record of the run (PID,
# TID, thread, length in ns and ms, start, end, dominant part and its
# length, node), and KD_TRACE_FILE named that interval's trace, there
# when the command ran; one file per command started, as the run's
# closing line counts them, and each start and exit logged.
scenario_evidence_action_env() {
    local tag=evidence_action_env pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} envdir=$WORKDIR/evidence_env
    local f files started reports cmd

    rm -rf "$envdir"
    mkdir -p "$envdir"
    cmd='{ env; printf "TRACE_START=%s\n" "$(jq -r .otherData.start_ns "$KD_TRACE_FILE")"; } >"'$envdir'/env.$$"'
    ev_start $tag -p "$pid" --long-poll-events $((30 * MS)) --tid "$rv" \
        --json --node-name e2e-node --on-long-poll "$cmd" \
        --on-long-poll-period 0 || return
    for _ in 1 2; do
        wl_cmd main "handoff 60" || fail "$tag: job" "done" "$WL_REPLY_LINE"
        nap 0.3
    done
    lp_end $tag
    lp_check_records $tag

    files=$(find "$envdir" -name 'env.*' -type f | sort)
    started=$(sed -n 's/^kernel_delay: on-long-poll: \([0-9]*\) started, .*/\1/p' \
                  "$KD_ERR")
    read -r reports _ <<<"$(ev_reports "$rv")"
    check_range "$tag: commands started, one per report at most" 2 \
                "$reports" "$started"
    check_eq "$tag: one environment recorded per command" "$started" \
             "$(grep -c . <<<"$files")"
    check_eq "$tag: each start and exit logged, status 0" \
             "$started $started" \
             "$(grep -c '^kernel_delay: on-long-poll: pid [0-9]* started for TID '"$rv"' (revalidator2), [0-9]* ms' "$KD_ERR")\
 $(grep -c '^kernel_delay: on-long-poll: pid [0-9]* exited with status 0 after [0-9.]* s$' "$KD_ERR")"
    EV_ENV_BAD=
    for f in $files; do
        ev_env_check $tag "$f"
    done
    check_eq "$tag: KD_* as the records have them, KD_TRACE_FILE the\
 interval's trace" "" "$EV_ENV_BAD"
    # shellcheck disable=SC2086  # One file a word.
    check_eq "$tag: the ended intervals' commands ran" "true" \
             "$(grep -lq '^KD_IN_PROGRESS=0$' $files && echo true)"
}

# ev_pgrp_alive PGID: some process of process group PGID runs.
ev_pgrp_alive() {
    local stat rest

    for stat in /proc/[0-9]*/stat; do
        { read -r rest <"$stat"; } 2>/dev/null || continue
        rest=${rest##*) }
        read -r _ _ rest _ <<<"$rest"
        [[ $rest == "$1" ]] && return 0
    done
    return 1
}

# ev_pgrp_gone PGID: no process of process group PGID runs.
ev_pgrp_gone() {
    ! ev_pgrp_alive "$1"
}

# ev_count FILE REGEX: the lines of FILE that match REGEX (grep -E).
ev_count() {
    grep -cE "$2" "$1" 2>/dev/null
}

# ev_lines_at_least FILE N: FILE has N lines or more.
ev_lines_at_least() {
    (($(grep -c . "$1" 2>/dev/null) >= $2))
}

# A command that hangs (each run until this scenario lets it go): it
# holds only its standard input, output and error; the watch goes on
# reporting intervals meanwhile, each one said not run as one runs;
# once it ends (status 0, logged), the next interval runs it again,
# never two at once (each run's begin and end, in order, in one file);
# the one that hangs at the end of the run is ended with it (SIGTERM to
# its process group, logged as killed by signal 15: a failure), and
# nothing of it is left.  The counts at the end add up to the reports.
scenario_evidence_action_hang() {
    local tag=evidence_action_hang pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} d=$WORKDIR/evidence_hang
    local runs cmd p1 p2 n reports busy

    rm -rf "$d"
    mkdir -p "$d"
    runs=$d/runs
    cmd='echo "begin $$" >>"'$runs'"; while [ ! -e "'$d'/release.$$" ]; do sleep 0.02; done; echo "end $$" >>"'$runs'"'
    lp_start $tag -p "$pid" --long-poll-events $((30 * MS)) --tid "$rv" \
        --json --on-long-poll "$cmd" --on-long-poll-period 0 || return
    wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 30 0.02 grep -q '^begin' "$runs" \
        || fail "$tag: the command starts"
    p1=$(sed -n '1s/^begin //p' "$runs")
    for _ in 1 2; do
        wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    done
    poll_until "$KD_PID" 30 0.02 has_record "$KD_OUT" \
               '.type == "long_poll" and .tid == $t and .index >= 3' \
               --argjson t "$rv"
    n=$(jq -s --argjson t "$rv" 'map(select(.type == "long_poll"
                                            and .tid == $t)) | length' \
           "$KD_OUT")
    check_range "$tag: the watch goes on: intervals reported while it\
 hangs" 3 100 "$n"
    check_eq "$tag: still one run, still running" "begin $p1 0" \
             "$(cat "$runs") $(running "$p1"; echo $?)"
    check_range "$tag: the reports meanwhile, not run as one runs" \
                2 100 "$(ev_count "$KD_ERR" "^kernel_delay: on-long-poll:\
 not run for TID $rv \(revalidator2\), [0-9]+ ms.*: pid $p1, started\
 [0-9.]+ s ago, still runs$")"
    check_eq "$tag: the command holds no descriptor of the tool's" \
             "0 1 2" "$(cd "/proc/$p1/fd" 2>/dev/null && echo *)"
    touch "$d/release.$p1"
    poll_until "$KD_PID" 30 0.02 grep -q "^kernel_delay: on-long-poll:\
 pid $p1 exited with status 0 after" "$KD_ERR" \
        && pass "$tag: its end, reaped and logged" \
        || fail "$tag: its end, logged" "exited with status 0" \
                "$(tail -c 300 "$KD_ERR")"
    wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 30 0.02 ev_lines_at_least "$runs" 3 \
        || fail "$tag: the next interval runs it again"
    p2=$(sed -n '3s/^begin //p' "$runs")
    lp_end $tag
    check_eq "$tag: one run at a time, in order" \
             "begin $p1|end $p1|begin $p2" "$(paste -sd '|' "$runs")"
    check_eq "$tag: the one that hangs at the end, ended with the run" \
             "1 1" \
             "$(ev_count "$KD_ERR" "^kernel_delay: on-long-poll: pid $p2\
 still runs at the end: ended$")\
 $(ev_count "$KD_ERR" "^kernel_delay: on-long-poll: pid $p2 killed by\
 signal 15 \(.*\) after [0-9.]+ s$")"
    poll_until "" 3 0.05 ev_pgrp_gone "$p2" \
        && pass "$tag: nothing left of its process group" \
        || fail "$tag: nothing left of its process group ($p2)"
    read -r reports _ <<<"$(ev_reports "$rv")"
    busy=$(ev_count "$KD_ERR" "^kernel_delay: on-long-poll: not run for\
 .*, still runs$")
    check_eq "$tag: the counts at the end (reports: $reports)" \
             "2 started, 1 failed, $((reports - 2)) not run as one ran, 0\
 not run within the period" \
             "$(sed -n 's/^kernel_delay: on-long-poll: \([0-9]* started, .*\)$/\1/p' \
                    "$KD_ERR")"
    check_eq "$tag: each report not run said so" "$((reports - 2))" \
             "$busy"
}

# A command that fails: its output on our stderr, its exit status
# logged; the watch goes on; the next interval within the period (60 s)
# does not run it, and says so.
scenario_evidence_action_fail() {
    local tag=evidence_action_fail pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} reports

    lp_start $tag -p "$pid" --long-poll-events $((30 * MS)) --tid "$rv" \
        --json --on-long-poll 'echo "kd-e2e: failing for $KD_TID" >&2;
                               exit 3' --on-long-poll-period 60s || return
    wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 30 0.02 grep -q \
               '^kernel_delay: on-long-poll: pid [0-9]* exited' "$KD_ERR"
    wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 30 0.02 has_record "$KD_OUT" \
               '.type == "long_poll" and .tid == $t and .index >= 2' \
               --argjson t "$rv" \
        || fail "$tag: the watch goes on: a second interval reported"
    lp_end $tag
    check_eq "$tag: its output, on our stderr" 1 \
             "$(ev_count "$KD_ERR" "^kd-e2e: failing for $rv$")"
    check_eq "$tag: its exit status, logged" 1 \
             "$(ev_count "$KD_ERR" "^kernel_delay: on-long-poll: pid [0-9]+\
 exited with status 3 after [0-9.]+ s$")"
    read -r reports _ <<<"$(ev_reports "$rv")"
    check_eq "$tag: the later reports, not run within the period" \
             "$((reports - 1))" \
             "$(ev_count "$KD_ERR" "^kernel_delay: on-long-poll: not run\
 for TID [0-9]+ .*: the last run started [0-9.]+ s ago, less than the\
 period, 60\\.000 s$")"
    check_eq "$tag: the counts at the end (reports: $reports)" \
             "1 started, 1 failed, 0 not run as one ran, $((reports - 1))\
 not run within the period" \
             "$(sed -n 's/^kernel_delay: on-long-poll: \([0-9]* started, .*\)$/\1/p' \
                    "$KD_ERR")"
}

# The caps: --trace-max-files 2 over 4 intervals (and those between) in
# a directory that already holds an older trace and a file of someone
# else's: the 2 newest traces are left, the others removed and counted,
# the other file untouched; --trace-max-mib 1 in a directory with an old
# trace of 1 MiB: that one removed first to make room, the newer ones
# kept; a full disk (a tmpfs of one page): the traces not written and
# counted, the watch goes on and ends well; a directory that does not
# exist: the run refused at once (exit status 73), with the reason (its
# name escaped: an escape sequence in it never reaches a terminal).
scenario_evidence_caps() {
    local tag=evidence_caps pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local old keep line w r n want got full=$WORKDIR/evidence_full

    EV_DIR=$WORKDIR/$tag.traces
    rm -rf "$EV_DIR"
    mkdir -p "$EV_DIR"
    old=$EV_DIR/kernel_delay-old-1-1-20200101T000000.000000Z.json
    keep=$EV_DIR/kernel_delay-notes.txt
    echo '{}' >"$old"
    echo notes >"$keep"
    touch -d 2020-01-01 "$old" "$keep"
    lp_start $tag -p "$pid" --long-poll-events $((30 * MS)) --tid "$rv" \
        --json --trace-dir "$EV_DIR" --trace-max-files 2 || return
    for _ in 1 2 3 4; do
        wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    done
    poll_until "$KD_PID" 30 0.02 has_record "$KD_OUT" \
               '.type == "long_poll" and .tid == $t and .index >= 4' \
               --argjson t "$rv"
    lp_end $tag
    line=$(ev_dir_line)
    read -r w _ r n <<<"$line"
    check_range "$tag: --trace-max-files 2: traces written" 4 100 "$w"
    check_eq "$tag: 2 left, the others removed and counted" \
             "2 $((w - 1)) 0" "$(ev_files "$EV_DIR" | grep -c .) $r $n"
    want=$(jq -rs --argjson t "$rv" '
        map(select((.type == "long_poll" or .type == "long_poll_progress")
                   and .tid == $t) | .start_ns)
        | unique | .[-2:] | join(" ")' "$KD_OUT")
    got=$(for f in $(ev_files "$EV_DIR"); do
              jq -r .otherData.start_ns "$f"
          done | sort -n | xargs)
    check_eq "$tag: the 2 left, the newest intervals'" "$want" "$got"
    check_eq "$tag: someone else's file, untouched" "notes" "$(cat "$keep")"

    head -c $((1024 * 1024)) /dev/zero >"$old"
    touch -d 2020-01-01 "$old"
    lp_start ${tag}_mib -p "$pid" --long-poll-events $((30 * MS)) \
        --tid "$rv" --json --trace-dir "$EV_DIR" --trace-max-mib 1 || return
    wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 30 0.02 has_record "$KD_OUT" \
               '.type == "long_poll" and .tid == $t' --argjson t "$rv"
    lp_end ${tag}_mib
    read -r w _ r n <<<"$(ev_dir_line)"
    check_eq "$tag: --trace-max-mib 1: the old 1 MiB trace removed\
 first, alone" "1 0 false" "$r $n $([[ -e $old ]] && echo true || echo false)"
    check_eq "$tag: the newer traces kept" "$((2 + w))" \
             "$(ev_files "$EV_DIR" | grep -c .)"

    mkdir -p "$full"
    if ! mount -t tmpfs -o size=4k kd-e2e-full "$full"; then
        fail "$tag: a tmpfs of one page for the full disk"
        return
    fi
    EV_MOUNT=$full
    # Full before the run: someone else's file takes the one page.
    head -c 4096 /dev/zero >"$full/filler" 2>/dev/null
    lp_start ${tag}_full -p "$pid" --long-poll-events $((30 * MS)) \
        --tid "$rv" --json --trace-dir "$full" || { ev_cleanup; return; }
    for _ in 1 2; do
        wl_cmd main "stuck 50" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    done
    poll_until "$KD_PID" 30 0.02 has_record "$KD_OUT" \
               '.type == "long_poll" and .tid == $t and .index >= 2' \
               --argjson t "$rv" \
        || fail "$tag: a full disk: the watch goes on"
    lp_end ${tag}_full
    read -r w _ r n <<<"$(ev_dir_line)"
    check_range "$tag: a full disk: none written, each counted" 2 100 \
                "$( ((w == 0)) && echo "$n")"
    check_eq "$tag: a full disk: the reason, and nothing left in it" \
             "1 0" "$(ev_count "$KD_ERR" "not written, the last: No space\
 left on device$") $(find "$full" -mindepth 1 ! -name filler | grep -c .)"
    ev_cleanup

    kd_start ${tag}_missing -p "$pid" --long-poll-events --trace-dir \
        "$WORKDIR/no-such"$'\033'"dir"
    wait_exit "$KD_PID" 30
    check_eq "$tag: a directory that does not exist: exit status 73" 73 \
             "$WAIT_RC"
    check_eq "$tag: ... and why, on stdout, its name escaped" "1 0" \
             "$(ev_count "$KD_OUT" "^ERROR: Cannot write traces in\
 .*/no-such\\\\x1bdir \(--trace-dir\): No such file or directory$")\
 $(cat "$KD_OUT" "$KD_ERR" | grep -c $'\033')"
}

# Unmounts the full disk of scenario_evidence_caps (also on any exit:
# see cleanup in lib.sh).
EV_MOUNT=
ev_cleanup() {
    [[ -n $EV_MOUNT ]] || return 0
    umount "$EV_MOUNT" 2>/dev/null || umount -l "$EV_MOUNT" 2>/dev/null
    EV_MOUNT=
}
