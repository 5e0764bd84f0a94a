#!/bin/bash
# bench/run.sh: kernel_delay against the reference kernel_delay.py, side by
# side, in the same run, on this machine.  Run by "make bench" (which
# builds ./kernel_delay and the helpers in bench/build/ first), as root.
# bench/README.md says what each figure measures, how, and which target
# its verdict checks.
#
# Usage: bench/run.sh [-q|--quick] [--only LIST] [--out DIR]
#                     [--ref-5000-timeout S]
#   -q, --quick           fewer repetitions: 3 runs of ours instead of 5,
#                         1 of the reference, no 5,000-thread run of the
#                         reference, 2 syscall event and long poll runs of
#                         each tool instead of 3 and 80 cost rounds
#                         instead of 150.
#   --only LIST           only these figures (1 to 9), e.g. "2,3" (5 comes
#                         with 2);
#                         bench/results.txt is left alone.
#   --out DIR             the results directory (default
#                         bench/results/UTC-DATE, linked as
#                         bench/results/latest).
#   --ref-5000-timeout S  time limit of the reference's 5,000-thread run
#                         (default 30; 0 skips it).
# KD_BENCH_QUIET_BUDGET (default 45) caps the seconds spent in all waiting
# for the machine to be quiet; KD_REFERENCE names the reference script
# (default: shared/reference/kernel_delay.py beside the source tree; where
# there is none, the reference's runs are not run, its columns stay empty
# and the verdicts against it read n/a).
#
# Each figure is one function, fig_*, that measures and appends raw rows
# to DIR/raw.tsv (figure, variant, tool, run, metric, value); the machine
# and the run's settings, notes and failures go to DIR/meta.tsv.  The
# analysis step, bench/analyze.sh, then turns them into the table and the
# verdicts, printed on standard output and saved as DIR/table.txt (and as
# bench/results.txt after a full run).  Progress goes to standard error.
# Exit status: 0 when every figure could be measured (whatever the
# verdicts say: this is a measurement tool), 1 when one could not be
# (bench/README.md lists the cases), 2 on bad usage.

set -u
export LC_ALL=C

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/bench/build
KD=$ROOT/kernel_delay
REF=${KD_REFERENCE:-$ROOT/../shared/reference/kernel_delay.py}
HAVE_REF=1
PY=/usr/bin/python3

RUNS=5              # runs of ours, and of the reference where it is quick
REF_RUNS_100=3      # 2.: reference, 100 threads
REF_TIMEOUT_1000=240
REF_TIMEOUT_5000=30
REP_BIG=5000        # 2.: ours gets --max-threads REP_MAX_THREADS above this
REP_MAX_THREADS=16384
EV_RUNS=3           # 3.: runs of each tool per variant, interleaved
BURST=0.5           # 3.: seconds of the spinner's burst
COST_ROUNDS=150     # 4.: rounds over all the variants, each shuffled
COST_CALLS=10000    # 4.: calls per measurement
COST_PAGES=500      # 4.: page faults per measurement
COST_BATCHES=3      # 4.: batches of rounds at most
PIPE_ROUNDS=20000   # 7.: round trips per measurement
PIPE_REPEATS=5      # 7.: measurements per run
PIPE_RUNS=9         # 7.: runs of each tool, interleaved (a run is quick)
PROFILE_HZ=99       # 6., 7., 8.: the --profile-hz of the "why" variants
WATCH_SECS=5        # 8.: seconds of each measured watch
WATCH_THREADS=16    # 8.: the target's threads
SCRAPES=100         # 8.: back-to-back scrapes timed for one scrape's cost
STACKS_HZ=499       # 9.: the profile's rate
STACKS_SECS=5       # 9.: seconds of each measured profile
QUICK_MIN=40        # 4.: quick measurements wanted per variant
TOOL_CPU=0
SPIN_CPU=1
ONLY=,1,2,3,4,5,6,7,8,9,
OUT=

usage() {
    sed -n '8,22{s/^# \{0,1\}//;p}' "$0"
}

parse_args() {
    while [ $# -gt 0 ]; do
        case $1 in
        -q|--quick)
            RUNS=3; REF_RUNS_100=1; REF_TIMEOUT_5000=0
            EV_RUNS=2; COST_ROUNDS=80; PIPE_RUNS=3
            ;;
        --only)
            [ $# -ge 2 ] && [[ $2 =~ ^[1-9](,[1-9])*$ ]] ||
                { usage >&2; exit 2; }
            ONLY=,$2,; shift
            ;;
        --out)
            [ $# -ge 2 ] && [ -n "$2" ] || { usage >&2; exit 2; }
            OUT=$2; shift
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
}

parse_args "$@"

want() { [[ $ONLY == *,$1,* ]]; }

# ---------------------------------------------------------------------------
# Raw rows and the run's facts.

# emit FIGURE VARIANT TOOL RUN METRIC VALUE: one raw row.
emit() {
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$OUT/raw.tsv"
}

# meta KEY VALUE...: one fact about the run (keys may repeat).
meta() {
    local key=$1
    shift
    printf '%s\t%s\n' "$key" "$*" >> "$OUT/meta.tsv"
}

# The results directory, created empty.
open_results() {
    local stamp
    stamp=$(date -u +%Y%m%dT%H%M%SZ)
    if [ -z "$OUT" ]; then
        OUT=$ROOT/bench/results/$stamp
        mkdir -p "$OUT" || exit 1
        ln -sfn "$stamp" "$ROOT/bench/results/latest"
    fi
    mkdir -p "$OUT" || exit 1
    : > "$OUT/raw.tsv"
    : > "$OUT/meta.tsv"
}

# ---------------------------------------------------------------------------
# Processes, clean-up, progress.

# One benchmark at a time: two would measure each other.
take_lock() {
    local lock=/run/lock/kernel_delay-bench.lock
    [ -d /run/lock ] || lock=/tmp/kernel_delay-bench.lock
    exec {LOCK_FD}> "$lock" || exit 1
    if ! flock -n "$LOCK_FD"; then
        echo "bench: another kernel_delay benchmark is running ($lock)" >&2
        exit 1
    fi
}

declare -A PROCS=()     # pid -> what, for every process still running
SPIN_PID=
T0=$EPOCHREALTIME
FAILED=0

track() { PROCS[$1]=$2; }
untrack() { unset "PROCS[$1]"; }

