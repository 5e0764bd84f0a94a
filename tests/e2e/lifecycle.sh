# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# The tool's life: the target exiting during a sample or while waiting for
# a trigger, SIGINT, SIGTERM and SIGHUP during a sample, SIGINT while
# compiling, SIGKILL (nothing left behind), a stale probe event of a killed
# run, hundreds of samples with flat memory.  What is checked is the text
# the tool prints then (notes, sample lines; long_run: the default output's
# memory), but for stale_probe, and kill9's run after the kill, which read
# --json.  Sourced by tests/e2e.sh.

# The target dies in the middle of a sample: what was captured is
# reported, a note says why the sample ended, and the tool exits 0 at once.
scenario_target_exit() {
    local tag=target_exit start end

    wl_start victim kd-victim || return
    kd_start $tag -p "${WL_PID[victim]}" --sample-time 20
    kd_wait_started 30 || { fail "$tag: kernel_delay starts"; return; }
    wl_cmd victim "syscalls 10 0" || fail "$tag: job"
    start=$(now_ns)
    kill -KILL "${WL_PID[victim]}"
    wait_exit "$KD_PID" 10
    end=$(now_ns)
    unset "WL_PID[victim]"
    check_eq "$tag: exit status" 0 "$WAIT_RC"
    check_range "$tag: exits soon after the target (ms)" 0 1000 \
                $(((end - start) / MS))
    grep -q '^# Sample dump' "$KD_OUT" \
        && pass "$tag: the sample is reported" \
        || fail "$tag: the sample is reported"
    grep -q ' getppid ' "$KD_OUT" \
        && pass "$tag: with what was captured" \
        || fail "$tag: with what was captured (getppid)"
    grep -qx "# NOTE: Process [0-9]* exited during the sample; the sample\
 above ends there." "$KD_OUT" \
        && pass "$tag: a note says the process exited" \
        || fail "$tag: note" "'# NOTE: Process N exited ...'" \
                "$(tail -n 1 "$KD_OUT")"
    check_bpf_released $tag
}

scenario_target_exit_waiting() {
    local tag=target_exit_waiting

    wl_start victim2 kd-victim || return
    kd_start $tag -p "${WL_PID[victim2]}" --start-trigger \
        u:kd_workload:job_start
    kd_wait_attached 11 || { fail "$tag: kernel_delay attaches"; return; }
    kill -KILL "${WL_PID[victim2]}"
    wait_exit "$KD_PID" 5
    unset "WL_PID[victim2]"
    check_eq "$tag: exit status" 0 "$WAIT_RC"
    grep -qx "# NOTE: Process [0-9]* exited while waiting for the start\
 trigger." "$KD_OUT" \
        && pass "$tag: a note says the process exited" \
        || fail "$tag: note" "'# NOTE: ... while waiting ...'" \
                "$(cat "$KD_OUT")"
    check_bpf_released $tag
}

# SIGTERM and SIGHUP during a sample: as SIGINT, the sample ends, is
# reported, and the tool exits 0 with everything detached.
scenario_signals() {
    local sig tag

    for sig in INT TERM HUP; do
        tag=signal_$sig
        kd_start $tag -p "${WL_PID[main]}" --sample-time 20
        kd_wait_started 30 || { fail "$tag: kernel_delay starts"; continue; }
        kill -s $sig "$KD_PID"
        wait_exit "$KD_PID" 5
        check_eq "$tag: exit status" 0 "$WAIT_RC"
        grep -q '^# Sample dump' "$KD_OUT" \
            && pass "$tag: the sample is reported" \
            || fail "$tag: the sample is reported"
        check_bpf_released $tag
    done
}

