# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# --long-poll-events: each long poll interval explained as it ends,
# against ground truth.  The workload's "longpoll" job makes one interval
# of known parts (a spin, one sleep, a wait behind pmd4, which holds its CPU
# under SCHED_FIFO meanwhile so that nothing else can take it, and with
# longpoll-stop a stop the scenario ends with SIGCONT) between short
# ones, and reports its own schedstat around it (long_poll in JSON,
# long_poll_wait in text); a real ovs-vswitchd is stopped for a known time
# (long_poll_ovs).  Sourced by tests/e2e.sh.

# lp_start TAG ARGS...: starts kernel_delay with ARGS and waits until it
# captures; if it does not, fails and returns 1.
lp_start() {
    local tag=$1

    shift
    SCHED_TRACE=
    kd_start "$tag" "$@"
    if ! kd_wait_capture 1 30; then
        wait_exit "$KD_PID" 5
        fail "$tag: kernel_delay starts capturing (exit $WAIT_RC:" \
             "$(head -c 300 "$KD_ERR" | tr '\n' ' '))"
        return 1
    fi
}

# lp_wait_watching: waits until a text run prints "# Start watching".
lp_wait_watching() {
    local deadline=$(($(now_ns) + 30000 * WAIT_SCALE * MS))

    until grep -q '^# Start watching' "$KD_OUT" 2>/dev/null; do
        if ! running "$KD_PID" || (($(now_ns) > deadline)); then
            return 1
        fi
        nap 0.02
    done
    KD_PROG_IDS=$(pid_prog_ids "$KD_PID")
}

# lp_end TAG: SIGINT to a --long-poll-events run (which runs until then),
# exit status 0, nothing left attached.
lp_end() {
    kd_interrupt "$1" 30
}

