# shellcheck shell=bash
# What the kernel takes from a thread, against the kernel's own figures:
# run and run-queue time under contention against schedstat (contend),
# stopped time around SIGSTOP and SIGCONT (stopped), soft interrupts of
# loopback UDP (udp), hard interrupts of a block device against
# /proc/interrupts (hardirq).  All read --json with jq.  Sourced by
# tests/e2e.sh.

# Run and run-queue time under contention (urcu3 against pmd4 on one CPU,
# both under SCHED_RR for the job: the CPU is theirs, whatever else runs).
scenario_contend() {
    local tag=contend ms=200 cpu=0 pid=${WL_PID[main]}
    local urcu=${WL_TID[main:urcu3]} pmd=${WL_TID[main:pmd4]}
    local u0 u1 p0 p1 w0 w1 steal wait_ns

    kd_json_begin $tag 1.0 -p "$pid" || return
    steal=$(steal_ticks)
    u0=$(schedstat "$pid" "$urcu")
    p0=$(schedstat "$pid" "$pmd")
    wl_cmd main "contend $ms $cpu" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    u1=$(schedstat "$pid" "$urcu")
    p1=$(schedstat "$pid" "$pmd")
    steal=$(($(steal_ticks) - steal))
    kd_json_end

    # Sanity of the workload: urcu3 really waited for the CPU.
    read -r _ w0 _ <<<"$u0"
    read -r _ w1 _ <<<"$u1"
    wait_ns=$((w1 - w0))
    check_range "$tag: urcu3 waited in the run queue (schedstat)" \
                $((ms * MS / 4)) $((2 * ms * MS)) "$wait_ns"

    check_present $tag urcu3 "$urcu"
    check_present $tag pmd4 "$pmd"
    check_syscall_set $tag urcu3 "$urcu" sched_setaffinity write
    check_sched $tag urcu3 "$urcu" "$u0" "$u1" "$steal"
    check_sched $tag pmd4 "$pmd" "$p0" "$p1" "$steal"
    check_ran_instead $tag urcu3 "$urcu" pmd4 "$pmd" "$p0" "$p1" "$steal"
    check_ran_instead $tag pmd4 "$pmd" urcu3 "$urcu" "$u0" "$u1" "$steal"
}

# check_ran_instead TAG THREAD TID OTHER OTHER_TID OTHER_BEFORE OTHER_AFTER
# STEAL_TICKS: who ran instead of THREAD in the JSON sample: its charges add
# up to its READY total, OTHER (the only other thread of its priority on
# its CPU: ordinary tasks cannot take it from them) comes first, and was
# charged no more than it ran (its schedstat delta, with check_sched's
# tolerance for a RUN total: a charge is measured by the same clock reads
# as the tool's RUN total, with the same error a switch).
check_ran_instead() {
    local tag=$1 thread=$2 tid=$3 other=$4 otid=$5 r0 r1 sum ready got

    read -r r0 _ <<<"$6"
    read -r r1 _ <<<"$7"
    sum=$(jt "$tid" '[.ran_instead[].ns] | add // 0')
    ready=$(jt "$tid" '.ready.total_ns // 0')
    # Each wait is charged from its start to its end, whoever held the
    # CPU: the sum is the READY total, but for a switch not seen.
    check_close "$tag: $thread's ran_instead adds up to its READY total" \
                "$ready" "$sum" "$(sched_tolerance "$ready" 0)"
    got=$(jt "$tid" '.ran_instead[0] | "\(.tid) \(.name) \(.pid)"')
    check_eq "$tag: $other ran instead of $thread first" \
             "$otid $other ${WL_PID[main]}" "$got"
    # Its own share, whoever came first: OTHER's run time is the truth of
    # OTHER's charges only.
    got=$(jt "$tid" ".ran_instead[] | select(.tid == $otid) | .ns")
    check_range "$tag: $other's share of $thread's wait <= its run time" \
                1 $((r1 - r0 + $(run_tolerance "$6" "$7" "$8"))) "$got"
}

