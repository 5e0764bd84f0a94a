#!/bin/bash
# bench/run.sh: kernel_delay against the reference kernel_delay.py, side by
# side, in the same run, on this machine.  Run by "make bench" (which
# builds ./kernel_delay and the helpers in bench/build/ first), as root.
#
# Usage: bench/run.sh [-q|--quick] [--ref-5000-timeout S] [--only LIST]
#   --quick               3 runs instead of 5 for ours, 1 for the reference,
#                         no 5,000-thread run of the reference, 2 syscall
#                         event runs of each tool instead of 3 and 80 cost
#                         rounds instead of 150.
#   --ref-5000-timeout S  time limit of the reference's 5,000-thread run
#                         (default 30; 0 skips it).
#   --only LIST           only these figures, e.g. "1,4" (5 comes with 2);
#                         the table is printed, results.txt left alone.
# KD_BENCH_QUIET_BUDGET (default 45) caps the seconds spent in all waiting
# for the machine to be quiet; KD_REFERENCE names the reference script.
#
# The table goes to standard output and, with the raw value of every run,
# to bench/results.txt (overwritten); progress goes to standard error.
# Exit status: 0 when every figure could be measured (whatever the targets'
# PASS/FAIL say: this is a measurement tool), 1 when one could not be made
# (ours failed to run, the reference crashed, a helper failed, another
# tracer sat on the syscall hooks during a cost measurement, another
# benchmark is running), 2 on bad usage.  Ours' -s is the exception: when
# ours refuses it, its figures read "not supported yet", and when it fails
# it is noted, not a failure.  A reference that overruns its time limit
# is a figure ("timeout >X s"), not a failure.
#
# Both tools always get the same target process, the same options (but
# ours' --max-threads at 10,000 threads, see 2.) and --skip-upcall-stats
# (the reference dies without it where there are no kprobes).  The
# reference runs as "/usr/bin/python3 kernel_delay.py".
# Each tool runs under bench/build/runcmd, which notes CLOCK_REALTIME just
# before fork() ("launch") and when the process has exited ("exit", seen
# through a pidfd), and its peak RSS (wait4()'s ru_maxrss).  The times of
# the "# Start sampling", "# Stop sampling" and "# Sample dump" lines are
# the timestamps the tools print in those lines (microseconds, the same
# clock), not the times the lines were read, as the reference's output is
# block-buffered.  Medians are over the runs; each tool has one untimed
# warm-up run first.  Ours runs from a copy of ./kernel_delay taken at the
# start, so that a rebuild during the run changes nothing.  The figures:
#
# 1. Start-up, against an idle target (bench/build/threads 0), with
#    --sample-time 0.1, 5 runs of each tool alternately:
#    - launch to "# Start sampling": process start, compile, load and
#      attach, until sampling starts;
#    - whole run: launch to exit;
#    - "# Sample dump" to exit with no thread to report: the fixed cost of
#      reporting and tearing down (detaching, unloading, interpreter exit).
#    Target: ours at most 1/3 of the reference's launch to sampling.
#
# 2. Report time, against bench/build/threads N SLEEP (N threads, each
#    making 3 getppid() and a write() then sleeping SLEEP ms, for ever), for
#    N = 100, 1,000, 5,000 and 10,000.  SLEEP is 50 ms x max(1, N/1,000),
#    so that the target makes about 20,000 wake-ups/s at every size from
#    1,000 threads up (2,000 at 100): with 50 ms at every size, 5,000
#    threads made 100,000 wake-ups/s and 10,000 made 200,000, which
#    saturated this 2-core machine, and the wall-clock report time then
#    measured the machine (10,000 threads: 4 to 95 s of wall time for
#    0.23 to 0.28 s of CPU).  --sample-time is max(0.5, 1.2 x SLEEP) s, so
#    that every thread runs in every sample: 0.5 s up to 5,000 threads,
#    0.6 s at 10,000.  Both tools get the same target and options; ours
#    also gets --max-threads 16384 at 10,000 (its default, 8,192, is too
#    small there; the smaller sizes keep the default, so that their
#    figures stay comparable with earlier runs).
#    - ours, "-D line": what ours says with -D 32 on standard error,
#      "kernel_delay: sample of N threads read and reported in X ms (Y ms
#      of CPU)": X is the wall time from the "# Sample dump" line to the
#      report written (reading the maps, grouping, formatting, writing),
#      Y the CPU time (user + system) the process spent on it, which the
#      rest of the machine does not change;
#    - both, "dump to exit": from the "# Sample dump" timestamp to process
#      exit, which adds the tear-down (see 1.) to the report;
#    - per thread: X and Y over N, in microseconds; the growth of the CPU
#      time per thread from 1,000 threads to 5,000 and to 10,000 is x1.0
#      when the cost is linear (x5 and x10 if quadratic).
#    Ours: 5 runs per N after a warm-up.  The reference: 3 runs at 100
#    threads, 1 at 1,000 (time limit 240 s), 1 at 5,000 with a time limit
#    of 30 s from launch (its report is quadratic: it would take about 25
#    times its 1,000-thread time), none at 10,000 (it has no
#    --max-threads, and its 5,000-thread run already times out): "not
#    run"; "timeout >X s" means it was still reporting X s after its "#
#    Sample dump" line and was interrupted.  The table also gives how many
#    threads each report showed.
#    Targets: wall time (X) at 1,000 threads < 50 ms and at 5,000 < 250
#    ms; CPU time per thread (Y / N) at 5,000 and at 10,000 threads at
#    most 1.2 times the 1,000-thread figure.
#
# 3. Syscall events (-s 0 --sample-time 1.5), against bench/build/spin -t
#    0.5: one thread, pinned to CPU 1, that calls getppid() as fast as it
#    can for 0.5 s once sampling has started (the tool, pinned to CPU 0,
#    has printed "# Start sampling"; the reference runs with python3 -u
#    here so that the line is seen in time, which changes nothing in its
#    event loop).  Two variants, each its own block of the table: without
#    stacks (--stack-trace-size 0) and with them (the default
#    --stack-trace-size, so that each event also walks the kernel and user
#    stacks).  Figures: the spinner's rate while traced (calls/s, its own
#    count and clock: how much the tracer slows the traced process), the
#    events the tool printed in "# SYSCALL EVENTS" and the events it says
#    it dropped ("Not all events were captured, N were dropped"), and
#    events consumed per second = events printed / 0.5 s burst.  The ring
#    buffer (1024 pages, 4 MiB) absorbs about 87,000 events; the burst is
#    about 30 times that, so this is a sustained rate.  A burst rather
#    than an endless spinner: against an endless one the reference never
#    ends its sample (its ring_buffer_poll() never returns while events
#    keep coming) and grows without bound.  3 runs of each tool per
#    variant (2 with --quick), interleaved (ours, the reference, ours,
#    ...) so that a slow spell of the machine falls on both; medians over
#    each tool's runs.  When ours does not support -s, its figures read
#    "not supported yet".  Targets, for each variant: the spinner's rate
#    under ours at least its rate under the reference (ratio >= 1.00), and
#    no event dropped by ours with every call reported (events >= calls),
#    in every run.
#
# 4. Added cost per syscall, measured by bench/build/abcost (see its
#    comment), pinned to CPU 1: it times 10,000 syscall(SYS_getppid) in its
#    own CPU time (CLOCK_THREAD_CPUTIME_ID: the eBPF programs run in its
#    syscalls count, time given to other processes does not), then 500
#    page faults, which enter the kernel without a syscall and so run no
#    syscall hook: how quick the machine is at that moment.  This VM has
#    quick and slow spells, from a fraction of a second to several seconds
#    long, in which a syscall costs up to 1.5 times as much, and an
#    attached classic tracepoint twice as much.  Measuring one tracer after
#    the other, seconds apart, mostly measures which spells each fell in;
#    so abcost interleaves every variant a few milliseconds apart: each of
#    150 rounds (80 with --quick) attaches, measures and detaches every
#    variant once, in a new random order.
#    The tools' own programs are measured: each tool is started in turn
#    (pinned to CPU 0, --sample-time 600 --skip-upcall-stats), and once it
#    samples, abcost takes a reference to its two programs on sys_enter and
#    sys_exit (as "bpftool perf show" lists them) and the tool is killed
#    with SIGKILL, so that programs and maps stay exactly as the tool left
#    them while sampling.  abcost then attaches them as the tool did.
#    A measurement is quick when its page faults took at most 1.12 times
#    the 5th percentile of the figure's.  Each figure is the median per
#    call with the variant attached - the median with nothing attached,
#    both over the quick measurements: the state closest to a quiet
#    bare-metal machine.  The targets apply to these.  The same figures
#    over all measurements follow, for information.
#    When a variant has fewer than 40 quick measurements, another 150
#    rounds follow (80 with --quick), up to 3 batches in all.  The syscall
#    hooks are checked (bpftool perf show) before and after each batch:
#    when another process had eBPF programs there, the batch is left out
#    and made again (3 times at most); a figure with no batch left is a
#    failure.
#    Variants:
#    (a) ours / the reference tracing another process (the idle target):
#        the cost a tracer puts on every other process of the host;
#    (b) ours / the reference tracing abcost itself;
#    floor: two eBPF programs that return 0 at once, on the raw
#        tracepoints sys_enter and sys_exit (the hooks ours uses), and the
#        same on the classic tracepoints raw_syscalls:sys_enter/sys_exit
#        (the ones the reference uses);
#    least pid check: two programs on the raw tracepoints that compare the
#        current process with the target and return, the least any program
#        that tells the target from other processes can do; beside (a) of
#        the reference, the lowest ratio a raw-tracepoint tool can reach.
#    Targets: (a) ours at most 0.6 x the reference's, and at most 1.3 x
#    the raw-tracepoint floor.
#
# 5. Peak memory: maximum RSS of each tool over its whole run for a 0.5 s
#    sample of the 1,000-thread target (the runs of 2.; ours: median).
#
# The header names the machine and how busy it was before the run: CPU
# busy over one second from /proc/stat and the load average.  Before each
# figure, the script waits (45 s in all at most) for the machine to be
# quiet: no eBPF program on the syscall hooks and CPUs less than 25% busy
# (its own processes are idle then); a "note:" line names each figure
# measured on a machine that was not.  Figures from a busy machine are
# noisier.  Only one benchmark runs at a time (flock on
# /run/lock/kernel_delay-bench.lock).