# lp_check_records TAG: the JSON run is valid JSON Lines of long_poll
# records, ended by one long_poll_end record that counts them; in each
# record, the parts add up to the interval, and who ran instead adds up to
# the run-queue time, the thread itself not among them.
lp_check_records() {
    local tag=$1 n bad

    n=$(jq -s 'map(select(.type == "long_poll")) | length' "$KD_OUT" \
            2>/dev/null)
    check_eq "$tag: JSON Lines, ended by long_poll_end counting them" \
             "long_poll_end $n" \
             "$(jq -rs 'last | "\(.type) \(.reported)"' "$KD_OUT" 2>/dev/null)"
    bad=$(jq -r 'select(.type == "long_poll")
        | select((.on_cpu_ns + .run_queue_ns + .stopped_ns + .hardirq_ns
                  + .softirq_ns + .blocked_in_syscalls_ns
                  + .blocked_outside_syscalls_ns + .unaccounted_ns)
                 != .gap_ns
                 or ([.ran_instead[].ns] | add // 0)
                    + .ran_instead_others_ns != .run_queue_ns
                 or .gap_ns != .end_ns - .start_ns
                 or (.tid as $t | any(.ran_instead[]; .tid == $t)))
        | .tid' "$KD_OUT" | xargs)
    check_eq "$tag: parts add up to each interval, ran_instead to its wait" \
             "" "$bad"
    if [[ -n $bad ]]; then
        # What did not add up, for the record.
        jq -c --arg bad " $bad " 'select(.type == "long_poll"
                                        and (.tid as $t | $bad
                                             | contains(" \($t) ")))
            | {tid, gap_ns, start_ns, end_ns, run_queue_ns, waits,
               preemptions, ran_instead, ran_instead_others_ns,
               warnings}' "$KD_OUT" | sed 's/^/#   /'
    fi
}

# sched_trace_print FAILED_BEFORE: when checks failed since TEST_FAILED was
# FAILED_BEFORE, the scheduler's events recorded (sched_trace_begin).
sched_trace_print() {
    if ((TEST_FAILED > $1)) && [[ -s $SCHED_TRACE ]]; then
        echo "#   the scheduler's events (ftrace) meanwhile:"
        sed 's/^/#   /' "$SCHED_TRACE" | tail -n 400
    fi
}

# lp_record TID: the (first) long_poll record of thread TID, into LP_REC.
lp_record() {
    LP_REC=$(jq -c --argjson t "$1" \
                'select(.type == "long_poll" and .tid == $t)' "$KD_OUT" \
                | head -n 1)
}

# lr FIELD: FIELD of LP_REC (a jq path).
lr() {
    jq -r "$1 | values" <<<"${LP_REC:-null}"
}

# lp_truth: the workload's truth of the last longpoll job, from its reply,
# into LP_GAP, LP_RUN, LP_WAIT, LP_SLICES, LP_STOP, LP_SLEEP, LP_EDGES,
# LP_SHORT and LP_SHORT_OUTER (the longest 1 ms interval, timed inside
# and outside), LP_PRE (the interval that holds its first schedstat read),
# LP_SLEEP_WAIT and LP_SLEEP_RUN (schedstat's run-queue wait and run
# time around the sleep) and LP_SLEEP_PREEMPTED (its preemptions there).
# Returns 1 if the reply has none.
lp_truth() {
    LP_GAP=$(reply_field gap_ns)
    LP_RUN=$(reply_field run_ns)
    LP_WAIT=$(reply_field wait_ns)
    LP_SLICES=$(reply_field slices)
    LP_STOP=$(reply_field stop_ns)
    LP_SLEEP=$(reply_field sleep_ns)
    LP_EDGES=$(reply_field edges_ns)
    LP_SHORT=$(reply_field short_max_ns)
    LP_PRE=$(reply_field pre_ns)
    LP_SLEEP_WAIT=$(reply_field sleep_wait_ns)
    LP_SLEEP_RUN=$(reply_field sleep_run_ns)
    LP_SLEEP_PREEMPTED=$(reply_field sleep_preempted)
    LP_SHORT_OUTER=$(reply_field short_outer_max_ns)
    is_uint "$LP_GAP" && is_uint "$LP_RUN" && is_uint "$LP_PRE" &&
        is_uint "$LP_SLEEP_WAIT" && is_uint "$LP_SLEEP_RUN" &&
        is_uint "$LP_SLEEP_PREEMPTED" &&
        is_uint "$LP_SHORT_OUTER"
}

# One interval of known parts, stopped by the scenario: each part against
# its truth (the workload's CPU-time clock and schedstat around the
# interval, its clocks, the stop as seen from here), the exact syscalls,
# pmd4 first among who ran instead.  With threshold 0 and --tid, every
# interval of revalidator2 is reported: the 1 ms ones, the one that holds
# the truth's first read, and the long one, told by its tgkill().
scenario_long_poll() {
    local tag=long_poll pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local pmd=${WL_TID[main:pmd4]} spin=50 sleep=100 contend=150 cpu=0
    local deadline t_all t_cont steal p0 p1 r0 r1 stop_lo hold tol irq v
    local truth_dom run0 run1 wait0 wait1 failed0=$TEST_FAILED

    lp_start $tag -p "$pid" --long-poll-events 0 --tid "$rv" --json \
        || return
    steal=$(steal_ticks)
    p0=$(schedstat "$pid" "$pmd")
    r0=$(schedstat "$pid" "$rv")
    # Who ran instead has once added up to more than the wait, after a
    # switch not seen: revalidator2's and pmd4's switches, for the record.
    sched_trace_begin "$rv" "$pmd"
    wl_send main "longpoll-stop $spin $sleep $contend $cpu"
    # revalidator2 stops itself at the end of its interval.  Stopped, its
    # schedstat is exact: hold it stopped longer than everything before
    # in the job (and than the sleep, not in schedstat), so that the stop
    # is the interval's largest part by at least 300 ms.
    deadline=$(($(now_ns) + 30000 * WAIT_SCALE * MS))
    until [[ $(thread_state "$pid" "$rv") == T ]]; do
        if (($(now_ns) > deadline)); then
            fail "$tag: revalidator2 stops itself"
            kill -CONT "$pid"
            break
        fi
        nap 0.001
    done
    t_all=$(now_ns)
    r1=$(schedstat "$pid" "$rv")
    read -r run0 wait0 _ <<<"$r0"
    read -r run1 wait1 _ <<<"$r1"
    hold=$((run1 - run0 + wait1 - wait0 + sleep * MS + 300 * MS))
    ((hold < 600 * MS)) && hold=$((600 * MS))
    nap "$(awk -v n="$hold" 'BEGIN { printf "%.3f", n / 1e9 }')"
    t_cont=$(now_ns)
    kill -CONT "$pid"
    wl_reply main 30 || fail "$tag: job" "done" "$WL_REPLY_LINE"
    p1=$(schedstat "$pid" "$pmd")
    steal=$(($(steal_ticks) - steal))
    lp_end $tag
    sched_trace_end

    if ! lp_truth; then
        fail "$tag: the workload's truth" "gap_ns=... run_ns=..." \
             "$WL_REPLY_LINE"
        return
    fi
    # The truth itself must hold: run and wait within the interval.
    if ((LP_RUN + LP_WAIT > LP_GAP + MS)); then
        note "$tag: schedstat grew by $((LP_RUN + LP_WAIT)) ns in a" \
             "$LP_GAP ns interval: the ground truth is broken"
        BAD_TRUTH=1
    fi

    lp_check_records $tag
    # Threshold 0: every interval that began after the tool attached: the
    # 5 of 1 ms, the one of the first read, the long one.
    check_eq "$tag: every interval reported (threshold 0, --tid)" \
             "7 $rv" "$(jq -rs 'map(select(.type == "long_poll")) |
                 "\(length) \(map(.tid) | unique | join(" "))"' "$KD_OUT")"
    # The 1 ms intervals: the longest at least the workload's timing of
    # its spin, and at most its timing from outside (before the poll()
    # that opens it to after the one that closes it returned), which
    # holds the syscall paths and whatever delayed them (under emulation,
    # a virtual CPU can stand still for milliseconds).
    check_eq "$tag: five 1 ms intervals, the longest in [$LP_SHORT,\
 $LP_SHORT_OUTER] ns" "5 ok" \
             "$(jq -rs --argjson w "$LP_SHORT" \
                   --argjson o "$LP_SHORT_OUTER" '
                 [.[] | select(.type == "long_poll"
                               and (.syscalls | length) == 0)] as $r
                 | ($r | map(.gap_ns) | max // 0) as $m
                 | "\($r | length) " + (
                   if $m < $w then "too short: \($m)"
                   elif $m > $o then "too long: \($m)"
                   else "ok" end)' "$KD_OUT")"
    LP_REC=$(jq -c 'select(.type == "long_poll"
                           and any(.syscalls[]; .name == "tgkill"))' \
                 "$KD_OUT" | head -n 1)
    check_eq "$tag: the long interval (with tgkill): name and pid" \
             "revalidator2 $pid" "$(lr '"\(.name) \(.pid)"')"
    # Switches the kernel made without the tracepoint are timed from its
    # own counts: the parts below must hold all the same.
    if (($(lr .warnings.switches_missed) > 0)); then
        note "$tag: $(lr .warnings.switches_missed) switches not seen"
    fi

    # From a poll() return to the next call: the workload's own timing of
    # the interval, plus the syscall return and entry paths.
    # The edge windows hold what delayed the workload's clock reads at the
    # interval's bounds (its return from poll() included).
    tol=$(sched_tolerance "$LP_GAP" 0)
    check_range "$tag: gap_ns (the workload's interval + syscall paths)" \
                "$LP_GAP" $((LP_GAP + LP_EDGES + tol)) "$(lr .gap_ns)"
    # The truth is read just outside the interval: what ran or waited
    # between those reads and the interval's bounds (edges_ns) is in the
    # truth only.  IRQ time is in schedstat's run time or not, as the
    # kernel has IRQ time accounting or not.
    irq=$(lr '.hardirq_ns + .softirq_ns')
    # Steal, left out of schedstat's run time, only adds to on_cpu_ns.
    tol=$(sched_tolerance "$LP_RUN" "$LP_SLICES")
    check_range "$tag: on CPU + IRQs vs its CPU time ($LP_RUN, edges \
$LP_EDGES)" $((LP_RUN - LP_EDGES - tol)) \
                $((LP_RUN + irq + tol + $(steal_bound_ns "$steal"))) \
                "$(lr '.on_cpu_ns + .hardirq_ns + .softirq_ns')"
    tol=$(sched_tolerance "$LP_WAIT" "$LP_SLICES")
    check_range "$tag: run queue vs schedstat wait ($LP_WAIT, edges \
$LP_EDGES)" $((LP_WAIT - LP_EDGES - tol)) \
                $((LP_WAIT + tol)) "$(lr .run_queue_ns)"
    # Stopped from tgkill() to SIGCONT: at least while seen stopped here,
    # at most the workload's time around its tgkill().
    stop_lo=$((t_cont - t_all - MS))
    check_range "$tag: stopped_ns (seen stopped .. around tgkill)" \
                "$stop_lo" "$LP_STOP" "$(lr .stopped_ns)"
    # Asleep in clock_nanosleep: at most the workload's time around it;
    # at least the sleep asked for, but what it ran and waited for a CPU
    # after its timer started and before it slept: up to schedstat's run
    # and wait around the sleep (a 6.1-rt guest beside stress-ng once
    # slept 3.4 ms less than asked, with 0.2 ms of wait there), unless it
    # was preempted there.
    # Preempted after it armed its timer and before it slept, its state
    # is no longer running, and schedstat leaves out the wait that
    # follows (the lane saw 10 ms of it on 6.1-rt): then the truth is
    # incomplete, and the run is made again.
    if ((LP_SLEEP_PREEMPTED > 0)); then
        note "$tag: revalidator2's preemptions around its sleep:" \
             "$LP_SLEEP_PREEMPTED; schedstat may miss a wait there"
        BAD_TRUTH=1
    fi
    check_range "$tag: clock_nanosleep blocked_ns (run $LP_SLEEP_RUN, wait \
$LP_SLEEP_WAIT around it)" \
                $((sleep * MS - MS - LP_SLEEP_RUN - LP_SLEEP_WAIT)) \
                "$LP_SLEEP" \
                "$(lr '.syscalls[] | select(.name == "clock_nanosleep")
                       | .blocked_ns')"
    check_eq "$tag: blocked_in_syscalls_ns = the syscalls' blocked_ns" \
             "$(lr '([.syscalls[].blocked_ns] | add)
                    + .other_syscalls.blocked_ns')" \
             "$(lr .blocked_in_syscalls_ns)"
    # Outside syscalls, the job only blocks as it stops and resumes: on
    # PREEMPT_RT, the signal lock that every thread of the process takes
    # then is a sleeping lock (the lane saw 3.7 ms on 6.1-rt).  All of it
    # is within the workload's time around tgkill(), with the stop.
    v=$(lr .stopped_ns)
    check_range "$tag: blocked_outside_syscalls_ns (around the stop: \
$LP_STOP - stopped $v)" 0 $((LP_STOP - v + MS)) \
                "$(lr .blocked_outside_syscalls_ns)"
    check_range "$tag: |unaccounted_ns|" 0 "$SCHED_BASE_NS" \
                "$(lr '.unaccounted_ns | fabs')"
    check_eq "$tag: its syscalls, exactly" \
             "clock_nanosleep:1 getpid:1 gettid:1 pread64:4\
 sched_setaffinity:1 tgkill:1 others:0" \
             "$(lr '.other_syscalls.count as $o
                    | ([.syscalls[] | "\(.name):\(.count)"] | sort)
                      + ["others:\($o)"] | join(" ")')"
    # pmd4 held its CPU while it waited, and no longer than it ran.
    check_eq "$tag: pmd4 first under ran_instead" "$pmd pmd4 $pid" \
             "$(lr '.ran_instead[0] | "\(.tid) \(.name) \(.pid)"')"
    # With check_sched's tolerance for a RUN total (a charge is measured
    # by the same clock reads, with the same error a switch).
    tol=$(run_tolerance "$p0" "$p1" "$steal")
    read -r p0 _ <<<"$p0"
    read -r p1 _ <<<"$p1"
    check_range "$tag: pmd4's share <= its run time (schedstat)" 1 \
                $((p1 - p0 + tol)) \
                "$(lr ".ran_instead[] | select(.tid == $pmd) | .ns")"

    # The dominant part: the largest of the truth, by design (the stop
    # was held 300 ms longer than all the rest); the truth must say so.
    truth_dom=stopped
    for v in "$LP_RUN" "$LP_WAIT" "$LP_SLEEP"; do
        ((v >= stop_lo)) && truth_dom="(broken: $v >= the stop $stop_lo)"
    done
    check_eq "$tag: dominant part" "$truth_dom" "$(lr .dominant)"
    sched_trace_print "$failed0"
}

# The same job without the stop, in text, ended by --sample-count 1: the
# run queue dominates, behind pmd4, and the text says so; the intervals
# under the threshold (100 ms) are not reported, the long one is, so the
# first one reported is the long one.
scenario_long_poll_wait() {
    local tag=long_poll_wait pid=${WL_PID[main]} thr=$((100 * MS))
    local rv=${WL_TID[main:revalidator2]} pmd=${WL_TID[main:pmd4]}
    local line sum gapv v tol

    kd_start $tag -p "$pid" --long-poll-events "$thr" --sample-count 1 \
        --thread '^reval'
    if ! lp_wait_watching; then
        wait_exit "$KD_PID" 5
        fail "$tag: kernel_delay starts watching (exit $WAIT_RC)"
        return
    fi
    wl_cmd main "longpoll 20 20 300 0" || fail "$tag: job" "done" \
                                               "$WL_REPLY_LINE"
    # One interval asked for: it exits by itself.
    wait_exit "$KD_PID" 30
    check_eq "$tag: exit status (--sample-count 1)" 0 "$WAIT_RC"
    check_bpf_released $tag
    if ! lp_truth; then
        fail "$tag: the workload's truth" "gap_ns=..." "$WL_REPLY_LINE"
        return
    fi
    # The job's short intervals must be short: under the threshold by
    # more than the syscall paths the tool adds.  A machine too slow for
    # that (emulation) breaks the design, not the tool: run it again.
    tol=$(sched_tolerance "$LP_GAP" 0)
    if ((LP_SHORT + tol >= thr || LP_PRE + tol >= thr)); then
        note "$tag: a short interval was not short ($LP_SHORT, $LP_PRE ns)"
        BAD_TRUTH=1
    fi
    check_range "$tag: the long interval is over the threshold" \
                $((thr + 1)) "$LP_GAP" "$LP_GAP"

    check_eq "$tag: one interval, the first over the threshold" 1 \
             "$(grep -c '^# Long poll interval of ' "$KD_OUT")"
    check_eq "$tag: revalidator2's" 1 \
             "$(grep -cE "^ +$rv revalidator2 +\[LONG POLL INTERVAL\]$" \
                "$KD_OUT")"
    check_eq "$tag: the count at the end" 1 \
             "$(grep -c '^# 1 long poll interval reported\.$' "$KD_OUT")"
    # Before it ended, the interval was reported in progress (at 100 and
    # 200 ms, unless the job was quicker), each time in a block of its own.
    line="^ +$rv revalidator2 +\\[LONG POLL INTERVAL, IN PROGRESS\\]$"
    check_eq "$tag: the blocks in progress are revalidator2's" \
             "$(grep -c '^# Long poll interval IN PROGRESS: ' "$KD_OUT")" \
             "$(grep -cE "$line" "$KD_OUT")"
    # The rest reads the ended interval's block: from its header on.
    awk '/^# Long poll interval of / { f = 1 } f' "$KD_OUT" >"$KD_OUT.end"
    # The parts add up to GAP ns, which is the long interval's.
    gapv=$(awk '/^ +START ns +END ns +GAP ns$/ { getline; gsub(",", "");
                print $3; exit }' "$KD_OUT.end")
    check_range "$tag: GAP ns (the workload's interval + syscall paths)" \
                "$LP_GAP" $((LP_GAP + tol)) "$gapv"
    sum=0
    while read -r v; do
        sum=$((sum + v))
    done < <(awk '/\[WHERE THE TIME WENT\]/ { f = 1; getline; next }
                  f && /RUN-QUEUE WAITS/ { exit }
                  f { v = $(NF - 1); gsub(",", "", v); print v }' \
                  "$KD_OUT.end")
    check_eq "$tag: the parts add up to GAP ns" "$gapv" "$sum"
    line=$(awk '/waiting in the run queue/ && !/Dominant/ { v = $(NF - 1);
                gsub(",", "", v); print v; exit }' "$KD_OUT.end")
    tol=$(sched_tolerance "$LP_WAIT" "$LP_SLICES")
    check_range "$tag: run queue vs schedstat wait ($LP_WAIT, edges \
$LP_EDGES)" $((LP_WAIT - LP_EDGES - tol)) \
                $((LP_WAIT + tol)) "$line"
    line=$(awk '/\[RAN INSTEAD\]/ { getline; getline; print; exit }' \
               "$KD_OUT.end")
    check_eq "$tag: pmd4 first under RAN INSTEAD" "$pmd $pid pmd4" \
             "$(awk '{ print $1, $2, $3 }' <<<"$line")"
    line="^# Dominant: waiting in the run queue, [0-9,]+ ns \([0-9.]+%\),"
    line+=" mostly behind pmd4 \(TID $pmd of PID $pid\)\.$"
    grep -qE "$line" "$KD_OUT.end" \
        && pass "$tag: dominant: the run queue, behind pmd4" \
        || fail "$tag: dominant line" "waiting in the run queue ... pmd4" \
                "$(grep '^# Dominant' "$KD_OUT.end")"
}

# A private ovs-vswitchd (netdev datapath, no kernel module) in
# $WORKDIR/ovs: its own database, sockets and logs, and a bridge named so
# that it cannot meet a host's.  The daemons are jobs of this shell (no
# --detach), which reaps them: no zombie ovs-vswitchd is left for the
# scenarios that look for one.  OVS_E2E_PID is ovs-vswitchd's PID.
OVS_E2E_DIR=
OVS_E2E_PID=
OVS_E2E_DB_PID=

ovs_e2e_ctl() {
    ovs-vsctl --db="unix:$OVS_E2E_DIR/db.sock" --timeout=30 "$@"
}

ovs_e2e_start() {
    local d=$WORKDIR/ovs deadline=$(($(now_ns) + 30000 * WAIT_SCALE * MS))
    local ofport

    OVS_E2E_DIR=$d
    # A fresh database: an earlier scenario's is there.
    rm -rf "$d"
    mkdir -p "$d"
    export OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d OVS_SYSCONFDIR=$d
    if ! ovsdb-tool create "$d/conf.db" \
             /usr/share/openvswitch/vswitch.ovsschema >/dev/null; then
        fail "ovsdb-tool create"
        return 1
    fi
    ovsdb-server --remote="punix:$d/db.sock" -vconsole:off \
        --log-file="$d/ovsdb-server.log" "$d/conf.db" >/dev/null 2>&1 &
    OVS_E2E_DB_PID=$!
    until [[ -S $d/db.sock ]]; do
        if (($(now_ns) > deadline)); then
            fail "ovsdb-server starts ($(tail -c 300 "$d/ovsdb-server.log"))"
            return 1
        fi
        nap 0.05
    done
    ovs_e2e_ctl --no-wait init
    ovs_e2e_vswitchd
    # add-br waits until ovs-vswitchd has tried to make the bridge; the
    # netdev datapath's own port is a tap device (hence the tun module),
    # and the bridge is there once that port is.
    modprobe tun 2>/dev/null
    ovs_e2e_ctl add-br kdlp0 -- set bridge kdlp0 datapath_type=netdev
    ofport=$(ovs_e2e_ctl get interface kdlp0 ofport 2>/dev/null)
    if ! is_uint "$ofport" || ((ofport <= 0)); then
        fail "ovs-vswitchd makes bridge kdlp0 (ofport '$ofport':" \
             "$(grep -m 2 'ERR' "$d/ovs-vswitchd.log" | tr '\n' ' '))"
        return 1
    fi
    note "ovs-vswitchd $OVS_E2E_PID ($(ovs-vswitchd --version | head -n 1))"
}

# Starts the private ovs-vswitchd (again): OVS_E2E_PID.
ovs_e2e_vswitchd() {
    ovs-vswitchd "unix:$OVS_E2E_DIR/db.sock" -vconsole:off \
        --log-file="$OVS_E2E_DIR/ovs-vswitchd.log" >/dev/null 2>&1 &
    OVS_E2E_PID=$!
}

# Stops the private OVS (also on any exit: see cleanup in lib.sh), and
# reaps it.
ovs_e2e_stop() {
    local pid

    [[ -n $OVS_E2E_DIR ]] || return 0
    for pid in $OVS_E2E_PID $OVS_E2E_DB_PID; do
        kill -CONT "$pid" 2>/dev/null
        kill -TERM "$pid" 2>/dev/null
    done
    for pid in $OVS_E2E_PID $OVS_E2E_DB_PID; do
        wait "$pid" 2>/dev/null
    done
    OVS_E2E_DIR=
    OVS_E2E_PID=
    OVS_E2E_DB_PID=
    unset OVS_RUNDIR OVS_LOGDIR OVS_DBDIR OVS_SYSCONFDIR
}

# lp_ovs_hold TAG PID SECONDS: stops process PID (SIGSTOP) until all its
# threads are seen stopped, holds it SECONDS, resumes it (SIGCONT), and
# waits until the main thread's interval is reported: LP_T_STOP (SIGSTOP
# sent), LP_T_ALL (all seen stopped), LP_T_CONT and LP_T_CONTED (around
# SIGCONT).
lp_ovs_hold() {
    local tag=$1 pid=$2 tid all deadline

    LP_T_STOP=$(now_ns)
    kill -STOP "$pid"
    deadline=$(($(now_ns) + 5000 * WAIT_SCALE * MS))
    while :; do
        all=1
        for tid in $(ls "/proc/$pid/task"); do
            [[ $(thread_state "$pid" "$tid") == T ]] || all=0
        done
        ((all || $(now_ns) > deadline)) && break
        nap 0.001
    done
    LP_T_ALL=$(now_ns)
    ((all)) || fail "$tag: every thread of ovs-vswitchd stopped"
    nap "$3"
    LP_T_CONT=$(now_ns)
    kill -CONT "$pid"
    LP_T_CONTED=$(now_ns)
    # The main thread's interval ends at its next poll(): within its
    # longest poll() timeout.
    poll_until "" 10 0.05 has_record "$KD_OUT" \
               '.type == "long_poll" and .tid == $t' --argjson t "$pid"
}

# Real OVS: ovs-vswitchd stopped for 2 s (SIGSTOP, SIGCONT).  Its main
# thread's interval holds the stop, as seen from here, and the stop
# dominates it: the main thread never sleeps in poll() for more than a
# fraction of that (its longest poll() here: 0.5 s).
scenario_long_poll_ovs() {
    local tag=long_poll_ovs pid t_stop t_all t_cont t_conted bad

    ovs_e2e_start || return
    pid=$OVS_E2E_PID
    if ! lp_start $tag -p "$pid" --long-poll-events $((300 * MS)) --json
    then
        ovs_e2e_stop
        return
    fi
    nap 0.5
    lp_ovs_hold "$tag" "$pid" 2
    t_stop=$LP_T_STOP t_all=$LP_T_ALL t_cont=$LP_T_CONT
    t_conted=$LP_T_CONTED
    lp_end $tag
    ovs_e2e_stop

    lp_check_records $tag
    lp_record "$pid"
    check_eq "$tag: the main thread's interval reported" \
             "$pid ovs-vswitchd" "$(lr '"\(.tid) \(.name)"')"
    # Each thread stopped after SIGSTOP was sent and before all were seen
    # stopped, and was woken while SIGCONT was sent (1 ms for the switch
    # that follows a state change).
    check_range "$tag: main thread stopped_ns" $((t_cont - t_all - MS)) \
                $((t_conted - t_stop)) "$(lr .stopped_ns)"
    check_eq "$tag: main thread dominant part" stopped "$(lr .dominant)"
    bad=$(jq -r --argjson lo $((t_cont - t_all - MS)) \
             --argjson hi $((t_conted - t_stop)) \
             'select(.type == "long_poll" and .stopped_ns > 0
                     and (.stopped_ns < $lo or .stopped_ns > $hi))
              | "\(.name):\(.stopped_ns)"' "$KD_OUT" | xargs)
    check_eq "$tag: every thread's stop within the truth" "" "$bad"
}

# lp_target_is EVENT PID: the run wrote the target record EVENT for PID
# ("null": none).  lp_wait_target EVENT PID: waits until it does, 60 s
# at most.
lp_target_is() {
    has_record "$KD_OUT" '.type == "target" and .event == $e and .pid == $p' \
               --arg e "$1" --argjson p "$2"
}
lp_wait_target() {
    poll_until "$KD_PID" 60 0.05 lp_target_is "$1" "$2" \
        && pass "$TAG_WT: target record $1 (pid $2)" \
        || fail "$TAG_WT: target record $1 (pid $2)" "written" \
                "$(tail -c 300 "$KD_ERR" | tr '\n' ' ')"
}

# lp_check_hold PID: the long poll record of PID's main thread holds the
# stop that lp_ovs_hold made (see scenario_long_poll_ovs).
lp_check_hold() {
    lp_record "$1"
    check_eq "$TAG_WT: pid $1: the main thread's interval reported" \
             "$1 $1 ovs-vswitchd e2e-node" \
             "$(lr '"\(.pid) \(.tid) \(.name) \(.node)"')"
    check_range "$TAG_WT: pid $1: main thread stopped_ns" \
                $((LP_T_CONT - LP_T_ALL - MS)) \
                $((LP_T_CONTED - LP_T_STOP)) "$(lr .stopped_ns)"
    check_eq "$TAG_WT: pid $1: dominant part" stopped "$(lr .dominant)"
}

# --wait-target: the watch starts before ovs-vswitchd (a DaemonSet before
# OVS), attaches when it starts, and re-attaches when it restarts (an
# upgrade): a "target" record for each, then a real interval (a stop of
# known length) of each process; --node-name in every record.
scenario_long_poll_wait_target() {
    local pid1 pid2 real
    TAG_WT=long_poll_wait_target

    real=$(pgrep -x ovs-vswitchd | xargs)
    if [[ -n $real ]]; then
        skip "$TAG_WT: an ovs-vswitchd runs ($real): cannot start one late"
        return
    fi
    kd_start $TAG_WT --long-poll-events $((300 * MS)) --json \
        --wait-target --node-name e2e-node
    lp_wait_target waiting null
    ovs_e2e_start || { lp_end $TAG_WT; return; }
    pid1=$OVS_E2E_PID
    lp_wait_target attached "$pid1"
    if ! kd_wait_capture 1 60; then
        fail "$TAG_WT: capturing after the late start"
    fi
    nap 0.5
    lp_ovs_hold $TAG_WT "$pid1" 1
    lp_check_hold "$pid1"

    # The upgrade: ovs-vswitchd exits, another one starts.
    kill -TERM "$pid1"
    wait "$pid1" 2>/dev/null
    lp_wait_target lost "$pid1"
    ovs_e2e_vswitchd
    pid2=$OVS_E2E_PID
    lp_wait_target attached "$pid2"
    if ! kd_wait_capture 1 60; then
        fail "$TAG_WT: capturing after the restart"
    fi
    nap 0.5
    lp_ovs_hold $TAG_WT "$pid2" 1
    lp_check_hold "$pid2"
    check_eq "$TAG_WT: still running after the restart" 0 \
             "$(running "$KD_PID"; echo $?)"
    lp_end $TAG_WT
    ovs_e2e_stop

    check_eq "$TAG_WT: the target records, in order" \
             "waiting:null attached:$pid1 lost:$pid1 attached:$pid2" \
             "$(jq -rs 'map(select(.type == "target")
                            | "\(.event):\(.pid)") | join(" ")' "$KD_OUT")"
    check_eq "$TAG_WT: the first watch ends with its target" \
             "$pid1:true $pid2:false" \
             "$(jq -rs 'map(select(.type == "long_poll_end")
                            | "\(.pid):\(.target_exited)") | join(" ")' \
                   "$KD_OUT")"
    check_eq "$TAG_WT: \"node\" in every record" "" \
             "$(jq -r 'select(.node != "e2e-node") | .type' "$KD_OUT" \
                | xargs)"
    check_eq "$TAG_WT: nothing on standard error" "" "$(cat "$KD_ERR")"
}

# The time on CPU of one interval split as OVS's log line splits it
# (on_cpu_user_ns and on_cpu_kernel_ns), against the workload's own
# CPU-time clock around each of its two parts (a spin in user space, then
# read()s of /dev/zero) and its getrusage(RUSAGE_THREAD) around the
# interval.  The thread runs the interval under SCHED_FIFO, so that no
# ordinary task preempts it, whatever else runs.
scenario_long_poll_usersys() {
    local tag=long_poll_usersys pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} user=150 kernel=100 steal
    local u k ru rs pre cpu tu tk irq edges out n tol tick=$((10 * MS))
    local failed=$TEST_FAILED

    lp_start $tag -p "$pid" --long-poll-events 50 --tid "$rv" --json \
        || return
    steal=$(steal_ticks)
    wl_cmd main "usersys $user $kernel" \
        || fail "$tag: job" "done" "$WL_REPLY_LINE"
    steal=$(($(steal_ticks) - steal))
    lp_end $tag
    lp_check_records $tag

    u=$(reply_field user_ns) k=$(reply_field kernel_ns)
    ru=$(reply_field ru_user_ns) rs=$(reply_field ru_sys_ns)
    pre=$(reply_field preempted) cpu=$(reply_field cpu_ns)
    if ! is_uint "$u" || ! is_uint "$k" || ! is_uint "$ru" \
       || ! is_uint "$rs" || ! is_uint "$pre" || ! is_uint "$cpu"; then
        fail "$tag: the workload's truth" "user_ns=... kernel_ns=..." \
             "$WL_REPLY_LINE"
        return
    fi
    check_eq "$tag: one interval of revalidator2 reported" 1 \
             "$(jq -s --argjson t "$rv" \
                   'map(select(.type == "long_poll" and .tid == $t))
                    | length' "$KD_OUT")"
    lp_record "$rv"
    tu=$(lr .on_cpu_user_ns)
    tk=$(lr .on_cpu_kernel_ns)
    check_eq "$tag: on_cpu_user_ns + on_cpu_kernel_ns = on_cpu_ns" \
             "$(lr .on_cpu_ns)" "$((tu + tk))"
    # The CPU-time clock holds the interrupts, which the tool's parts leave
    # out, and not the steal, which they hold.  Over the whole interval,
    # from the first poll()'s return to the second's call, it is the
    # tool's time on CPU, which also holds the two edges from and to the
    # poll() calls: a virtual CPU can stand still for milliseconds anywhere
    # under emulation (SCHED_SLICE_NS, the suite's allowance for that: 5 us
    # on a host, 2 ms in the kernel lane's guests).  The clock is read
    # inside clock_gettime() calls that the tool times whole: at most the
    # time of the interval's edges (two getrusage() and five
    # clock_gettime(), all in the kernel, and the code between them) more
    # (a 6.1 guest beside stress-ng once took 5.4 ms in the five
    # clock_gettime(), and the tool 5.2 ms more than the clock).
    edges=$(lr '[.syscalls[] | select(.name == "getrusage"
                                     or .name == "clock_gettime")
                 | .total_ns] | add // 0')
    irq=$(($(lr .hardirq_ns) + $(lr .softirq_ns)))
    check_close "$tag: on_cpu_ns vs the interval's CPU time" "$cpu" \
                "$(($(lr .on_cpu_ns) + irq))" \
                $((MS + edges + 2 * SCHED_SLICE_NS
                   + $(steal_bound_ns "$steal")))
    # The edges are timed by the tool itself, as the syscalls of the
    # interval, and by the workload's clock (its CPU time outside the two
    # parts), plus 1 ms.  The workload's clock and the tool split the time
    # at different points of each syscall's way in and out of the kernel
    # (the tool at its tracepoints), where a virtual CPU can stand still:
    # SCHED_SLICE_NS a syscall more.
    n=$(lr '[.syscalls[].count] | add // 0')
    out=$((cpu > u + k ? cpu - u - k : 0))
    tol=$((MS + irq + edges + out + (n + 2) * SCHED_SLICE_NS
           + $(steal_bound_ns "$steal")))
    check_close "$tag: on_cpu_user_ns vs the spin's CPU time" "$u" "$tu" \
                "$tol"
    check_close "$tag: on_cpu_kernel_ns vs the read()s' CPU time" "$k" \
                "$tk" "$tol"
    # getrusage() splits its exact total by where the ticks found the
    # thread: unpreempted, each of the two parts is off by a tick at most
    # at each of its ends (a tick is 10 ms at most: HZ >= 100).
    if ((pre == 0)); then
        check_close "$tag: on_cpu_user_ns vs getrusage()'s user time" \
                    "$ru" "$tu" $((2 * tick + tol))
        check_close "$tag: on_cpu_kernel_ns vs getrusage()'s system time" \
                    "$rs" "$tk" $((2 * tick + tol))
    else
        note "$tag: revalidator2 was preempted $pre times under SCHED_FIFO:" \
             "getrusage()'s split not compared"
    fi
    if ((TEST_FAILED > failed)); then
        note "$tag: the workload: $WL_REPLY_LINE"
        note "$tag: record: $(jq -c 'del(.stacks)' <<<"$LP_REC")"
    fi
}