# Stops every process this script started and still runs: SIGTERM (runcmd
# passes it on to its command, then escalates), then SIGKILL after 12 s.
cleanup() {
    local pid alive
    trap - EXIT INT TERM HUP
    # Figure 8 turns the kernel's eBPF statistics on for its runs.
    [ -n "${BPF_STATS_WAS:-}" ] &&
        echo "$BPF_STATS_WAS" > /proc/sys/kernel/bpf_stats_enabled
    [ -n "$SPIN_PID" ] && PROCS[$SPIN_PID]=spinner
    for pid in "${!PROCS[@]}"; do
        kill -TERM "$pid" 2>/dev/null
    done
    for _ in $(seq 120); do
        alive=0
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

log() {
    printf '[%6.1fs] %s\n' "$(awk -v a="$T0" -v b="$EPOCHREALTIME" \
        'BEGIN { print b - a }')" "$*" >&2
}

# A figure that could not be measured: noted for the table, and the exit
# status.
fail() {
    FAILED=$((FAILED + 1))
    meta failed "$*"
    log "MEASUREMENT FAILED: $*"
}

note() { meta note "$*"; log "note: $*"; }

# calc EXPR: an awk expression, for times (bash has no floating point).
calc() { awk "BEGIN { printf \"%.9f\", $* }"; }

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
    local line re='launch=([0-9.]+) exit=([0-9.]+) status=([0-9]+)'
    re+=' maxrss_kb=([0-9]+) timeout=([01]) cpu_ns=([0-9]+)'
    line=$(cat "$1" 2>/dev/null)
    R_LAUNCH='' R_EXIT='' R_STATUS='' R_RSS_KB='' R_TIMEOUT='' R_CPU_NS=''
    [[ $line =~ $re ]] || return 1
    R_LAUNCH=${BASH_REMATCH[1]}
    R_EXIT=${BASH_REMATCH[2]}
    R_STATUS=${BASH_REMATCH[3]}
    R_RSS_KB=${BASH_REMATCH[4]}
    R_TIMEOUT=${BASH_REMATCH[5]}
    R_CPU_NS=${BASH_REMATCH[6]}
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

# ---------------------------------------------------------------------------
# The machine: its load, other tracers.

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

# quiet WHY: waits, within a total budget of QUIET_BUDGET seconds for the
# whole run, until no other process has eBPF programs on the syscall hooks
# and the CPUs are less than 25% busy over half a second (this script's
# own processes are idle when it is called).  Notes it when the budget
# runs out.  WHY names the step.
QUIET_BUDGET=${KD_BENCH_QUIET_BUDGET:-45}
QUIET_WAITED=0
quiet() {
    local why=$1 start=$EPOCHREALTIME hooks busy what
    while :; do
        hooks=$(syscall_hooks)
        busy=$(cpu_busy 0.5)
        if [ "$hooks" = 0 ] && awk -v b="$busy" 'BEGIN { exit !(b < 25) }'
        then
            break
        fi
        if awk -v w="$QUIET_WAITED" -v s="$start" -v n="$EPOCHREALTIME" \
                -v q="$QUIET_BUDGET" 'BEGIN { exit !(w + n - s > q) }'; then
            what="${busy}%"
            [ "$hooks" = 0 ] || what+=", $hooks other syscall hooks"
            meta not_quiet "$why ($what)"
            log "not quiet: $why ($what); measuring anyway"
            break
        fi
        sleep 2
    done
    QUIET_WAITED=$(calc "$QUIET_WAITED + $EPOCHREALTIME - $start")
}

# Checks what the run needs, copies ours, and records the machine and the
# settings in meta.tsv.
prepare() {
    local f
    [ "$(id -u)" = 0 ] || { echo "bench: run as root" >&2; exit 1; }
    for f in "$KD" "$B/runcmd" "$B/threads" "$B/spin" "$B/abcost" \
             "$B/deep"; do
        [ -x "$f" ] || { echo "bench: $f missing (make bench)" >&2; exit 1; }
    done
    if [ ! -r "$REF" ]; then
        HAVE_REF=0
        note "the reference was not run: no $REF (KD_REFERENCE names it);" \
             "its columns are empty and the verdicts against it n/a"
    fi
    # A copy of ours, so that a rebuild during the run changes nothing.
    meta git_rev "$(git -C "$ROOT" describe --always --dirty 2>/dev/null ||
                    echo '?')"
    cp "$KD" "$WORK/kernel_delay" || exit 1
    KD=$WORK/kernel_delay
    OURS=("$KD")
    REFCMD=("$PY" "$REF")
    # Unbuffered where its "# Start sampling" line must be seen in time.
    REFCMD_U=("$PY" -u "$REF")
    PIN=(taskset -c "$TOOL_CPU")
    if [ "$(nproc)" -lt 2 ]; then
        note "one CPU only: spinner and tracers share it"
        TOOL_CPU=0; SPIN_CPU=0; PIN=(taskset -c 0)
    fi
    log "checking the load"
    meta hooks_before "$(syscall_hooks)"
    meta busy "$(cpu_busy 1)"
    meta loadavg "$(cut -d' ' -f1-3 /proc/loadavg)"
    command -v bpftool > /dev/null ||
        note "no bpftool: other tracers on the syscall hooks go unnoticed"
    meta date "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    meta kernel "$(uname -r)"
    meta arch "$(uname -m)"
    meta cpu "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo |
                head -1)"
    meta nproc "$(nproc)"
    meta mem_gb "$(awk '/^MemTotal/ { printf "%.0f", $2 / 1048576 }' \
                   /proc/meminfo)"
    meta ours_version "$("$KD" --version 2>&1 | head -1)"
    meta ref_name "$(basename "$REF")"
    meta py_version "$("$PY" --version 2>&1)"
    meta bcc_version "$("$PY" -c 'import bcc; print(bcc.__version__)' \
                       2>/dev/null || echo '?')"
    meta only "$ONLY"
    meta runs "$RUNS"
    meta ref_runs_100 "$REF_RUNS_100"
    meta rep_max_threads "$REP_MAX_THREADS"
    meta ev_runs "$EV_RUNS"
    meta pipe_runs "$PIPE_RUNS"
    meta burst "$BURST"
    meta profile_hz "$PROFILE_HZ"
    meta pipe_repeats "$PIPE_REPEATS"
    meta watch_secs "$WATCH_SECS"
    meta watch_threads "$WATCH_THREADS"
    meta stacks_hz "$STACKS_HZ"
    meta stacks_secs "$STACKS_SECS"
    meta spin_cpu "$SPIN_CPU"
}

# ---------------------------------------------------------------------------
# Figure 1: start-up against the idle target.  Rows: 1 idle TOOL RUN
# start_s|wall_s|tail_s.

# startup_run NAME TOOL RUN CMD...: one run of CMD against the idle
# target; emits its rows when RUN is not "warm-up".
startup_run() {
    local name=$1 tool=$2 i=$3 start dump
    shift 3
    if ! run "$name" 120 "$@" -p "$IDLE_PID" --sample-time 0.1 \
            --skip-upcall-stats || [ "$R_STATUS" != 0 ] \
            || ! start=$(ts_line "$WORK/$name.out" "Start sampling") \
            || ! dump=$(ts_line "$WORK/$name.out" "Sample dump"); then
        fail "start-up: $tool, run $i: status ${R_STATUS:-?}:" \
             "$(head -c 200 "$WORK/$name.out")" \
             "$(tail -c 200 "$WORK/$name.err")"
        return 1
    fi
    [ "$i" = warm-up ] && return 0
    emit 1 idle "$tool" "$i" start_s "$(calc "$start - $R_LAUNCH")"
    emit 1 idle "$tool" "$i" wall_s "$(calc "$R_EXIT - $R_LAUNCH")"
    emit 1 idle "$tool" "$i" tail_s "$(calc "$R_EXIT - $dump")"
}

