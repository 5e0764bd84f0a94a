# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# shellcheck disable=SC2034  # Some globals are for the scenarios.
# Helpers for tests/e2e.sh and the kernel lane (tests/kernels/lane.sh):
# result accounting, the workload's control protocol, running
# kernel_delay, and parsing and checking its text report.  Sourced (bash);
# not meant to be run on its own.  The e2e scenarios' own helpers, --json
# runs included, are in tests/e2e/lib.sh.
#
# Conventions: functions print nothing unless they are checks (PASS:/FAIL:
# lines) or notes ("# ..." lines); results come back in globals written in
# capitals.

E2E_PASSED=0
E2E_FAILED=0

# All times are in ns unless a name says otherwise.
readonly MS=1000000

# How much longer every wait may last before it counts as a hang: the
# kernel lane's emulated guests (E2E_TIME_SCALE) compile and attach
# several times slower.  Scales time limits only, never a measurement.
readonly WAIT_SCALE=${E2E_TIME_SCALE:-1}

# ---------------------------------------------------------------------------
# Results.

pass() {
    E2E_PASSED=$((E2E_PASSED + 1))
    printf 'PASS: %s\n' "$1"
}

# fail DESCRIPTION [EXPECTED GOT]
fail() {
    E2E_FAILED=$((E2E_FAILED + 1))
    if (($# >= 3)); then
        printf 'FAIL: %s (expected %s, got %s)\n' "$1" "$2" "${3:-nothing}"
    else
        printf 'FAIL: %s\n' "$1"
    fi
}

note() {
    printf '# %s\n' "$*"
}

skip() {
    printf 'SKIP: %s\n' "$*"
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

# check_close DESCRIPTION EXPECTED GOT TOLERANCE: |GOT - EXPECTED| must be
# at most TOLERANCE.  Also records the error in E2E_ERRORS for the summary.
E2E_ERRORS=()
check_close() {
    local desc=$1 expected=$2 got=$3 tol=$4 err

    if ! is_uint "$got" || ! is_uint "$expected"; then
        fail "$desc" "about $expected" "$got"
        return
    fi
    err=$((got - expected))
    E2E_ERRORS+=("$desc: tool $got, truth $expected, error $err ns")
    if ((err <= tol && -err <= tol)); then
        pass "$desc ($got vs $expected, error $err ns, tolerance $tol)"
    else
        fail "$desc" "$expected +/- $tol" "$got (error $err ns)"
    fi
}

# ---------------------------------------------------------------------------
# Processes and time.

E2E_PIDS=()

track_pid() {
    E2E_PIDS+=("$1")
}

# Interrupts.  The INT and TERM traps only set E2E_INTERRUPTED: running
# anything longer in a trap that interrupted "read -t" is unsafe in bash 5.2
# (the read's timer can fire inside the trap and jump back into the read, or
# crash bash).  Every wait loop calls check_interrupt, which then calls the
# e2e_interrupted hook (clean up, report, die of the signal).
E2E_INTERRUPTED=

check_interrupt() {
    if [[ -n $E2E_INTERRUPTED ]]; then
        e2e_interrupted
    fi
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

now_ns() {
    date +%s%N
}

# wait_exit PID TIMEOUT_S: waits for a child to exit; WAIT_RC is its exit
# status, or "timeout" (the process is then killed).
wait_exit() {
    local pid=$1 deadline=$(($(now_ns) + $2 * WAIT_SCALE * 1000 * MS))

    while kill -0 "$pid" 2>/dev/null; do
        if (($(now_ns) > deadline)); then
            kill -INT "$pid" 2>/dev/null
            nap 1
            kill -KILL "$pid" 2>/dev/null
            wait "$pid" 2>/dev/null
            WAIT_RC=timeout
            return 1
        fi
        nap 0.02
    done
    wait "$pid"
    WAIT_RC=$?
}

# ---------------------------------------------------------------------------
# The workload (tests/workload.c).  Several instances can run; each has an
# ID (a shell word) and its own FIFOs under $WORKDIR/wl-ID.

declare -A WL_PID=() WL_CTL=() WL_REPLY=() WL_TID=()
WL_REPLY_LINE=

# wl_start ID NAME: starts an instance whose main thread is named NAME and
# waits until it is ready.  WL_TID[ID:THREAD] is the TID of each worker.
wl_start() {
    local id=$1 name=$2 dir=$WORKDIR/wl-$1
    local deadline=$(($(now_ns) + 10000 * WAIT_SCALE * MS))
    local tid thread fd

    mkdir -p "$dir"
    mkfifo "$dir/ctl" "$dir/reply"
    "$WORKLOAD" --ctl "$dir/ctl" --reply "$dir/reply" --name "$name" \
        --die-with-parent >"$dir/out" 2>"$dir/err" &
    WL_PID[$id]=$!
    track_pid $!
    until grep -qx ready "$dir/out" 2>/dev/null; do
        if ! kill -0 "${WL_PID[$id]}" 2>/dev/null \
           || (($(now_ns) > deadline)); then
            fail "workload $id starts ($(head -c 300 "$dir/err"))"
            return 1
        fi
        nap 0.01
    done
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
# instance ID into WL_REPLY_LINE, as wl_cmd does.
wl_reply() {
    local id=$1 timeout=${2:-30}
    local deadline=$(($(now_ns) + timeout * WAIT_SCALE * 1000 * MS))

    WL_REPLY_LINE=
    # Wait until the reply is there, then read it without a time-out: bash
    # 5.2's "read -t" can drop the newline it was reading when its timer
    # fires, and the line is then never complete.  The workload writes each
    # reply in one write(), so once a byte is there the whole line is.
    until read -t 0 -u "${WL_REPLY[$id]}"; do
        if (($(now_ns) > deadline)); then
            WL_REPLY_LINE="(no reply within $timeout s)"
            return 1
        fi
        nap 0.01
    done
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

# ---------------------------------------------------------------------------
# kernel_delay runs.

# bpf_prog_ids: IDs of the loaded tracing BPF programs (the kinds the tool
# loads: raw_tracepoint, tracepoint, and kprobe for uprobes), one a line.
bpf_prog_ids() {
    bpftool prog show 2>/dev/null | awk -F: '
        /^[0-9]+: (tracepoint|raw_tracepoint|kprobe|perf_event|tracing) / {
            print $1
        }'
}

# held_prog_ids: IDs of the BPF programs that some live process holds a file
# descriptor to (a program, or a link to it), one a line.
held_prog_ids() {
    cat /proc/[0-9]*/fdinfo/* 2>/dev/null \
        | awk '$1 == "prog_id:" { print $2 }' | sort -u
}

# pid_prog_ids PID: the BPF programs process PID holds, space-separated.
pid_prog_ids() {
    cat /proc/"$1"/fdinfo/* 2>/dev/null \
        | awk '$1 == "prog_id:" { print $2 }' | sort -u | xargs
}

# The tool's capture state, read from its capture_on map with bpftool (JSON
# mode prints nothing until a record is due): 0 before the capture is
# armed, 1 while it captures, 2 while it waits for a start trigger.

# kd_capture_state: CAPTURE_STATE is the value of the capture_on map of
# the tool (KD_PID), or empty (status 1) while it has no such map yet.  The
# map's ID is kept in KD_CAPTURE_MAP, which kd_wait_capture resets;
# KD_MAP_NAME caches the names of the maps asked for (IDs are not
# reused).
declare -A KD_MAP_NAME=()
KD_CAPTURE_MAP=
CAPTURE_STATE=
kd_capture_state() {
    local id value
    local -a ids

    CAPTURE_STATE=
    if [[ -z $KD_CAPTURE_MAP ]]; then
        # capture_on is the tool's one array map (type 2) of a single
        # 8-byte value: found from its fdinfo alone, with no bpftool call
        # (each one takes a good part of a second under emulation, and the
        # tool holds a dozen maps).  Should several match, their names
        # tell.
        mapfile -t ids < <(awk '
            FNR == 1 { t = k = v = n = "" }
            $1 == "map_type:" { t = $2 }
            $1 == "key_size:" { k = $2 }
            $1 == "value_size:" { v = $2 }
            $1 == "max_entries:" { n = $2 }
            $1 == "map_id:" && t == 2 && k == 4 && v == 8 && n == 1 {
                print $2
            }' /proc/"$KD_PID"/fdinfo/* 2>/dev/null | sort -u)
        for id in "${ids[@]}"; do
            if ((${#ids[@]} > 1)) && [[ -z ${KD_MAP_NAME[$id]:-} ]]; then
                KD_MAP_NAME[$id]=$(bpftool -j map show id "$id" 2>/dev/null \
                                   | jq -r '.name // empty')
            fi
            if ((${#ids[@]} == 1)) \
                    || [[ ${KD_MAP_NAME[$id]} == capture_on ]]; then
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

# kd_wait_capture STATE TIMEOUT_S: waits until the tool's capture_on map
# holds STATE (1: capturing, 2: armed for a start trigger); then notes the
# tool's BPF programs (KD_PROG_IDS), all attached by then.
kd_wait_capture() {
    local want=$1 deadline=$(($(now_ns) + $2 * WAIT_SCALE * 1000 * MS))

    KD_CAPTURE_MAP=
    until kd_capture_state && [[ $CAPTURE_STATE == "$want" ]]; do
        if ! kill -0 "$KD_PID" 2>/dev/null || (($(now_ns) > deadline)); then
            return 1
        fi
        nap 0.01
    done
    KD_PROG_IDS=$(pid_prog_ids "$KD_PID")
}

# kd_start TAG ARGS...: starts the tool in the background, stdout to
# $WORKDIR/TAG.out (KD_OUT), stderr to TAG.err (KD_ERR).
kd_start() {
    tool_start "$KD" "$@"
}

# tool_start TOOL TAG ARGS...: the same with another tool (the reference,
# in the kernel lane).
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

# kd_wait_started TIMEOUT_S: waits for "# Start sampling" on its stdout.
kd_wait_started() {
    local deadline=$(($(now_ns) + $1 * WAIT_SCALE * 1000 * MS))

    until grep -q '^# Start sampling' "$KD_OUT"; do
        if ! kill -0 "$KD_PID" 2>/dev/null || (($(now_ns) > deadline)); then
            return 1
        fi
        nap 0.01
    done
    # Everything is attached now: note which programs are the tool's.
    KD_PROG_IDS=$(pid_prog_ids "$KD_PID")
}

# kd_begin TAG SAMPLE_TIME ARGS...: starts a sampling run and waits until
# capture is on.  Fails the check and returns 1 if it never starts.
kd_begin() {
    local tag=$1 sample

    # Jobs take longer under emulation (the kernel lane): E2E_TIME_SCALE
    # stretches the windows they must fit in.
    sample=$(awk -v s="$2" -v k="${E2E_TIME_SCALE:-1}" \
             'BEGIN { printf "%g", s * k }')
    shift 2
    KD_SAMPLE=$sample
    kd_start "$tag" --sample-time "$sample" "$@"
    if ! kd_wait_started 30; then
        wait_exit "$KD_PID" 5
        fail "$tag: kernel_delay starts sampling (exit $WAIT_RC, stderr:\
 $(head -c 400 "$KD_ERR" | tr '\n' ' '))"
        return 1
    fi
}

# kd_end: after the job: checks that the job ended inside the sample window,
# waits for the tool, checks its exit status, that its BPF programs are gone,
# and the report's layout; then parses the report (see kd_parse).
kd_end() {
    local tag=$KD_TAG

    if grep -q '^# Stop sampling' "$KD_OUT"; then
        fail "$tag: job ended inside the sample window (it ended after\
 '# Stop sampling'; use a longer --sample-time)"
    fi
    wait_exit "$KD_PID" $((${KD_SAMPLE%.*} + 30))
    check_eq "$tag: kernel_delay exit status" 0 "$WAIT_RC"
    if [[ $WAIT_RC != 0 ]]; then
        note "$tag stderr: $(head -c 600 "$KD_ERR" | tr '\n' ' ')"
    fi
    check_bpf_released "$tag"
    if kd_check_layout "$KD_OUT" "$KD_SAMPLE"; then
        pass "$tag: report layout"
    else
        fail "$tag: report layout: $LAYOUT_ERR"
    fi
    kd_parse "$KD_OUT"
}

# check_bpf_released TAG: after a run, none of the tool's BPF programs
# (KD_PROG_IDS, read from its file descriptors while it ran) is still
# loaded, and no tracing program loaded during the run outlives it unless a
# live process holds it (someone else's tool).  Comparing IDs rather than
# counts keeps other BPF users of the machine out of the picture.
# Program release is asynchronous, so give it up to 3 s.
check_bpf_released() {
    local deadline=$(($(now_ns) + 3000 * WAIT_SCALE * MS)) id now held left

    while :; do
        now=" $(bpf_prog_ids | xargs) "
        held=" $(held_prog_ids | xargs) "
        left=
        for id in $KD_PROG_IDS; do
            [[ $now == *" $id "* ]] && left+=" $id"
        done
        for id in $now; do
            if [[ " $KD_BPF_BEFORE " != *" $id "* && $held != *" $id "* \
                  && $left != *" $id"* ]]; then
                left+=" $id"
            fi
        done
        [[ -z $left ]] && break
        (($(now_ns) > deadline)) && break
        nap 0.05
    done
    if [[ -z $left && -z $KD_PROG_IDS ]]; then
        pass "$1: no BPF program left loaded (the tool held none)"
    elif [[ -z $left ]]; then
        pass "$1: no BPF program left loaded ($(wc -w <<<"$KD_PROG_IDS")\
 programs of the tool gone)"
    else
        fail "$1: BPF programs released" "none left" \
             "program IDs$left still loaded"
    fi
}

# ---------------------------------------------------------------------------
# Report parsing.
#
# kd_parse FILE fills the associative array R from the report's thread
# blocks.  Keys (TID is a thread id; NAME a syscall or interrupt name with
# spaces turned into '_'):
#   tids                      all TIDs, in report order
#   tid.THREAD_NAME           TID of a thread name ("dup" if several)
#   TID.name                  thread name
#   TID.sections              e.g. "sys run ready sirq"
#   TID.sys.list              syscall names, in report order
#   TID.sys.NAME.{number,count,total,max}
#   TID.sys.TOTAL.{count,total}
#   TID.lp.{count,avg,min,max}        LONG POLL
#   TID.run.{count,total,min,max}     THREAD RUN
#   TID.ready.{count,total,max}       THREAD READY
#   TID.stop.{count,total,max}        THREAD STOPPED
#   TID.hirq.list, TID.hirq.NAME.{count,total,max}, TID.hirq.TOTAL.*
#   TID.sirq.list, TID.sirq.NAME.{vect,count,total,max}, TID.sirq.TOTAL.*
# Numbers lose their thousands separators.  Only fixed columns are used, so
# it works with mawk (no regex intervals).

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

declare -A R=()

kd_parse() {
    local k v

    # The current report is text (see rep_* in tests/e2e/lib.sh).
    REPORT_FORMAT=text
    R=()
    while read -r k v; do
        R[$k]=$v
    done < <(awk "$KD_PARSER" "$1")
}

# r KEY: a parsed value, or nothing.
r() {
    printf '%s' "${R[$1]:-}"
}

# has_section TID SECTION
has_section() {
    [[ " ${R[$1.sections]:-} " == *" $2 "* ]]
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
        if [[ ${M[1]} != "poll "* ]]; then
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
# Trigger mode: several samples in one output.

# kd_split_samples FILE: splits FILE into FILE.1, FILE.2, ..., one per
# sample, each from its "# Start sampling" line to the line before the next
# one (skipped samples included); sets N_SAMPLES.
kd_split_samples() {
    local f

    for f in "$1".[0-9]*; do
        [[ -e $f ]] && rm -f "$f"
    done
    N_SAMPLES=$(awk -v out="$1" '
        /^# Start sampling/ { n++ }
        n { print > (out "." n) }
        END { print n + 0 }' "$1")
}

# kd_check_trigger_sample FILE START STOP: checks the timestamp lines of one
# sample of trigger mode: "# Start sampling (trigger@NS)" when START is
# "trigger" (else the plain form), likewise for STOP, then "# Triggered
# sample dump, stop-start delta N ns" (both triggers) or "# Sample dump";
# then the rest of the layout as kd_check_layout checks it.  Sets TRIG_START
# and TRIG_STOP (ns, or empty) and TRIG_DELTA (ns, or empty).
kd_check_trigger_sample() {
    local file=$1 start=$2 stop=$3 norm=$1.norm
    local -a L
    local re_start='^# Start sampling \(trigger@([0-9]+)\) @'
    local re_stop='^# Stop sampling \(trigger@([0-9]+)\) @'
    local re_delta='^# Triggered sample dump, stop-start delta ([0-9,]+) ns @'

    mapfile -t L <"$file"
    TRIG_START= TRIG_STOP= TRIG_DELTA= LAYOUT_ERR=
    if [[ $start == trigger ]]; then
        [[ ${L[0]} =~ $re_start ]] \
            || layout_error 0 "expected '# Start sampling (trigger@NS)'" \
            || return
        TRIG_START=${BASH_REMATCH[1]}
    fi
    if [[ $stop == trigger ]]; then
        [[ ${L[1]} =~ $re_stop ]] \
            || layout_error 1 "expected '# Stop sampling (trigger@NS)'" \
            || return
        TRIG_STOP=${BASH_REMATCH[1]}
    fi
    if [[ $start == trigger && $stop == trigger ]]; then
        [[ ${L[2]} =~ $re_delta ]] \
            || layout_error 2 "expected '# Triggered sample dump, stop-start\
 delta N ns'" || return
        TRIG_DELTA=${BASH_REMATCH[1]//,/}
    fi
    # The rest is laid out as in time mode: check it so, with the trigger
    # parts taken out of the timestamp lines.
    sed -E '1s/ \(trigger@[0-9]+\)//; 2s/ \(trigger@[0-9]+\)//;
            3s/^# Triggered sample dump, stop-start delta [0-9,]+ ns/# Sample dump/' \
        "$file" >"$norm"
    kd_check_layout "$norm" 0
}