# The on-CPU profile (--profile-hz) of one interval whose time on CPU is
# known in user space and in the kernel (the workload's "usersys" job):
# the samples of the stacks through usersys_user() and usersys_kernel()
# split as the two parts' CPU time does, within the sampling error
# (5 sigma of a binomial of the run's own sample count) and the samples
# left unattributed; the read()s' samples are in the kernel; the counts
# add up; the estimated times add up to the time on CPU.
#
# The kernel keeps a stack in the slot its hash gives: a stack whose slot
# another one holds finds no room, however empty the map (the man page
# says so).  All the read()s' samples share one user stack: if its slot
# is taken, every one of them is lost, and the scenario, seeing them lost
# and none under the read path, runs once more with 4 times the slots
# (another slot for the same stack, 3 times in 4) instead of checking the
# read path in a run that could not show it.
scenario_long_poll_profile() {
    stack_retry long_poll_profile lp_profile 16384 "the read()s' samples"
}

# stack_retry TAG RUN SLOTS WHAT [OPTION...]: runs "RUN TAG OPTION...",
# one run of a scenario; when a stack it checks (WHAT) found its slot in
# the stack map taken (RUN then sets STACK_COLLIDED=1 and STACK_LOST, what
# was lost, and checks nothing of that stack), says so and runs "RUN
# TAG_again --stack-trace-size SLOTS", other slots, and fails if that run
# loses it too.
stack_retry() {
    local tag=$1 run=$2 slots=$3 what=$4

    shift 4
    STACK_COLLIDED=0
    "$run" "$tag" "$@"
    if ((STACK_COLLIDED)); then
        note "$tag: $what found no room in the stack map (a slot taken;" \
             "$STACK_LOST lost); again with --stack-trace-size $slots"
        STACK_COLLIDED=0
        "$run" "${tag}_again" --stack-trace-size "$slots"
        ((STACK_COLLIDED)) &&
            fail "$tag: $what kept in one of two runs" "kept" \
                 "lost in both ($STACK_LOST lost)"
    fi
}