# A real ovs-vswitchd (Debian's), with no database to talk to: it keeps
# trying, with its executable and its libraries mapped.  OVS_PID, or
# nothing when it is not installed or does not start.
ovs_start() {
    local dir=$WORK/ovs
    OVS_PID=
    command -v ovs-vswitchd > /dev/null || return 1
    mkdir -p "$dir"
    # Not --detach, which waits for the database.
    OVS_RUNDIR=$dir OVS_LOGDIR=$dir ovs-vswitchd "unix:$dir/db.sock" \
        --unixctl="$dir/vswitchd.ctl" --log-file="$dir/vswitchd.log" \
        --no-chdir > "$dir/out" 2>&1 &
    OVS_PID=$!
    track "$OVS_PID" ovs-vswitchd
    # Its libraries are mapped by then.
    sleep 1
    kill -0 "$OVS_PID" 2>/dev/null
}

# startup_ovs RUN TOOL OPTION...: ours against that ovs-vswitchd: launch
# to sampling, peak RSS.  With RUN "stats", a run with -D 32 instead (it
# compiles with debug information, which takes longer), for what its line
# says of the unwind tables (--profile-hz).
startup_ovs() {
    local run=$1 tool=$2 name start line debug=()
    shift 2
    name=su-ovs-$tool-$run
    [ "$run" = stats ] && debug=(-D 32)
    if ! run "$name" 120 "${OURS[@]}" -p "$OVS_PID" --sample-time 0.1 \
            --skip-upcall-stats "${debug[@]}" "$@" || [ "$R_STATUS" != 0 ] \
            || ! start=$(ts_line "$WORK/$name.out" "Start sampling"); then
        fail "start-up: ovs-vswitchd, $tool, run $run: status" \
             "${R_STATUS:-?}: $(tail -c 200 "$WORK/$name.err")"
        return 1
    fi
    [ "$run" = warm-up ] && return 0
    if [ "$run" != stats ]; then
        emit 1 ovs "$tool" "$run" start_s "$(calc "$start - $R_LAUNCH")"
        emit 1 ovs "$tool" "$run" rss_kb "$R_RSS_KB"
        return 0
    fi
    line=$(grep -m1 '^kernel_delay: unwind tables:' "$WORK/$name.err")
    [ -n "$line" ] || return 0
    # "... 18 files (0 without CFI, 0 left out), 260511 rows of 589824,
    # 2174 pages, built in 0.271 s, 6.8 MiB of kernel memory"
    awk -v tool="$tool" -v run="$run" -v l="$line" 'BEGIN {
        OFS = "\t"
        if (match(l, /[0-9]+ files/)) {
            print 1, "ovs", tool, run, "files", substr(l, RSTART, RLENGTH) + 0
        }
        if (match(l, /[0-9]+ rows/)) {
            print 1, "ovs", tool, run, "rows", substr(l, RSTART, RLENGTH) + 0
        }
        if (match(l, /built in [0-9.]+/)) {
            print 1, "ovs", tool, run, "build_s", substr(l, RSTART + 9,
                                                         RLENGTH - 9)
        }
        if (match(l, /[0-9.]+ MiB/)) {
            print 1, "ovs", tool, run, "tables_mib",
                substr(l, RSTART, RLENGTH) + 0
        }
    }' >> "$OUT/raw.tsv"
}

# Ours and the reference alternately, after one warm-up run of each; then
# ours against a real ovs-vswitchd, without and with user stacks (whose
# unwind tables are built at attach).
fig_startup() {
    local i
    quiet "start-up"
    log "1. start-up: warm-up runs"
    startup_run su-ours-warm ours warm-up "${OURS[@]}"
    [ "$HAVE_REF" = 0 ] ||
        startup_run su-ref-warm reference warm-up "${REFCMD[@]}"
    for i in $(seq "$RUNS"); do
        log "1. start-up: run $i/$RUNS"
        startup_run "su-ours-$i" ours "$i" "${OURS[@]}"
        [ "$HAVE_REF" = 0 ] ||
            startup_run "su-ref-$i" reference "$i" "${REFCMD[@]}"
    done
    if ! ovs_start; then
        note "no ovs-vswitchd: start-up with unwind tables not measured"
        return
    fi
    startup_ovs warm-up ours-stacks --profile-hz "$PROFILE_HZ"
    startup_ovs stats ours-stacks --profile-hz "$PROFILE_HZ"
    for i in $(seq "$RUNS"); do
        log "1. start-up, ovs-vswitchd: run $i/$RUNS"
        startup_ovs "$i" ours
        startup_ovs "$i" ours-stacks --profile-hz "$PROFILE_HZ"
    done
    stop_proc "$OVS_PID"
}

# ---------------------------------------------------------------------------
# Figures 2 and 5: report time and peak memory against N threads.  Rows:
# 2 N - 0 sleep_ms|sample_s|max_threads (the setting), 2 N ours RUN
# line_ms|cpu_ms|sampled|exit_ms|shown|rss_kb, 2 N reference RUN
# exit_ms|shown|rss_kb, or timeout_s (seconds after its "# Sample dump"
# line, "-" without one), or 2 N reference 0 not_run 1.

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

# report_ours N TARGET SAMPLE OPTION...: a warm-up, then RUNS runs of ours
# with -D 32.
report_ours() {
    local n=$1 tp=$2 sample=$3 i name dump line l_n l_wall l_cpu
    shift 3
    run "rep-ours-$n-warm" 120 "${OURS[@]}" "$@" -D 32 -p "$tp" \
        --sample-time "$sample" --skip-upcall-stats
    for i in $(seq "$RUNS"); do
        log "2. report time: $n threads, ours run $i/$RUNS"
        name=rep-ours-$n-$i
        if ! run "$name" 120 "${OURS[@]}" "$@" -D 32 -p "$tp" \
                --sample-time "$sample" --skip-upcall-stats \
                || [ "$R_STATUS" != 0 ] \
                || ! dump=$(ts_line "$WORK/$name.out" "Sample dump"); then
            fail "report time: ours, $n threads, run $i: status" \
                 "${R_STATUS:-?}"
            continue
        fi
        line=$(sed -n "s/$D_LINE/\\1 \\2 \\3/p" "$WORK/$name.err" | tail -1)
        if [ -z "$line" ]; then
            fail "report time: ours printed no -D timing line ($n threads)"
            continue
        fi
        read -r l_n l_wall l_cpu <<<"$line"
        emit 2 "$n" ours "$i" line_ms "$l_wall"
        emit 2 "$n" ours "$i" cpu_ms "$l_cpu"
        emit 2 "$n" ours "$i" sampled "$l_n"
        emit 2 "$n" ours "$i" exit_ms "$(calc "($R_EXIT - $dump) * 1000")"
        emit 2 "$n" ours "$i" shown "$(report_threads "$WORK/$name.out")"
        emit 2 "$n" ours "$i" rss_kb "$R_RSS_KB"
    done
}