set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/bench/build
KD=$ROOT/kernel_delay
REF=${KD_REFERENCE:-/work/shared/reference/kernel_delay.py}
PY=/usr/bin/python3
RESULTS=$ROOT/bench/results.txt

RUNS=5              # runs of ours, and of the reference where it is quick
REF_RUNS_100=3      # reference, 100 threads
REF_TIMEOUT_1000=240
REF_TIMEOUT_5000=30
EV_RUNS=3           # 3.: runs of each tool per variant, interleaved
REP_BIG=5000        # 2.: ours gets --max-threads REP_MAX_THREADS above this
REP_MAX_THREADS=16384
COST_ROUNDS=150     # 4.: rounds over all the variants, each shuffled
COST_CALLS=10000    # 4.: calls per measurement
COST_PAGES=500      # 4.: page faults per measurement
BURST=0.5
TOOL_CPU=0
SPIN_CPU=1
ONLY=,1,2,3,4,5,

usage() {
    sed -n '2,/progress goes to standard error/{s/^# \{0,1\}//;p}' "$0"
}

while [ $# -gt 0 ]; do
    case $1 in
    -q|--quick)
        RUNS=3; REF_RUNS_100=1; REF_TIMEOUT_5000=0
        EV_RUNS=2; COST_ROUNDS=80
        ;;
    --only)
        [ $# -ge 2 ] && [[ $2 =~ ^[1-5](,[1-5])*$ ]] || { usage >&2; exit 2; }
        ONLY=,$2,; shift
        ;;
    --ref-5000-timeout)
        [ $# -ge 2 ] && [[ $2 =~ ^[0-9]+$ ]] || { usage >&2; exit 2; }
        REF_TIMEOUT_5000=$2; shift
        ;;
    -h|--help)
        usage; exit 0
        ;;
    *)
        usage >&2; exit 2
        ;;
    esac
    shift
done

want() { [[ $ONLY == *,$1,* ]]; }

# ---------------------------------------------------------------------------
# Processes, clean-up.

# One benchmark at a time: two would measure each other.
LOCK=/run/lock/kernel_delay-bench.lock
[ -d /run/lock ] || LOCK=/tmp/kernel_delay-bench.lock
exec {LOCK_FD}> "$LOCK" || exit 1
if ! flock -n "$LOCK_FD"; then
    echo "bench: another kernel_delay benchmark is running ($LOCK)" >&2
    exit 1
fi

WORK=$(mktemp -d /tmp/kd-bench.XXXXXX) || exit 1
declare -A PROCS=()     # pid -> what, for every process still running
SPIN_PID=
T0=$EPOCHREALTIME

track() { PROCS[$1]=$2; }
untrack() { unset "PROCS[$1]"; }

