# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# The command line and the target: bad options, a PID that names no
# process, not root, root without capabilities (no capture; their
# messages, and the hints after them, are what is checked), a
# thread id given as -p (tid_as_pid), --list-probes, and finding
# ovs-vswitchd without -p (autodetect, which stops the main workload
# instance, so it runs last).  Runs that capture read --json with jq.
# Sourced by tests/e2e.sh.

scenario_bad_options() {
    local args opt tag i=0

    for args in "--sample-count 0:--sample-count" \
                "--sample-time abc:--sample-time" \
                "-p -1:-p/--pid"; do
        opt=${args#*:}
        args=${args%%:*}
        tag="bad option '$args'"
        i=$((i + 1))
        # shellcheck disable=SC2086
        run_sync "badopt$i" "$KD" $args
        check_eq "$tag: exit status" 2 "$RUN_RC"
        check_error_line "$tag: usage on stderr" "$RUN_ERR" '^usage: '
        check_error_line "$tag: error on stderr" "$RUN_ERR" \
                         "^kernel_delay: error: argument $opt: "
        check_eq "$tag: nothing on stdout" "" "$(head -c 200 "$RUN_OUT")"
    done

    # Durations with units, strictly: a usage error for what is not one.
    for args in "-s 1.5ns" "--long-poll-events=5 ms" "--trigger-delta=-1ms" \
                "--sample-time 0ms"; do
        tag="bad duration '$args'"
        i=$((i + 1))
        if [[ $args == *=* ]]; then
            run_sync "badopt$i" "$KD" "$args"
        else
            # shellcheck disable=SC2086
            run_sync "badopt$i" "$KD" $args
        fi
        check_eq "$tag: exit status" 2 "$RUN_RC"
        check_error_line "$tag: error on stderr" "$RUN_ERR" \
                         "^kernel_delay: error: argument "
    done

    # A misspelt option: argparse's line, then the closest option.
    tag="misspelt option"
    run_sync badopt_typo "$KD" --sampel-time 2
    check_eq "$tag: exit status" 2 "$RUN_RC"
    check_error_line "$tag: argparse's error" "$RUN_ERR" \
        '^kernel_delay: error: unrecognized arguments: --sampel-time 2$'
    check_error_line "$tag: suggestion" "$RUN_ERR" \
        '^kernel_delay: unknown option --sampel-time: did you mean'\
' --sample-time\?$'
    check_eq "$tag: suggestion last" "did you mean --sample-time?" \
             "$(tail -n 1 "$RUN_ERR" | grep -o 'did you mean.*')"
}

scenario_no_such_pid() {
    local pid tag="no such PID"

    pid=$(($(cat /proc/sys/kernel/pid_max) - 1))
    while [[ -e /proc/$pid ]]; do
        pid=$((pid - 1))
    done
    run_sync nopid "$KD" -p "$pid" --sample-time 0.1
    check_eq "$tag $pid: exit status" 69 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" '^ERROR: '
    check_error_line "$tag: hint on stderr" "$RUN_ERR" \
        "^kernel_delay: hint: no process or thread $pid runs"
    check_bpf_released "$tag"
}

# --folded FILE that cannot be opened: exit status 73 at once, nothing
# loaded, the file's name shown safely.
scenario_folded_unwritable() {
    local tag="folded unwritable" file=$WORKDIR/no/such/dir/f$'\033'

    run_sync folded "$KD" -p "${WL_PID[main]}" --long-poll-events \
        --profile-hz 99 --folded "$file"
    check_eq "$tag: exit status" 73 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" \
        '^ERROR: Failed to open .*/no/such/dir/f\\x1b \(--folded\): No such'
    check_bpf_released "$tag"
}

scenario_not_root() {
    local tag="not root"

    run_sync notroot setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$KD" -p "${WL_PID[main]}" --sample-time 0.1
    check_eq "$tag: exit status" 77 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" \
                     '^ERROR: We need to run as root to attached probes!$'
    check_error_line "$tag: hint on stderr" "$RUN_ERR" \
        '^kernel_delay: hint: run it as root, e.g. with sudo: .*CAP_BPF'
    check_bpf_released "$tag"

    # --list-probes needs no root, but another user's process cannot be
    # read: the reference's line, then the cause.
    tag="list probes not root"
    run_sync notroot_list setpriv --reuid=65534 --regid=65534 \
        --clear-groups "$KD" -p "${WL_PID[main]}" --list-probes
    check_eq "$tag: exit status" 66 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" \
        "^ERROR: Can't read the USDT probes of process ${WL_PID[main]}!\$"
    check_error_line "$tag: hint on stderr" "$RUN_ERR" \
        "^kernel_delay: hint: reading process ${WL_PID[main]}'s memory maps\
 needs root \\(or CAP_SYS_PTRACE\\): Permission denied"
}

# Root without the capabilities eBPF needs (as in a container): the
# failure as it comes (libbcc cannot create a map), exit status 71 as any
# failure to load, then which capabilities are missing.
scenario_not_capable() {
    local tag="not capable" caps=-bpf,-sys_admin,-perfmon

    run_sync notcapable setpriv --bounding-set "$caps" --inh-caps "$caps" \
        "$KD" -p "${WL_PID[main]}" --sample-time 0.1
    check_eq "$tag: exit status" 71 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" '^ERROR: '
    check_error_line "$tag: hint on stderr" "$RUN_ERR" \
        '^kernel_delay: hint: root lacks CAP_SYS_ADMIN, CAP_PERFMON, CAP_BPF'
    check_bpf_released "$tag"
}

# A thread id instead of a process id: resolved to its process.
scenario_tid_as_pid() {
    local tag=tid_as_pid tid=${WL_TID[main:handler1]} pid=${WL_PID[main]}

    kd_json_begin $tag 0.5 -p "$tid" || return
    wl_cmd main "syscalls 5 0" || fail "$tag: job"
    kd_json_end
    grep -qx "kernel_delay: $tid is a thread of process $pid; tracing\
 process $pid" "$KD_ERR" \
        && pass "$tag: says it traces the process" \
        || fail "$tag: stderr" "'... is a thread of process ...'" \
                "$(cat "$KD_ERR")"
    check_syscall $tag handler1 "$tid" getppid 5
}

scenario_list_probes() {
    local tag=list_probes out

    out=$("$KD" -p "${WL_PID[main]}" --list-probes 2>&1)
    check_eq "$tag: exit status" 0 $?
    [[ $out == *"kd_workload:job_start ("*"workload, 1 location)"* \
       && $out == *"kd_workload:job_end ("* ]] \
        && pass "$tag: lists the workload's probes" \
        || fail "$tag: lists the workload's probes" "kd_workload:job_start" \
                "$out"
}

# Finding ovs-vswitchd without -p.  Fake ones are workload instances whose
# main thread is named ovs-vswitchd.
scenario_autodetect() {
    local real tag tid pid

    real=$(pgrep -x ovs-vswitchd | xargs)
    if [[ -z $real ]]; then
        wl_start fake1 ovs-vswitchd || return
        pid=${WL_PID[fake1]}
        tid=${WL_TID[fake1:handler1]}
        tag="autodetect one"
        kd_json_begin autodetect 0.6 || return
        wl_cmd fake1 "syscalls 3 0" || fail "$tag: job" "done" "$WL_REPLY_LINE"
        kd_json_end
        check_present "$tag" handler1 "$tid"
        check_eq "$tag: handler1 getppid count" 3 \
                 "$(js "$tid" getppid count)"
        check_owned "$tag" "$pid"
    elif [[ $real == *" "* ]]; then
        skip "several real ovs-vswitchd run ($real): cannot test finding one"
    else
        note "a real ovs-vswitchd runs (PID $real): finding it, not a fake"
        tag="autodetect real"
        kd_json_begin autodetect 1.0 || return
        kd_json_end
        if [[ -z $(r tids) ]]; then
            note "$tag: PID $real did nothing in 1 s: nothing to check"
        fi
        check_owned "$tag" "$real"
        wl_start fake1 ovs-vswitchd || return
    fi

    tag="autodetect two"
    [[ -z $real ]] && { wl_start fake2 ovs-vswitchd || return; }
    run_sync autotwo "$KD" --sample-time 0.1
    check_eq "$tag: exit status" 66 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" '^ERROR: '
    check_error_line "$tag: hint on stderr" "$RUN_ERR" \
        "^kernel_delay: hint: 'pidof ovs-vswitchd' lists them; choose one:\
 kernel_delay -p PID$"
    check_bpf_released "$tag"
    wl_stop fake1
    wl_stop fake2

    tag="autodetect none"
    if [[ -n $real ]]; then
        skip "$tag: a real ovs-vswitchd runs, so 'none found' cannot be tested"
        return
    fi
    run_sync autonone "$KD" --sample-time 0.1
    check_eq "$tag: exit status" 69 "$RUN_RC"
    check_error_line "$tag: error on stdout" "$RUN_OUT" \
        "^ERROR: Failed to find ovs-vswitchd's PID!$"
    check_error_line "$tag: hint on stderr" "$RUN_ERR" \
        "^kernel_delay: hint: no running ovs-vswitchd was found; 'pidof\
 ovs-vswitchd' shows whether Open vSwitch runs$"
    check_error_line "$tag: hint names -p" "$RUN_ERR" \
        "^kernel_delay: hint: to trace another process, give its PID:\
 kernel_delay -p PID\$"
    check_bpf_released "$tag"
}

# ---------------------------------------------------------------------------
# Helpers of this theme.

# run_sync TAG ARGS...: runs the tool to completion (30 s at most); RUN_RC,
# RUN_OUT and RUN_ERR (file names) describe the result.
run_sync() {
    local tag=$1

    shift
    RUN_OUT=$WORKDIR/$tag.out
    RUN_ERR=$WORKDIR/$tag.err
    KD_BPF_BEFORE=$(bpf_prog_ids | xargs)
    KD_PROG_IDS=
    timeout 30 "$@" >"$RUN_OUT" 2>"$RUN_ERR"
    RUN_RC=$?
}

# check_error_line TAG FILE REGEX: FILE has a line matching REGEX.
check_error_line() {
    if grep -qE "$3" "$2"; then
        pass "$1: '$(grep -m1 -E "$3" "$2")'"
    else
        fail "$1" "a line matching /$3/" \
             "'$(head -c 300 "$2" | tr '\n' '|')'"
    fi
}