# Soft interrupts: loopback UDP runs NET_RX in the sender's context.
scenario_udp() {
    local tag=udp n=50 pid=${WL_PID[main]} tid=${WL_TID[main:handler5]}

    kd_json_begin $tag 0.6 -p "$pid" || return
    wl_cmd main "udp $n" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    kd_json_end

    check_present $tag handler5 "$tid"
    check_syscall_set $tag handler5 "$tid" sendto recvfrom write
    check_syscall $tag handler5 "$tid" sendto $n
    check_syscall $tag handler5 "$tid" recvfrom $n
    check_syscall $tag handler5 "$tid" write 1
    check_eq "$tag: handler5 has soft_irqs" true \
             "$(jt "$tid" '.soft_irqs | length > 0')"
    check_eq "$tag: handler5 net_rx vector" 3 \
             "$(jt "$tid" '.soft_irqs[] | select(.name == "net_rx") | .vector')"
    check_range "$tag: handler5 net_rx count" 1 $((n * 2)) \
                "$(jt "$tid" '.soft_irqs[] | select(.name == "net_rx")
                              | .count')"
}

# Hard interrupts: irq6 spins on the CPU that takes the block device's
# interrupts while io7 does synchronous direct I/O from the other CPU.
scenario_hardirq() {
    local tag=hardirq pid=${WL_PID[main]} tid=${WL_TID[main:irq6]}
    local -A before=()
    local key irq best=0 blk_irq='' blk_cpu='' name delta max_cpu k

    # Find the block device's interrupt line and CPU: the line that grows
    # most during a burst of direct I/O (without the tool).
    irq_snapshot
    for key in "${!IRQ_COUNT[@]}"; do
        before[$key]=${IRQ_COUNT[$key]}
    done
    if ! wl_cmd main "irqspin 150 0"; then
        fail "$tag: I/O burst" "done" "$WL_REPLY_LINE"
        return
    fi
    irq_snapshot
    for key in "${!IRQ_COUNT[@]}"; do
        delta=$((IRQ_COUNT[$key] - ${before[$key]:-0}))
        if ((delta > best)); then
            best=$delta
            blk_irq=${key%:*}
        fi
    done
    if [[ -z $blk_irq ]]; then
        fail "$tag: block device interrupt line found in /proc/interrupts"
        return
    fi
    # Its CPU: the one with most of its interrupts.
    max_cpu=-1
    for key in "${!IRQ_COUNT[@]}"; do
        [[ ${key%:*} == "$blk_irq" ]] || continue
        if ((IRQ_COUNT[$key] > max_cpu)); then
            max_cpu=${IRQ_COUNT[$key]}
            blk_cpu=${key#*:}
        fi
    done
    name=${IRQ_NAME[$blk_irq]}
    note "$tag: block device interrupts: IRQ $blk_irq '$name' on CPU $blk_cpu"

    kd_json_begin $tag 1.0 -p "$pid" || return
    irq_snapshot
    before=()
    for key in "${!IRQ_COUNT[@]}"; do
        before[$key]=${IRQ_COUNT[$key]}
    done
    wl_cmd main "irqspin 300 $blk_cpu" \
        || fail "$tag: job" "done" "$WL_REPLY_LINE"
    irq_snapshot
    kd_json_end

    check_present $tag irq6 "$tid"
    check_eq "$tag: irq6 has hard_irqs" true \
             "$(jt "$tid" '.hard_irqs | length > 0')"
    # The tool keeps the first 31 bytes of a handler's name.
    key=$blk_irq:$blk_cpu
    delta=$((${IRQ_COUNT[$key]} - ${before[$key]:-0}))
    check_range "$tag: irq6 '$name' count (<= /proc/interrupts delta)" 1 \
                "$delta" "$(hardirq_count "$tid" "${name:0:31}")"
    # Every interrupt line reported for irq6 happened on its CPU at least as
    # often as reported.
    while IFS= read -r k; do
        [[ $k == "${name:0:31}" ]] && continue
        for irq in "${!IRQ_NAME[@]}"; do
            [[ ${IRQ_NAME[$irq]:0:31} == "$k" ]] || continue
            key=$irq:$blk_cpu
            delta=$((${IRQ_COUNT[$key]:-0} - ${before[$key]:-0}))
            check_range "$tag: irq6 '$k' count (<= /proc/interrupts delta)" \
                        1 "$delta" "$(hardirq_count "$tid" "$k")"
        done
    done < <(jt "$tid" '.hard_irqs[].name')
}

# hardirq_count TID NAME: how many interrupts of handler NAME the current
# JSON sample counts in thread TID.
hardirq_count() {
    jt "$1" ".hard_irqs[] | select(.name == $(jq -n --arg n "$2" '$n'))
             | .count"
}

# Stopped time: SIGSTOP the whole process for 200 ms.
scenario_stopped() {
    local tag=stopped pid=${WL_PID[main]} tid tids state deadline all_stopped
    local thread total t_stop t_all t_cont t_conted

    kd_json_begin $tag 1.0 -p "$pid" || return
    tids=$(wl_threads main)
    t_stop=$(now_ns)
    kill -STOP "$pid"
    # Wait until every thread is in state T, so each is stopped >= 200 ms.
    deadline=$(($(now_ns) + 2000 * WAIT_SCALE * MS))
    while :; do
        all_stopped=1
        for tid in $tids; do
            read -r state <"/proc/$pid/task/$tid/stat"
            state=${state##*) }
            [[ ${state:0:1} == T ]] || all_stopped=0
        done
        ((all_stopped || $(now_ns) > deadline)) && break
        nap 0.001
    done
    t_all=$(now_ns)
    nap 0.2
    t_cont=$(now_ns)
    kill -CONT "$pid"
    t_conted=$(now_ns)
    ((all_stopped)) || fail "$tag: all threads of the workload stopped"
    wl_cmd main ping 5 || fail "$tag: workload alive after SIGCONT" "done" \
                              "$WL_REPLY_LINE"
    kd_json_end

    for tid in $tids; do
        thread=$(cat "/proc/$pid/task/$tid/comm")
        check_eq "$tag: $thread stopped count" 1 \
                 "$(jt "$tid" .stopped.count)"
        # The truth, measured around the signals: each thread stopped
        # after SIGSTOP was sent and, give or take the switch that follows
        # its state change (1 ms), before all were seen stopped; each was
        # woken while SIGCONT was sent.
        total=$(jt "$tid" .stopped.total_ns)
        check_range "$tag: $thread stopped total_ns" \
                    $((t_cont - t_all - MS)) $((t_conted - t_stop)) "$total"
        if [[ -n $total ]]; then
            check_eq "$tag: $thread stopped max_ns = total_ns" \
                     "$total" "$(jt "$tid" .stopped.max_ns)"
        fi
    done
}

# ---------------------------------------------------------------------------
# Helpers of this theme.

# irq_snapshot: IRQ_COUNT[IRQ:CPU] and IRQ_NAME[IRQ] from /proc/interrupts
# (numbered lines only; the name is the last field).
declare -A IRQ_COUNT=() IRQ_NAME=()
irq_snapshot() {
    local irq cpu count name

    IRQ_COUNT=()
    IRQ_NAME=()
    while read -r irq name cpu count; do
        IRQ_NAME[$irq]=$name
        IRQ_COUNT[$irq:$cpu]=$count
    done < <(awk 'NR == 1 { ncpu = NF; next }
                  $1 ~ /^[0-9]+:$/ {
                      sub(/:/, "", $1)
                      for (i = 0; i < ncpu; i++) {
                          print $1, $NF, i, $(i + 2)
                      }
                  }' /proc/interrupts)
}