# Stops every process this script started and still runs: SIGTERM (runcmd
# passes it on to its command, then escalates), then SIGKILL after 12 s.
cleanup() {
    local pid t
    trap - EXIT INT TERM HUP
    if [ -n "$SPIN_PID" ]; then
        PROCS[$SPIN_PID]=spinner
    fi
    for pid in "${!PROCS[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    for t in $(seq 120); do
        local alive=0
        for pid in "${!PROCS[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive=1
        done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for pid in "${!PROCS[@]}"; do
        kill -KILL "$pid" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT TERM HUP

log() {
    printf '[%6.1fs] %s\n' "$(awk -v a="$T0" -v b="$EPOCHREALTIME" \
        'BEGIN { print b - a }')" "$*" >&2
}

FAILED=()
NOTES=()
fail() { FAILED+=("$*"); log "MEASUREMENT FAILED: $*"; }
note() { NOTES+=("$*"); log "note: $*"; }

# ---------------------------------------------------------------------------
# Arithmetic and formatting (awk: bash has no floating point).

calc() { awk "BEGIN { printf \"%.9f\", $* }"; }

median() {
    [ $# -gt 0 ] || return 1
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { if (NR % 2) { printf "%.9f", v[(NR + 1) / 2] }
              else { printf "%.9f", (v[NR / 2] + v[NR / 2 + 1]) / 2 } }'
}

isnum() { [[ ${1:-} =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; }

# fmt DECIMALS SCALE VALUE: VALUE * SCALE with DECIMALS, or VALUE itself
# when it is not a number ("-", "timeout >60 s", ...).
fmt() {
    if isnum "${3:-}"; then
        awk -v d="$1" -v s="$2" -v v="$3" 'BEGIN { printf "%.*f", d, v * s }'
    else
        printf '%s' "${3:--}"
    fi
}

# Thousands separators for an integer.
commas() {
    isnum "${1:-}" || { printf '%s' "${1:--}"; return; }
    printf '%.0f' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'
}

ratio() {
    if isnum "${1:-}" && isnum "${2:-}" \
            && awk -v b="$2" 'BEGIN { exit !(b != 0) }'; then
        awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'
    else
        printf -- '-'
    fi
}

# verdict EXPR: PASS when the awk expression holds, FAIL when not, "n/a"
# when a figure is missing.
verdict() {
    local expr=$1; shift
    local v
    for v in "$@"; do
        isnum "$v" || { printf 'n/a'; return; }
    done
    if awk -v a="${1:-0}" -v b="${2:-0}" -v c="${3:-0}" \
            "BEGIN { exit !($expr) }"; then
        printf 'PASS'
    else
        printf 'FAIL'
    fi
}

# ---------------------------------------------------------------------------
# Running tools.

# Epoch seconds of the first "# LABEL @ISO..." line of FILE.
ts_line() {
    local iso
    iso=$(grep -m1 -- "^# $2 @" "$1" 2>/dev/null |
          sed -n 's/^[^@]*@\([^ ]*\) .*/\1/p')
    [ -n "$iso" ] || return 1
    date -d "$iso" +%s.%N
}

# Reads a runcmd result file into R_LAUNCH, R_EXIT, R_STATUS, R_RSS_KB,
# R_TIMEOUT.
parse_res() {
    local line
    line=$(cat "$1" 2>/dev/null)
    R_LAUNCH='' R_EXIT='' R_STATUS='' R_RSS_KB='' R_TIMEOUT=''
    local re='launch=([0-9.]+) exit=([0-9.]+) status=([0-9]+)'
    re+=' maxrss_kb=([0-9]+) timeout=([01])'
    [[ $line =~ $re ]] || return 1
    R_LAUNCH=${BASH_REMATCH[1]}
    R_EXIT=${BASH_REMATCH[2]}
    R_STATUS=${BASH_REMATCH[3]}
    R_RSS_KB=${BASH_REMATCH[4]}
    R_TIMEOUT=${BASH_REMATCH[5]}
}

# start_bg NAME TIMEOUT CMD...: starts CMD under runcmd in the background
# (stdout NAME.out, stderr NAME.err, result NAME.res in $WORK); BG_PID is
# runcmd's pid.
start_bg() {
    local name=$1 timeout=$2
    shift 2
    "$B/runcmd" -t "$timeout" -o "$WORK/$name.out" -e "$WORK/$name.err" \
        -- "$@" > "$WORK/$name.res" 2>> "$WORK/runcmd.log" &
    BG_PID=$!
    track "$BG_PID" "$name"
}

# finish_bg PID NAME: waits for runcmd PID and parses its result.  Returns
# non-zero when there is no result.
finish_bg() {
    wait "$1"
    untrack "$1"
    parse_res "$WORK/$2.res"
}

# run NAME TIMEOUT CMD...: runs CMD under runcmd and waits for it (in the
# background, so that a signal to this script is handled at once).
run() {
    local name=$1
    start_bg "$@"
    finish_bg "$BG_PID" "$name"
}

# wait_line FILE REGEX TIMEOUT_S PID: waits until FILE has a line matching
# REGEX; fails when PID has exited or after TIMEOUT_S.
wait_line() {
    local deadline
    deadline=$(calc "$EPOCHREALTIME + $3")
    while ! grep -q -- "$2" "$1" 2>/dev/null; do
        if ! kill -0 "$4" 2>/dev/null \
                || awk -v d="$deadline" -v n="$EPOCHREALTIME" \
                       'BEGIN { exit !(n > d) }'; then
            grep -q -- "$2" "$1" 2>/dev/null
            return
        fi
        sleep 0.01
    done
}

# start_target NAME CMD...: starts a target process; TARGET_PID.  Waits for
# "ready" when the command prints it (threads).
start_target() {
    local name=$1
    shift
    "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" &
    TARGET_PID=$!
    track "$TARGET_PID" "$name"
    if ! wait_line "$WORK/$name.out" '^ready' 120 "$TARGET_PID"; then
        fail "target $name did not start: $(head -c 300 "$WORK/$name.err")"
        return 1
    fi
}

stop_proc() {
    kill -TERM "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    untrack "$1"
}

# The command lines of the two tools (OURS is set below).
REFCMD=("$PY" "$REF")
REFCMD_U=("$PY" -u "$REF")
PIN=(taskset -c "$TOOL_CPU")

# ---------------------------------------------------------------------------
# Checks and machine header.

[ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
for f in "$KD" "$B/runcmd" "$B/threads" "$B/spin" "$B/abcost"; do
    [ -x "$f" ] || { echo "bench: $f missing (make bench)" >&2; exit 1; }
done
[ -r "$REF" ] || { echo "bench: reference $REF missing" >&2; exit 1; }
# A copy of ours, so that a rebuild during the run changes nothing.
GIT_REV=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo '?')
cp "$KD" "$WORK/kernel_delay" || exit 1
KD=$WORK/kernel_delay
OURS=("$KD")
NPROC=$(nproc)
if [ "$NPROC" -lt 2 ]; then
    note "one CPU only: spinner and tracers share it"
    TOOL_CPU=0; SPIN_CPU=0; PIN=(taskset -c 0)
fi

# CPU busy percentage of the whole machine over $1 seconds.
cpu_busy() {
    local a b
    read -r -a a < /proc/stat; sleep "$1"; read -r -a b < /proc/stat
    awk -v a="${a[*]}" -v b="${b[*]}" 'BEGIN {
        n = split(a, x); split(b, y); t = 0
        for (i = 2; i <= n; i++) { t += y[i] - x[i] }
        idle = (y[5] - x[5]) + (y[6] - x[6])
        printf "%.1f", t ? 100 * (t - idle) / t : 0 }'
}

# Other eBPF programs on the syscall hooks (raw tracepoints sys_enter and
# sys_exit, classic tracepoints raw_syscalls:*) add their cost to every
# syscall, baseline included: counts them, as "bpftool perf show" lists
# them ("pid 12  fd 5: prog_id 7  raw_tracepoint  sys_enter", or
# "tracepoint").
syscall_hooks() {
    if ! command -v bpftool > /dev/null; then
        echo 0
        return
    fi
    bpftool perf show 2>/dev/null | awk '
        $1 == "pid" && $NF ~ /^sys_(enter|exit)$/ \
            && $(NF - 1) ~ /^(raw_)?tracepoint$/ { n++ }
        END { print n + 0 }'
}

# Waits, within a total budget of QUIET_BUDGET seconds for the whole run,
# until no other process has eBPF programs on the syscall hooks and the
# CPUs are less than 25% busy over half a second (this script's own
# processes are idle when it is called).  Notes it when the budget runs
# out.  WHY names the step.
QUIET_BUDGET=${KD_BENCH_QUIET_BUDGET:-45}
QUIET_WAITED=0
NOT_QUIET=()
quiet() {
    local why=$1 start=$EPOCHREALTIME hooks busy
    while :; do
        hooks=$(syscall_hooks)
        busy=$(cpu_busy 0.5)
        if [ "$hooks" = 0 ] && awk -v b="$busy" 'BEGIN { exit !(b < 25) }'
        then
            break
        fi
        if awk -v w="$QUIET_WAITED" -v s="$start" -v n="$EPOCHREALTIME" \
                -v q="$QUIET_BUDGET" 'BEGIN { exit !(w + n - s > q) }'; then
            local what="${busy}%"
            [ "$hooks" = 0 ] || what+=", $hooks other syscall hooks"
            NOT_QUIET+=("$why ($what)")
            log "not quiet: $why ($what); measuring anyway"
            break
        fi
        sleep 2
    done
    QUIET_WAITED=$(calc "$QUIET_WAITED + $EPOCHREALTIME - $start")
}

log "checking the load"
HOOKS_BEFORE=$(syscall_hooks)
BUSY=$(cpu_busy 1)
LOADAVG=$(cut -d' ' -f1-3 /proc/loadavg)
if ! command -v bpftool > /dev/null; then
    note "no bpftool: other tracers on the syscall hooks go unnoticed"
fi
if [ "$HOOKS_BEFORE" != 0 ]; then
    note "$HOOKS_BEFORE other eBPF programs were on the syscall hooks" \
         "before the run"
fi
CPU_MODEL=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
MEM_GB=$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)
OURS_VERSION=$("$KD" --version 2>&1 | head -1)
BCC_VERSION=$("$PY" -c 'import bcc; print(bcc.__version__)' 2>/dev/null ||
              echo '?')
PY_VERSION=$("$PY" --version 2>&1)

declare -A V=()     # figures for the table
RAW=()              # every run's raw values, for results.txt
raw() { RAW+=("$*"); }

# ---------------------------------------------------------------------------
# 1. Start-up, against an idle target.

start_target idle taskset -c "$TOOL_CPU" "$B/threads" 0 || true
IDLE_PID=${TARGET_PID:-}

# One run of a tool against the idle target; fills S_START, S_WALL, S_TAIL.
startup_run() {
    local name=$1
    shift
    S_START='' S_WALL='' S_TAIL=''
    if ! run "$name" 120 "$@" -p "$IDLE_PID" --sample-time 0.1 \
            --skip-upcall-stats; then
        return 1
    fi
    local start dump
    if [ "$R_STATUS" != 0 ] || ! start=$(ts_line "$WORK/$name.out" \
            "Start sampling") || ! dump=$(ts_line "$WORK/$name.out" \
            "Sample dump"); then
        return 1
    fi
    S_START=$(calc "$start - $R_LAUNCH")
    S_WALL=$(calc "$R_EXIT - $R_LAUNCH")
    S_TAIL=$(calc "$R_EXIT - $dump")
}

# startup_sample o|r LABEL I CMD...: start-up run I of CMD (ours or the
# reference), its figures appended to su_o_* or su_r_*.
startup_sample() {
    local -n start=su_$1_start wall=su_$1_wall tail=su_$1_tail
    local label=$2 i=$3
    shift 3
    if startup_run "su-$label-$i" "$@"; then
        start+=("$S_START"); wall+=("$S_WALL"); tail+=("$S_TAIL")
        raw "start-up $label run $i: start $S_START s, wall $S_WALL s," \
            "dump-to-exit $S_TAIL s"
    else
        fail "start-up: $label run $i: status ${R_STATUS:-?}"
    fi
}

if [ -n "$IDLE_PID" ] && want 1; then
    quiet "start-up"
    log "1. start-up: warm-up runs"
    startup_run warm-ours "${OURS[@]}" ||
        fail "start-up: ours failed (warm-up):" \
             "$(head -c 300 "$WORK/warm-ours.out")"
    startup_run warm-ref "${REFCMD[@]}" ||
        fail "start-up: the reference failed (warm-up):" \
             "$(tail -c 300 "$WORK/warm-ref.err")"
    su_o_start=() su_o_wall=() su_o_tail=()
    su_r_start=() su_r_wall=() su_r_tail=()
    for i in $(seq "$RUNS"); do
        log "1. start-up: run $i/$RUNS"
        startup_sample o ours "$i" "${OURS[@]}"
        startup_sample r reference "$i" "${REFCMD[@]}"
    done
    V[su_o_start]=$(median "${su_o_start[@]}")
    V[su_o_wall]=$(median "${su_o_wall[@]}")
    V[su_o_tail]=$(median "${su_o_tail[@]}")
    V[su_r_start]=$(median "${su_r_start[@]}")
    V[su_r_wall]=$(median "${su_r_wall[@]}")
    V[su_r_tail]=$(median "${su_r_tail[@]}")
fi

# ---------------------------------------------------------------------------
# 2. Report time, 5. peak memory.

# Ours' -D line about the report, in src/main.c, as a sed pattern: the
# threads in the sample, the wall time and the CPU time (ms).
D_LINE='^kernel_delay: sample of \([0-9]*\) threads read and reported'
D_LINE+=' in \([0-9.]*\) ms (\([0-9.]*\) ms of CPU)$'

# Threads shown in a report: the lines "   TID bw-NNNNN ...".
report_threads() {
    grep -c -E '^ +[0-9]+ bw-[0-9]+ ' "$1" 2>/dev/null
}

# rep_sleep_ms N: the sleep of the target's threads between their bursts,
# 50 ms x max(1, N/1000), so that the target makes about 20,000 wake-ups/s
# from 1,000 threads up rather than saturating the machine.
rep_sleep_ms() { echo $((50 * ($1 > 1000 ? $1 / 1000 : 1))); }

# rep_sample_s SLEEP_MS: the sample time (s), max(0.5, 1.2 x SLEEP_MS), so
# that every thread runs in every sample.
rep_sample_s() {
    awk -v s="$1" 'BEGIN { t = 1.2 * s / 1000
                           printf "%g", (t > 0.5 ? t : 0.5) }'
}

REPORT_SIZES=""
if want 2; then
    REPORT_SIZES="100 1000 5000 10000"
elif want 5; then
    REPORT_SIZES=1000
fi
for n in $REPORT_SIZES; do
    sleep_ms=$(rep_sleep_ms "$n")
    sample=$(rep_sample_s "$sleep_ms")
    # Ours' maps hold 8,192 threads by default.
    big=()
    [ "$n" -gt "$REP_BIG" ] && big=(--max-threads "$REP_MAX_THREADS")
    quiet "report time, $n threads"
    log "2. report time: starting $n threads (sleeping $sleep_ms ms)"
    if ! start_target threads-$n "$B/threads" "$n" "$sleep_ms"; then
        continue
    fi
    tp=$TARGET_PID
    sleep 0.2
    raw "report $n threads: the target's threads sleep $sleep_ms ms," \
        "--sample-time $sample${big[*]:+, ours with ${big[*]}}"

    # Ours: a warm-up, then $RUNS runs with -D 32.
    run rep-ours-$n-warm 120 "${OURS[@]}" "${big[@]}" -D 32 -p "$tp" \
        --sample-time "$sample" --skip-upcall-stats
    d_line=() d_cpu=() d_exit=() d_rss=() d_shown=()
    for i in $(seq "$RUNS"); do
        log "2. report time: $n threads, ours run $i/$RUNS"
        name=rep-ours-$n-$i
        if run "$name" 120 "${OURS[@]}" "${big[@]}" -D 32 -p "$tp" \
                --sample-time "$sample" --skip-upcall-stats \
                && [ "$R_STATUS" = 0 ] \
                && dump=$(ts_line "$WORK/$name.out" "Sample dump"); then
            line=$(sed -n "s/$D_LINE/\\1 \\2 \\3/p" "$WORK/$name.err" |
                   tail -1)
            if [ -z "$line" ]; then
                fail "report time: ours printed no -D timing line" \
                     "($n threads)"
                continue
            fi
            read -r l_n l_wall l_cpu <<<"$line"
            d_line+=("$l_wall")
            d_cpu+=("$l_cpu")
            d_exit+=("$(calc "($R_EXIT - $dump) * 1000")")
            d_rss+=("$R_RSS_KB")
            d_shown+=("$(report_threads "$WORK/$name.out")")
            raw "report ours $n threads run $i: -D line $l_wall ms," \
                "$l_cpu ms of CPU (sample of $l_n threads), dump-to-exit" \
                "${d_exit[-1]} ms, threads shown ${d_shown[-1]}," \
                "max RSS $R_RSS_KB kB"
        else
            fail "report time: ours, $n threads, run $i: status" \
                 "${R_STATUS:-?}"
        fi
    done
    V[rep_o_line_$n]=$(median "${d_line[@]}")
    V[rep_o_cpu_$n]=$(median "${d_cpu[@]}")
    V[rep_o_exit_$n]=$(median "${d_exit[@]}")
    V[rep_o_shown_$n]=$(median "${d_shown[@]}")
    V[rep_o_rss_$n]=$(median "${d_rss[@]}")
    if isnum "${V[rep_o_line_$n]}"; then
        V[rep_o_per_$n]=$(calc "${V[rep_o_line_$n]} * 1000 / $n")
        V[rep_o_cpu_per_$n]=$(calc "${V[rep_o_cpu_$n]} * 1000 / $n")
    fi

    # The reference: not at 10,000 threads (it has no --max-threads, and
    # its 5,000-thread run already times out).
    case $n in
    100) ref_runs=$REF_RUNS_100; ref_to=120 ;;
    1000) ref_runs=1; ref_to=$REF_TIMEOUT_1000 ;;
    5000) ref_runs=1; ref_to=$REF_TIMEOUT_5000 ;;
    *) ref_runs=0; ref_to=0 ;;
    esac
    if [ "$ref_to" = 0 ]; then
        V[rep_r_exit_$n]="not run"
        ref_runs=0
    fi
    r_exit=() r_rss=() r_shown=()
    for i in $(seq "$ref_runs"); do
        log "2. report time: $n threads, reference run $i/$ref_runs" \
            "(time limit $ref_to s)"
        name=rep-ref-$n-$i
        if ! run "$name" "$ref_to" "${REFCMD[@]}" -p "$tp" \
                --sample-time "$sample" --skip-upcall-stats; then
            fail "report time: the reference, $n threads: no result"
            continue
        fi
        dump=$(ts_line "$WORK/$name.out" "Sample dump") || dump=
        if [ "$R_TIMEOUT" = 1 ]; then
            if [ -n "$dump" ]; then
                t=$(fmt 0 1 "$(calc "$R_EXIT - $dump")")
                V[rep_r_exit_$n]="timeout >$t s"
            else
                V[rep_r_exit_$n]="timeout"
            fi
            raw "report reference $n threads run $i: ${V[rep_r_exit_$n]}" \
                "(time limit $ref_to s from launch)"
            r_exit=()
            break
        fi
        if [ "$R_STATUS" != 0 ] || [ -z "$dump" ]; then
            fail "report time: the reference, $n threads: status $R_STATUS"
            continue
        fi
        r_exit+=("$(calc "($R_EXIT - $dump) * 1000")")
        r_rss+=("$R_RSS_KB")
        r_shown+=("$(report_threads "$WORK/$name.out")")
        raw "report reference $n threads run $i: dump-to-exit" \
            "${r_exit[-1]} ms, threads shown ${r_shown[-1]}, max RSS" \
            "$R_RSS_KB kB"
    done
    if [ ${#r_exit[@]} -gt 0 ]; then
        V[rep_r_exit_$n]=$(median "${r_exit[@]}")
        V[rep_r_shown_$n]=$(median "${r_shown[@]}")
        V[rep_r_rss_$n]=$(median "${r_rss[@]}")
    fi
    stop_proc "$tp"
done

# ---------------------------------------------------------------------------
# 3. Syscall events.

# Starts the spinner with arguments "$@" as a co-process: SPIN_PID, and
# file descriptors SPIN_W (its input) and SPIN_R (its output).
spin_start() {
    coproc SPINNER { exec "$B/spin" -c "$SPIN_CPU" "$@" 2>/dev/null; }
    SPIN_PID=$SPINNER_PID
    exec {SPIN_W}>&"${SPINNER[1]}" {SPIN_R}<&"${SPINNER[0]}"
}

# One request to the spinner; SPIN_REPLY is its answer.
spin_ask() {
    SPIN_REPLY=
    echo go >&"$SPIN_W" && read -r -t 120 SPIN_REPLY <&"$SPIN_R" &&
        [ -n "$SPIN_REPLY" ]
}

spin_stop() {
    if [ -n "$SPIN_PID" ]; then
        exec {SPIN_W}>&- {SPIN_R}<&-
        kill -TERM "$SPIN_PID" 2>/dev/null
        wait "$SPIN_PID" 2>/dev/null
        SPIN_PID=
    fi
}

# The warning of both tools about dropped events, as an awk pattern.
DROP_LINE='Not all events were captured, [0-9]+ were dropped'

# events_run NAME CMD...: one events run of CMD (a tool and the variant's
# options) with -s 0; fills E_CALLS, E_RATE, E_EVENTS, E_DROPPED.  The
# output, hundreds of MB with stacks, is removed once counted.
events_run() {
    local name=$1 start
    shift
    E_CALLS='' E_RATE='' E_EVENTS='' E_DROPPED=''
    start_bg "$name" 300 "${PIN[@]}" "$@" -p "$SPIN_PID" -s 0 \
        --sample-time 1.5 --skip-upcall-stats
    local bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start sampling' 60 "$bg"; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        return 1
    fi
    if ! spin_ask; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        return 1
    fi
    finish_bg "$bg" "$name" || return 1
    [ "$R_STATUS" = 0 ] || return 1
    E_CALLS=${SPIN_REPLY% *}
    E_RATE=$(calc "$E_CALLS / ${SPIN_REPLY#* }")
    # One pass over the output: the event lines of "# SYSCALL EVENTS"
    # (not their stack frames), and the last warning about dropped events.
    read -r E_EVENTS E_DROPPED < <(awk -v drop="$DROP_LINE" '
        /^# SYSCALL EVENTS:/ { on = 1; next }
        /^#/ { on = 0 }
        on && /^ +[0-9]+ +[0-9]+ +[0-9]+ / { n++ }
        $0 ~ drop { d = $0; sub(/.*captured, /, "", d); d = d + 0 }
        END { print n + 0, d + 0 }' "$WORK/$name.out")
    rm -f "$WORK/$name.out"
}

EV_SUPPORTED=0
want 3 && spin_start -t "$BURST"
if [ -n "$IDLE_PID" ] && want 3; then
    log "3. syscall events: does ours support -s?"
    run ev-probe 60 "${OURS[@]}" -p "$IDLE_PID" -s 0 --stack-trace-size 0 \
        --sample-time 0.1 --skip-upcall-stats
    if [ "${R_STATUS:-}" = 0 ] \
            && ! grep -q 'not supported' "$WORK/ev-probe.out"; then
        EV_SUPPORTED=1
    elif [ "${R_STATUS:-}" != 78 ]; then
        note "ours -s: status ${R_STATUS:-?}, output:" \
             "$(head -c 200 "$WORK/ev-probe.out")"
    fi
fi

# ev_sample KEY LABEL WHO I CMD...: events run I of WHO (ours or ref) in
# variant KEY (LABEL names it), CMD with the variant's options; its
# figures appended to the lists evl_WHO_* of ev_measure.
ev_sample() {
    local key=$1 label=$2 who=$3 i=$4
    shift 4
    local -n calls=evl_${who}_calls rates=evl_${who}_rates \
        evs=evl_${who}_evs drops=evl_${who}_drops
    log "3. syscall events, $label: $who run $i/$EV_RUNS"
    if events_run "$key-$who-$i" "$@"; then
        calls+=("$E_CALLS"); rates+=("$E_RATE")
        evs+=("$E_EVENTS"); drops+=("$E_DROPPED")
        raw "events, $label, $who run $i: spinner $E_CALLS calls at" \
            "$E_RATE/s, events printed $E_EVENTS, dropped $E_DROPPED"
    elif [ "$who" = ours ]; then
        note "ours -s, $label, run $i could not be measured (status" \
             "${R_STATUS:-?})"
    else
        fail "syscall events, $label: the reference, run $i (status" \
             "${R_STATUS:-?})"
    fi
}

# ev_figures KEY WHO: the medians of WHO's runs (the lists evl_WHO_* of
# ev_measure) into V[KEY_WHO_*], and its worst run for the target.
ev_figures() {
    local p=$1_$2
    # shellcheck disable=SC2178  # namerefs to the lists of ev_measure
    local -n calls=evl_$2_calls rates=evl_$2_rates evs=evl_$2_evs \
        drops=evl_$2_drops
    [ ${#evs[@]} -gt 0 ] || return 0
    V[${p}_calls]=$(median "${calls[@]}")
    V[${p}_rate]=$(median "${rates[@]}")
    V[${p}_events]=$(median "${evs[@]}")
    V[${p}_dropped]=$(median "${drops[@]}")
    V[${p}_consumed]=$(calc "${V[${p}_events]} / $BURST")
    # Worst run, for the target: most events dropped, and how many runs
    # printed fewer events than calls.
    V[${p}_maxdrop]=$(printf '%s\n' "${drops[@]}" | sort -g | tail -1)
    V[${p}_short]=$(paste -d' ' <(printf '%s\n' "${evs[@]}") \
        <(printf '%s\n' "${calls[@]}") |
        awk '$1 < $2 { n++ } END { print n + 0 }')
}

# ev_measure KEY LABEL OPTION...: one variant of figure 3, the tools'
# options OPTION... beside -s 0: EV_RUNS runs of each tool, interleaved
# (ours, the reference, ours, ...), so that the machine's slow spells
# fall on both alike; figures in V[KEY_ours_*] and V[KEY_ref_*].
ev_measure() {
    local key=$1 label=$2 i
    shift 2
    # shellcheck disable=SC2034  # filled by ev_sample, read by ev_figures
    local -a evl_ours_calls=() evl_ours_rates=() evl_ours_evs=() \
        evl_ours_drops=() evl_ref_calls=() evl_ref_rates=() \
        evl_ref_evs=() evl_ref_drops=()
    quiet "syscall events, $label"
    for i in $(seq "$EV_RUNS"); do
        if [ "$EV_SUPPORTED" = 1 ]; then
            ev_sample "$key" "$label" ours "$i" "${OURS[@]}" "$@"
        fi
        ev_sample "$key" "$label" ref "$i" "${REFCMD_U[@]}" "$@"
    done
    if [ "$EV_SUPPORTED" = 1 ]; then
        ev_figures "$key" ours
    else
        V[${key}_ours_events]="not supported yet"
    fi
    ev_figures "$key" ref
}

# The two variants: without stacks, and with the default
# --stack-trace-size.
if [ -n "$SPIN_PID" ]; then
    ev_measure ev "stacks off" --stack-trace-size 0
    ev_measure evs "stacks on"
fi
spin_stop

# ---------------------------------------------------------------------------
# 4. Added cost per syscall.

# cost_hold KEY PID CMD...: starts tracer CMD (pinned to TOOL_CPU) on
# target PID, waits until it samples, hands its two programs on the
# syscall hooks to abcost, then kills it with SIGKILL, so that the
# programs and their maps stay exactly as it left them while sampling (an
# orderly exit would first stop the capture).  Returns non-zero on failure.
cost_hold() {
    local key=$1 pid=$2 name=cost-$1 tracer held
    shift 2
    start_bg "$name" 600 "${PIN[@]}" "$@" -p "$pid" --sample-time 600 \
        --skip-upcall-stats
    local bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start sampling' 60 "$bg"; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        fail "cost: $key did not start: $(head -c 300 "$WORK/$name.out")" \
             "$(tail -c 300 "$WORK/$name.err")"
        return 1
    fi
    # The tracer itself: runcmd's child (taskset has exec'd it).
    tracer=$(ps -o pid= --ppid "$bg" | tr -d ' ')
    held=$(bpftool perf show 2>/dev/null | awk -v me="$tracer" '
        $1 == "pid" && $2 == me && $NF ~ /^sys_(enter|exit)$/ {
            id[$NF] = $(NF - 2)
            kind = $(NF - 1) == "raw_tracepoint" ? "raw" : "classic"
        }
        END {
            if (("sys_enter" in id) && ("sys_exit" in id)) {
                print kind, id["sys_enter"], id["sys_exit"]
            }
        }')
    local reply=
    if [ -n "$held" ]; then
        echo "hold $key $held" >&"$AB_W" &&
            read -r -t 30 reply <&"$AB_R"
    fi
    kill -KILL "$tracer" 2>/dev/null
    finish_bg "$bg" "$name"
    if [ "$reply" != "held $key" ]; then
        fail "cost: $key: its programs on sys_enter and sys_exit" \
             "(${held:-none found}) could not be taken"
        return 1
    fi
    raw "cost $key: held its programs $held (hooks, ids)"
}

# cost_figures < "m ROUND TAG NS FAULT" lines: for each TAG, "TAG QUICK
# ALL NQ N": the median ns per call of its measurements made in the
# machine's quick spells, of all its measurements, and how many of its N
# measurements were quick.  A measurement is quick when its page faults
# took at most QUICK_FACTOR times the 5th percentile of the whole
# figure's.  The first line is "share QUICK_SHARE", the share of quick
# measurements.
cost_figures() {
    awk -v factor="$QUICK_FACTOR" '
    function med(list, n,    a, i, j, t) {
        if (n == 0) { return "-" }
        split(list, a, " ")
        for (i = 2; i <= n; i++) {
            t = a[i] + 0
            for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) { a[j + 1] = a[j] }
            a[j + 1] = t
        }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $1 == "m" && NF == 5 {
        k++; tag[k] = $3; s[k] = $4; f[k] = $5; fs[k] = $5 + 0
        if (!($3 in seen)) { seen[$3] = 1; order[++ntags] = $3 }
    }
    END {
        if (!k) { exit }
        # The quickest page faults: the 5th percentile, which one odd
        # measurement cannot move.
        for (i = 2; i <= k; i++) {
            t = fs[i]
            for (j = i - 1; j >= 1 && fs[j] > t; j--) { fs[j + 1] = fs[j] }
            fs[j + 1] = t
        }
        lim = fs[int((k - 1) * 0.05) + 1] * factor
        for (i = 1; i <= k; i++) {
            all[tag[i]] = all[tag[i]] " " s[i]; n[tag[i]]++
            if (f[i] <= lim) {
                quick[tag[i]] = quick[tag[i]] " " s[i]; nq[tag[i]]++; q++
            }
        }
        printf "share %.4f\n", q / k
        for (t = 1; t <= ntags; t++) {
            x = order[t]
            printf "%s %s %s %d %d\n", x, med(quick[x], nq[x] + 0),
                   med(all[x], n[x]), nq[x], n[x]
        }
    }'
}

QUICK_FACTOR=1.12
QUICK_MIN=40
COST_BATCHES=3
COST_KEYS="floor_raw floor_classic check_raw ours_other ref_other
    ours_target ref_target"
if [ -n "$IDLE_PID" ] && want 4; then
    quiet "cost"
    coproc ABCOST {
        exec "$B/abcost" -c "$SPIN_CPU" -n "$COST_CALLS" -p "$COST_PAGES" \
            -r "$COST_ROUNDS" -i "$IDLE_PID"
    }
    AB_PID=$ABCOST_PID
    track "$AB_PID" abcost
    exec {AB_W}>&"${ABCOST[1]}" {AB_R}<&"${ABCOST[0]}"
    log "4. cost per syscall: starting the tracers, taking their programs"
    cost_hold ours_other "$IDLE_PID" "${OURS[@]}" &&
        cost_hold ref_other "$IDLE_PID" "${REFCMD_U[@]}" &&
        cost_hold ours_target "$AB_PID" "${OURS[@]}" &&
        cost_hold ref_target "$AB_PID" "${REFCMD_U[@]}"
    held=$?
    if [ $held = 0 ]; then
        # Batches of COST_ROUNDS rounds: a batch disturbed by another
        # tracer is left out (3 such at most); more batches, up to
        # COST_BATCHES, while a variant has fewer than QUICK_MIN quick
        # measurements.
        COST_OUT= batches=0 tries=0
        while [ $batches -lt "$COST_BATCHES" ] && [ $tries -lt 3 ]; do
            quiet "cost"
            log "4. cost per syscall: $COST_ROUNDS rounds (batch" \
                "$((batches + 1)))"
            hooks_before=$(syscall_hooks)
            echo run >&"$AB_W"
            batch=$(while read -r -t 600 l <&"$AB_R"; do
                        [ "$l" = done ] && break
                        echo "$l"
                    done)
            hooks_after=$(syscall_hooks)
            if [ "$hooks_before" != 0 ] || [ "$hooks_after" != 0 ]; then
                tries=$((tries + 1))
                note "cost, a batch of rounds left out: another process" \
                     "had eBPF programs on the syscall hooks before or" \
                     "after it"
                continue
            fi
            [ -n "$batch" ] || break
            batches=$((batches + 1))
            COST_OUT+=$batch$'\n'
            cost_figures <<<"$COST_OUT" | awk -v m="$QUICK_MIN" '
                NF == 5 && $4 < m { short = 1 } END { exit !short }' ||
                break
        done
        V[cost_rounds]=$((batches * COST_ROUNDS))
        if [ -z "$COST_OUT" ]; then
            fail "cost: every try was disturbed by another tracer, or" \
                 "abcost failed"
        else
            COST_FIGS=$(cost_figures <<<"$COST_OUT")
            read -r _ V[cost_quick_share] <<<"$(head -n 1 <<<"$COST_FIGS")"
            read -r _ V[cost_base] V[cost_base_all] nq n \
                <<<"$(grep '^none ' <<<"$COST_FIGS")"
            raw "cost: a measurement is quick when its page faults took" \
                "at most x$QUICK_FACTOR the 5th percentile of the" \
                "figure's; baseline: $nq of $n quick, median $(fmt 1 1 \
                "${V[cost_base]}") ns/call quick, $(fmt 1 1 \
                "${V[cost_base_all]}") all"
            for key in $COST_KEYS; do
                read -r _ quick all nq n <<<"$(grep "^$key " \
                    <<<"$COST_FIGS")"
                V[cost_$key]=$(isnum "${quick:-}" && calc \
                    "$quick - ${V[cost_base]}" || echo "-")
                V[cost_all_$key]=$(isnum "${all:-}" && calc \
                    "$all - ${V[cost_base_all]}" || echo "-")
                raw "cost $key: $nq of $n quick, median $(fmt 1 1 \
                    "$quick") ns/call quick, $(fmt 1 1 "$all") all; added" \
                    "$(fmt 1 1 "${V[cost_$key]}") ns quick, $(fmt 1 1 \
                    "${V[cost_all_$key]}") all"
            done
        fi
    fi
    exec {AB_W}>&- {AB_R}<&-
    stop_proc "$AB_PID"
fi
[ -n "$IDLE_PID" ] && stop_proc "$IDLE_PID"

# ---------------------------------------------------------------------------
# The table.

row() {
    printf '%-44s %17s %17s %6s  %-15s %s\n' "$1" "${2:-}" "${3:-}" \
        "${4:-}" "${5:-}" "${6:-}" | sed 's/ *$//'
}

ELAPSED=$(awk -v a="$T0" -v b="$EPOCHREALTIME" \
          'BEGIN { printf "%.0f", b - a }')

# v KEY: a figure, or "" when it was not measured.
v() { printf '%s' "${V[$1]:-}"; }

table_header() {
    echo "kernel_delay benchmark, $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "machine: Linux $(uname -r) $(uname -m), $CPU_MODEL, nproc" \
         "$NPROC, $MEM_GB GiB"
    echo "load before the run: CPU busy ${BUSY}% over 1 s, load average" \
         "$LOADAVG, $HOOKS_BEFORE other eBPF programs on the syscall hooks;"
    echo "  waited $(fmt 0 1 "$QUIET_WAITED") s in all for the machine to" \
         "be quiet (no other tracer, CPUs < 25% busy)"
    echo "ours: $OURS_VERSION (git $GIT_REV); reference: $(basename "$REF")" \
         "on $PY_VERSION, bcc $BCC_VERSION"
    echo "medians of $RUNS runs each unless said, after an untimed" \
         "warm-up; RATIO = ours / reference"
    echo
    row "FIGURE" "OURS" "REFERENCE" "RATIO" "TARGET" "VERDICT"
}

table_1() {
    echo
    echo "1. Start-up, idle target, --sample-time 0.1 (s)"
    row "  launch to '# Start sampling'" "$(fmt 3 1 "$(v su_o_start)")" \
        "$(fmt 3 1 "$(v su_r_start)")" \
        "$(ratio "$(v su_o_start)" "$(v su_r_start)")" "<= 1/3 of ref" \
        "$(verdict 'a <= b / 3' "$(v su_o_start)" "$(v su_r_start)")"
    row "  whole run (launch to exit)" "$(fmt 3 1 "$(v su_o_wall)")" \
        "$(fmt 3 1 "$(v su_r_wall)")" \
        "$(ratio "$(v su_o_wall)" "$(v su_r_wall)")"
    row "  '# Sample dump' to exit, no thread" \
        "$(fmt 3 1 "$(v su_o_tail)")" "$(fmt 3 1 "$(v su_r_tail)")" \
        "$(ratio "$(v su_o_tail)" "$(v su_r_tail)")"
}

# rep_rows N: the rows of figure 2 for N threads.
rep_rows() {
    local n=$1 what target="" verd=""
    what="$(commas "$n") threads"
    case $n in
    1000)
        target="< 50 ms"
        verd=$(verdict 'a < 50' "$(v "rep_o_line_$n")")
        ;;
    5000)
        target="< 250 ms"
        verd=$(verdict 'a < 250' "$(v "rep_o_line_$n")")
        ;;
    esac
    row "  $what: read + report (-D line)" \
        "$(fmt 2 1 "$(v "rep_o_line_$n")")" "n/a" "" "$target" "$verd"
    row "  $what: its CPU time (-D line)" \
        "$(fmt 2 1 "$(v "rep_o_cpu_$n")")" "n/a"
    row "  $what: '# Sample dump' to exit" \
        "$(fmt 2 1 "$(v "rep_o_exit_$n")")" \
        "$(fmt 1 1 "$(v "rep_r_exit_$n")")" \
        "$(ratio "$(v "rep_o_exit_$n")" "$(v "rep_r_exit_$n")")"
    row "  $what: threads in the report" \
        "$(fmt 0 1 "$(v "rep_o_shown_$n")")" \
        "$(fmt 0 1 "$(v "rep_r_shown_$n")")"
}

table_2() {
    local n
    echo
    echo "2. Report time, N threads each sleeping 50 ms x max(1, N/1,000)" \
         "between bursts, --sample-time max(0.5, 1.2 x that) s (ms;" \
         "reference: $REF_RUNS_100 run(s) at 100, 1 at 1,000 and 5,000," \
         "none at 10,000; ours at 10,000 with --max-threads" \
         "$REP_MAX_THREADS)"
    for n in 100 1000 5000 10000; do
        rep_rows "$n"
    done
    for n in 100 1000 5000 10000; do
        row "  read + report per thread, $(commas $n) (us)" \
            "$(fmt 2 1 "$(v "rep_o_per_$n")")"
    done
    for n in 100 1000 5000 10000; do
        row "  CPU time per thread, $(commas $n) (us)" \
            "$(fmt 2 1 "$(v "rep_o_cpu_per_$n")")"
    done
    for n in 5000 10000; do
        row "  CPU/thread, $(commas $n) / 1,000 (x1.0: linear)" \
            "x$(ratio "$(v "rep_o_cpu_per_$n")" "$(v rep_o_cpu_per_1000)")" \
            "" "" "<= x1.2" \
            "$(verdict 'a <= 1.2 * b' "$(v "rep_o_cpu_per_$n")" \
               "$(v rep_o_cpu_per_1000)")"
    done
}

# ev_rows KEY: the rows of one variant of figure 3 (figures V[KEY_*]).
ev_rows() {
    local k=$1 o=ours na=""
    [ "$EV_SUPPORTED" = 1 ] || { o=none; na="not supported yet"; }
    row "    spinner rate while traced (calls/s)" \
        "${na:-$(commas "$(v "${k}_${o}_rate")")}" \
        "$(commas "$(v "${k}_ref_rate")")" \
        "$(ratio "$(v "${k}_${o}_rate")" "$(v "${k}_ref_rate")")" \
        ">= 1.00 x ref" "$(verdict 'a >= b' "$(v "${k}_${o}_rate")" \
                           "$(v "${k}_ref_rate")")"
    row "    calls made in the burst" \
        "${na:-$(commas "$(v "${k}_${o}_calls")")}" \
        "$(commas "$(v "${k}_ref_calls")")"
    row "    events printed" "${na:-$(commas "$(v "${k}_${o}_events")")}" \
        "$(commas "$(v "${k}_ref_events")")" \
        "$(ratio "$(v "${k}_${o}_events")" "$(v "${k}_ref_events")")"
    row "    events dropped (warning)" \
        "${na:-$(commas "$(v "${k}_${o}_dropped")")}" \
        "$(commas "$(v "${k}_ref_dropped")")" "" "none, all calls" \
        "$(verdict 'a == 0 && b == 0' "$(v "${k}_${o}_maxdrop")" \
           "$(v "${k}_${o}_short")")"
    row "    events consumed/s (printed / burst)" \
        "${na:-$(commas "$(v "${k}_${o}_consumed")")}" \
        "$(commas "$(v "${k}_ref_consumed")")" \
        "$(ratio "$(v "${k}_${o}_consumed")" "$(v "${k}_ref_consumed")")"
}

table_3() {
    echo
    echo "3. Syscall events, -s 0, a ${BURST} s getppid() burst" \
         "(medians of $EV_RUNS runs of each tool per variant, interleaved)"
    row "  without stacks (--stack-trace-size 0):"
    ev_rows ev
    row "  with stacks (default --stack-trace-size):"
    ev_rows evs
}

# cost_rows INDENT PREFIX [VERDICTS]: the rows of figure 4 for the values
# named PREFIX<tracer>; with VERDICTS, the targets and their verdicts.
cost_rows() {
    local in=$1 p=$2 verdicts=${3:-}
    row "$in(a) a process that is not the target" \
        "$(fmt 1 1 "$(v ${p}ours_other)")" \
        "$(fmt 1 1 "$(v ${p}ref_other)")" \
        "$(ratio "$(v ${p}ours_other)" "$(v ${p}ref_other)")" \
        ${verdicts:+"<= 0.6 x ref"} \
        ${verdicts:+"$(verdict 'a <= 0.6 * b' "$(v ${p}ours_other)" \
                       "$(v ${p}ref_other)")"}
    row "$in(b) the target itself" "$(fmt 1 1 "$(v ${p}ours_target)")" \
        "$(fmt 1 1 "$(v ${p}ref_target)")" \
        "$(ratio "$(v ${p}ours_target)" "$(v ${p}ref_target)")"
    row "${in}floor: 2 empty progs on the same hooks" \
        "$(fmt 1 1 "$(v ${p}floor_raw)")" \
        "$(fmt 1 1 "$(v ${p}floor_classic)")" \
        "$(ratio "$(v ${p}floor_raw)" "$(v ${p}floor_classic)")"
    row "${in}least pid check, 2 progs (vs ref (a))" \
        "$(fmt 1 1 "$(v ${p}check_raw)")" \
        "$(fmt 1 1 "$(v ${p}ref_other)")" \
        "$(ratio "$(v ${p}check_raw)" "$(v ${p}ref_other)")"
}

table_4() {
    echo
    echo "4. Added cost per getppid() syscall (ns, CPU time of abcost on" \
         "CPU $SPIN_CPU; the tools' programs taken from them, the" \
         "variants interleaved over $(v cost_rounds) rounds), in the" \
         "machine's quick spells ($(fmt 0 100 "$(v cost_quick_share)")% of" \
         "the measurements)"
    row "  baseline, nothing attached (ns/call)" \
        "$(fmt 1 1 "$(v cost_base)")" "(same)"
    cost_rows "  " cost_ verdicts
    row "    (ours: raw tp sys_enter/exit; ref: classic)"
    row "  (a) / floor of the same hooks" \
        "x$(ratio "$(v cost_ours_other)" "$(v cost_floor_raw)")" \
        "x$(ratio "$(v cost_ref_other)" "$(v cost_floor_classic)")" "" \
        "<= 1.3 x floor" \
        "$(verdict 'a <= 1.3 * b' "$(v cost_ours_other)" \
           "$(v cost_floor_raw)")"
    row "  all measurements, quick and slow spells alike:"
    row "    baseline (ns/call)" "$(fmt 1 1 "$(v cost_base_all)")" \
        "(same)"
    cost_rows "    " cost_all_
}

table_5() {
    echo
    echo "5. Peak memory, 0.5 s sample of 1,000 threads (max RSS, MiB;" \
         "reference: 1 run)"
    row "  whole run" "$(fmt 1 0.0009765625 "$(v rep_o_rss_1000)")" \
        "$(fmt 1 0.0009765625 "$(v rep_r_rss_1000)")" \
        "$(ratio "$(v rep_o_rss_1000)" "$(v rep_r_rss_1000)")"
}

table() {
    local m
    table_header
    want 1 && table_1
    want 2 && table_2
    want 3 && table_3
    want 4 && table_4
    { want 2 || want 5; } && table_5
    echo
    if [ ${#NOT_QUIET[@]} -gt 0 ]; then
        echo "note: measured on a busy machine (CPU busy just before, other" \
             "programs on the syscall hooks): $(printf '%s, ' \
             "${NOT_QUIET[@]}" | sed 's/, $//')." | fold -s -w 79 |
             sed 's/ *$//'
    fi
    for m in "${NOTES[@]}"; do
        echo "note: $m"
    done
    for m in "${FAILED[@]}"; do
        echo "MEASUREMENT FAILED: $m"
    done
    echo "bench took ${ELAPSED} s"
}

# A partial run (--only) prints its table but leaves results.txt alone.
if [ "$ONLY" = ,1,2,3,4,5, ]; then
    table | tee "$RESULTS.tmp"
    {
        echo
        echo "Raw values, every run:"
        printf '  %s\n' "${RAW[@]}"
    } >> "$RESULTS.tmp"
    mv "$RESULTS.tmp" "$RESULTS"
else
    table
    echo
    echo "Raw values, every run:"
    printf '  %s\n' "${RAW[@]}"
fi

[ ${#FAILED[@]} -eq 0 ]