# lp_profile TAG [OPTION...]: one run of scenario_long_poll_profile, with
# OPTIONs for the tool; STACK_COLLIDED=1 when the read()s' samples were
# all lost to the stack map (STACK_LOST), and then nothing is checked of
# them (stack_retry).
lp_profile() {
    local tag=$1 pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} hz=997 u k n su sk rest
    local got want tol failed lost readpath

    shift
    lp_start $tag -p "$pid" --long-poll-events 50 --tid "$rv" --json \
        --profile-hz $hz --folded "$WORKDIR/$tag.folded" "$@" || return
    wl_cmd main "usersys 150 100" \
        || fail "$tag: job" "done" "$WL_REPLY_LINE"
    lp_end $tag
    lp_check_records $tag

    u=$(reply_field user_ns) k=$(reply_field kernel_ns)
    if ! is_uint "$u" || ! is_uint "$k" || ((u + k == 0)); then
        fail "$tag: the workload's truth" "user_ns=... kernel_ns=..." \
             "$WL_REPLY_LINE"
        return
    fi
    lp_record "$rv"
    n=$(lr .profile.samples)
    check_eq "$tag: the profile's rate" "$hz" "$(lr .profile.hz)"
    if ! is_uint "$n" || ((n < 20)); then
        fail "$tag: samples of the interval" "at least 20" "${n:-none}"
        return
    fi
    pass "$tag: $n samples of revalidator2's interval"
    check_eq "$tag: the stacks' samples, the others and the lost add up" \
             "$n" "$(lr '([.on_cpu_stacks[].samples] | add // 0)
                         + .profile.other_samples + .profile.lost_samples')"
    check_close "$tag: the stacks' estimated times add up to on_cpu_ns" \
                "$(lr .on_cpu_ns)" \
                "$(lr '([.on_cpu_stacks[].ns] | add // 0)
                       + .profile.other_ns + .profile.lost_ns')" 32
    # A stack walked by frame pointers skips the caller of a leaf without
    # a frame (the vDSO's clock_gettime() in the spin, libc's read()), so
    # the two parts are told apart by where the samples hit: in user space
    # (no kernel frame) or in the kernel, under the workload's code.
    su=$(lr '[.on_cpu_stacks[] | select(all(.frames[];
                                            endswith(" [kernel]") | not)
                                        and any(.frames[];
                                                endswith(" [workload]")))
              | .samples] | add // 0')
    sk=$(lr '[.on_cpu_stacks[] | select(any(.frames[]; endswith(" [kernel]"))
                                        and any(.frames[];
                                                endswith(" [workload]")))
              | .samples] | add // 0')
    rest=$((n - su - sk))
    lost=$(lr '.profile.lost_samples // 0')
    # Whether a stack of the read()s names the kernel's read path, from
    # read() down to /dev/zero's.
    readpath=$(lr '[.on_cpu_stacks[].frames
                    | any(.[]; test("^(ksys_read|vfs_read)\\+"))] | any')
    if ((sk == 0 && lost > 0)) && [[ $readpath != true ]]; then
        STACK_COLLIDED=1 STACK_LOST="$lost samples"
        return
    fi
    # In per mille: the user part's share of the two parts' samples
    # against its share of their CPU time; the samples elsewhere (stacks
    # beyond the 16 kept, lost, the job's edges) count against it.
    want=$((1000 * u / (u + k)))
    if ((su + sk == 0)); then
        fail "$tag: samples under the workload's code" "some" \
             "none: $(lr '.on_cpu_stacks[0].frames' | head -c 300)"
        return
    fi
    got=$((1000 * su / (su + sk)))
    tol=$(awk -v p="$want" -v n=$((su + sk)) -v r="$rest" -v all="$n" '
        BEGIN {
            p /= 1000
            printf "%d", 1000 * (5 * sqrt(p * (1 - p) / n) + r / all) + 1
        }')
    if ((got - want <= tol && want - got <= tol)); then
        pass "$tag: the user-space samples' share, $got per mille, vs\
 the spin's share of the CPU time, $want (tolerance $tol: 5 sigma of\
 $((su + sk)) samples, $rest elsewhere)"
    else
        fail "$tag: the user-space samples' share (per mille)" \
             "$want +-$tol" "$got ($su user, $sk kernel, $rest elsewhere)"
        lr '.on_cpu_stacks[:4][] | "\(.samples): \(.frames | join(" < "))"' \
            | sed 's/^/#   /'
        # And those elsewhere: under no frame of the workload.
        note "$tag: the stacks elsewhere:"
        lr '[.on_cpu_stacks[] | select(any(.frames[];
                                           endswith(" [workload]")) | not)]
            | .[:8][] | "\(.samples): \(.frames | join(" < "))"' \
            | sed 's/^/#   /'
    fi
    failed=$TEST_FAILED
    check_eq "$tag: a stack of the read()s names the kernel's read path" \
             true "$readpath"
    if ((TEST_FAILED > failed)); then
        note "$tag: the stacks:"
        lr '.on_cpu_stacks[:8][] | "\(.samples): \(.frames | join(" < "))"' \
            | cut -c 1-600 | sed 's/^/#   /'
    fi
    # --folded: the same stacks, rooted at the thread and its interval,
    # adding up to its time on CPU.
    check_eq "$tag: --folded: a line a stack, under revalidator2 $rv" \
             "$(lr '(.on_cpu_stacks | length)
                    + (if .profile.other_ns > 0 then 1 else 0 end)
                    + (if .profile.lost_ns > 0 then 1 else 0 end)') $rv" \
             "$(grep -c "^revalidator2 $rv;long poll .*;on-cpu;" \
                    "$WORKDIR/$tag.folded") $rv"
    check_close "$tag: --folded: the values add up to on_cpu_ns" \
                "$(lr .on_cpu_ns)" \
                "$(awk '{ s += $NF } END { printf "%d", s }' \
                       "$WORKDIR/$tag.folded")" 32
    check_eq "$tag: --folded: the read()s' kernel frames marked" true \
             "$(grep -qE ';(ksys_read|vfs_read)_\[k\]' \
                    "$WORKDIR/$tag.folded" && echo true)"
}

