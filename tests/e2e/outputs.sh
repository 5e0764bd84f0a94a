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

# JSON times under TZ=America/New_York: RFC 3339 in UTC with "Z", between
# the clock read by the test before the run and after it, in order.
scenario_json_times() {
    local tag=json_times pid=${WL_PID[main]} before after start stop t
    local re='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z$'
    local -x TZ=America/New_York

    before=$(now_ns)
    kd_json_begin $tag 0.5 -p "$pid" || return
    kd_finish $tag 30
    after=$(now_ns)
    start=$(jq -r '.window.start' "$KD_OUT")
    stop=$(jq -r '.window.stop' "$KD_OUT")
    for t in "$start" "$stop"; do
        [[ $t =~ $re ]] && pass "$tag: '$t' is RFC 3339 UTC" \
            || fail "$tag: RFC 3339 UTC time" "YYYY-MM-DDTHH:MM:SS.UUUUUUZ" \
                    "$t"
    done
    start=$(date -d "$start" +%s%N)
    stop=$(date -d "$stop" +%s%N)
    ((before / 1000 * 1000 <= start && start <= stop && stop <= after)) \
        && pass "$tag: before <= start <= stop <= after" \
        || fail "$tag: times in order with the test's clock" \
                "$before <= $start <= $stop <= $after"
}