# report_ref N TARGET SAMPLE: the reference's runs at N threads: 3 at 100
# (1 with --quick), 1 at 1,000 and 5,000 (with a time limit, as its
# report is quadratic), none at 10,000 (it has no --max-threads).
report_ref() {
    local n=$1 tp=$2 sample=$3 runs to i name dump
    case $n in
    100) runs=$REF_RUNS_100; to=120 ;;
    1000) runs=1; to=$REF_TIMEOUT_1000 ;;
    5000) runs=1; to=$REF_TIMEOUT_5000 ;;
    *) runs=0; to=0 ;;
    esac
    if [ "$to" = 0 ] || [ "$runs" = 0 ] || [ "$HAVE_REF" = 0 ]; then
        emit 2 "$n" reference 0 not_run 1
        return 0
    fi
    for i in $(seq "$runs"); do
        log "2. report time: $n threads, reference run $i/$runs" \
            "(time limit $to s)"
        name=rep-ref-$n-$i
        if ! run "$name" "$to" "${REFCMD[@]}" -p "$tp" \
                --sample-time "$sample" --skip-upcall-stats; then
            fail "report time: the reference, $n threads: no result"
            continue
        fi
        dump=$(ts_line "$WORK/$name.out" "Sample dump") || dump=
        if [ "$R_TIMEOUT" = 1 ]; then
            emit 2 "$n" reference "$i" timeout_s \
                "$([ -n "$dump" ] && calc "$R_EXIT - $dump" || echo -)"
            break
        fi
        if [ "$R_STATUS" != 0 ] || [ -z "$dump" ]; then
            fail "report time: the reference, $n threads: status $R_STATUS"
            continue
        fi
        emit 2 "$n" reference "$i" exit_ms "$(calc "($R_EXIT - $dump) * 1000")"
        emit 2 "$n" reference "$i" shown "$(report_threads "$WORK/$name.out")"
        emit 2 "$n" reference "$i" rss_kb "$R_RSS_KB"
    done
}