# --off-cpu: one interval of revalidator2 blocked in one read() of a pipe
# (kd_workload_handoff_wait()) until handler1 writes it 100 ms later
# (kd_workload_handoff_send()).  The sleep is named by its stack, its
# waker by TID, name and stack, and its time (asleep, then in the run
# queue) is the read()'s as the workload timed it, less the read()'s time
# on CPU; the sleeps add up to the interval's time blocked.
scenario_long_poll_offcpu() {
    local tag=long_poll_offcpu pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} read read_cpu waker tol folded
    local pipe_sleeps foreign lost all rt n
    local failed0=$TEST_FAILED

    lp_start $tag -p "$pid" --long-poll-events 50 --tid "$rv" --json \
        --off-cpu --folded "$WORKDIR/$tag.folded" || return
    sched_trace_begin "$rv" "${WL_TID[main:handler1]}"
    wl_cmd main "handoff 100" \
        || fail "$tag: job" "done" "$WL_REPLY_LINE"
    sched_trace_end
    lp_end $tag
    lp_check_records $tag

    read=$(reply_field read_ns) waker=$(reply_field waker_tid)
    read_cpu=$(reply_field read_cpu_ns)
    if ! is_uint "$read" || ! is_uint "$waker" || ! is_uint "$read_cpu" \
        || ((read_cpu > read)); then
        fail "$tag: the workload's truth" \
             "read_ns=... read_cpu_ns=... waker_tid=..." "$WL_REPLY_LINE"
        return
    fi
    lp_record "$rv"
    # On PREEMPT_RT, the woken reader may sleep again, briefly, on the
    # pipe's wait-queue lock (a sleeping lock there) that its waker still
    # holds (seen on 6.1-rt: 0.26 ms in schedule_rtlock() under
    # prepare_to_wait_event(), woken by handler1's rt_spin_unlock()).
    # Such sleeps are counted apart: one sleep in the pipe's own wait,
    # each other one on an RT lock, woken by handler1, none lost.
    read -r pipe_sleeps foreign lost all rt <<<"$(lr '
        def rtlock: any(.frames[]; startswith("schedule_rtlock+"));
        "\([.blocked[] | select(rtlock | not) | .count] | add // 0)
         \([.blocked[] | select(rtlock) | select(.waker.name != "handler1")]
           | length)
         \(.off_cpu.lost_sleeps) \([.blocked[].count] | add // 0)
         \([.blocked[] | select(rtlock)] | length)"' | xargs)"
    check_eq "$tag: one sleep in the pipe's wait, the others on an RT lock\
 held by handler1, none lost" "1 0 0 $(lr '.off_cpu.sleeps')" \
             "$pipe_sleeps $foreign $lost $all"
    ((rt > 0)) && note "$tag: $rt sleep(s) on an RT lock"
    # The pipe's sleep first (the longest).
    check_eq "$tag: its stack: the workload's read, through the pipe" \
             "1 true true" \
             "$(lr '.blocked[0] | "\(.count) \(any(.frames[];
                    startswith("kd_workload_handoff_wait+")))
                    \(any(.frames[]; test("^(anon_)?pipe_read\\+")))"' \
                | xargs)"
    check_eq "$tag: its waker: handler1, a task of the target" \
             "$waker $pid handler1 task" \
             "$(lr '.blocked[0].waker | "\(.tid) \(.pid) \(.name)
                    \(.context)"' | xargs)"
    check_eq "$tag: the waker's stack: the workload's write, to the pipe" \
             "true true" \
             "$(lr '.blocked[0].waker | "\(any(.frames[];
                    startswith("kd_workload_handoff_send+")))
                    \(any(.frames[]; test("^(anon_)?pipe_write\\+")))"' \
                | xargs)"
    # The read() under SCHED_FIFO: on a CPU only to enter, switch out,
    # and return, which the thread's CPU-time clock measured around it
    # (an emulated CPU takes milliseconds there: 6 ms seen).  So the
    # sleep is the read()'s time less that, and at most the read()'s
    # time; 1 ms (scaled) below it for the interrupts that CPU time may
    # hold.
    tol=$((MS * WAIT_SCALE))
    check_close "$tag: the sleeps' time off CPU vs the read()'s less its\
 CPU time" "$((read - read_cpu))" "$(lr '[.blocked[].ns] | add // 0')" \
                "$tol" "$read_cpu"
    check_eq "$tag: asleep and in the run queue add up" \
             "$(lr '[.blocked[].ns] | add // 0')" \
             "$(lr '[.blocked[] | .sleep_ns + .run_queue_ns] | add // 0')"
    check_eq "$tag: the sleeps' time asleep is the interval's blocked time" \
             "$(lr '.blocked_in_syscalls_ns + .blocked_outside_syscalls_ns')" \
             "$(lr '([.blocked[].sleep_ns] | add // 0)')"
    # --folded: the waker's frames over the sleeper's.
    folded=$(grep "^revalidator2 $rv;long poll .*;blocked;" \
                  "$WORKDIR/$tag.folded")
    n=$(lr '.blocked | length')
    check_eq "$tag: --folded: the sleeps, their waker over them" "$n $n" \
             "$(grep -c . <<<"$folded")\
 $(grep -c ';kd_workload_handoff_wait;.*;waker:handler1;.*;kd_workload_handoff_send;' \
        <<<"$folded")"
    check_eq "$tag: --folded: the values add up to the sleeps' time" \
             "$(lr '([.blocked[].ns] | add // 0) + .off_cpu.other_ns')" \
             "$(awk '{ s += $NF } END { printf "%d", s }' <<<"$folded")"
    if ((TEST_FAILED > failed0)); then
        lr '{off_cpu, blocked, warnings, waits, sleeps, preemptions}' \
            | sed 's/^/#   /'
    fi
    sched_trace_print "$failed0"
}

