# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# shellcheck disable=SC2034  # Some globals are for the scenarios.
# The helper library of the end-to-end tests (tests/e2e.sh, its scenarios
# in tests/e2e/) and of the kernel lane (tests/kernels/lane.sh): results,
# waits, the workload's control protocol, kernel_delay runs and what they
# leave attached, the report's values (text or --json), its layout, and
# the checks several scenarios share.  Helpers of one theme live in its
# scenario file.  Sourced (bash); not meant to be run on its own.
#
# Conventions: functions print nothing unless they are checks (PASS:/FAIL:
# lines) or notes ("# ..." lines); results come back in globals written in
# capitals.  All times are in ns unless a name says otherwise.

readonly MS=1000000

# The syscall that glibc's poll() makes here, which kernel_delay takes for
# "poll" (long poll intervals, "TOTAL( - poll)", the events' poll): poll,
# or ppoll where the architecture has none (arm64), as <sys/syscall.h>
# says, the header the tool's own syscall table comes from.
POLL_SYSCALL=$(printf '#include <sys/syscall.h>\nSYS_poll\n' |
               gcc -E -P - 2>/dev/null | tail -n 1)
if [[ $POLL_SYSCALL =~ ^[0-9]+$ ]]; then
    POLL_SYSCALL=poll
else
    POLL_SYSCALL=ppoll
fi
readonly POLL_SYSCALL

# How much longer every wait may last before it counts as a hang: the
# kernel lane's emulated guests (E2E_TIME_SCALE) compile and attach
# several times slower.  Scales time limits only, never a measurement.
readonly WAIT_SCALE=${E2E_TIME_SCALE:-1}

# ---------------------------------------------------------------------------
# Results, and the closing line.

# pass DESCRIPTION, fail DESCRIPTION [EXPECTED GOT], counted in
# TEST_PASSED and TEST_FAILED: those of every test script.
# shellcheck source=tests/testlib.sh
. "${BASH_SOURCE[0]%/*}/../testlib.sh"
SUMMARY_DONE=

note() {
    printf '# %s\n' "$*"
}

# skip WHAT...: a check that could not run here, and why; neither passed
# nor failed.
skip() {
    printf 'SKIP: %s\n' "$*"
}

summary() {
    printf '%d passed, %d failed\n' "$TEST_PASSED" "$TEST_FAILED"
    SUMMARY_DONE=1
}

# abort REASON...: the tests cannot run; that is a failure, never a pass.
abort() {
    fail "$*"
    summary
    exit 1
}

is_uint() {
    [[ $1 =~ ^[0-9]+$ ]]
}

# check_eq DESCRIPTION EXPECTED GOT
check_eq() {
    if [[ $3 == "$2" ]]; then
        pass "$1${3:+ ($3)}"
    else
        fail "$1" "$2" "$3"
    fi
}

# check_range DESCRIPTION LOW HIGH GOT: LOW <= GOT <= HIGH, integers.
check_range() {
    if is_uint "$4" && (($4 >= $2 && $4 <= $3)); then
        pass "$1 ($4 in [$2, $3])"
    else
        fail "$1" "a value in [$2, $3]" "$4"
    fi
}

# check_close DESCRIPTION EXPECTED GOT TOLERANCE [ABOVE]: |GOT - EXPECTED|
# must be at most TOLERANCE, or GOT above EXPECTED by at most ABOVE when
# given (an error that can only add).  Also records the error in
# E2E_ERRORS for the summary.
E2E_ERRORS=()
check_close() {
    local desc=$1 expected=$2 got=$3 tol=$4 above=${5:-$4} err

    if ! is_uint "$got" || ! is_uint "$expected"; then
        fail "$desc" "about $expected" "$got"
        return
    fi
    err=$((got - expected))
    E2E_ERRORS+=("$desc: tool $got, truth $expected, error $err ns")
    if ((err <= above && -err <= tol)); then
        pass "$desc ($got vs $expected, error $err ns, tolerance $tol\
$( ((above != tol)) && printf ', %s above' "$above"))"
    else
        fail "$desc" "$expected $( ((above != tol)) \
                                   && echo "-$tol/+$above" \
                                   || echo "+/- $tol")" \
             "$got (error $err ns)"
    fi
}

# ---------------------------------------------------------------------------
# Time, waits, interrupts and clean-up.

# Interrupts.  The INT and TERM traps (tests/e2e.sh) only set
# E2E_INTERRUPTED: running anything longer in a trap that interrupted
# "read -t" is unsafe in bash 5.2 (the read's timer can fire inside the
# trap and jump back into the read, or crash bash).  Every wait calls
# check_interrupt, which then cleans up, reports and dies of the signal.
E2E_INTERRUPTED=
E2E_PIDS=()

check_interrupt() {
    local sig=$E2E_INTERRUPTED

    [[ -n $sig ]] || return 0
    trap - EXIT INT TERM
    exec >&"$STDOUT_FD"
    cleanup
    fail "the test run was interrupted (SIG$sig)"
    summary
    kill -s "$sig" $$
}

# Sleeps without forking (a timed read on a FIFO nobody writes), so that the
# harness itself does not show up on the CPUs while a job runs.
nap() {
    read -r -t "$1" -u "$NAP_FD" _ || true
    check_interrupt
}

nap_init() {
    mkfifo "$1"
    exec {NAP_FD}<>"$1"
}

# now_ns: the wall clock in ns, from bash's own EPOCHREALTIME (us): no
# process started, which under emulation takes tens of milliseconds.
now_ns() {
    printf '%s000\n' "${EPOCHREALTIME/./}"
}

