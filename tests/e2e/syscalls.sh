# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# Time mode on the main workload instance: capture at all (smoke), exact
# syscall counts and durations (syscalls), long poll intervals (poll), a
# thread that exits inside the window (exited).  Sourced by tests/e2e.sh.
#
# "syscalls" is the one layout-conformance scenario: it reads the text
# report, checks its layout line by line against the reference's format
# strings (kd_end, kd_check_layout) and takes its numbers from that text
# (kd_parse).  The others read --json with jq.

# Capture works at all (and an idle process gives a consistent report).
scenario_smoke() {
    local how
    kd_json_begin smoke 0.3 -p "${WL_PID[main]}" -D 32 \
        || abort "kernel_delay cannot capture here (is eBPF usable?);" \
                 "stopping"
    kd_json_end
    # Start-up: libbcc's "is bpf_probe_read_kernel a kernel symbol?" was
    # answered by the helper probe (src/bcc_shim.c), not from
    # /proc/kallsyms, and the compile went on as kallsyms would have had it.
    how=$(sed -nE 's/^kernel_delay: compiled in .*check: (.*)\)$/\1/p' \
          "$KD_ERR")
    check_eq "smoke: libbcc's kernel symbol check answered by" \
             "eBPF helper probe" "$how"
    check_eq "smoke: /proc/kallsyms has bpf_probe_read_kernel" 1 \
             "$(grep -c ' bpf_probe_read_kernel$' /proc/kallsyms)"
}

# Exact syscall counts and durations (handler1), from the text report,
# whose layout is checked line by line.
scenario_syscalls() {
    local tag=syscalls n=1000 m=5 pid=${WL_PID[main]}
    local tid=${WL_TID[main:handler1]} before after steal wl_total wl_max

    kd_begin $tag 0.8 -p "$pid" || return
    steal=$(steal_ticks)
    sleep_moves_begin "$pid" "$tid"
    before=$(schedstat "$pid" "$tid")
    wl_cmd main "syscalls $n $m" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    after=$(schedstat "$pid" "$tid")
    sleep_moves_end $tag handler1
    steal=$(($(steal_ticks) - steal))
    kd_end
    wl_total=$(reply_field sleep_total_ns)
    wl_max=$(reply_field sleep_max_ns)
    : "${wl_total:=0}" "${wl_max:=0}"

    check_present $tag handler1 "$tid"
    check_syscall_set $tag handler1 "$tid" getppid clock_nanosleep write
    check_syscall $tag handler1 "$tid" getppid $n
    check_syscall $tag handler1 "$tid" clock_nanosleep $m
    check_syscall $tag handler1 "$tid" write 1
    check_eq "$tag: handler1 TOTAL( - poll) COUNT" $((n + m + 1)) \
             "$(r "$tid.sys.TOTAL.count")"
    # Each sleep lasts at least 10 ms, and at most what the workload timed
    # around the syscall from user space (normally under 13 ms).
    ((wl_total > m * 13 * MS)) \
        && note "$tag: the workload itself timed its sleeps at" \
                "$wl_total ns (busy machine)"
    check_range "$tag: handler1 clock_nanosleep TOTAL ns" $((m * 10 * MS)) \
                "$wl_total" "$(r "$tid.sys.clock_nanosleep.total")"
    check_range "$tag: handler1 clock_nanosleep MAX ns" $((10 * MS)) \
                "$wl_max" "$(r "$tid.sys.clock_nanosleep.max")"
    check_sched $tag handler1 "$tid" "$before" "$after" "$steal"
    check_absent $tag main revalidator2 urcu3 pmd4 handler5 irq6 io7
    check_owned $tag "$pid"
}

# Long poll intervals (revalidator2).
scenario_poll() {
    local tag=poll k=5 ms=20 pid=${WL_PID[main]}
    local tid=${WL_TID[main:revalidator2]} wl_min wl_max wl_avg
    local ready_max lp_min lp_max

    kd_json_begin $tag 0.8 -p "$pid" || return
    wl_cmd main "poll $k $ms" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    kd_json_end
    wl_min=$(reply_field gap_min_ns)
    wl_max=$(reply_field gap_max_ns)
    wl_avg=$(reply_field gap_avg_ns)
    : "${wl_min:=0}" "${wl_max:=0}" "${wl_avg:=0}"

    check_present $tag revalidator2 "$tid"
    check_syscall_set $tag revalidator2 "$tid" "$POLL_SYSCALL" write
    check_syscall $tag revalidator2 "$tid" "$POLL_SYSCALL" $((k + 1))
    check_syscall $tag revalidator2 "$tid" write 1
    check_eq "$tag: revalidator2 syscalls_but_poll count" 1 \
             "$(jt "$tid" .syscalls_but_poll.count)"
    check_eq "$tag: revalidator2 long_poll count" $k \
             "$(jt "$tid" .long_poll.count)"
    # The tool measures each interval from poll()'s exit to the next entry:
    # no shorter than the spin the workload timed between the two calls,
    # no longer than the same timed from before the first call to after
    # the second returns (the syscall paths, and any preemption or
    # interrupt on them, fall inside: milliseconds on an emulated kernel).
    # So each of MIN, AVERAGE and MAX lies between the workload's two
    # figures.
    ready_max=$(jt "$tid" .ready.max_ns)
    : "${ready_max:=0}"
    if ((ready_max > MS)); then
        note "$tag: revalidator2 was preempted for up to $ready_max ns"
    fi
    lp_min=$(jt "$tid" .long_poll.min_ns)
    lp_max=$(jt "$tid" .long_poll.max_ns)
    check_range "$tag: revalidator2 long_poll min_ns" "$wl_min" \
                "$(reply_field outer_min_ns)" "$lp_min"
    check_range "$tag: revalidator2 long_poll average_ns" "$wl_avg" \
                "$(reply_field outer_avg_ns)" \
                "$(jt "$tid" .long_poll.average_ns)"
    check_range "$tag: revalidator2 long_poll max_ns" "$wl_max" \
                "$(reply_field outer_max_ns)" "$lp_max"
    # And in absolute terms: no gap is shorter than the MS ms spin in it.
    # (No absolute upper bound: the workload's own figures above are the
    # truth; a bound on a busy machine's delays would be a guess.)
    check_range "$tag: revalidator2 long_poll min_ns at least MS" \
                $((ms * MS)) "$lp_max" "$lp_min"
}

# A thread that exits inside the window keeps its name.
scenario_exited() {
    local tag=exited name=exiter9 pid=${WL_PID[main]} tid

    kd_json_begin $tag 0.6 -p "$pid" || return
    wl_cmd main "spawn-exit $name" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    kd_json_end
    tid=${WL_REPLY_LINE#done }
    if ! is_uint "$tid"; then
        fail "$tag: workload gave the thread's TID" TID "$tid"
        return
    fi

    check_eq "$tag: thread $tid has exited" yes \
             "$([[ -e /proc/$pid/task/$tid ]] && echo no || echo yes)"
    check_eq "$tag: exited thread $tid reported under its name" "$name" \
             "$(jt "$tid" .name)"
    check_eq "$tag: exited thread getppid count" 3 \
             "$(js "$tid" getppid count)"
}