# --profile-hz and --off-cpu in time mode: one sample of 2 s holds
# revalidator2's "usersys 100 50" (user space, then read()s of
# /dev/zero) and its "handoff 100" (a read() of a pipe that handler1
# writes 100 ms later).  revalidator2's thread in the JSON sample has
# its on-CPU stacks (the kernel's read path among them; their samples
# add up) and the pipe's sleep, woken by handler1, timed as the workload
# timed its read().  A stack goes into the stack map's slot that its
# hash picks, and is refused when another stack holds it: then every
# sample or sleep that shares it is counted as lost.  When a stack
# checked is missing and samples or sleeps were lost, the scenario runs
# once more with another number of slots (so other slots), and fails if
# one is missing again.
scenario_sample_stacks() {
    stack_retry sample_stacks ss_run 65536 "the stacks checked" \
                --stack-trace-size 16384
}

# ss_run TAG OPTION...: one run of scenario_sample_stacks, with OPTIONs
# for the tool; STACK_COLLIDED=1 when a stack checked (the samples, the
# read path, the pipe's sleep) is missing and the sample counts samples
# or sleeps lost (STACK_LOST), and then the stacks are not checked
# (stack_retry).
ss_run() {
    local tag=$1 pid=${WL_PID[main]} rv=${WL_TID[main:revalidator2]}
    local read read_cpu waker n failed0=$TEST_FAILED handoff readpath lost
    local lost_samples lost_sleeps

    shift
    # Every thread of the target counts (--tid filters the report).
    kd_json_open $tag -p "$pid" --tid "$rv" --profile-hz 997 --off-cpu \
        "$@" || return
    wl_cmd main "usersys 100 50" \
        || fail "$tag: job usersys" "done" "$WL_REPLY_LINE"
    wl_cmd main "handoff 100" \
        || fail "$tag: job handoff" "done" "$WL_REPLY_LINE"
    read=$(reply_field read_ns) waker=$(reply_field waker_tid)
    read_cpu=$(reply_field read_cpu_ns)
    kd_interrupt $tag 60
    LP_REC=$(jq -c --argjson t "$rv" '.threads[]? | select(.tid == $t)' \
                 "$KD_OUT" | head -n 1)
    # What found no room is counted, never hidden.
    check_eq "$tag: what found no room, reported" "true true" \
             "$(jq -r '[(.stacks_lost.samples | type == "number"),
                        (.stacks_lost.sleeps | type == "number")]
                       | map(tostring) | join(" ")' "$KD_OUT" | head -n 1)"
    n=$(lr .profile.samples)
    readpath=$(lr '[.on_cpu_stacks[].frames
                    | any(.[]; test("^(ksys_read|vfs_read)\\+"))] | any')
    handoff=$(lr '[.blocked[] | select(any(.frames[];
                   startswith("kd_workload_handoff_wait+")))] | length')
    lost=$(jq -r '"\(.stacks_lost.samples // 0) \(.stacks_lost.sleeps // 0)"' \
               "$KD_OUT" | head -n 1)
    read -r lost_samples lost_sleeps <<<"$lost"
    is_uint "$lost_samples" && is_uint "$lost_sleeps" ||
        lost_samples=0 lost_sleeps=0
    if { ((lost_samples > 0)) &&
             { ! is_uint "$n" || ((n < 20)) || [[ $readpath != true ]]; }; } ||
       { [[ $handoff == 0 ]] && ((lost_sleeps > 0)); }; then
        STACK_COLLIDED=1
        STACK_LOST="$lost_samples samples and $lost_sleeps sleeps"
        return
    fi
    if ! is_uint "$n" || ((n < 20)); then
        fail "$tag: samples of revalidator2" "at least 20" "${n:-none}"
    else
        pass "$tag: $n samples of revalidator2 in the sample"
    fi
    check_eq "$tag: the stacks' samples and the others add up" "$n" \
             "$(lr '([.on_cpu_stacks[].samples] | add // 0)
                    + .profile.other_samples')"
    check_eq "$tag: a stack names the kernel's read path" true "$readpath"
    check_eq "$tag: the pipe's sleep, woken by handler1" \
             "true $waker handler1" \
             "$(lr '.blocked[] | select(any(.frames[];
                    startswith("kd_workload_handoff_wait+")))
                    | "\(.waker != null) \(.waker.tid) \(.waker.name)"' \
                | head -n 1 | xargs)"
    # As in long_poll_offcpu: the read()'s time less its CPU time.
    if is_uint "$read" && is_uint "$read_cpu" && ((read_cpu <= read)); then
        check_close "$tag: that sleep's time off CPU vs the read()'s less\
 its CPU time" "$((read - read_cpu))" \
                    "$(lr '[.blocked[] | select(any(.frames[];
                            startswith("kd_workload_handoff_wait+")))
                            | .ns] | add // 0')" $((MS * WAIT_SCALE)) \
                    "$read_cpu"
    else
        fail "$tag: the workload's truth" "read_ns=... read_cpu_ns=..." \
             "$WL_REPLY_LINE"
    fi
    if ((TEST_FAILED > failed0)); then
        echo "#   $tag: the workload: $WL_REPLY_LINE"
        jq -c --argjson t "$rv" '{stacks_lost, thread: (.threads[]?
                | select(.tid == $t) | {profile, off_cpu, blocked:
                    [.blocked[] | .frames |= .[:8]]})}' "$KD_OUT" \
            | sed 's/^/#   /'
    fi
}