# report_size N: both tools against one target of N threads.  Ours' maps
# hold 8,192 threads by default: above REP_BIG it gets --max-threads.
report_size() {
    local n=$1 sleep_ms sample tp big=()
    sleep_ms=$(rep_sleep_ms "$n")
    sample=$(rep_sample_s "$sleep_ms")
    [ "$n" -gt "$REP_BIG" ] && big=(--max-threads "$REP_MAX_THREADS")
    quiet "report time, $n threads"
    log "2. report time: starting $n threads (sleeping $sleep_ms ms)"
    start_target "threads-$n" "$B/threads" "$n" "$sleep_ms" || return 0
    tp=$TARGET_PID
    sleep 0.2
    emit 2 "$n" - 0 sleep_ms "$sleep_ms"
    emit 2 "$n" - 0 sample_s "$sample"
    [ ${#big[@]} -gt 0 ] && emit 2 "$n" - 0 max_threads "${big[1]}"
    report_ours "$n" "$tp" "$sample" "${big[@]}"
    report_ref "$n" "$tp" "$sample"
    stop_proc "$tp"
}

# Figure 2 at every size; figure 5 alone needs only 1,000 threads.
fig_report() {
    local n sizes=1000
    want 2 && sizes="100 1000 5000 10000"
    for n in $sizes; do
        report_size "$n"
    done
}

# ---------------------------------------------------------------------------
# Figure 3: syscall events against the spinner's bursts.  Rows: 3 probe
# ours 0 supported 0|1, and 3 VARIANT TOOL RUN calls|secs|events|dropped
# for VARIANT stacks-off and stacks-on.

# Starts the spinner with arguments "$@" as a co-process: SPIN_PID, and
# file descriptors SPIN_W (its input) and SPIN_R (its output).
spin_start() {
    coproc SPINNER { exec "$B/spin" -c "$SPIN_CPU" "$@" 2>/dev/null; }
    SPIN_PID=$SPINNER_PID
    exec {SPIN_W}>&"${SPINNER[1]}" {SPIN_R}<&"${SPINNER[0]}"
}

# One burst of the spinner; SPIN_REPLY is its answer, "CALLS SECONDS".
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

# count_events FILE: "EVENTS DROPPED": the event lines of "# SYSCALL
# EVENTS" (not their stack frames), and the last warning about dropped
# events, in one pass.
count_events() {
    awk -v drop="$DROP_LINE" '
        /^# SYSCALL EVENTS:/ { on = 1; next }
        /^#/ { on = 0 }
        on && /^ +[0-9]+ +[0-9]+ +[0-9]+ / { n++ }
        $0 ~ drop { d = $0; sub(/.*captured, /, "", d); d = d + 0 }
        END { print n + 0, d + 0 }' "$1"
}

# events_run NAME CMD...: one run of CMD (a tool and the variant's options)
# with -s 0, the spinner's burst once it samples; fills E_CALLS, E_SECS,
# E_EVENTS, E_DROPPED.  The output, hundreds of MB with stacks, is
# removed once counted.
events_run() {
    local name=$1 bg
    shift
    E_CALLS='' E_SECS='' E_EVENTS='' E_DROPPED=''
    start_bg "$name" 300 "${PIN[@]}" "$@" -p "$SPIN_PID" -s 0 \
        --sample-time 1.5 --skip-upcall-stats
    bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start sampling' 60 "$bg" \
            || ! spin_ask; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        return 1
    fi
    finish_bg "$bg" "$name" || return 1
    [ "$R_STATUS" = 0 ] || return 1
    read -r E_CALLS E_SECS <<<"$SPIN_REPLY"
    read -r E_EVENTS E_DROPPED < <(count_events "$WORK/$name.out")
    rm -f "$WORK/$name.out"
}

# events_sample VARIANT TOOL RUN CMD...: events run RUN of TOOL in
# VARIANT, its rows emitted.
events_sample() {
    local variant=$1 tool=$2 i=$3
    shift 3
    log "3. syscall events, $variant: $tool run $i/$EV_RUNS"
    if events_run "$variant-$tool-$i" "$@"; then
        emit 3 "$variant" "$tool" "$i" calls "$E_CALLS"
        emit 3 "$variant" "$tool" "$i" secs "$E_SECS"
        emit 3 "$variant" "$tool" "$i" events "$E_EVENTS"
        emit 3 "$variant" "$tool" "$i" dropped "$E_DROPPED"
    elif [ "$tool" = ours ]; then
        note "ours -s, $variant, run $i could not be measured (status" \
             "${R_STATUS:-?})"
    else
        fail "syscall events, $variant: the reference, run $i (status" \
             "${R_STATUS:-?})"
    fi
}

# events_variant VARIANT OPTION...: EV_RUNS runs of each tool with
# OPTION... beside -s 0, interleaved (ours, the reference, ours, ...), so
# that the machine's slow spells fall on both alike.
events_variant() {
    local variant=$1 i
    shift
    quiet "syscall events, $variant"
    for i in $(seq "$EV_RUNS"); do
        if [ "$EV_SUPPORTED" = 1 ]; then
            events_sample "$variant" ours "$i" "${OURS[@]}" "$@"
        fi
        [ "$HAVE_REF" = 0 ] ||
            events_sample "$variant" reference "$i" "${REFCMD_U[@]}" "$@"
    done
}

# Whether ours supports -s at all (status 78 or "not supported": no).
events_probe() {
    EV_SUPPORTED=0
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
    emit 3 probe ours 0 supported "$EV_SUPPORTED"
}

# The two variants: without stacks, and with the default
# --stack-trace-size.
fig_events() {
    events_probe
    spin_start -t "$BURST"
    events_variant stacks-off --stack-trace-size 0
    events_variant stacks-on
    spin_stop
}

# ---------------------------------------------------------------------------
# Figure 4: added cost per syscall.  Rows: 4 TAG TOOL INDEX ns_call|ns_fault
# per measurement of abcost ("m ROUND TAG NS_PER_CALL NS_PER_FAULT"), TAG
# one of none, floor_raw, floor_classic, check_raw, ours_other, ref_other,
# ours_target, ref_target, ours_lp_other, ours_lp_target (ours with
# --long-poll-events); INDEX numbers the rounds across batches.

# cost_hold KEY PID CMD...: starts tracer CMD (pinned to TOOL_CPU) on
# target PID, waits until it samples, hands its two programs on the
# syscall hooks to abcost, then kills it with SIGKILL, so that the
# programs and their maps stay exactly as it left them while sampling (an
# orderly exit would first stop the capture).  Returns non-zero on failure.
cost_hold() {
    local key=$1 pid=$2 name=cost-$1 tracer held bg reply=
    shift 2
    # --long-poll-events takes no --sample-time: it watches until killed.
    if [[ " $* " == *" --long-poll-events "* ]]; then
        start_bg "$name" 600 "${PIN[@]}" "$@" -p "$pid" --skip-upcall-stats
    else
        start_bg "$name" 600 "${PIN[@]}" "$@" -p "$pid" --sample-time 600 \
            --skip-upcall-stats
    fi
    bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start \(sampling\|watching\)' 60 \
            "$bg"; then
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
    if [ -n "$held" ]; then
        echo "hold $key $held" >&"$AB_W" && read -r -t 30 reply <&"$AB_R"
    fi
    kill -KILL "$tracer" 2>/dev/null
    finish_bg "$bg" "$name"
    if [ "$reply" != "held $key" ]; then
        fail "cost: $key: its programs on sys_enter and sys_exit" \
             "(${held:-none found}) could not be taken"
        return 1
    fi
    meta info "cost $key: held its programs $held (hooks, ids)"
}

# cost_batch BATCH: one batch of COST_ROUNDS rounds; its rows emitted
# unless another process had eBPF programs on the syscall hooks before or
# after it.  Returns 1 when left out, 2 when abcost gave nothing.
cost_batch() {
    local batch=$1 hooks_before hooks_after lines l
    quiet "cost"
    log "4. cost per syscall: $COST_ROUNDS rounds (batch $batch)"
    hooks_before=$(syscall_hooks)
    echo run >&"$AB_W"
    lines=$(while read -r -t 600 l <&"$AB_R"; do
                [ "$l" = "done" ] && break
                echo "$l"
            done)
    hooks_after=$(syscall_hooks)
    if [ "$hooks_before" != 0 ] || [ "$hooks_after" != 0 ]; then
        note "cost, a batch of rounds left out: another process had eBPF" \
             "programs on the syscall hooks before or after it"
        return 1
    fi
    [ -n "$lines" ] || return 2
    awk -v off="$(((batch - 1) * COST_ROUNDS))" 'BEGIN { OFS = "\t" }
        $1 == "m" && NF == 5 {
            tool = $3 ~ /^ours_/ ? "ours" : $3 ~ /^ref_/ ? "reference" : "-"
            print 4, $3, tool, off + $2, "ns_call", $4
            print 4, $3, tool, off + $2, "ns_fault", $5
        }' <<<"$lines" >> "$OUT/raw.tsv"
}

# cost_rounds: batches of rounds while a variant has fewer than QUICK_MIN
# quick measurements (COST_BATCHES at most); a batch disturbed by another
# tracer is left out, 3 such at most.
cost_rounds() {
    local batches=0 tries=0 rc
    while [ $batches -lt "$COST_BATCHES" ] && [ $tries -lt 3 ]; do
        cost_batch $((batches + 1))
        rc=$?
        if [ $rc = 1 ]; then
            tries=$((tries + 1))
            continue
        fi
        [ $rc = 0 ] || break
        batches=$((batches + 1))
        "$ROOT/bench/analyze.sh" --short "$QUICK_MIN" "$OUT" || break
    done
    meta cost_rounds $((batches * COST_ROUNDS))
    [ $batches -gt 0 ] ||
        fail "cost: every try was disturbed by another tracer, or abcost" \
             "failed"
}

# abcost as a co-process, the four tracers' programs handed to it, then
# the rounds.
fig_cost() {
    quiet "cost"
    coproc ABCOST {
        exec "$B/abcost" -c "$SPIN_CPU" -n "$COST_CALLS" -p "$COST_PAGES" \
            -r "$COST_ROUNDS" -i "$IDLE_PID"
    }
    AB_PID=$ABCOST_PID
    track "$AB_PID" abcost
    exec {AB_W}>&"${ABCOST[1]}" {AB_R}<&"${ABCOST[0]}"
    log "4. cost per syscall: starting the tracers, taking their programs"
    if cost_hold ours_other "$IDLE_PID" "${OURS[@]}" &&
            { [ "$HAVE_REF" = 0 ] ||
              cost_hold ref_other "$IDLE_PID" "${REFCMD_U[@]}"; } &&
            cost_hold ours_target "$AB_PID" "${OURS[@]}" &&
            { [ "$HAVE_REF" = 0 ] ||
              cost_hold ref_target "$AB_PID" "${REFCMD_U[@]}"; } &&
            cost_hold ours_lp_other "$IDLE_PID" "${OURS[@]}" \
                --long-poll-events &&
            cost_hold ours_lp_target "$AB_PID" "${OURS[@]}" \
                --long-poll-events; then
        cost_rounds
    fi
    exec {AB_W}>&- {AB_R}<&-
    stop_proc "$AB_PID"
}

# ---------------------------------------------------------------------------
# Figure 6: --long-poll-events against a poll loop at full rate.  Rows:
# 6 poller TOOL RUN calls|secs|longs|reported|dropped, TOOL "none" for the
# poller untraced; ours, ours-profile, ours-offcpu and ours-trace (with
# --trace-dir: each interval reported written as a trace) or reference.

# lp_run NAME TOOL CMD...: one run of CMD against the poller, a burst once
# it watches (ours, --long-poll-events 1 ms) or samples (the reference,
# its classic time mode); then SIGINT.  Fills L_CALLS, L_SECS, L_LONGS,
# and for ours L_REPORTED (intervals reported) and L_DROPPED.
lp_run() {
    local name=$1 tool=$2 bg tracer
    shift 2
    L_CALLS='' L_SECS='' L_LONGS='' L_REPORTED='' L_DROPPED=''
    if [ "${tool%%-*}" = ours ]; then
        start_bg "$name" 300 "${PIN[@]}" "$@" -p "$SPIN_PID" \
            --long-poll-events 1000000
    else
        start_bg "$name" 300 "${PIN[@]}" "$@" -p "$SPIN_PID" \
            --sample-time 1.5 --skip-upcall-stats
    fi
    bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start \(sampling\|watching\)' 60 \
            "$bg" || ! spin_ask; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        return 1
    fi
    # Ours watches until SIGINT (the intervals that ended in the burst
    # reach it within 0.1 s); the reference's sample ends by itself.
    if [ "${tool%%-*}" = ours ]; then
        sleep 0.3
        tracer=$(ps -o pid= --ppid "$bg" | tr -d ' ')
        kill -INT "$tracer" 2>/dev/null
    fi
    finish_bg "$bg" "$name" || return 1
    [ "$R_STATUS" = 0 ] || return 1
    read -r L_CALLS L_SECS L_LONGS <<<"$SPIN_REPLY"
    if [ "${tool%%-*}" = ours ]; then
        L_REPORTED=$(grep -c '^# Long poll interval of ' "$WORK/$name.out")
        L_DROPPED=$(awk -v drop="$DROP_LINE" '$0 ~ drop { d = $0;
            sub(/.*captured, /, "", d); print d + 0 }' "$WORK/$name.out")
        L_DROPPED=${L_DROPPED:-0}
    fi
}

# The poller (bench/build/spin -P -L 2: poll(NULL, 0, 0) as fast as it
# can, and every 100 ms one 2 ms interval between two calls), under ours
# with --long-poll-events 1000000 and under the reference's classic time
# mode, EV_RUNS runs of each, interleaved.
fig_longpoll() {
    local i tool
    spin_start -P -L 2 -t "$BURST"
    quiet "long poll events"
    for i in $(seq "$EV_RUNS"); do
        # The poller on its own, for the baseline.
        if spin_ask; then
            read -r L_CALLS L_SECS L_LONGS <<<"$SPIN_REPLY"
            emit 6 poller none "$i" calls "$L_CALLS"
            emit 6 poller none "$i" secs "$L_SECS"
        fi
        for tool in ours ours-profile ours-offcpu ours-trace reference; do
            [ $tool = reference ] && [ "$HAVE_REF" = 0 ] && continue
            log "6. long poll events: $tool run $i/$EV_RUNS"
            case $tool in
            ours) lp_run "lp-$tool-$i" $tool "${OURS[@]}" ;;
            ours-profile)
                lp_run "lp-$tool-$i" $tool "${OURS[@]}" \
                    --profile-hz "$PROFILE_HZ" ;;
            ours-offcpu) lp_run "lp-$tool-$i" $tool "${OURS[@]}" --off-cpu ;;
            ours-trace)
                mkdir -p "$WORK/traces"
                lp_run "lp-$tool-$i" $tool "${OURS[@]}" \
                    --trace-dir "$WORK/traces" ;;
            *) lp_run "lp-$tool-$i" $tool "${REFCMD_U[@]}" ;;
            esac
            if [ $? = 0 ]; then
                emit 6 poller $tool "$i" calls "$L_CALLS"
                emit 6 poller $tool "$i" secs "$L_SECS"
                emit 6 poller $tool "$i" longs "$L_LONGS"
                if [ "${tool%%-*}" = ours ]; then
                    emit 6 poller $tool "$i" reported "$L_REPORTED"
                    emit 6 poller $tool "$i" dropped "$L_DROPPED"
                fi
            else
                fail "long poll events: $tool, run $i (status" \
                     "${R_STATUS:-?})"
            fi
        done
    done
    spin_stop
}