# scaled_secs SECONDS: SECONDS (a decimal such as 0.01) stretched by
# WAIT_SCALE, in SCALED_SECS, in the same notation (no process started).
scaled_secs() {
    local int=${1%%.*} frac us

    [[ $1 == *.* ]] && frac=${1#*.} || frac=
    frac=${frac}000000
    us=$(((10#${int:-0} * 1000000 + 10#${frac:0:6}) * WAIT_SCALE))
    printf -v SCALED_SECS '%d.%06d' $((us / 1000000)) $((us % 1000000))
}

# secs_since T0: the whole seconds, rounded, since T0 (an EPOCHREALTIME).
secs_since() {
    local t0=${1/./} now=${EPOCHREALTIME/./}

    echo $(((now - t0 + 500000) / 1000000))
}

# note_times WHAT ENTRY...: where the time went, as one note "WHAT times:
# ENTRY, ENTRY, ..." (the kernel lane's guests have a time limit).
note_times() {
    local what=$1 list

    shift
    printf -v list '%s, ' "$@"
    note "$what times: ${list%, }"
}

# poll_until PID TIMEOUT_S STEP_S COMMAND...: runs COMMAND every STEP_S
# seconds until it succeeds; returns 1 once TIMEOUT_S has passed, or once
# process PID (unless empty) is gone.  Both are stretched by WAIT_SCALE:
# under emulation, a poll that starts processes every 10 ms would take
# the CPU from what it waits for.  (Its locals are named so that
# COMMAND's arguments cannot meet them.)
poll_until() {
    local _pu_pid=$1 _pu_now=${EPOCHREALTIME/./} _pu_end _pu_step

    _pu_end=$((_pu_now + $2 * WAIT_SCALE * 1000000))
    scaled_secs "$3"
    _pu_step=$SCALED_SECS
    shift 3
    until "$@"; do
        if [[ -n $_pu_pid ]] && ! running "$_pu_pid"; then
            return 1
        fi
        _pu_now=${EPOCHREALTIME/./}
        ((_pu_now > _pu_end)) && return 1
        nap "$_pu_step"
    done
}

# has_record FILE COND [JQ_ARG...]: FILE holds a JSON record for which the
# jq condition COND holds (JQ_ARGs: --arg, --argjson).  Not "jq -e
# 'select(COND)'": jq 1.6 exits 0 for an empty file, so a wait for a
# record that way ended before the tool had written anything.
has_record() {
    local file=$1 cond=$2

    shift 2
    jq -n -e "$@" "any(inputs; $cond)" "$file" >/dev/null 2>&1
}

# running PID: process PID exists and is not a zombie.  A child that has
# exited stays a zombie until bash reaps it, which it may put off while it
# runs only builtins, as the polls here do: a 6.12 guest saw the tool a
# zombie for the whole 175 s of a wait for its exit, four times in a row.
running() {
    task_state "/proc/$1/stat" && [[ $TASK_STATE != Z ]]
}

# gone PID: process PID has exited (a zombie included).
gone() {
    ! running "$1"
}

# stuck_where PID: where each thread of process PID is, for the record:
# its state, its syscall (number and arguments) and its kernel stack.
stuck_where() {
    local task line

    for task in /proc/"$1"/task/*; do
        task_state "$task/stat" || continue
        note "  thread ${task##*/} (state $TASK_STATE):" \
             "syscall $(cat "$task/syscall" 2>/dev/null)"
        while read -r line; do
            note "    $line"
        done <"$task/stack" 2>/dev/null
    done
}

# wait_exit PID TIMEOUT_S: waits for a child to exit; WAIT_RC is its exit
# status, or "timeout" (the process is then killed, after where its
# threads were is noted).
wait_exit() {
    local pid=$1

    if ! poll_until "" "$2" 0.02 gone "$pid"; then
        note "process $pid still there after $2 s (scaled by" \
             "$WAIT_SCALE); where its threads are:"
        stuck_where "$pid"
        kill -INT "$pid" 2>/dev/null
        nap 1
        kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        WAIT_RC=timeout
        return 1
    fi
    wait "$pid"
    WAIT_RC=$?
}

track_pid() {
    E2E_PIDS+=("$1")
}

# Stops everything this script started and still runs (also on errors and
# interrupts).  Only un-reaped background jobs of this shell are signalled,
# so a PID that was reused by another process is never touched.
cleanup() {
    local pid

    for pid in $(jobs -p); do
        kill -CONT "$pid" 2>/dev/null   # In case it is stopped.
        kill -TERM "$pid" 2>/dev/null
    done
    for _ in 1 2 3 4 5 6 7 8 9 10; do
        [[ -z $(jobs -pr) ]] && break
        sleep 0.1
    done
    for pid in $(jobs -p); do
        kill -KILL "$pid" 2>/dev/null
    done
    wait 2>/dev/null
    # The private ovs-vswitchd (tests/e2e/longpoll.sh) is no job of ours.
    declare -F ovs_e2e_stop >/dev/null && ovs_e2e_stop
    # The full disk of tests/e2e/evidence.sh, a tmpfs in WORKDIR.
    declare -F ev_cleanup >/dev/null && ev_cleanup
    sleep_moves_cleanup
    # A debug file the debuginfo scenario (tests/e2e/events.sh) put in the
    # system's directory.
    [[ -n ${E2E_DEBUG_FILE:-} ]] && rm -f "$E2E_DEBUG_FILE"
    for pid in "${E2E_PIDS[@]}"; do
        rm -f "/var/tmp/kd-workload.$pid.io"
    done
    [[ -n $WORKDIR ]] && rm -rf "$WORKDIR"
}

# On any exit (tests/e2e.sh's EXIT trap): clean up, and if the run ended
# early (a harness error), say so and still end with the summary line.
on_exit() {
    local rc=$?

    exec >&"$STDOUT_FD"     # Not into a scenario's log (run_with_retry).
    cleanup
    if [[ -z $SUMMARY_DONE ]]; then
        fail "the test run stopped early (exit status $rc)"
        summary
        exit 1
    fi
}

# ---------------------------------------------------------------------------
# The workload (tests/workload.c).  Several instances can run; each has an
# ID (a shell word) and its own FIFOs under $WORKDIR/wl-ID.

declare -A WL_PID=() WL_CTL=() WL_REPLY=() WL_TID=()
WL_REPLY_LINE=

# wl_start ID NAME: starts an instance whose main thread is named NAME and
# waits until it is ready.  WL_TID[ID:THREAD] is the TID of each worker.
wl_start() {
    local id=$1 name=$2 dir=$WORKDIR/wl-$1 tid thread fd

    mkdir -p "$dir"
    # An instance started again under the same ID gets fresh pipes.
    rm -f "$dir/ctl" "$dir/reply"
    mkfifo "$dir/ctl" "$dir/reply"
    "$WORKLOAD" --ctl "$dir/ctl" --reply "$dir/reply" --name "$name" \
        --die-with-parent >"$dir/out" 2>"$dir/err" &
    WL_PID[$id]=$!
    track_pid $!
    if ! poll_until "${WL_PID[$id]}" 10 0.01 grep -sqx ready "$dir/out"; then
        fail "workload $id starts ($(head -c 300 "$dir/err"))"
        return 1
    fi
    while read -r tid thread; do
        [[ -n $thread ]] && WL_TID[$id:$thread]=$tid
    done <"$dir/out"
    WL_TID[$id:main]=${WL_PID[$id]}
    exec {fd}>"$dir/ctl"
    WL_CTL[$id]=$fd
    exec {fd}<"$dir/reply"
    WL_REPLY[$id]=$fd
}

# wl_cmd ID COMMAND [TIMEOUT_S]: sends one command and reads its reply into
# WL_REPLY_LINE.  Fails unless the reply starts with "done".
wl_cmd() {
    wl_send "$1" "$2"
    wl_reply "$1" "${3:-30}"
}

# wl_send ID CMD: sends CMD to instance ID without waiting for its reply,
# for a scenario that acts while the job runs; wl_reply reads the reply.
wl_send() {
    printf '%s\n' "$2" >&"${WL_CTL[$1]}"
}

# wl_reply ID [TIMEOUT_S]: reads the reply of the command last sent to
# instance ID into WL_REPLY_LINE, as wl_cmd does.  It waits until the reply
# is there, then reads it without a time-out: bash 5.2's "read -t" can
# drop the newline it was reading when its timer fires, and the line is
# then never complete.  The workload writes each reply in one write(), so
# once a byte is there the whole line is.
wl_reply() {
    local id=$1 timeout=${2:-30}

    WL_REPLY_LINE=
    if ! poll_until "" "$timeout" 0.01 read -t 0 -u "${WL_REPLY[$id]}"; then
        WL_REPLY_LINE="(no reply within $timeout s)"
        return 1
    fi
    read -r -u "${WL_REPLY[$id]}" WL_REPLY_LINE
    [[ $WL_REPLY_LINE == "done" || $WL_REPLY_LINE == "done "* ]]
}

# reply_field KEY: the value of KEY=VALUE in the last reply.
reply_field() {
    local word

    for word in $WL_REPLY_LINE; do
        if [[ $word == "$1="* ]]; then
            printf '%s' "${word#*=}"
            return
        fi
    done
}

# wl_stop ID: asks the instance to quit and waits for it.
wl_stop() {
    local id=$1 fd

    [[ -n ${WL_PID[$id]:-} ]] || return 0
    wl_cmd "$id" quit 5
    wait_exit "${WL_PID[$id]}" 5
    fd=${WL_CTL[$id]}
    exec {fd}>&-
    fd=${WL_REPLY[$id]}
    exec {fd}<&-
    unset "WL_PID[$id]"
}

# wl_threads ID: the TIDs of all the instance's threads (main first).
wl_threads() {
    local tid

    for tid in /proc/"${WL_PID[$1]}"/task/*; do
        printf '%s\n' "${tid##*/}"
    done
}

# schedstat PID TID: "RUN_NS WAIT_NS SLICES NOW_NS" from the kernel's
# schedstat, and when it was read (CLOCK_REALTIME, for a sanity check: a
# thread cannot run and wait longer than the time between two reads).
schedstat() {
    local run wait slices

    read -r run wait slices <"/proc/$1/task/$2/schedstat"
    printf '%s %s %s %s' "$run" "$wait" "$slices" "$(now_ns)"
}

# steal_ticks: hypervisor steal time of all CPUs, in USER_HZ ticks.
steal_ticks() {
    awk '$1 == "cpu" { print $9 }' /proc/stat
}

# thread_state PID TID: the thread's state letter (R, S, D, T, ...).
thread_state() {
    task_state "/proc/$1/task/$2/stat" && printf '%s' "$TASK_STATE"
}

# task_state STAT: the state letter of a process or thread from its /proc
# stat file STAT, into TASK_STATE (empty, and status 1, if unreadable);
# no process started.
task_state() {
    local stat

    TASK_STATE=
    read -r stat 2>/dev/null <"$1" || return 1
    stat=${stat##*) }
    TASK_STATE=${stat:0:1}
}

# Moves of a sleeping thread, which schedstat counts as run-queue wait.
# On kernels that delay the dequeue of a sleeping task (EEVDF's
# DELAY_DEQUEUE, Linux 6.12 and later) the load balancer can move a thread
# that sleeps, and schedstat then counts it as queued from the move (its
# last_queued is set as it is enqueued on the new CPU) until it runs: its
# sleep from the move to its wake-up lands in run_delay, as run-queue wait
# (seen here: 7.0 ms in one of 3,000 jobs of "syscalls" beside stress-ng;
# ftrace showed the thread asleep, moved by the balancer's soft IRQ, woken
# by its timer 7 ms later and switched in 17 us after that).  kernel_delay
# counts that time as asleep, which it is.  sleep_moves_begin and
# sleep_moves_end watch one thread through a tracefs instance of our own
# (sched_switch, sched_waking and sched_migrate_task, filtered to the
# thread); a move while it sleeps breaks the truth (BAD_TRUTH: see
# run_with_retry).  The thread's events stay in SLEEP_MOVES_TRACE, which
# check_sched prints when the tool and schedstat disagree.
SLEEP_MOVES=
SLEEP_MOVES_TRACE=
SLEEP_MOVES_IN=
sleep_moves_begin() {
    local pid=$1 tid=$2

    SLEEP_MOVES=
    sched_watch "$tid" || return
    SLEEP_MOVES="$TRACE_DIR $tid $(thread_state "$pid" "$tid")"
    SLEEP_MOVES_TRACE=
    echo 1 >"$TRACE_DIR/tracing_on"
}

# sched_watch TID...: prepares this run's tracefs instance (TRACE_DIR,
# made if need be; returns 1, noted, where there is none) to record the
# scheduler's events of these threads: their switches in and out,
# wake-ups and moves to another CPU; tracing is left off, the buffer
# empty.
TRACE_DIR=
sched_watch() {
    local root pids='' switches='' t e

    for root in /sys/kernel/tracing /sys/kernel/debug/tracing; do
        [[ -d $root/instances ]] && break
    done
    TRACE_DIR=$root/instances/kd-e2e-$$
    if [[ ! -d $TRACE_DIR ]] && ! mkdir "$TRACE_DIR" 2>/dev/null; then
        note "no tracefs instance here: the scheduler's events not seen"
        return 1
    fi
    for t; do
        pids+="${pids:+ || }pid == $t"
        switches+="${switches:+ || }prev_pid == $t || next_pid == $t"
    done
    echo 0 >"$TRACE_DIR/tracing_on"
    echo "$pids" >"$TRACE_DIR/events/sched/sched_waking/filter" &&
    echo "$pids" >"$TRACE_DIR/events/sched/sched_wakeup/filter" &&
    echo "$pids" >"$TRACE_DIR/events/sched/sched_migrate_task/filter" &&
    echo "$switches" >"$TRACE_DIR/events/sched/sched_switch/filter" ||
        return 1
    for e in sched_waking sched_wakeup sched_migrate_task sched_switch; do
        echo 1 >"$TRACE_DIR/events/sched/$e/enable" || return 1
    done
    : >"$TRACE_DIR/trace"
}

# sched_trace_begin TID...: records the scheduler's events of these
# threads (sched_watch) until sched_trace_end, which leaves them in
# SCHED_TRACE, for a check to print when it fails.
SCHED_TRACE=
sched_trace_begin() {
    SCHED_TRACE=
    sched_watch "$@" && echo 1 >"$TRACE_DIR/tracing_on"
}

sched_trace_end() {
    [[ -d $TRACE_DIR ]] || return 0
    echo 0 >"$TRACE_DIR/tracing_on"
    SCHED_TRACE=$WORKDIR/sched.trace
    grep -v '^#' "$TRACE_DIR/trace" >"$SCHED_TRACE"
}

# sleep_moves_end TAG THREAD: how many times the thread watched since
# sleep_moves_begin was moved while it slept; any sets BAD_TRUTH.
sleep_moves_end() {
    local dir tid state n in

    read -r dir tid state <<<"$SLEEP_MOVES"
    [[ -n $dir ]] || return 0
    echo 0 >"$dir/tracing_on"
    SLEEP_MOVES_TRACE=$WORKDIR/sleep_moves.trace
    grep -v '^#' "$dir/trace" >"$SLEEP_MOVES_TRACE"
    # The moves while it slept, and its switches in, which schedstat's
    # timeslices must count too: one pass.
    read -r n in < <(awk -v tid="$tid" \
                         -v asleep="$([[ $state == [SD] ]] && echo 1)" '
        /sched_switch:/ {
            if (index($0, " prev_pid=" tid " ")) {
                asleep = $0 !~ /prev_state=R/
            }
            if (index($0, " next_pid=" tid " ")) {
                asleep = 0
                switches_in++
            }
        }
        /sched_waking:/ { asleep = 0 }
        /sched_migrate_task:/ { if (asleep) { n++ } }
        END { print n + 0, switches_in + 0 }' "$SLEEP_MOVES_TRACE")
    SLEEP_MOVES_IN="$tid $in"
    SLEEP_MOVES=
    if ((n > 0)); then
        note "$1: the kernel moved $2 to another CPU $n times while it" \
             "slept, and schedstat counts its sleep from there as run-queue" \
             "wait: the ground truth is broken"
        BAD_TRUTH=1
    fi
}

# sleep_moves_cleanup: removes the tracefs instance, if any.
sleep_moves_cleanup() {
    local root

    for root in /sys/kernel/tracing /sys/kernel/debug/tracing; do
        [[ -d $root/instances/kd-e2e-$$ ]] || continue
        echo 0 >"$root/instances/kd-e2e-$$/tracing_on"
        rmdir "$root/instances/kd-e2e-$$" 2>/dev/null
    done
}

# steal_bound_ns TICKS: the most steal time there can have been while the
# steal_ticks count grew by TICKS.  /proc/stat truncates nanoseconds to
# 10 ms ticks, so up to a tick more than TICKS, on a machine whose
# hypervisor steals at all (seen: 2.6 ms stolen from one thread's 200 ms
# run, with no tick counted); nothing on one where it never has.
STEAL_SEEN=$(($(steal_ticks) > 0))
steal_bound_ns() {
    printf '%s' $((($1 + STEAL_SEEN) * 10 * MS))
}

# ---------------------------------------------------------------------------
# The tool's eBPF programs and capture state.

# bpf_prog_ids: IDs of the loaded tracing BPF programs (the kinds the tool
# loads: raw_tracepoint, tracepoint, and kprobe for uprobes), one a line.
bpf_prog_ids() {
    bpftool prog show 2>/dev/null | awk -F: '
        /^[0-9]+: (tracepoint|raw_tracepoint|kprobe|perf_event|tracing) / {
            print $1
        }'
}

# held_prog_ids: IDs of the BPF programs that some live process holds a
# file descriptor to (a program, or a link to it), space-separated.
held_prog_ids() {
    cat /proc/[0-9]*/fdinfo/* 2>/dev/null \
        | awk '$1 == "prog_id:" { print $2 }' | sort -u | xargs
}

# fdinfo_scan PID: reads process PID's fdinfo in bash alone (it is polled
# while the tool compiles; a process started per poll would slow that
# down under emulation).  FD_PROGS is the IDs of the BPF programs it
# holds, FD_MAPS those of its array maps (type 2) of one 8-byte value and
# a 4-byte key, each space-separated, in no particular order.
fdinfo_scan() {
    local f key value t k v n
    local -A progs=() maps=()

    for f in /proc/"$1"/fdinfo/*; do
        t= k= v= n=
        while read -r key value; do
            case $key in
            prog_id:) progs[$value]=1 ;;
            map_type:) t=$value ;;
            key_size:) k=$value ;;
            value_size:) v=$value ;;
            max_entries:) n=$value ;;
            map_id:)
                [[ $t == 2 && $k == 4 && $v == 8 && $n == 1 ]] \
                    && maps[$value]=1
                ;;
            esac
        done 2>/dev/null <"$f"
    done 2>/dev/null
    FD_PROGS=${!progs[*]}
    FD_MAPS=${!maps[*]}
}

# pid_prog_ids PID: the BPF programs process PID holds, space-separated.
pid_prog_ids() {
    fdinfo_scan "$1"
    printf '%s\n' "$FD_PROGS"
}

# kd_prog_count N: true once the tool (KD_PID) holds N programs or more;
# they are then its KD_PROG_IDS.
kd_prog_count() {
    local -a ids

    fdinfo_scan "$KD_PID"
    KD_PROG_IDS=$FD_PROGS
    read -r -a ids <<<"$FD_PROGS"
    ((${#ids[@]} >= $1))
}

# kd_wait_attached [N]: waits until the tool holds N eBPF programs (default
# 12: the 10 raw tracepoint programs and both trigger programs), then a
# little more, as each is attached right after it is loaded.
kd_wait_attached() {
    poll_until "$KD_PID" 30 0.02 kd_prog_count "${1:-12}" || return 1
    nap 0.1
}

# kd_capture_state: CAPTURE_STATE is the value of the tool's (KD_PID)
# capture_on map, read with bpftool (JSON mode prints nothing until a
# record is due): 0 before the capture is armed, 1 while it captures, 2
# while it waits for a start trigger; or empty (status 1) while it has no
# such map yet.  The map's ID is kept in KD_CAPTURE_MAP, which
# kd_wait_capture resets; KD_MAP_NAME caches the names of the maps asked
# for (IDs are not reused).
declare -A KD_MAP_NAME=()
KD_CAPTURE_MAP=
CAPTURE_STATE=
kd_capture_state() {
    local id value
    local -a ids

    CAPTURE_STATE=
    if [[ -z $KD_CAPTURE_MAP ]]; then
        # capture_on is one of the tool's array maps (type 2) of a single
        # 8-byte value, found from its fdinfo; its name tells it from the
        # others of that shape (uw_maps_at, whose value the tool sets
        # while it still attaches): one bpftool call per map, cached, as
        # each takes a good part of a second under emulation.  A map whose
        # name cannot be read yet is asked again at the next call.
        fdinfo_scan "$KD_PID"
        read -r -a ids <<<"$FD_MAPS"
        for id in "${ids[@]}"; do
            if [[ -z ${KD_MAP_NAME[$id]:-} ]]; then
                KD_MAP_NAME[$id]=$(bpftool -j map show id "$id" 2>/dev/null \
                                   | jq -r '.name // empty')
            fi
            if [[ ${KD_MAP_NAME[$id]} == capture_on ]]; then
                KD_CAPTURE_MAP=$id
                break
            fi
        done
        [[ -n $KD_CAPTURE_MAP ]] || return 1
    fi
    # The value is a little-endian u64: its first byte says it all.
    value=$(bpftool -j map lookup id "$KD_CAPTURE_MAP" key 0 0 0 0 \
                2>/dev/null | jq -r '.value[0] // empty')
    [[ $value == 0x[0-9a-f][0-9a-f] ]] || return 1
    CAPTURE_STATE=$((16#${value#0x}))
}

# capture_is STATE: the tool's capture state is STATE.
capture_is() {
    kd_capture_state && [[ $CAPTURE_STATE == "$1" ]]
}

# kd_wait_capture STATE TIMEOUT_S: waits until the tool's capture state is
# STATE (1: capturing, 2: armed for a start trigger); then notes the
# tool's BPF programs (KD_PROG_IDS), all attached by then.
kd_wait_capture() {
    KD_CAPTURE_MAP=
    poll_until "$KD_PID" "$2" 0.01 capture_is "$1" || return 1
    KD_PROG_IDS=$(pid_prog_ids "$KD_PID")
}

# bpf_left: the IDs in LEFT (space-separated) of the tool's programs
# (KD_PROG_IDS) still loaded, and of the tracing programs loaded during
# the run (not in KD_BPF_BEFORE) that no live process holds.
bpf_left() {
    local now held id

    now=" $(bpf_prog_ids | xargs) "
    held=" $(held_prog_ids) "
    LEFT=
    for id in $KD_PROG_IDS; do
        [[ $now == *" $id "* ]] && LEFT+=" $id"
    done
    for id in $now; do
        if [[ " $KD_BPF_BEFORE " != *" $id "* && $held != *" $id "* \
              && $LEFT != *" $id"* ]]; then
            LEFT+=" $id"
        fi
    done
    [[ -z $LEFT ]]
}

# check_bpf_released TAG: after a run, none of the tool's BPF programs
# (KD_PROG_IDS, read from its file descriptors while it ran) is still
# loaded, and no tracing program loaded during the run outlives it unless a
# live process holds it (someone else's tool).  Comparing IDs rather than
# counts keeps other BPF users of the machine out of the picture.
# Program release is asynchronous, so give it up to 3 s.
check_bpf_released() {
    if ! poll_until "" 3 0.05 bpf_left; then
        fail "$1: BPF programs released" "none left" \
             "program IDs$LEFT still loaded"
    elif [[ -z $KD_PROG_IDS ]]; then
        pass "$1: no BPF program left loaded (the tool held none)"
    else
        pass "$1: no BPF program left loaded ($(wc -w <<<"$KD_PROG_IDS")\
 programs of the tool gone)"
    fi
}

# ---------------------------------------------------------------------------
# kernel_delay runs.

# kd_start TAG ARGS...: starts the tool in the background, stdout to
# $WORKDIR/TAG.out (KD_OUT), stderr to TAG.err (KD_ERR).
kd_start() {
    tool_start "$KD" "$@"
}

# tool_start TOOL TAG ARGS...: the same with another tool (the reference,
# in the kernel lane, or the tool under env).
tool_start() {
    local tool=$1

    KD_TAG=$2
    shift 2
    KD_OUT=$WORKDIR/$KD_TAG.out
    KD_ERR=$WORKDIR/$KD_TAG.err
    KD_BPF_BEFORE=$(bpf_prog_ids | xargs)
    KD_PROG_IDS=
    "$tool" "$@" >"$KD_OUT" 2>"$KD_ERR" &
    KD_PID=$!
    track_pid "$KD_PID"
}

# kd_wait_started TIMEOUT_S: waits for "# Start sampling" on its stdout;
# everything is attached then: notes which programs are the tool's.
kd_wait_started() {
    poll_until "$KD_PID" "$1" 0.01 grep -q '^# Start sampling' "$KD_OUT" \
        || return 1
    KD_PROG_IDS=$(pid_prog_ids "$KD_PID")
}

# kd_scaled SECONDS: SECONDS stretched by E2E_TIME_SCALE (jobs take longer
# under emulation, in the kernel lane).
kd_scaled() {
    awk -v s="$1" -v k="${E2E_TIME_SCALE:-1}" 'BEGIN { printf "%g", s * k }'
}

# kd_begin TAG SAMPLE_TIME ARGS...: starts a sampling run and waits until
# capture is on, the window stretched by kd_scaled (KD_SAMPLE).  With
# --json among ARGS, a sample lasts at least 1 s: JSON mode prints nothing
# until a sample is dumped, so the start is read from the tool's capture
# state, polled with bpftool, which can miss a shorter sample altogether
# on a loaded machine.  Fails the check and returns 1 if it never starts.
kd_begin() {
    local tag=$1 sample=$2 started

    shift 2
    KD_FORMAT=text
    started="kd_wait_started 30"
    if [[ " $* " == *" --json "* ]]; then
        KD_FORMAT=json
        sample=$(awk -v t="$sample" 'BEGIN { print t < 1 ? 1 : t }')
        started="kd_wait_capture 1 30"
    fi
    KD_SAMPLE=$(kd_scaled "$sample")
    kd_start "$tag" --sample-time "$KD_SAMPLE" "$@"
    if ! $started; then
        wait_exit "$KD_PID" 5
        fail "$tag: kernel_delay starts sampling (exit $WAIT_RC, stderr:\
 $(head -c 400 "$KD_ERR" | tr '\n' ' '))"
        return 1
    fi
}

# kd_json_begin TAG SAMPLE_TIME ARGS...: kd_begin of a --json run.
kd_json_begin() {
    local tag=$1 sample=$2

    shift 2
    kd_begin "$tag" "$sample" --json "$@"
}

# kd_json_open TAG ARGS...: kd_json_begin of a run whose sample the test
# ends itself, with SIGINT (kd_interrupt), once its jobs are done: the
# window (an hour) cannot close before them, however long the test takes
# to see the capture begin and the jobs take to run (both stretch under
# emulation on a busy host: a 10 s window closed in the middle of a 0.5 s
# job in the kernel lane).
kd_json_open() {
    local tag=$1

    shift
    kd_json_begin "$tag" 3600 "$@"
}

# kd_interrupt TAG TIMEOUT_S: SIGINT to the tool, which ends its sample
# (reported) or its watch, then kd_finish: the end of a kd_json_open run,
# and of a --long-poll-events one (lp_end).
kd_interrupt() {
    kill -INT "$KD_PID" 2>/dev/null
    kd_finish "$1" "$2" "exit status after SIGINT"
}

# kd_finish TAG TIMEOUT_S [WHAT]: waits for the tool, checks that it
# exited 0 (WHAT names the check; its stderr as a note otherwise) and
# left nothing attached.
kd_finish() {
    wait_exit "$KD_PID" "$2"
    check_eq "$1: ${3:-kernel_delay exit status}" 0 "$WAIT_RC"
    if [[ $WAIT_RC != 0 ]]; then
        note "$1 stderr: $(head -c 600 "$KD_ERR" | tr '\n' ' ')"
    fi
    check_bpf_released "$1"
}

# kd_end: after the job of a kd_begin run: checks that the job ended inside
# the sample window, waits for the tool (kd_finish), checks the report's
# layout (text) or consistency (JSON), and makes it the current report
# (kd_parse, kd_json_use).
kd_end() {
    local tag=$KD_TAG job_end stop

    job_end=$(now_ns)
    if [[ $KD_FORMAT == text ]] && grep -q '^# Stop sampling' "$KD_OUT"; then
        fail "$tag: job ended inside the sample window (it ended after\
 '# Stop sampling'; use a longer --sample-time)"
    fi
    kd_finish "$tag" $((${KD_SAMPLE%.*} + 30))
    if [[ $KD_FORMAT == text ]]; then
        if kd_check_layout "$KD_OUT" "$KD_SAMPLE"; then
            pass "$tag: report layout"
        else
            fail "$tag: report layout: $LAYOUT_ERR"
        fi
        kd_parse "$KD_OUT"
        return
    fi
    if kd_json_check "$KD_OUT" "$KD_SAMPLE"; then
        pass "$tag: report consistency (JSON)"
    else
        fail "$tag: report consistency (JSON): $JSON_ERR"
    fi
    # The window's end, in UTC ("Z") to the microsecond, against the
    # clock read when the job had ended.
    stop=$(jq -r '.window.stop // empty' "$KD_OUT" 2>/dev/null | head -n 1)
    [[ -n $stop ]] && stop=$(date -d "$stop" +%s%N 2>/dev/null)
    if [[ -n $stop ]] && ((stop < job_end)); then
        fail "$tag: job ended inside the sample window (it ended after the\
 window's stop; use a longer --sample-time)"
    fi
    kd_json_use "$KD_OUT"
}

# kd_json_end: kd_end of a --json run.
kd_json_end() {
    kd_end
}

# kd_attached_job TAG JOB ARG...: runs kernel_delay with ARG... as TAG
# (kd_start), waits until its 10 programs are attached (JSON output has no
# "# Start sampling" line), has the main workload do JOB, waits for the
# tool to exit, and checks that it exited 0 with nothing left attached.
# Returns 1 when the tool did not attach.
kd_attached_job() {
    local tag=$1 job=$2

    shift 2
    kd_start "$tag" "$@"
    kd_wait_attached 10 || { fail "$tag: kernel_delay attaches"; return 1; }
    wl_cmd main "$job" || fail "$tag: job"
    kd_finish "$tag" 30
}

# kd_json_lines: how many samples (complete lines) the tool has printed.
kd_json_lines() {
    local n

    n=$(wc -l <"$KD_OUT")
    printf '%s' "$((n))"
}

# kd_json_complete: the JSON Lines the tool has printed so far, its
# complete lines only.  A record longer than stdio's buffer reaches the
# file in more than one write(), so a reader of a running tool's output
# can find its last line cut short (jq: "Unfinished string at EOF"); the
# file only grows, so its first N lines, N the newlines counted first
# (kd_json_lines), are whole.
kd_json_complete() {
    head -n "$(kd_json_lines)" "$KD_OUT"
}

# ---------------------------------------------------------------------------
# The current report's values, text or JSON, in the associative array R
# (read with r KEY).  kd_parse FILE fills it from a text report's thread
# blocks, kd_json_use FILE from one JSON sample (for the keys that both
# have; jt and js read the rest of it).  Keys (TID is a thread id; NAME a
# syscall or interrupt name with spaces turned into '_'):
#   tids                      all TIDs, in report order
#   tid.THREAD_NAME           TID of a thread name ("dup" if several; text)
#   TID.name                  thread name
#   TID.sections              e.g. "sys run ready sirq" (text)
#   TID.sys.list              syscall names, in report order
#   TID.sys.NAME.{number,count,total,max}
#   TID.sys.TOTAL.{count,total}
#   TID.lp.{count,avg,min,max}        LONG POLL
#   TID.run.{count,total,min,max}     THREAD RUN
#   TID.ready.{count,total,max}       THREAD READY
#   TID.stop.{count,total,max}        THREAD STOPPED
#   TID.hirq.list, TID.hirq.NAME.{count,total,max}, TID.hirq.TOTAL.* (text)
#   TID.sirq.list, TID.sirq.NAME.{vect,count,total,max}, TID.sirq.TOTAL.*
#                             (text)
# Numbers lose their thousands separators.  Only fixed columns are used, so
# the text parser works with mawk (no regex intervals).

# shellcheck disable=SC2016  # An awk program, not shell.
KD_PARSER='
function trim(s) {
    sub(/^ +/, "", s)
    sub(/ +$/, "", s)
    return s
}
function put(key, value) {
    print key " " value
}
function key(s) {
    gsub(/ /, "_", s)
    return s
}
BEGIN {
    suffix = " [SYSCALL STATISTICS]"
    sec_of["[LONG POLL STATISTICS]"] = "lp"
    sec_of["[THREAD RUN STATISTICS]"] = "run"
    sec_of["[THREAD READY STATISTICS]"] = "ready"
    sec_of["[THREAD STOPPED STATISTICS]"] = "stop"
    sec_of["[HARD IRQ STATISTICS]"] = "hirq"
    sec_of["[SOFT IRQ STATISTICS]"] = "sirq"
}
{
    line = $0
    gsub(/,/, "")
}
# Thread line: "%10d %-16s [SYSCALL STATISTICS]".
$1 ~ /^[0-9]+$/ && substr(line, length(line) - length(suffix) + 1) == suffix {
    tid = $1
    name = trim(substr(line, 12, length(line) - 11 - length(suffix)))
    tids = tids " " tid
    put(tid ".name", name)
    if (name in tid_of) {
        tid_of[name] = "dup"
    } else {
        tid_of[name] = tid
    }
    sec = "sys"
    sections[tid] = "sys"
    header = 1
    next
}
tid == "" { next }
/^ *$/ { next }
# Section header: 28 spaces and "[... STATISTICS]".
trim(line) in sec_of {
    sec = sec_of[trim(line)]
    sections[tid] = sections[tid] " " sec
    header = 1
    next
}
header { header = 0; next }
sec == "sys" {
    n = trim(substr($0, 29, 20))
    split(substr($0, 49), f, " ")
    if (n == "TOTAL( - poll):") {
        put(tid ".sys.TOTAL.count", f[1])
        put(tid ".sys.TOTAL.total", f[2])
    } else {
        n = key(n)
        list[tid, sec] = list[tid, sec] " " n
        put(tid ".sys." n ".number", f[1])
        put(tid ".sys." n ".count", f[2])
        put(tid ".sys." n ".total", f[3])
        put(tid ".sys." n ".max", f[4])
    }
    next
}
sec == "lp" || sec == "run" {
    put(tid "." sec ".count", $1)
    put(tid "." sec "." (sec == "lp" ? "avg" : "total"), $2)
    put(tid "." sec ".min", $3)
    put(tid "." sec ".max", $4)
    next
}
sec == "ready" || sec == "stop" {
    put(tid "." sec ".count", $1)
    put(tid "." sec ".total", $2)
    put(tid "." sec ".max", $3)
    next
}
sec == "hirq" || sec == "sirq" {
    n = trim(substr($0, 29, 20))
    split(substr($0, 49), f, " ")
    if (n == "TOTAL:") {
        put(tid "." sec ".TOTAL.count", f[1])
        put(tid "." sec ".TOTAL.total", f[2])
        next
    }
    n = key(n)
    list[tid, sec] = list[tid, sec] " " n
    i = 1
    if (sec == "sirq") {
        put(tid "." sec "." n ".vect", f[i++])
    }
    put(tid "." sec "." n ".count", f[i++])
    put(tid "." sec "." n ".total", f[i++])
    put(tid "." sec "." n ".max", f[i++])
    next
}
END {
    put("tids", substr(tids, 2))
    for (name in tid_of) {
        put("tid." name, tid_of[name])
    }
    for (t in sections) {
        put(t ".sections", sections[t])
    }
    for (k in list) {
        split(k, parts, SUBSEP)
        put(parts[1] "." parts[2] ".list", substr(list[k], 2))
    }
}'

# The same keys from one JSON sample.
# shellcheck disable=SC2016  # A jq program, not shell.
readonly KD_JSON_KEYS='
def k: gsub(" "; "_");
"tids \([.threads[].tid] | map(tostring) | join(" "))",
(.threads[] | (.tid | tostring) as $t
 | "\($t).name \(.name | gsub("\n"; "\\n"))",
   "\($t).sys.list \([.syscalls[].name | k] | join(" "))",
   (.syscalls[] | (.name | k) as $n
    | "\($t).sys.\($n).number \(.number)", "\($t).sys.\($n).count \(.count)",
      "\($t).sys.\($n).total \(.total_ns)", "\($t).sys.\($n).max \(.max_ns)"),
   "\($t).sys.TOTAL.count \(.syscalls_but_poll.count)",
   "\($t).sys.TOTAL.total \(.syscalls_but_poll.total_ns)",
   ((["run", "run"], ["ready", "ready"], ["stopped", "stop"],
     ["long_poll", "lp"]) as [$j, $s]
    | .[$j] | values | to_entries[]
    | (.key | sub("_ns$"; "") | sub("^average$"; "avg")) as $f
    | "\($t).\($s).\($f) \(.value)"))'

declare -A R=()
KD_JSON=

kd_parse() {
    local k v

    R=()
    while read -r k v; do
        R[$k]=$v
    done < <(awk "$KD_PARSER" "$1")
}

kd_json_use() {
    local k v

    KD_JSON=$1
    R=()
    while read -r k v; do
        R[$k]=$v
    done < <(jq -r "$KD_JSON_KEYS" "$1" 2>/dev/null)
}

# r KEY: a value of the current report, or nothing.
r() {
    printf '%s' "${R[$1]:-}"
}

# jt TID FILTER: FILTER applied to the object of thread TID in the current
# JSON sample, one raw value a line; nothing where the thread is missing or
# the value null.
jt() {
    jq -r --argjson tid "$1" \
        "first(.threads[] | select(.tid == \$tid)) | $2 | values" "$KD_JSON"
}

# js TID SYSCALL FIELD: FIELD (number, count, total_ns, max_ns) of
# thread TID's SYSCALL.
js() {
    jt "$1" ".syscalls[] | select(.name == \"$2\") | .$3"
}

# ---------------------------------------------------------------------------
# Report layout, line by line.  The exact strings below follow the
# reference's format strings: thread line "%10d %-16s [SYSCALL STATISTICS]",
# every other line indented by 28 spaces, number columns right-aligned with
# widths 6 (syscall NUMBER), 7 (VECT_NR), 10 (counts) and 16 (ns, with
# thousands separators), separated as the reference separates them.

readonly IND='                            '   # 28 spaces.
readonly HDR_TID='TID        THREAD           <RESOURCE SPECIFIC>'
HDR_DASH="---------- ---------------- $(printf '%076d' 0 | tr 0 -)"
readonly HDR_DASH
readonly HDR_SYS="${IND}NAME                 NUMBER       COUNT          TOTAL ns            MAX ns"
readonly HDR_LP="${IND}COUNT             AVERAGE ns            MIN ns            MAX ns"
readonly HDR_RUN="${IND}SCHED_CNT           TOTAL ns            MIN ns            MAX ns"
readonly HDR_READY="${IND}SCHED_CNT           TOTAL ns            MAX ns"
readonly HDR_STOP="${IND}STOP_CNT            TOTAL ns            MAX ns"
readonly HDR_HIRQ="${IND}NAME                       COUNT          TOTAL ns            MAX ns"
readonly HDR_SIRQ="${IND}NAME                 VECT_NR       COUNT          TOTAL ns            MAX ns"

# Section order, titles and column headers.
readonly SECTIONS=(lp run ready stop hirq sirq)
declare -A SEC_TITLE=(
    [lp]='[LONG POLL STATISTICS]' [run]='[THREAD RUN STATISTICS]'
    [ready]='[THREAD READY STATISTICS]' [stop]='[THREAD STOPPED STATISTICS]'
    [hirq]='[HARD IRQ STATISTICS]' [sirq]='[SOFT IRQ STATISTICS]')
declare -A SEC_HDR=(
    [lp]=$HDR_LP [run]=$HDR_RUN [ready]=$HDR_READY [stop]=$HDR_STOP
    [hirq]=$HDR_HIRQ [sirq]=$HDR_SIRQ)
readonly SOFTIRQ_NAMES=(hi timer net_tx net_rx block irq_poll tasklet sched
                        hrtimer rcu)

# Column patterns (ERE, for [[ =~ ]]).
readonly C_INT6='([ 0-9]{6})'
readonly C_INT7='([ 0-9]{7})'
readonly C_INT10='([ 0-9]{10})'
readonly C_NS16='([ 0-9,]{16})'
readonly C_NAME20='(.{20})'
# "@LOCAL_ISO_TIME (HH:MM:SS UTC)", microseconds optional (Python's
# isoformat() leaves them out when they are 0).
readonly HMS='[0-9]{2}:[0-9]{2}:[0-9]{2}'
readonly YMD='[0-9]{4}-[0-9]{2}-[0-9]{2}'
readonly TS_RE="@(${YMD}T$HMS(\\.[0-9]{6})?) \\(($HMS) UTC\\)\$"

LAYOUT_ERR=

# layout_error LINE_INDEX MESSAGE...: records the error and returns 1.
layout_error() {
    local i=$1

    shift
    LAYOUT_ERR="line $((i + 1)): $*: '${L[i]-<end of output>}'"
    return 1
}

# Field checks: a right-aligned integer, or ns with thousands separators.
is_int_field() {
    [[ $1 =~ ^\ *[0-9]+$ ]]
}

is_ns_field() {
    [[ $1 =~ ^\ *[0-9]{1,3}(,[0-9]{3})*$ ]]
}

# match STRING REGEX: like [[ STRING =~ REGEX ]], but the groups go to the
# array M, which the field checks below (that match too) do not overwrite.
M=()
match() {
    [[ $1 =~ $2 ]] || return 1
    M=("${BASH_REMATCH[@]}")
}

# pad N: N spaces.
pad() {
    printf '%*s' "$1" ''
}

# Strips spaces and commas.
num() {
    local v=${1//,/}
    printf '%s' "${v// /}"
}

# check_ts INDEX TITLE: the line is "TITLE @LOCAL (HH:MM:SS UTC)", and the
# UTC time is the local time converted.  Sets TS_EPOCH (seconds, fraction).
check_ts() {
    local i=$1 title=$2 utc

    match "${L[$i]}" "^$title $TS_RE" \
        || layout_error "$i" "expected '$title @TIME (HH:MM:SS UTC)'" \
        || return
    TS_EPOCH=$(date -d "${M[1]}" +%s.%N) \
        || layout_error "$i" "unparsable timestamp" || return
    utc=$(date -u -d "@$TS_EPOCH" +%H:%M:%S)
    [[ $utc == "${M[3]}" ]] \
        || layout_error "$i" "UTC time should be $utc" || return
}

# kd_check_layout FILE SAMPLE_TIME: checks the whole output of one
# time-mode sample.  Returns 1 with LAYOUT_ERR set on the first problem.
kd_check_layout() {
    local sample=$2 i=0 n state prev_name=''
    local t_start t_stop t_dump
    local -A seen_tid=()
    local -a L

    mapfile -t L <"$1"
    n=${#L[@]}
    LAYOUT_ERR=

    check_ts 0 '# Start sampling' || return 1
    t_start=$TS_EPOCH
    check_ts 1 '# Stop sampling' || return 1
    t_stop=$TS_EPOCH
    check_ts 2 '# Sample dump' || return 1
    t_dump=$TS_EPOCH
    # The window lasts the sample time (a little more is fine), and the
    # dump follows the stop.
    if ! awk -v a="$t_start" -v b="$t_stop" -v c="$t_dump" -v s="$sample" \
         'BEGIN { exit !(b - a >= s - 0.005 && b - a <= s + 0.5 && c >= b) }'
    then
        layout_error 1 "stop - start should be about $sample s, dump later"
        return 1
    fi
    [[ ${L[3]} == "$HDR_TID" ]] \
        || layout_error 3 "expected '$HDR_TID'" || return
    [[ ${L[4]} == "$HDR_DASH" ]] \
        || { layout_error 4 "expected 10, 16 and 76 dashes"; return 1; }

    i=5
    state=thread
    while ((i < n)); do
        case $state in
        thread)
            kd_check_thread || return 1
            state=after_block
            ;;
        after_block)
            [[ -z ${L[i]} ]] \
                || layout_error "$i" "expected a blank line or the end" \
                || return
            i=$((i + 1))
            state=after_blank
            ;;
        after_blank)
            if [[ ${L[i]} == "${IND}["*" STATISTICS]" ]]; then
                kd_check_section || return 1
                state=after_block
            elif [[ -z ${L[i]} ]]; then
                layout_error "$i" "two blank lines in a row"
                return 1
            elif [[ ${L[i]} == "# WARNING: "* ]]; then
                kd_check_warnings || return 1
                state=warnings
            else
                kd_check_thread || return 1
                state=after_block
            fi
            ;;
        esac
    done
    if [[ $state == after_blank ]]; then
        layout_error $((n - 1)) "blank line at the end of the report"
        return 1
    fi
}

# Checks the warnings that end a sample (the man page, OUTPUT: a map
# full, programs the kernel skipped, context switches not seen), from L[i]
# to the end: each a "# WARNING: " line and its "#          "
# continuations, one blank line between two.  Advances i to the end.
kd_check_warnings() {
    while ((i < n)); do
        [[ ${L[i]} == "# WARNING: "?* ]] \
            || layout_error "$i" "expected '# WARNING: ...'" || return
        i=$((i + 1))
        while ((i < n)) && [[ ${L[i]} == "#          "?* ]]; do
            i=$((i + 1))
        done
        if ((i < n)); then
            [[ -z ${L[i]} ]] && ((i + 1 < n)) \
                || layout_error "$i" "expected a blank line, then a warning" \
                || return
            i=$((i + 1))
        fi
    done
}

# Checks the thread line at L[i] and its syscall block; advances i.  Uses
# and updates prev_name, seen_tid and LAST_SEC of kd_check_layout.
kd_check_thread() {
    local tid name count_sum=0 total_sum=0 count total prev_total=''
    local re="^( *[0-9]+) (.{16,}) \\[SYSCALL STATISTICS\\]$"

    match "${L[i]}" "$re" && ((${#M[1]} == 10)) \
        || layout_error "$i" "expected a thread line, format" \
                                 "'%10d %-16s [SYSCALL STATISTICS]'" \
        || return
    tid=$(num "${M[1]}")
    name=${M[2]}
    if ((${#name} == 16)); then
        name="${name%"${name##*[! ]}"}"     # Strip the padding.
    fi
    [[ -n $name && $name != " "* && $name != *" " ]] \
        || layout_error "$i" "bad thread name" || return
    [[ -z ${seen_tid[$tid]:-} ]] \
        || layout_error "$i" "TID $tid reported twice" || return
    seen_tid[$tid]=1
    if [[ -n $prev_name && $prev_name > $name ]]; then
        layout_error "$i" "threads not sorted by name" \
                          "('$prev_name' before '$name')"
        return 1
    fi
    prev_name=$name
    LAST_SEC=-1

    i=$((i + 1))
    [[ ${L[i]:-} == "$HDR_SYS" ]] \
        || layout_error "$i" "expected the syscall column header" || return
    i=$((i + 1))
    re="^$IND$C_NAME20 $C_INT6  $C_INT10  $C_NS16  $C_NS16\$"
    while match "${L[i]:-}" "$re" && [[ ${M[1]} != "TOTAL( - poll):"* ]]; do
        [[ ${M[1]} != " "* ]] \
            || layout_error "$i" "syscall name not left-aligned" || return
        is_int_field "${M[2]}" && is_int_field "${M[3]}" \
            && is_ns_field "${M[4]}" && is_ns_field "${M[5]}" \
            || layout_error "$i" "bad number column" || return
        count=$(num "${M[3]}")
        total=$(num "${M[4]}")
        if [[ -n $prev_total ]] && ((total > prev_total)); then
            layout_error "$i" "syscalls not sorted by TOTAL ns"
            return 1
        fi
        prev_total=$total
        if [[ ${M[1]} != "$POLL_SYSCALL "* ]]; then
            count_sum=$((count_sum + count))
            total_sum=$((total_sum + total))
        fi
        i=$((i + 1))
    done
    re="^${IND}TOTAL\\( - poll\\):$(pad 5) $C_INT6  $C_INT10  $C_NS16\$"
    if match "${L[i]:-}" "$re"; then
        ((count_sum > 0)) \
            || layout_error "$i" "TOTAL line without non-poll syscalls" \
            || return
        [[ -z ${M[1]// /} ]] && is_int_field "${M[2]}" \
            && is_ns_field "${M[3]}" \
            || layout_error "$i" "bad TOTAL line columns" || return
        (($(num "${M[2]}") == count_sum
          && $(num "${M[3]}") == total_sum)) \
            || layout_error "$i" "TOTAL should be $count_sum, $total_sum" \
            || return
        i=$((i + 1))
    elif ((count_sum > 0)); then
        layout_error "$i" "missing 'TOTAL( - poll):' line"
        return 1
    fi
}

# Checks the section starting at L[i] (title line); advances i.
kd_check_section() {
    local title=${L[i]#"$IND"} sec='' idx k re count total max min avg
    local sum_count=0 sum_total=0 prev_total='' lines=0

    for k in "${!SECTIONS[@]}"; do
        if [[ $title == "${SEC_TITLE[${SECTIONS[k]}]}" ]]; then
            sec=${SECTIONS[k]}
            idx=$k
        fi
    done
    [[ -n $sec ]] || layout_error "$i" "unknown section" || return
    ((idx > LAST_SEC)) \
        || layout_error "$i" "section repeated or out of order" || return
    LAST_SEC=$idx
    i=$((i + 1))
    [[ ${L[i]:-} == "${SEC_HDR[$sec]}" ]] \
        || layout_error "$i" "expected the column header of $title" || return
    i=$((i + 1))

    case $sec in
    lp|run)
        re="^$IND$C_INT10  $C_NS16  $C_NS16  $C_NS16\$"
        match "${L[i]:-}" "$re" && is_int_field "${M[1]}" \
            && is_ns_field "${M[2]}" && is_ns_field "${M[3]}" \
            && is_ns_field "${M[4]}" \
            || layout_error "$i" "expected one $title data line" || return
        count=$(num "${M[1]}")
        total=$(num "${M[2]}")
        min=$(num "${M[3]}")
        max=$(num "${M[4]}")
        if [[ $sec == lp ]]; then
            avg=$total
            ((count >= 1 && min <= avg && avg <= max)) \
                || layout_error "$i" "need COUNT >= 1, MIN <= AVERAGE <= MAX" \
                || return
        else
            ((count >= 1 && min <= max && max <= total
              && total <= count * max && total >= count * min)) \
                || layout_error "$i" "inconsistent SCHED_CNT/TOTAL/MIN/MAX" \
                || return
        fi
        i=$((i + 1))
        ;;
    ready|stop)
        re="^$IND$C_INT10  $C_NS16  $C_NS16\$"
        match "${L[i]:-}" "$re" && is_int_field "${M[1]}" \
            && is_ns_field "${M[2]}" && is_ns_field "${M[3]}" \
            || layout_error "$i" "expected one $title data line" || return
        count=$(num "${M[1]}")
        total=$(num "${M[2]}")
        max=$(num "${M[3]}")
        ((count >= 1 && max <= total && total <= count * max)) \
            || layout_error "$i" "inconsistent COUNT/TOTAL/MAX" || return
        i=$((i + 1))
        ;;
    hirq|sirq)
        if [[ $sec == hirq ]]; then
            re="^$IND$C_NAME20  $C_INT10  $C_NS16  $C_NS16\$"
        else
            re="^$IND$C_NAME20 $C_INT7  $C_INT10  $C_NS16  $C_NS16\$"
        fi
        while match "${L[i]:-}" "$re" && [[ ${M[1]} != "TOTAL: "* ]]; do
            local -a c=("${M[@]}")
            [[ ${c[1]} != " "* ]] \
                || layout_error "$i" "name not left-aligned" || return
            if [[ $sec == sirq ]]; then
                is_int_field "${c[2]}" \
                    || layout_error "$i" "bad VECT_NR" || return
                k=$(num "${c[2]}")
                [[ $(num "${c[1]}") == "${SOFTIRQ_NAMES[k]:-}" ]] \
                    || layout_error "$i" "softirq name and VECT_NR differ" \
                    || return
                c=("${c[0]}" "${c[1]}" "${c[@]:3}")
            fi
            is_int_field "${c[2]}" && is_ns_field "${c[3]}" \
                && is_ns_field "${c[4]}" \
                || layout_error "$i" "bad number column" || return
            count=$(num "${c[2]}")
            total=$(num "${c[3]}")
            max=$(num "${c[4]}")
            ((count >= 1 && max <= total && total <= count * max)) \
                || layout_error "$i" "inconsistent COUNT/TOTAL/MAX" || return
            if [[ -n $prev_total ]] && ((total > prev_total)); then
                layout_error "$i" "lines not sorted by TOTAL ns"
                return 1
            fi
            prev_total=$total
            sum_count=$((sum_count + count))
            sum_total=$((sum_total + total))
            lines=$((lines + 1))
            i=$((i + 1))
        done
        ((lines > 0)) || layout_error "$i" "$title without data" || return
        if [[ $sec == hirq ]]; then
            re="^${IND}TOTAL:$(pad 14)  $C_INT10  $C_NS16\$"
        else
            re="^${IND}TOTAL:$(pad 14) $C_INT7  $C_INT10  $C_NS16\$"
        fi
        match "${L[i]:-}" "$re" \
            || layout_error "$i" "expected the TOTAL: line" || return
        local -a t=("${M[@]}")
        if [[ $sec == sirq ]]; then
            [[ -z ${t[1]// /} ]] \
                || layout_error "$i" "VECT_NR of TOTAL: must be blank" \
                || return
            t=("${t[0]}" "${t[@]:2}")
        fi
        is_int_field "${t[1]}" && is_ns_field "${t[2]}" \
            && (($(num "${t[1]}") == sum_count)) \
            && (($(num "${t[2]}") == sum_total)) \
            || layout_error "$i" "TOTAL: should be $sum_count, $sum_total" \
            || return
        i=$((i + 1))
        ;;
    esac
}


# ---------------------------------------------------------------------------
# A JSON sample's consistency.

# What a text report's layout check (kd_check_layout) checks beyond the
# format, checked on one JSON sample: the window lasts the sample time (a
# little more is fine; with SAMPLE_TIME 0, at most 0.5 s), each TID once,
# threads sorted by name; per thread, syscalls sorted by total time, and
# syscalls_but_poll (the text's "TOTAL( - poll)") their sum but poll's;
# COUNT, TOTAL, MIN and MAX consistent in each section; interrupts sorted by
# total time, each softirq's name that of its vector; and no warning, which
# would break a text report's layout.  One problem a line, none if right.
# shellcheck disable=SC2016  # A jq program, not shell.
readonly KD_JSON_CHECKS='
def nonincreasing(f): [.[] | f] as $v
    | all(range(1; $v | length); $v[. - 1] >= $v[.]);
def bad(cond; msg): if cond then msg else empty end;
def stat_ok: .count >= 1 and .max_ns <= .total_ns
             and .total_ns <= .count * .max_ns;
bad(.version != 2; "version \(.version), not 2"),
bad(.skipped; "the sample was skipped"),
(.window | bad(.duration_ns != .stop_ns - .start_ns;
               "window: duration_ns is not stop_ns - start_ns"),
           bad(.duration_ns / 1e9 < $s - 0.005 or .duration_ns / 1e9 > $s + 0.5;
               "window of \(.duration_ns) ns, expected about \($s) s")),
bad([.threads[].tid] | length != (unique | length); "a TID reported twice"),
bad([.threads[].name] != ([.threads[].name] | sort);
    "threads not sorted by name"),
(.threads[] | "thread \(.tid): " as $p
 | bad(.syscalls | nonincreasing(.total_ns) | not;
       $p + "syscalls not sorted by total_ns"),
   ([.syscalls[] | select(.name != $poll)] as $np
    | bad(.syscalls_but_poll != {count: ($np | map(.count) | add // 0),
                                 total_ns: ($np | map(.total_ns) | add // 0)};
          $p + "syscalls_but_poll is not the sum of the syscalls but poll")),
   (.long_poll | values
    | bad((.count >= 1 and .min_ns <= .average_ns
           and .average_ns <= .max_ns) | not;
          $p + "long_poll: need count >= 1, min <= average <= max")),
   (.run | values
    | bad((stat_ok and .min_ns <= .max_ns
           and .total_ns >= .count * .min_ns) | not;
          $p + "run: inconsistent count, total, min, max")),
   ((.ready, .stopped) | values
    | bad(stat_ok | not; $p + "ready or stopped: inconsistent count, total, max")),
   ((.hard_irqs, .soft_irqs)
    | bad(nonincreasing(.total_ns) | not;
          $p + "interrupts not sorted by total_ns"),
      (.[] | bad(stat_ok | not;
                 $p + "interrupt \(.name): inconsistent count, total, max"))),
   (.soft_irqs[] | bad(.name != $softirqs[.vector];
                       $p + "softirq \(.name) with vector \(.vector)"))),
(.warnings | bad(.map_full != {} or .recursion_misses != {}
                 or .upcall_module_unloaded; "warnings: \(.)")),
bad(.target_exited; "the target exited")'

# kd_json_check FILE SAMPLE_TIME: FILE holds exactly one sample, valid JSON,
# and KD_JSON_CHECKS finds nothing wrong.  Returns 1 with JSON_ERR set (the
# first problems) otherwise.
JSON_ERR=
kd_json_check() {
    local n softirqs

    JSON_ERR=
    n=$(jq -s length "$1" 2>/dev/null)
    if [[ $n != 1 ]]; then
        JSON_ERR="expected one JSON sample, got '${n:-no JSON}':\
 $(head -c 200 "$1" | tr '\n' ' ')"
        return 1
    fi
    softirqs=$(printf '"%s",' "${SOFTIRQ_NAMES[@]}")
    JSON_ERR=$(jq -r --argjson s "$2" --argjson softirqs "[${softirqs%,}]" \
               --arg poll "$POLL_SYSCALL" "$KD_JSON_CHECKS" "$1" 2>&1 |
               head -n 3 | paste -sd ';' -)
    [[ -z $JSON_ERR ]]
}

# ---------------------------------------------------------------------------
# Several samples in one output (trigger mode, --sample-count).

# kd_split_samples FILE: splits a text output into FILE.1, FILE.2, ..., one
# per sample, each from its "# Start sampling" line to the line before the
# next one (skipped samples included); sets N_SAMPLES.
kd_split_samples() {
    rm -f "$1".[0-9]*
    N_SAMPLES=$(awk -v out="$1" '
        /^# Start sampling/ { n++ }
        n { print > (out "." n) }
        END { print n + 0 }' "$1")
}

# kd_json_split FILE: the same for JSON Lines, one sample a line.
kd_json_split() {
    rm -f "$1".[0-9]*
    N_SAMPLES=$(awk -v out="$1" '{ print > (out "." NR) } END { print NR }' \
                    "$1")
}

# ---------------------------------------------------------------------------
# Checks several scenarios share, on the current report (text or JSON).

# check_present TAG THREAD TID: the report has a block for TID, named THREAD.
check_present() {
    check_eq "$1: $2 (TID $3) reported under its name" "$2" "$(r "$3.name")"
}

# check_syscall_set TAG THREAD TID NAME...: exactly these syscalls.
check_syscall_set() {
    local tag=$1 thread=$2 tid=$3

    shift 3
    check_eq "$tag: $thread syscalls" "$(printf '%s\n' "$@" | sort | xargs)" \
             "$(r "$tid.sys.list" | xargs -n 1 | sort | xargs)"
}

# check_syscall TAG THREAD TID NAME COUNT: COUNT calls of NAME, with its
# syscall number.
check_syscall() {
    local tag=$1 thread=$2 tid=$3 name=$4

    check_eq "$tag: $thread $name COUNT" "$5" "$(r "$tid.sys.$name.count")"
    check_eq "$tag: $thread $name NUMBER" "${NR[$name]}" \
             "$(r "$tid.sys.$name.number")"
}

# check_absent TAG ID THREAD...: idle threads do not appear at all.
check_absent() {
    local tag=$1 id=$2 thread tid

    shift 2
    for thread in "$@"; do
        tid=${WL_TID[$id:$thread]}
        check_eq "$tag: idle $thread (TID $tid) not reported" "" \
                 "$(r "$tid.name")"
    done
}

# check_owned TAG PID: every TID in the report is a thread of PID.
check_owned() {
    local tag=$1 pid=$2 tid others=''

    for tid in $(r tids); do
        [[ -e /proc/$pid/task/$tid ]] || others+=" $tid"
    done
    check_eq "$tag: all reported TIDs are threads of PID $pid" "" "${others# }"
}

# Tolerance of THREAD RUN/READY totals against the schedstat deltas.  The
# tool timestamps context switches at the sched_switch tracepoint, schedstat
# with the run-queue clock read a little earlier in __schedule(); measured
# here, that moves 2 to 3.5 us per timeslice from READY to RUN.  So allow
# SCHED_BASE_NS plus SCHED_SLICE_NS per timeslice, but never more than the
# larger of SCHED_MAX_PCT percent and SCHED_MAX_FLOOR_NS.  Under emulation
# (the kernel lane) that code runs about a hundred times slower: the lane
# sets E2E_SCHED_SLICE_NS and E2E_SCHED_MAX_FLOOR_NS accordingly.
SCHED_BASE_NS=$MS
SCHED_SLICE_NS=${E2E_SCHED_SLICE_NS:-5000}
SCHED_MAX_PCT=2
SCHED_MAX_FLOOR_NS=${E2E_SCHED_MAX_FLOOR_NS:-$((2 * MS))}

# sched_tolerance TRUTH SLICES: see SCHED_BASE_NS.
sched_tolerance() {
    local tol=$((SCHED_BASE_NS + $2 * SCHED_SLICE_NS))
    local max=$(($1 * SCHED_MAX_PCT / 100))

    ((max < SCHED_MAX_FLOOR_NS)) && max=$SCHED_MAX_FLOOR_NS
    ((tol > max)) && tol=$max
    printf '%s' "$tol"
}

# run_tolerance BEFORE AFTER STEAL_TICKS: the tolerance of a RUN total, or
# of a time measured by the same clock reads, against the run time of the
# schedstat lines BEFORE and AFTER ("run wait timeslices time"): as many
# timeslices as they count, and the steal time meanwhile (left out of
# schedstat's run time, not out of a wall-clock measurement).
run_tolerance() {
    local r0 p0 r1 p1

    read -r r0 _ p0 _ <<<"$1"
    read -r r1 _ p1 _ <<<"$2"
    printf '%s' \
        $(($(sched_tolerance $((r1 - r0)) $((p1 - p0))) \
           + $(steal_bound_ns "$3")))
}

# check_sched TAG THREAD TID BEFORE AFTER STEAL_TICKS: THREAD RUN and READY
# against the schedstat deltas.  The thread was blocked when both schedstat
# snapshots were taken, and all its runs happened inside the sample window,
# so the tool must have seen every one of them: as many runs, and as many
# waits, as timeslices.  Hypervisor steal time is left out of schedstat's run
# time but not out of a wall-clock measurement, so steal during the run
# widens the RUN tolerance.  Sets LOST_SWITCH if the tool saw fewer
# timeslices than the kernel counted (see run_with_retry).
LOST_SWITCH=0
BAD_TRUTH=0
check_sched() {
    local tag=$1 thread=$2 tid=$3 steal_ns=$(($6 * 10 * MS))
    local r0 w0 p0 t0 r1 w1 p1 t1 slices runs missed line t in
    local failed=$TEST_FAILED

    read -r r0 w0 p0 t0 <<<"$4"
    read -r r1 w1 p1 t1 <<<"$5"
    slices=$((p1 - p0))
    # The truth itself must hold: run + wait within the time between the
    # two reads (seen broken once under emulation: a 45 s run-queue wait
    # in a job of a second).  Such a run is made again (run_with_retry).
    if ((r1 - r0 + w1 - w0 > t1 - t0 + MS)); then
        note "$tag: $thread's schedstat grew by $((r1 - r0 + w1 - w0)) ns" \
             "in $((t1 - t0)) ns: the ground truth is broken"
        BAD_TRUTH=1
    fi
    # Nor may it miss a timeslice the kernel's tracer saw begin.  It does:
    # schedstat queues a preempted task again only if its state is still
    # TASK_RUNNING, so a thread preempted between setting its state to
    # sleep and calling schedule() (R+ in ftrace; common on PREEMPT_RT,
    # seen on 6.12-rt: preempted by rcuc, run again 0.7 ms later, asleep
    # at once) gets its CPU back with no timeslice counted and that wait
    # left out of run_delay.  Such a run is made again too.
    read -r t in <<<"$SLEEP_MOVES_IN"
    if [[ $t == "$tid" ]] && ((in != slices)); then
        note "$tag: ftrace saw $thread switched in $in times," \
             "schedstat counted $slices timeslices: the ground truth is" \
             "broken"
        BAD_TRUTH=1
    fi
    SLEEP_MOVES_IN=
    ((steal_ns > 0)) && note "$tag: $steal_ns ns of steal time during the run"
    # Steal only adds to the tool's figure.
    check_close "$tag: $thread THREAD RUN TOTAL ns vs schedstat" \
                $((r1 - r0)) "$(r "$tid.run.total")" \
                "$(sched_tolerance $((r1 - r0)) $slices)" \
                "$(run_tolerance "$4" "$5" "$6")"
    check_close "$tag: $thread THREAD READY TOTAL ns vs schedstat" \
                $((w1 - w0)) "$(r "$tid.ready.total")" \
                "$(sched_tolerance $((w1 - w0)) $slices)"
    runs=$(r "$tid.run.count")
    check_eq "$tag: $thread THREAD RUN SCHED_CNT = schedstat timeslices" \
             $slices "$runs"
    check_eq "$tag: $thread THREAD READY SCHED_CNT = schedstat timeslices" \
             $slices "$(r "$tid.ready.count")"
    # What the kernel's own tracer saw of the thread, when it was watched
    # (sleep_moves_begin) and something above failed: the evidence.
    if ((TEST_FAILED > failed)) && [[ -s $SLEEP_MOVES_TRACE ]]; then
        note "$tag: $thread's scheduler events (ftrace, schedstat before:" \
             "$4, after: $5):"
        while read -r line; do
            note "  $line"
        done <"$SLEEP_MOVES_TRACE"
    fi
    SLEEP_MOVES_TRACE=
    if is_uint "$runs" && ((runs < slices)); then
        LOST_SWITCH=1
        # Timeslices the tool did not count: it must at least say how
        # many switches it did not see.
        missed=$(switches_reported)
        if ((missed >= slices - runs)); then
            pass "$tag: $thread's $((slices - runs)) unseen switches\
 reported ($missed in all)"
        else
            fail "$tag: $thread's unseen switches reported" \
                 ">= $((slices - runs))" "$missed"
        fi
    fi
}

# switches_reported: how many context switches the last run (KD_OUT, text
# or JSON) said its eBPF programs did not see, over all its samples.
switches_reported() {
    if [[ $(head -c 1 "$KD_OUT") == "{" ]]; then
        jq -s 'map(.warnings.switches_missed // 0) | add // 0' "$KD_OUT"
    else
        sed -n "s/^# WARNING: kernel_delay's eBPF programs did not see \([0-9]*\) context switch\(es\)\?$/\1/p" \
            "$KD_OUT" | awk '{ n += $1 } END { print n + 0 }'
    fi
}

# run_with_retry SCENARIO: runs a scenario that compares with schedstat,
# and runs it again, up to E2E_ATTEMPTS times in all (only the last attempt
# counts; the failures of the others are shown as notes), when its truth
# was broken (BAD_TRUTH: schedstat inconsistent with the clock, or a wait
# it leaves out), or when the tool saw fewer timeslices than the kernel
# counted and said that the kernel skipped its programs (recursion misses:
# the kernel's doing, which the tool reports).  A timeslice lost with no
# such warning is the tool's, and fails.  (Switches the kernel makes
# without the sched_switch tracepoint, as the development machine's does
# for those away from one process's threads, are no reason: the tool
# times them from the kernel's own counts; see the man page, OUTPUT.)
run_with_retry() {
    local fn=$1 log=$WORKDIR/$1.log attempt line
    local passed=$TEST_PASSED failed=$TEST_FAILED
    local -a errors=("${E2E_ERRORS[@]}")

    for ((attempt = 1; attempt <= E2E_ATTEMPTS; attempt++)); do
        LOST_SWITCH=0
        BAD_TRUTH=0
        "$fn" >"$log"
        if ((BAD_TRUTH && attempt < E2E_ATTEMPTS)); then
            grep '^# ' "$log" | while read -r line; do note "$line"; done
            note "$fn: schedstat was inconsistent; running it again"
            TEST_PASSED=$passed
            TEST_FAILED=$failed
            E2E_ERRORS=("${errors[@]}")
            continue
        fi
        if ((LOST_SWITCH && attempt < E2E_ATTEMPTS
              && $(misses_reported) > 0)); then
            while read -r line; do
                [[ $line == FAIL:* ]] && note "(attempt $attempt) $line"
            done <"$log"
            note "$fn: kernel_delay saw fewer timeslices than schedstat" \
                 "counted, and said the kernel skipped its programs" \
                 "(recursion misses); running it again"
            TEST_PASSED=$passed
            TEST_FAILED=$failed
            E2E_ERRORS=("${errors[@]}")
            continue
        fi
        cat "$log"
        break
    done
}


# misses_reported: in how many samples of the last run (KD_OUT, text or
# JSON) the tool reported that the kernel skipped its programs.
misses_reported() {
    if [[ $(head -c 1 "$KD_OUT") == "{" ]]; then
        jq -s '[.[] | select(.warnings.recursion_misses != {})] | length' \
            "$KD_OUT"
    else
        grep -c "skipped kernel_delay's eBPF programs" "$KD_OUT"
    fi
}

# ---------------------------------------------------------------------------
# Preconditions.

preflight() {
    local kd=${1:-./kernel_delay}

    ((EUID == 0)) \
        || abort "the end-to-end tests must run as root (they load eBPF)"
    KD=$(realpath -e "$kd" 2>/dev/null)
    if [[ -z $KD || ! -x $KD ]]; then
        abort "no executable kernel_delay at '$kd' (run 'make' first)"
    fi
    command -v bpftool >/dev/null \
        || abort "bpftool is needed to check that BPF programs are released"
    command -v jq >/dev/null || abort "jq is needed to read --json reports"
    bpftool prog show >/dev/null 2>&1 \
        || abort "eBPF is not usable here: 'bpftool prog show' fails"
    [[ -d /sys/kernel/tracing/events/raw_syscalls \
       || -d /sys/kernel/debug/tracing/events/raw_syscalls ]] \
        || abort "tracefs is not mounted" \
                 "(mount -t tracefs nodev /sys/kernel/tracing)"
    (($(nproc) >= 2)) || abort "the contention and interrupt tests need 2 CPUs"

    if [[ ! -x $WORKLOAD || $HERE/workload.c -nt $WORKLOAD ]]; then
        gcc -O2 -g -Wall -Wextra -Werror -fno-omit-frame-pointer -pthread \
            -o "$WORKLOAD" "$HERE/workload.c" \
            || abort "cannot build $WORKLOAD"
    fi

    WORKDIR=$(mktemp -d /tmp/kd-e2e.XXXXXX) || abort "mktemp failed"
    nap_init "$WORKDIR/nap"
}

# Syscall numbers of this architecture, from the C library's headers.
syscall_nr() {
    echo '#include <sys/syscall.h>' | gcc -E -dM - 2>/dev/null \
        | awk -v n="__NR_$1" '$1 == "#define" && $2 == n { print $3 }'
}