# An interval that has not ended: revalidator2 sleeps 3 s (times the
# suite's time scale: under emulation, the tool takes longer to print a
# report with stacks) between two poll() calls, with a 200 ms threshold.
# Each scan that finds it longer than the threshold, then than each
# doubling of it, reports it in progress (long_poll_progress records);
# SIGINT comes after the second such report, while it still sleeps, and
# the run ends with one more.  None ended while watched, so none is a
# long_poll record.  With --off-cpu, each shows where it sleeps.
scenario_long_poll_progress() {
    local tag=long_poll_progress pid=${WL_PID[main]}
    local rv=${WL_TID[main:revalidator2]} thr=$((200 * MS))
    local sleep=$((3000 * WAIT_SCALE))
    local deadline recs n gaps prev k bad truth failed=$TEST_FAILED

    lp_start $tag -p "$pid" --long-poll-events $thr --tid "$rv" --json \
        --off-cpu || return
    wl_send main "stuck $sleep"
    deadline=$(($(now_ns) + 30000 * WAIT_SCALE * MS))
    until (($(grep -c '"type":"long_poll_progress"' "$KD_OUT" \
                 2>/dev/null) >= 2)); do
        if (($(now_ns) > deadline)) || ! running "$KD_PID"; then
            break
        fi
        nap 0.02
    done
    lp_end $tag
    wl_reply main $((sleep / 1000 + 60)) \
        || fail "$tag: job" "done" "$WL_REPLY_LINE"
    truth=$(reply_field gap_ns)
    lp_check_records $tag

    recs=$(jq -c --argjson t "$rv" \
              'select(.type == "long_poll_progress" and .tid == $t)' \
              "$KD_OUT")
    n=$(grep -c . <<<"$recs")
    check_range "$tag: revalidator2 reported in progress, then at the end" \
                3 100 "$n"
    check_eq "$tag: no interval of revalidator2 ended while watched" 0 \
             "$(jq -s --argjson t "$rv" \
                   'map(select(.type == "long_poll" and .tid == $t))
                    | length' "$KD_OUT")"
    # The k-th report (but the one at the end of the run) came once the
    # interval was longer than the threshold doubled k-1 times; the
    # spans grow; all of it is shorter than the whole interval.
    gaps=$(jq -r '.gap_ns' <<<"$recs" | xargs)
    prev=0 k=0 bad=
    for g in $gaps; do
        ((g > prev)) || bad="$bad $g<=$prev"
        ((k < n - 1 && g < thr << k)) && bad="$bad $g<$((thr << k))"
        prev=$g k=$((k + 1))
    done
    check_eq "$tag: spans doubling from the threshold ($gaps)" "" "$bad"
    if is_uint "$truth"; then
        check_range "$tag: the last span within the interval" "$thr" \
                    "$truth" "$prev"
    else
        fail "$tag: the workload's truth" "gap_ns=..." "$WL_REPLY_LINE"
    fi
    # Each one: the parts add up, the sleep going on is in it.
    bad=$(jq -r 'select((.on_cpu_ns + .run_queue_ns + .stopped_ns
                         + .hardirq_ns + .softirq_ns
                         + .blocked_in_syscalls_ns
                         + .blocked_outside_syscalls_ns + .unaccounted_ns)
                        != .gap_ns
                        or .gap_ns != .end_ns - .start_ns
                        or .dominant != "blocked_in_syscalls"
                        or .syscall_in_progress.name != "clock_nanosleep"
                        or .syscall_in_progress.ns > .gap_ns)
                 | .gap_ns' <<<"$recs" | xargs)
    check_eq "$tag: parts add up; asleep in clock_nanosleep, going on" "" \
             "$bad"
    # --off-cpu: each one shows that sleep first, going on, its stack
    # through the kernel's nanosleep, asleep since (about) the interval
    # began and not woken yet.
    bad=$(jq -r 'select(.off_cpu.sleeps != 0
                        or (.blocked[0].going_on | not)
                        or .blocked[0].waker != null
                        or .blocked[0].sleep_ns > .gap_ns
                        or .blocked[0].sleep_ns
                           != .blocked_in_syscalls_ns
                        or (any(.blocked[0].frames[];
                                test("^(do_nanosleep|hrtimer_nanosleep)\\+"))
                            | not))
                 | .gap_ns' <<<"$recs" | xargs)
    check_eq "$tag: --off-cpu: the sleep going on, where it sleeps" "" \
             "$bad"
    # On a failure, what the run said of revalidator2, for the log.
    if ((TEST_FAILED > failed)); then
        jq -c --argjson t "$rv" \
           'select(.tid == $t) | del(.blocked[]?.frames, .stacks)' \
           "$KD_OUT" | while read -r rec; do
            note "$tag: record: $rec"
        done
    fi
}