# While compiling: one SIGINT, and the run ends cleanly before sampling;
# a second one ends it at once (exit status 128 + 2).
scenario_signal_during_compile() {
    local tag=signal_compile attempt sent=

    kd_start $tag -p "${WL_PID[main]}" --sample-time 5
    kd_wait_handler || { fail "$tag: kernel_delay catches SIGINT"; return; }
    kill -INT "$KD_PID"
    wait_exit "$KD_PID" 60
    check_eq "$tag: one SIGINT: exit status" 0 "$WAIT_RC"
    check_eq "$tag: one SIGINT: no sample" 0 \
             "$(grep -c '^# Start sampling' "$KD_OUT")"
    check_bpf_released $tag

    # The second SIGINT must come after the first was taken, and while
    # the tool still runs: sent close together, two signals merge into one
    # pending signal when the tool waits for a CPU (seen beside stress-ng,
    # 100 ms apart), and a pause would only say how busy the machine is.
    # So the tool is stopped for each: the first is taken when it goes on
    # (and its handler ran once SigPnd and ShdPnd no longer hold it); the
    # second is sent while it is seen stopped, alive, still compiling.
    # The tool may end (after the first) before the second can be sent
    # only if its compile ends in those few milliseconds: then again.
    for attempt in 1 2 3; do
        kd_start ${tag}2 -p "${WL_PID[main]}" --sample-time 5
        kd_wait_handler \
            || { fail "$tag: kernel_delay catches SIGINT"; return; }
        sig_while_stopped "$KD_PID" INT \
            && poll_until "$KD_PID" 60 0.001 sig_taken "$KD_PID" 2 \
            && sig_while_stopped "$KD_PID" INT && { sent=1; break; }
        wait_exit "$KD_PID" 60
        note "$tag: ended ($WAIT_RC) before the second SIGINT (try $attempt)"
        check_bpf_released ${tag}2
    done
    if [[ -z $sent ]]; then
        fail "$tag: two SIGINTs: the tool still runs for the second"
        return
    fi
    wait_exit "$KD_PID" 10
    check_eq "$tag: two SIGINTs: exit status" 130 "$WAIT_RC"
    # At once: before the compile it interrupted could end and sampling
    # start.
    check_eq "$tag: two SIGINTs: exits before sampling" 0 \
             "$(grep -c '^# Start sampling' "$KD_OUT")"
    check_bpf_released ${tag}2
}

# After a SIGKILL, nothing of the tool stays, and the next run works.
scenario_kill9() {
    local tag=kill9

    kd_start $tag -p "${WL_PID[main]}" --start-trigger \
        up:kd_workload_traced_job --stop-trigger ur:kd_workload_traced_job
    kd_wait_attached || { fail "$tag: kernel_delay attaches"; return; }
    kill -KILL "$KD_PID"
    wait_exit "$KD_PID" 5
    check_eq "$tag: killed" 137 "$WAIT_RC"
    check_bpf_released $tag
    check_eq "$tag: no probe event of ours left in tracefs" 0 \
             "$(cat /sys/kernel/tracing/uprobe_events \
                    /sys/kernel/tracing/kprobe_events 2>/dev/null \
                | grep -c kernel_delay_)"
    run_trigger_scenario ${tag}_again 1 "traced 3 0" 3 trigger trigger \
        --start-trigger up:kd_workload_traced_job \
        --stop-trigger ur:kd_workload_traced_job
}

# A probe event left by a run killed where probes go through tracefs's
# legacy interface is removed on the next start.
scenario_stale_probe() {
    local tag=stale_probe dead=4194000 events=/sys/kernel/tracing/uprobe_events
    local ev="kernel_delay_${dead}_0_bcc_$dead"

    if kill -0 $dead 2>/dev/null; then
        skip "$tag: pid $dead is alive"
        return
    fi
    echo "p:uprobes/$ev /bin/true:0x1000" >>"$events" \
        || { fail "$tag: cannot add a probe event to $events"; return; }
    kd_json_begin $tag 0.1 -p "${WL_PID[main]}" || return
    kd_json_end
    check_eq "$tag: the stale event is gone" 0 "$(grep -c "$ev" "$events")"
    grep -q "removed stale probe event uprobes/$ev" "$KD_ERR" \
        && pass "$tag: and said so on stderr" \
        || fail "$tag: stderr" "'removed stale probe event ...'" \
                "$(cat "$KD_ERR")"
    echo "-:uprobes/$ev" >>"$events" 2>/dev/null
}

