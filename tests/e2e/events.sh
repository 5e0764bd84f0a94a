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
# user stack naming the workload's function.  The stack map is 16 times the
# default: a stack whose hash bucket another stack holds is not kept (the
# kernel's stack maps do not chain), and user stacks move with ASLR at each
# run.  With about ten stacks in a run, 45 pairs: in 4096 buckets, one pair
# shares a bucket about once in 90 runs (seen once in a series); in 65536,
# once in 1500.
scenario_events_threshold() {
    local tag=events_threshold tid=${WL_TID[main:handler1]} i frames
    local prev=0 ok=1

    events_run $tag 0.8 "events 100 4 3" -s 2000000 \
               --stack-trace-size 65536 || return
    check_syscall $tag handler1 "$tid" getppid 100
    check_eq "$tag: handler1 clock_nanosleep events" 4 \
             "$(wc -w <<<"$(events_of "$tid" clock_nanosleep)")"
    check_eq "$tag: handler1 poll events" 3 \
             "$(wc -w <<<"$(events_of "$tid" "$POLL_SYSCALL")")"
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
    # Only that one: a kernel that switches tasks without the tracepoint
    # makes the run end with its own warning, which is no stack's.
    check_eq "$tag: no lost-stack warning" "" \
             "$(tr '|' '\n' <<<"$EV_WARNINGS" | grep 'stack traces!')"
}

# Separate debug information, as for a stripped ovs-vswitchd and its
# debug symbols package: a copy of the workload stripped of its symbol
# table names none of its functions in a stack ("[unknown] [workload]");
# with its debug file under /usr/lib/debug/.build-id (found by build ID),
# then with it beside the binary named by a .gnu_debuglink section
# instead, the same slow syscalls' stacks name kd_workload_slow_syscall()
# again.  libbcc's symbol cache looks in both places.
scenario_debuginfo() {
    local tag=debuginfo dir=$WORKDIR/stripped id how wl tid named unknown

    mkdir -p "$dir"
    if ! objcopy --only-keep-debug "$WORKLOAD" "$dir/workload.debug" \
        || ! strip --strip-all -o "$dir/workload" "$WORKLOAD"; then
        fail "$tag: a stripped workload and its debug file" "made" "failed"
        return
    fi
    id=$(readelf -n "$dir/workload" | awk '/Build ID:/ { print $3 }')
    if [[ ! $id =~ ^[0-9a-f]{8,}$ ]]; then
        fail "$tag: the workload's build ID" "hex digits" "${id:-none}"
        return
    fi
    for how in none build-id debuglink; do
        case $how in
        build-id)
            E2E_DEBUG_FILE=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
            mkdir -p "${E2E_DEBUG_FILE%/*}"
            cp "$dir/workload.debug" "$E2E_DEBUG_FILE"
            ;;
        debuglink)
            rm -f "$E2E_DEBUG_FILE"
            objcopy --add-gnu-debuglink="$dir/workload.debug" \
                "$dir/workload"
            ;;
        esac
        wl=dbg-$how
        WORKLOAD=$dir/workload wl_start "$wl" kd-stripped || return
        tid=${WL_TID[$wl:handler1]}
        kd_json_begin "$tag-$how" 0.8 -p "${WL_PID[$wl]}" -s 2000000 \
            || return
        wl_cmd "$wl" "events 0 2 0" \
            || fail "$tag-$how: job" "done" "$WL_REPLY_LINE"
        kd_finish "$tag-$how" 60
        wl_stop "$wl"
        named=$(jq --argjson t "$tid" '[.syscall_events[]?
                    | select(.tid == $t and .syscall == "clock_nanosleep")
                    | select(any(.user_stack[]?;
                                 startswith("kd_workload_slow_syscall+")
                                 and endswith(" [workload]")))]
                    | length' "$KD_OUT" | jq -s 'add // 0')
        unknown=$(jq --argjson t "$tid" '[.syscall_events[]?
                    | select(.tid == $t and .syscall == "clock_nanosleep")
                    | select(any(.user_stack[]?;
                                 . == "[unknown] [workload]"))]
                    | length' "$KD_OUT" | jq -s 'add // 0')
        if [[ $how == none ]]; then
            check_eq "$tag: stripped, no debug file: the workload's frame\
 unnamed in both stacks" "0 2" "$named $unknown"
        else
            check_eq "$tag: stripped, debug file by $how: the workload's\
 function named in both stacks" "2 0" "$named $unknown"
        fi
    done
    rm -f "$E2E_DEBUG_FILE"
    E2E_DEBUG_FILE=
}