# -s events on the wall clock: handler1's 2 slow sleeps (job "events 10 2
# 0"), in JSON ("entry", "exit": always) and in text with --wall-clock
# (ENTRY and EXIT columns in UTC), between the clock read by the test
# before the run and after it, each as long as its monotonic times say (to
# the microsecond, both being truncated).  Without --wall-clock, the text
# keeps the reference's ENTRY (ns) columns.
scenario_wall_clock() {
    local tag=wall_clock pid=${WL_PID[main]} tid=${WL_TID[main:handler1]}
    local before after n bad

    before=$(now_ns)
    kd_attached_job ${tag}_json "events 10 2 0" -p "$pid" --json \
        -s 2000000 --sample-time 2 || return
    after=$(now_ns)
    n=$(jq "[.syscall_events[] | select(.tid == $tid)] | length" "$KD_OUT")
    check_eq "$tag --json: handler1's 2 slow syscalls" 2 "$n"
    bad=$(jq -r '.syscall_events[]
                 | "\(.entry) \(.exit) \(.entry_ns) \(.exit_ns)"' "$KD_OUT" \
          | wall_clock_bad "$before" "$after" 1000)
    check_eq "$tag --json: entry and exit in the run, as long as _ns" "" \
             "$bad"

    before=$(now_ns)
    kd_begin ${tag}_text 2 -p "$pid" -s 2000000 --wall-clock || return
    wl_cmd main "events 10 2 0" || fail "$tag: job"
    kd_finish ${tag}_text 30
    after=$(now_ns)
    check_eq "$tag --wall-clock: the header" 1 \
             "$(grep -cE '^ +ENTRY \(UTC\) +EXIT \(UTC\) +TID COMM +DELTA \(us\)  SYSCALL$' \
                    "$KD_OUT")"
    n=$(awk -v t="$tid" '$3 == t && /Z +[0-9]+ / { n++ } END { print n + 0 }' \
            "$KD_OUT")
    check_eq "$tag --wall-clock: handler1's 2 slow syscalls" 2 "$n"
    # DELTA (us) is (exit - entry) / 1000 of the monotonic times,
    # truncated: the wall times, truncated to the microsecond, differ from
    # it by less than 2 us.
    bad=$(tr -d , <"$KD_OUT" \
          | awk '$1 ~ /Z$/ && $2 ~ /Z$/ { print $1, $2, 0, $(NF - 1) * 1000 }' \
          | wall_clock_bad "$before" "$after" 1999)
    check_eq "$tag --wall-clock: entry and exit in the run, as long as DELTA" \
             "" "$bad"
}

# wall_clock_bad BEFORE_NS AFTER_NS SLACK_NS: reads "ENTRY EXIT ENTRY_NS
# EXIT_NS" lines (wall-clock RFC 3339 times, monotonic ns) and prints those
# whose times are not in [BEFORE_NS, AFTER_NS] in order, or whose length
# is not EXIT_NS - ENTRY_NS within SLACK_NS.
wall_clock_bad() {
    local entry exit entry_ns exit_ns a b

    while read -r entry exit entry_ns exit_ns; do
        a=$(date -d "$entry" +%s%N) && b=$(date -d "$exit" +%s%N) \
            || { echo "unparsed: $entry $exit"; continue; }
        if ((a < $1 / 1000 * 1000 || a > b || b > $2)) \
           || (((b - a) - (exit_ns - entry_ns) > $3 \
                || (exit_ns - entry_ns) - (b - a) > $3)); then
            echo "$entry $exit $entry_ns $exit_ns"
        fi
    done
}

# status_run TAG PROGRAMS ARGS...: runs the tool with a terminal (script)
# as its standard error (and output), into $WORKDIR/TAG.tty, until the
# status line shows (PROGRAMS empty) or it holds PROGRAMS eBPF programs,
# then sends it SIGINT; STATUS_RC is its exit status, STATUS_WAITED_S the
# seconds from its start to the signal.
status_run() {
    local tag=$1 progs=$2 file=$WORKDIR/$1.tty pidfile=$WORKDIR/$1.pid
    local sp t0 kpid

    shift 2
    # shellcheck disable=SC2034  # Read by check_bpf_released (lib.sh).
    KD_BPF_BEFORE=$(bpf_prog_ids | xargs)
    # shellcheck disable=SC2034
    KD_PROG_IDS=
    t0=$(now_ns)
    script -qec "echo \$\$ >'$pidfile'; exec $(printf '%q ' "$KD" "$@")" \
        /dev/null >"$file" 2>&1 </dev/null &
    sp=$!
    track_pid "$sp"
    if [[ -z $progs ]]; then
        poll_until "$sp" 60 0.1 grep -qa 'Ctrl-C to stop' "$file" \
            || fail "$tag: a status line shows"
    else
        poll_until "$sp" 30 0.02 test -s "$pidfile" \
            && KD_PID=$(cat "$pidfile") && kd_wait_attached "$progs" \
            || fail "$tag: kernel_delay attaches"
    fi
    kpid=$(cat "$pidfile" 2>/dev/null)
    [[ -n $kpid ]] && kill -INT "$kpid"
    STATUS_WAITED_S=$(awk -v a="$t0" -v b="$(now_ns)" \
                          'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    wait_exit "$sp" 20
    STATUS_RC=$WAIT_RC
}

# The status line on a terminal (through script): waiting for a start
# trigger that never fires, the target's thread count as /proc says,
# erased (spaces between carriage returns) before the note that no start
# trigger fired in at most the time the test waited; no escape byte.  In
# a pipe, none of it but the note; with -q, no status line either.  A
# watch of long poll intervals has its own, with the intervals so far.
scenario_status_line() {
    local tag=status_line pid=${WL_PID[main]} file n got
    local trig=u:kd_workload:job_start

    status_run $tag "" -p "$pid" --start-trigger $trig
    file=$WORKDIR/$tag.tty
    check_eq "$tag: exit status after SIGINT" 0 "$STATUS_RC"
    check_bpf_released $tag
    n=$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l)
    check_eq "$tag: the status line, with the target's $n threads" 1 \
             "$(grep -caE "Waiting [0-9]+ s, $n threads, Ctrl-C to stop;\
 start trigger: $trig" "$file")"
    grep -qaP "\\r +\\rkernel_delay: no start trigger fired in [0-9.]+ s\
 \\($trig\\)\\r?\$" "$file" \
        && pass "$tag: erased before the note" \
        || fail "$tag: erased before the note" "CR spaces CR note" \
                "$(tr '\r' '|' <"$file" | tail -c 300)"
    got=$(grep -aoE 'no start trigger fired in [0-9.]+ s' "$file" \
          | grep -oE '[0-9.]+')
    awk -v g="$got" -v w="$STATUS_WAITED_S" 'BEGIN { exit !(g != "" && g <= w) }' \
        && pass "$tag: waited $got s, at most the test's $STATUS_WAITED_S s" \
        || fail "$tag: the note's time" "<= $STATUS_WAITED_S" "$got"
    check_eq "$tag: no escape byte" 0 "$(tr -dc '\033' <"$file" | wc -c)"

    # In a pipe: no status line, the note still.
    kd_start ${tag}_pipe -p "$pid" --start-trigger $trig
    kd_wait_capture 2 30 || fail "$tag in a pipe: armed"
    kill -INT "$KD_PID"
    wait_exit "$KD_PID" 10
    check_eq "$tag in a pipe: exit status" 0 "$WAIT_RC"
    check_eq "$tag in a pipe: nothing on stdout" 0 "$(wc -c <"$KD_OUT")"
    check_eq "$tag in a pipe: the note on stderr" 1 \
             "$(grep -cE "^kernel_delay: no start trigger fired in [0-9.]+ s\
 \\($trig\\)\$" "$KD_ERR")"
    check_eq "$tag in a pipe: no status line (CRs/Ctrl-C)" 0/0 \
             "$(tr -dc '\r' <"$KD_ERR" | wc -c)/$(grep -c Ctrl-C "$KD_ERR")"
    check_bpf_released ${tag}_pipe

    status_run ${tag}_q 11 -q -p "$pid" --start-trigger $trig
    check_eq "$tag -q: exit status" 0 "$STATUS_RC"
    check_eq "$tag -q: no status line" 0 \
             "$(grep -caE 'Waiting|Ctrl-C' "$WORKDIR/${tag}_q.tty")"

    # Watching: a status line that counts what was reported.
    status_run ${tag}_watch "" -p "$pid" --long-poll-events 1000000000000
    file=$WORKDIR/${tag}_watch.tty
    check_eq "$tag watching: exit status" 0 "$STATUS_RC"
    check_eq "$tag watching: the status line" 1 \
             "$(grep -caE "Watching $n threads, [0-9]+ s, Ctrl-C to stop;\
 no long poll yet" "$file")"
    check_eq "$tag watching: erased before '# Stop watching'" 1 \
             "$(grep -caP 'no long poll yet\r +\r# Stop watching @' "$file")"
    check_eq "$tag watching: '# 0 long poll intervals reported.'" 1 \
             "$(grep -caP '^# 0 long poll intervals reported\.\r?$' "$file")"
    check_bpf_released ${tag}_watch
}