# ---------------------------------------------------------------------------
# Figure 7: the cost per context switch of tasks that are not the target.
# Rows: 7 pipe TOOL RUN ns_rt, one per measurement of bench/build/pipe
# (ns per round trip), TOOL none, ours (--long-poll-events), ours-why
# (with --profile-hz and --off-cpu), ours-trace (with --trace-dir) or
# reference (its classic time mode), the tracers on the idle target.

# pipe_measure TOOL RUN: one run of bench/build/pipe, its rows emitted.
pipe_measure() {
    "$B/pipe" -c "$SPIN_CPU" -n "$PIPE_ROUNDS" -r "$PIPE_REPEATS" \
        2>>"$WORK/pipe.err" | awk -v tool="$1" -v run="$2" \
            'BEGIN { OFS = "\t" } $1 == "m" { print 7, "pipe", tool, run,
                                             "ns_rt", $2 }' \
            >> "$OUT/raw.tsv"
}

# pipe_run NAME TOOL RUN CMD...: tracer CMD on the idle target, pipe
# measured once it watches or samples, then the tracer stopped.
pipe_run() {
    local name=$1 tool=$2 run=$3 bg tracer
    shift 3
    if [ "${tool%%-*}" = ours ]; then
        start_bg "$name" 300 "${PIN[@]}" "$@" -p "$IDLE_PID"
    else
        start_bg "$name" 300 "${PIN[@]}" "$@" -p "$IDLE_PID" \
            --sample-time 600 --skip-upcall-stats
    fi
    bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start \(sampling\|watching\)' 60 \
            "$bg"; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        fail "pipe: $tool did not start: $(head -c 300 "$WORK/$name.out")"
        return 1
    fi
    pipe_measure "$tool" "$run"
    tracer=$(ps -o pid= --ppid "$bg" | tr -d ' ')
    if [ "${tool%%-*}" = ours ]; then
        kill -INT "$tracer" 2>/dev/null
    else
        kill -TERM "$tracer" 2>/dev/null
    fi
    finish_bg "$bg" "$name"
}

fig_pipe() {
    local i tool
    quiet "pipe"
    for i in $(seq "$PIPE_RUNS"); do
        log "7. context switches of other tasks: run $i/$PIPE_RUNS"
        pipe_measure none "$i"
        pipe_run "pipe-ours-$i" ours "$i" "${OURS[@]}" --long-poll-events
        pipe_run "pipe-ours-why-$i" ours-why "$i" "${OURS[@]}" \
            --long-poll-events --profile-hz "$PROFILE_HZ" --off-cpu
        mkdir -p "$WORK/traces"
        pipe_run "pipe-ours-trace-$i" ours-trace "$i" "${OURS[@]}" \
            --long-poll-events --trace-dir "$WORK/traces"
        [ "$HAVE_REF" = 1 ] &&
            pipe_run "pipe-ref-$i" reference "$i" "${REFCMD_U[@]}"
    done
}

# ---------------------------------------------------------------------------
# Figure 8: what a watch costs in CPU time with a busy target, tool and
# eBPF programs together.  Rows: 8 watch TOOL RUN tool_pct|bpf_pct, TOOL
# ours (--long-poll-events 100 ms), ours-profile (with --profile-hz) or
# ours-offcpu (with --off-cpu): the tracer's own CPU time (utime + stime)
# and the run time of every eBPF program (kernel.bpf_stats_enabled), over
# WATCH_SECS s, in % of one CPU.

# The run time in ns of all the eBPF programs loaded, or of those whose
# names match regex $1 (kernel.bpf_stats_enabled must be on).
bpf_run_ns() {
    bpftool prog show 2>/dev/null | awk -v re="${1:-.}" '
        { for (i = 1; i < NF; i++) if ($i == "name") name = $(i + 1) }
        name ~ re {
            for (i = 1; i < NF; i++) if ($i == "run_time_ns") s += $(i + 1)
        }
        END { printf "%.0f\n", s }'
}

# The CPU time in ns of process PID (utime + stime).
proc_cpu_ns() {
    awk -v hz="$(getconf CLK_TCK)" '{
        sub(/^.*\) /, "")
        printf "%.0f\n", ($12 + $13) * 1e9 / hz
    }' "/proc/$1/stat"
}