# --skip-syscall-poll-events: poll() is counted, but not an event.
scenario_events_skip_poll() {
    local tag=events_skip_poll tid=${WL_TID[main:handler1]}

    events_json_run $tag 0.8 "events 0 2 3" -s 2000000 \
        --skip-syscall-poll-events || return
    check_syscall $tag handler1 "$tid" "$POLL_SYSCALL" 3
    check_eq "$tag: handler1 clock_nanosleep events" 2 \
             "$(json_events "$tid" clock_nanosleep)"
    check_eq "$tag: handler1 poll events" 0 \
             "$(json_events "$tid" "$POLL_SYSCALL")"
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

# ---------------------------------------------------------------------------
# Helpers of this theme.  The report is followed by "# SYSCALL EVENTS:".

readonly EV_HDR='           ENTRY (ns)           EXIT (ns)        TID COMM             DELTA (us)  SYSCALL'
readonly EV_DASH='  ------------------- ------------------- ---------- ---------------- ----------  ----------------'

# events_split FILE: FILE.report gets the statistics part (checked as
# usual), and the events part is parsed (with awk: a full-rate run prints
# hundreds of thousands of events).  EV_COUNT is the number of events;
# when there are at most 10,000, the EV_* arrays get one entry per event
# (EV_TID, EV_NAME, EV_CALL, EV_ENTRY, EV_EXIT, EV_DELTA, and EV_FRAMES with
# the frames separated by '|').  EV_ERR is set on a layout error,
# EV_WARNINGS to the lines after the events ('|'-separated).
events_split() {
    local f=$1 tid name call entry exit delta frames i=0

    EV_TID=() EV_NAME=() EV_CALL=() EV_ENTRY=() EV_EXIT=() EV_DELTA=()
    EV_FRAMES=() EV_ERR= EV_WARNINGS= EV_COUNT=0
    awk '/^# SYSCALL EVENTS:$/ { exit } { print }' "$f" >"$f.report"
    # The report part ends with the two blank lines before the events.
    if grep -q '^# SYSCALL EVENTS:$' "$f"; then
        head -n -2 "$f.report" >"$f.tmp" && mv "$f.tmp" "$f.report"
    fi
    awk -v hdr="$EV_HDR" -v dash="$EV_DASH" -v out="$f.ev" \
        -v errf="$f.everr" -v warnf="$f.evwarn" '
        function num(s) { gsub(/[ ,]/, "", s); return s }
        function flush() {
            if (have) { print ev "\t" frames > out }
            have = 0; frames = ""
        }
        /^# SYSCALL EVENTS:$/ { on = 1; n = 0; next }
        !on { next }
        { n++ }
        n == 1 { if ($0 != hdr) print "events header: " $0 > errf; next }
        n == 2 { if ($0 != dash) print "events dashes: " $0 > errf; next }
        length($0) >= 83 && substr($0, 1, 2) == "  " \
            && substr($0, 22, 1) == " " && substr($0, 42, 1) == " " \
            && substr($0, 53, 1) == " " && substr($0, 70, 1) == " " \
            && substr($0, 81, 2) == "  " {
            flush()
            name = substr($0, 54, 16); sub(/ +$/, "", name)
            ev = num(substr($0, 43, 10)) "\t" name "\t" \
                 substr($0, 83) "\t" num(substr($0, 3, 19)) "\t" \
                 num(substr($0, 23, 19)) "\t" num(substr($0, 71, 10))
            have = 1; count++
            next
        }
        /^          [^ ]/ && have { frames = frames substr($0, 11) "|"; next }
        /^#/ || /^$/ { flush(); print > warnf; next }
        { print "unexpected line in events: " $0 > errf }
        END { flush(); print count + 0 }' "$f" >"$f.evcount"
    EV_COUNT=$(<"$f.evcount")
    [[ -s $f.everr ]] && EV_ERR=$(head -n 1 "$f.everr")
    [[ -s $f.evwarn ]] && EV_WARNINGS=$(grep -v '^$' "$f.evwarn" | tr '\n' '|')
    ((EV_COUNT > 0 && EV_COUNT <= 10000)) || return 0
    while IFS=$'\t' read -r tid name call entry exit delta frames; do
        EV_TID[i]=$tid EV_NAME[i]=$name EV_CALL[i]=$call
        EV_ENTRY[i]=$entry EV_EXIT[i]=$exit EV_DELTA[i]=$delta
        EV_FRAMES[i]=$frames
        i=$((i + 1))
    done <"$f.ev"
}

# events_run TAG SAMPLE_TIME JOB ARGS...: one run with syscall events.
events_run() {
    local tag=$1 sample=$2 job=$3

    shift 3
    kd_begin "$tag" "$sample" -p "${WL_PID[main]}" "$@" || return 1
    wl_cmd main "$job" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    kd_finish "$tag" $((${sample%.*} + 60))
    events_split "$KD_OUT"
    if kd_check_layout "$KD_OUT.report" "$sample"; then
        pass "$tag: report layout"
    else
        fail "$tag: report layout: $LAYOUT_ERR"
    fi
    check_eq "$tag: events layout" "" "$EV_ERR"
    kd_parse "$KD_OUT.report"
}

# events_of TID [SYSCALL]: indexes of the events of TID (and SYSCALL).
events_of() {
    local i

    for i in "${!EV_TID[@]}"; do
        if [[ ${EV_TID[i]} == "$1" && ( -z ${2:-} || ${EV_CALL[i]} == "$2" ) ]]
        then
            printf '%s ' "$i"
        fi
    done
}

# Every syscall counted in the statistics is either printed as an event or
# counted as dropped in the warning: nothing is lost silently.  SPIN_ARGS
# are extra options.
events_accounting() {
    local tag=$1 ms=$2 tid=${WL_TID[main:handler1]} counted dropped
    local printed re count

    shift 2
    events_run "$tag" 1.5 "spin $ms" -s --stack-trace-size 0 "$@" || return
    count=$(reply_field count)
    check_syscall "$tag" handler1 "$tid" getppid "$count"
    # The COUNT column of every SYSCALL STATISTICS row of every thread.
    counted=$(awk '
        / \[SYSCALL STATISTICS\]$/ { sys = 1; hdr = 1; next }
        /^$/ { sys = 0; next }
        sys && hdr { hdr = 0; next }
        sys && !/TOTAL\( - poll\):/ { sum += $3 }
        END { print sum + 0 }' "$KD_OUT.report")
    printed=$EV_COUNT
    re='# WARNING: Not all events were captured, ([0-9]+) were dropped!'
    if [[ $(cat "$KD_OUT") =~ $re ]]; then
        dropped=${BASH_REMATCH[1]}
    else
        dropped=0
    fi
    note "$tag: $count getppid() in $ms ms; $counted syscalls counted," \
         "$printed events printed, $dropped dropped"
    check_eq "$tag: events printed + dropped = syscalls counted" \
             "$counted" $((printed + dropped))
    DROPPED=$dropped
}

# events_json_run TAG SAMPLE_TIME JOB ARGS...: one --json run with syscall
# events: the report's consistency (kd_json_check) and the events' form (a
# text run checks their listing's layout); the report becomes the current
# one.
events_json_run() {
    local tag=$1 sample=$2 job=$3

    shift 3
    kd_json_begin "$tag" "$sample" -p "${WL_PID[main]}" "$@" || return 1
    wl_cmd main "$job" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    kd_finish "$tag" $((${KD_SAMPLE%.*} + 60))
    if kd_json_check "$KD_OUT" "$KD_SAMPLE"; then
        pass "$tag: report consistency (JSON)"
    else
        fail "$tag: report consistency (JSON): $JSON_ERR"
    fi
    check_eq "$tag: events well-formed" "" "$(jq -r '
        if .syscall_events == null then "no syscall_events" else
        .syscall_events[] | select((.tid | type) != "number"
            or (.name | type) != "string" or (.syscall | type) != "string"
            or (.number | type) != "number" or (.entry_ns | type) != "number"
            or (.exit_ns | type) != "number" or .entry_ns > .exit_ns
            or (.kernel_stack | type | IN("array", "null") | not)
            or (.user_stack | type | IN("array", "null") | not))
        | "bad event: \(tojson)" end' "$KD_OUT" 2>&1 | head -n 1)"
    kd_json_use "$KD_OUT"
}

# json_events TID [SYSCALL]: how many events of TID (and SYSCALL) the
# current JSON sample lists.
json_events() {
    jq --argjson tid "$1" --arg call "${2:-}" '[.syscall_events[]
        | select(.tid == $tid and ($call == "" or .syscall == $call))]
        | length' "$KD_JSON"
}