# Hundreds of triggered samples: memory stays flat.
scenario_long_run() {
    local tag=long_run rss1 rss2 n growth

    kd_start $tag -p "${WL_PID[main]}" --start-trigger \
        u:kd_workload:job_start --stop-trigger u:kd_workload:job_end \
        --sample-count 600
    kd_wait_attached || { fail "$tag: kernel_delay attaches"; return; }
    # Many more jobs than samples: a job fired while a sample is being
    # reported is not captured, and reports are slow under sanitizers.
    printf '%s\n' "traced-repeat 6000 2" >&"${WL_CTL[main]}"
    until (($(grep -c '^# Triggered' "$KD_OUT") >= 100)); do
        nap 0.05
        running "$KD_PID" || break
    done
    rss1=$(awk '/^VmRSS/ {print $2}' /proc/"$KD_PID"/status 2>/dev/null)
    until (($(grep -c '^# Triggered' "$KD_OUT") >= 550)); do
        nap 0.05
        running "$KD_PID" || break
    done
    rss2=$(awk '/^VmRSS/ {print $2}' /proc/"$KD_PID"/status 2>/dev/null)
    wait_exit "$KD_PID" 180
    read -r -t 120 -u "${WL_REPLY[main]}" WL_REPLY_LINE
    n=$(grep -c '^# Triggered' "$KD_OUT")
    check_eq "$tag: exit status" 0 "$WAIT_RC"
    check_eq "$tag: samples" 600 "$n"
    note "$tag: RSS after 100 samples ${rss1:-?} kB, after 550 ${rss2:-?} kB"
    # Under AddressSanitizer (make check SANITIZE=1), freed memory sits in
    # its quarantine (up to 256 MB), so only a gross leak can be told.
    growth=$((${rss2:-999999} - ${rss1:-0}))
    ((growth < 0)) && growth=0      # It shrank: flat enough.
    check_range "$tag: RSS growth from sample 100 to 550 (kB)" 0 \
                $((${KD_SANITIZED:+262144} + 1024)) "$growth"
    check_bpf_released $tag
}

# ---------------------------------------------------------------------------
# Helpers of this theme.

# proc_state PID: the one-letter state of process PID (empty when gone).
proc_state() {
    awk '/^State:/ { print $2 }' /proc/"$1"/status 2>/dev/null
}

# sig_while_stopped PID SIG: stops process PID, sends it SIG while it is
# seen stopped (so alive: the signal is queued, not lost, and none of its
# code runs meanwhile), and lets it go on.  Returns 1 when it ended first.
sig_while_stopped() {
    kill -STOP "$1" 2>/dev/null || return 1
    poll_until "" 60 0.001 eval '[[ $(proc_state '"$1"') == [TZ] ]]'
    if [[ $(proc_state "$1") != T ]]; then
        kill -CONT "$1" 2>/dev/null
        return 1
    fi
    kill -s "$2" "$1"
    kill -CONT "$1"
}

# sig_taken PID SIGNO: signal SIGNO is no longer pending for process PID
# (its handler ran), or the process ended.
sig_taken() {
    local pnd

    pnd=$(awk '/^(SigPnd|ShdPnd):/ { printf "%s ", $2 }' \
          /proc/"$1"/status 2>/dev/null) || return 0
    for pnd in $pnd; do
        (((16#$pnd >> ($2 - 1)) & 1)) && return 1
    done
    return 0
}

# kd_wait_handler: waits until the tool catches SIGINT (a background job
# starts with it ignored, so a signal sent earlier would be lost), while it
# is still compiling.  Until it has run the tool, the forked child is a
# copy of this shell and catches SIGINT with our trap: a signal sent then
# was lost (seen beside stress-ng, where the child waits for a CPU between
# fork and exec), so the handler counts only once the tool runs in it.
# exec is one-way: a handler seen after the tool's binary was is the tool's.
kd_wait_handler() {
    local i mask exe

    exe=$(readlink -f "$KD")
    for ((i = 0; i < 1000; i++)); do
        if [[ $(readlink /proc/"$KD_PID"/exe 2>/dev/null) == "$exe" ]]; then
            mask=$(awk '/^SigCgt:/ { print $2 }' /proc/"$KD_PID"/status \
                   2>/dev/null)
            [[ -n $mask ]] && (((16#$mask & 2) != 0)) && return 0
        fi
        running "$KD_PID" || return 1
        nap 0.01
    done
    return 1
}