# The run time in ns of process PID's threads (the sum of their
# /proc/PID/task/TID/schedstat): exact to the ns where utime + stime
# counts 10 ms ticks, which over figure 8's 5 s is 0.2% of a CPU.  The
# watch has no thread that ends while measured (the unwind tables'
# builder is joined before the programs load).
proc_run_ns() {
    cat "/proc/$1"/task/*/schedstat 2>/dev/null |
        awk '{ s += $1 } END { printf "%.0f\n", s }'
}

# scrape URL: one GET of URL as Prometheus makes it (OpenMetrics).
scrape() {
    curl -s -m 2 -H 'Accept: application/openmetrics-text' -o /dev/null "$1"
}

# watch_scrape URL SECONDS: GET URL once a second for SECONDS seconds, as
# Prometheus would (the figure's "ours-metrics").
watch_scrape() {
    local k

    for ((k = 0; k < $2; k++)); do
        scrape "$1"
        sleep 1
    done
}

# scrape_cost TRACER URL: the tool's CPU time per scrape, paired within
# one watch: its run time over SCRAPES scrapes back to back, less its
# run time over as long a wait unscraped, measured just before (the
# watch's own cost, which moves with the machine), divided by SCRAPES.
# Prints it in ns.
scrape_cost() {
    local tracer=$1 url=$2 c0 c1 c2 t0 t1 t2 k

    c0=$(proc_run_ns "$tracer") t0=$EPOCHREALTIME
    sleep "$WATCH_SECS"
    c1=$(proc_run_ns "$tracer") t1=$EPOCHREALTIME
    for ((k = 0; k < SCRAPES; k++)); do
        scrape "$url"
    done
    c2=$(proc_run_ns "$tracer") t2=$EPOCHREALTIME
    awk -v c0="$c0" -v c1="$c1" -v c2="$c2" -v t0="$t0" -v t1="$t1" \
        -v t2="$t2" -v n="$SCRAPES" 'BEGIN {
            base = (c1 - c0) / (t1 - t0)
            printf "%.0f\n", (c2 - c1 - base * (t2 - t1)) / n
        }'
}

# watch_run NAME TOOL RUN CMD...: one measured watch of the busy target:
# the tracer's CPU time, its eBPF programs' and its resident memory at the
# end; for TOOL ours-metrics (CMD with --metrics), its endpoint scraped
# every second meanwhile.
watch_run() {
    local name=$1 tool=$2 run=$3 bg tracer c0 c1 b0 b1 t0 t1 url rss
    local scraper='' scrape_ns=''
    shift 3
    start_bg "$name" 300 "${PIN[@]}" "$@" -p "$BUSY_PID" \
        --long-poll-events 100000000
    bg=$BG_PID
    if ! wait_line "$WORK/$name.out" '^# Start watching' 60 "$bg"; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        fail "watch cost: $tool did not start: $(head -c 300 \
              "$WORK/$name.out")"
        return 1
    fi
    tracer=$(ps -o pid= --ppid "$bg" | tr -d ' ')
    url=$(sed -n 's/^kernel_delay: metrics at //p' "$WORK/$name.err")
    if [ "$tool" = ours-metrics ] && [ -z "$url" ]; then
        kill -INT "$tracer" 2>/dev/null
        finish_bg "$bg" "$name"
        fail "watch cost: $tool serves no metrics"
        return 1
    fi
    if [ -n "$url" ]; then
        watch_scrape "$url" $((WATCH_SECS + 2)) &
        scraper=$!
    fi
    sleep 1
    c0=$(proc_run_ns "$tracer") b0=$(bpf_run_ns) t0=$EPOCHREALTIME
    sleep "$WATCH_SECS"
    c1=$(proc_run_ns "$tracer") b1=$(bpf_run_ns) t1=$EPOCHREALTIME
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$tracer/status")
    if [ -n "$scraper" ]; then
        wait "$scraper"
        scrape_ns=$(scrape_cost "$tracer" "$url")
    fi
    kill -INT "$tracer" 2>/dev/null
    finish_bg "$bg" "$name"
    awk -v tool="$tool" -v run="$run" -v c=$((c1 - c0)) -v b=$((b1 - b0)) \
        -v t0="$t0" -v t1="$t1" -v rss="${rss:-}" \
        -v scrape="${scrape_ns:-}" 'BEGIN {
            OFS = "\t"; ns = (t1 - t0) * 1e9
            print 8, "watch", tool, run, "tool_pct", 100 * c / ns
            print 8, "watch", tool, run, "bpf_pct", 100 * b / ns
            if (rss != "")
                print 8, "watch", tool, run, "rss_kb", rss
            if (scrape != "")
                print 8, "watch", tool, run, "scrape_ns", scrape
        }' >> "$OUT/raw.tsv"
}

fig_watch_cost() {
    local i stats
    stats=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)
    if [ -z "$stats" ] || ! command -v bpftool > /dev/null; then
        fail "watch cost: no kernel.bpf_stats_enabled or no bpftool"
        return
    fi
    if ! start_target busy taskset -c "$SPIN_CPU" "$B/threads" \
            "$WATCH_THREADS" 10 spin; then
        fail "watch cost: the busy target did not start"
        return
    fi
    BUSY_PID=$TARGET_PID
    BPF_STATS_WAS=$stats
    echo 1 > /proc/sys/kernel/bpf_stats_enabled
    for i in $(seq "$EV_RUNS"); do
        log "8. watch cost: run $i/$EV_RUNS"
        watch_run "watch-ours-$i" ours "$i" "${OURS[@]}"
        watch_run "watch-ours-profile-$i" ours-profile "$i" "${OURS[@]}" \
            --profile-hz "$PROFILE_HZ"
        watch_run "watch-ours-offcpu-$i" ours-offcpu "$i" "${OURS[@]}" \
            --off-cpu
        watch_run "watch-ours-metrics-$i" ours-metrics "$i" "${OURS[@]}" \
            --metrics 127.0.0.1:0
    done
    echo "$stats" > /proc/sys/kernel/bpf_stats_enabled
    BPF_STATS_WAS=
    stop_proc "$BUSY_PID"
}

# ---------------------------------------------------------------------------
# 9. User stacks (fig_stacks): bench/build/deep, built without frame
# pointers, spinning five calls deep through libc's memchr(), profiled at
# STACKS_HZ for STACKS_SECS s by ours (stacks unwound from the CFI in the
# kernel), ours with --frame-pointers, and perf record --call-graph dwarf
# (the stack copied out at each sample, unwound afterwards by perf
# script): the share of samples whose stack holds the whole chain down to
# main(), and the CPU each takes per second of profiling.

# The share of a stack's frames, as "name;name;...;": whole when it holds
# deep_leaf;deep_d;deep_c;deep_b;deep_a;...main.
STACKS_CHAIN='deep_leaf;deep_d;deep_c;deep_b;deep_a;(.*;)?main;'

# stacks_ours RUN TOOL OPTION...: one profile by ours (TOOL ours or
# ours-fp): its samples and those with the whole chain, from its JSON;
# its CPU time and its eBPF programs', over STACKS_SECS s once attached.
stacks_ours() {
    local run=$1 tool=$2 name bg tracer c0 c1 b0 b1 t0 t1 counts
    shift 2
    name=stacks-$tool-$run
    start_bg "$name" 120 "${PIN[@]}" "$KD" -p "$DEEP_PID" --json -D 32 \
        --sample-time "$((STACKS_SECS + 2))" --skip-upcall-stats \
        --profile-hz "$STACKS_HZ" "$@"
    bg=$BG_PID
    if ! wait_line "$WORK/$name.err" 'loaded and attached' 60 "$bg"; then
        kill -TERM "$bg" 2>/dev/null
        finish_bg "$bg" "$name"
        fail "stacks: $tool did not start: $(tail -c 300 "$WORK/$name.err")"
        return 1
    fi
    tracer=$(ps -o pid= --ppid "$bg" | tr -d ' ')
    sleep 0.5
    # The profile's programs only: those of the time mode's statistics
    # are no part of profiling.
    c0=$(proc_cpu_ns "$tracer") b0=$(bpf_run_ns '^kd_(uw_)?profile$')
    t0=$EPOCHREALTIME
    sleep "$STACKS_SECS"
    c1=$(proc_cpu_ns "$tracer") b1=$(bpf_run_ns '^kd_(uw_)?profile$')
    t1=$EPOCHREALTIME
    if ! finish_bg "$bg" "$name" || [ "$R_STATUS" != 0 ]; then
        fail "stacks: $tool, run $run: status ${R_STATUS:-?}:" \
             "$(tail -c 300 "$WORK/$name.err")"
        return 1
    fi
    counts=$(jq -r --arg re "$STACKS_CHAIN" '
        def chain: map(sub("\\+0x[0-9a-f]+( .*)?$"; "")) | join(";") + ";";
        [.threads[]?] | first // {} | [(.profile.samples // 0),
         ([.on_cpu_stacks[]? | select(.frames | chain | test($re))
           | .samples] | add // 0)] | "\(.[0]) \(.[1])"' \
        "$WORK/$name.out" 2>/dev/null | head -n 1)
    awk -v tool="$tool" -v run="$run" -v c=$((c1 - c0)) -v b=$((b1 - b0)) \
        -v t0="$t0" -v t1="$t1" -v counts="$counts" 'BEGIN {
            OFS = "\t"; ns = (t1 - t0) * 1e9; split(counts, n, " ")
            print 9, "stacks", tool, run, "samples", n[1] + 0
            print 9, "stacks", tool, run, "whole", n[2] + 0
            print 9, "stacks", tool, run, "tool_pct", 100 * c / ns
            print 9, "stacks", tool, run, "bpf_pct", 100 * b / ns
        }' >> "$OUT/raw.tsv"
}

# cmd_cpu_ns NAME CMD...: runs CMD under runcmd, its output into
# $WORK/NAME.out, and prints its CPU time in ns (user and system, its
# children's included).  Fails when it fails.
cmd_cpu_ns() {
    local name=$1
    shift
    run "$name" 300 "$@" && [ "$R_STATUS" = 0 ] || return 1
    echo "$R_CPU_NS"
}

# stacks_perf RUN: perf record --call-graph dwarf on deep's thread for
# STACKS_SECS s, then perf script: the samples, those with the whole
# chain, perf record's CPU and perf script's, and perf.data's size.
stacks_perf() {
    local run=$1 data=$WORK/perf-$1.data rec post counts bytes
    rec=$(cmd_cpu_ns "perf-record-$run" perf record -q -F "$STACKS_HZ" \
          --call-graph dwarf -t "$DEEP_PID" -o "$data" -- \
          sleep "$STACKS_SECS") ||
        { fail "stacks: perf record: $(tail -c 300 \
                "$WORK/perf-record-$run.err")"; return 1; }
    post=$(cmd_cpu_ns "perf-script-$run" perf script -i "$data" -F ip,sym) ||
        { fail "stacks: perf script: $(tail -c 300 \
                "$WORK/perf-script-$run.err")"; return 1; }
    bytes=$(stat -c %s "$data")
    # One sample a paragraph: its frames, innermost first, "ADDR SYM+OFF".
    counts=$(awk -v re="$STACKS_CHAIN" '
        function flush() {
            if (n) { all++; if (chain ~ re) whole++ }
            n = 0; chain = ""
        }
        NF == 0 { flush(); next }
        { sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym); chain = chain sym ";"; n++ }
        END { flush(); print all + 0, whole + 0 }' \
        "$WORK/perf-script-$run.out")
    rm -f "$data"
    awk -v run="$run" -v rec="$rec" -v post="$post" -v counts="$counts" \
        -v bytes="$bytes" -v secs="$STACKS_SECS" 'BEGIN {
            OFS = "\t"; ns = secs * 1e9; split(counts, n, " ")
            print 9, "stacks", "perf", run, "samples", n[1] + 0
            print 9, "stacks", "perf", run, "whole", n[2] + 0
            print 9, "stacks", "perf", run, "tool_pct", 100 * rec / ns
            print 9, "stacks", "perf", run, "post_pct", 100 * post / ns
            print 9, "stacks", "perf", run, "bytes_per_s", bytes / secs
        }' >> "$OUT/raw.tsv"
}

fig_stacks() {
    local i stats
    stats=$(cat /proc/sys/kernel/bpf_stats_enabled 2>/dev/null)
    if [ -z "$stats" ] || ! command -v perf > /dev/null \
            || ! command -v jq > /dev/null; then
        fail "stacks: no kernel.bpf_stats_enabled, perf or jq"
        return
    fi
    if ! start_target deep "$B/deep" -c "$SPIN_CPU"; then
        fail "stacks: the deep target did not start"
        return
    fi
    DEEP_PID=$TARGET_PID
    BPF_STATS_WAS=$stats
    echo 1 > /proc/sys/kernel/bpf_stats_enabled
    emit 9 stacks - 0 hz "$STACKS_HZ"
    emit 9 stacks - 0 secs "$STACKS_SECS"
    for i in $(seq "$EV_RUNS"); do
        log "9. user stacks: run $i/$EV_RUNS"
        stacks_ours "$i" ours
        stacks_ours "$i" ours-fp --frame-pointers
        stacks_perf "$i"
    done
    echo "$stats" > /proc/sys/kernel/bpf_stats_enabled
    BPF_STATS_WAS=
    stop_proc "$DEEP_PID"
}

# ---------------------------------------------------------------------------
# The run.

# The table and the verdicts from the rows; a full run also replaces
# bench/results.txt.
report() {
    "$ROOT/bench/analyze.sh" "$OUT" > "$OUT/table.txt"
    cat "$OUT/table.txt"
    echo "raw rows: $OUT/raw.tsv"
    if [ "$ONLY" = ,1,2,3,4,5,6,7,8,9, ]; then
        cp "$OUT/table.txt" "$ROOT/bench/results.txt"
    fi
}

main() {
    take_lock
    WORK=$(mktemp -d /tmp/kd-bench.XXXXXX) || exit 1
    trap cleanup EXIT
    trap 'echo "bench: interrupted" >&2; exit 130' INT TERM HUP
    open_results
    prepare
    IDLE_PID=
    if start_target idle taskset -c "$TOOL_CPU" "$B/threads" 0; then
        IDLE_PID=$TARGET_PID
    fi
    if [ -n "$IDLE_PID" ]; then
        want 1 && fig_startup
    fi
    { want 2 || want 5; } && fig_report
    if [ -n "$IDLE_PID" ]; then
        want 3 && fig_events
        want 4 && fig_cost
        want 6 && fig_longpoll
        want 7 && fig_pipe
        stop_proc "$IDLE_PID"
        want 8 && fig_watch_cost
        want 9 && fig_stacks
    fi
    meta quiet_waited "$QUIET_WAITED"
    meta elapsed "$(awk -v a="$T0" -v b="$EPOCHREALTIME" \
                    'BEGIN { printf "%.0f", b - a }')"
    report
    [ "$FAILED" = 0 ]
}

main
