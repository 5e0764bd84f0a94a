# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# --histogram (beyond the reference): bucket counts against the exact
# syscall, run and ready counts, percentiles inside their buckets (from
# --json), and the text histograms under their sections.  Sourced by
# tests/e2e.sh.

# --histogram: bucket counts sum to the exact syscall counts, and to the
# run and ready counts; percentiles lie inside non-empty buckets.
scenario_histogram() {
    local tag=histogram tid=${WL_TID[main:handler1]} out q max

    kd_attached_job $tag "syscalls 1000 5" -p "${WL_PID[main]}" \
        --histogram --json --sample-time 2 || return
    out=$KD_OUT
    # The longest of the 5 sleeps as the workload timed it around the
    # call: no sleep's syscall lasted longer.
    max=$(reply_field sleep_max_ns)
    q=".threads[] | select(.tid == $tid) | .histograms"
    check_eq "$tag: getppid buckets sum to 1000" 1000 \
             "$(jq "$q.syscalls[] | select(.name == \"getppid\")
                    | [.histogram.buckets[].count] | add" "$out")"
    # Each sleep lasted from 10 ms to the workload's own maximum (a 10 ms
    # sleep may take over 16.7 ms on a busy machine, the next bucket).
    check_eq "$tag: the 5 sleeps in buckets between 10 ms and their max" \
             "5 0" \
             "$(jq -r --argjson max "${max:-0}" "$q.syscalls[]
                       | select(.name == \"clock_nanosleep\")
                       | .histogram.buckets
                       | \"\\([.[].count] | add) \\([.[]
                           | select(.high < 10000000 or .low > \$max)]
                           | length)\"" "$out")"
    check_eq "$tag: every syscall histogram sums to its count" 0 \
             "$(jq "[.threads[] | . as \$t | .histograms.syscalls[]?
                    | . as \$h | select(([.histogram.buckets[].count] | add)
                        != (\$t.syscalls[] | select(.number == \$h.number)
                            | .count))] | length" "$out")"
    check_eq "$tag: ready and run histograms sum to their counts" 0 \
             "$(jq '[.threads[] | select(.histograms != null)
                    | select(((.histograms.ready.buckets // [])
                              | map(.count) | add // 0)
                             != (.ready.count // 0)
                             or ((.histograms.run.buckets // [])
                                 | map(.count) | add // 0)
                             != (.run.count // 0))] | length' "$out")"
    check_eq "$tag: percentiles lie inside non-empty buckets" 0 \
             "$(jq '[.threads[].histograms | select(. != null)
                    | (.syscalls[].histogram, .ready, .run)
                    | select(. != null) | . as $h
                    | (.p50_ns, .p90_ns, .p99_ns) as $p
                    | select([$h.buckets[] | select(.low <= $p and
                                                    $p <= .high)]
                             | length == 0)] | length' "$out")"

    kd_begin ${tag}_text 0.8 -p "${WL_PID[main]}" --histogram || return
    wl_cmd main "syscalls 10 1" || fail "$tag: job"
    wait_exit "$KD_PID" 30
    grep -q "^$IND\\[SYSCALL LATENCY: getppid\\]$" "$KD_OUT" \
        && grep -q "^$IND     ns                  : count     distribution$" \
                   "$KD_OUT" \
        && grep -q "^${IND}p50 <= " "$KD_OUT" \
        && pass "$tag: text histograms under their sections" \
        || fail "$tag: text histograms" "[SYSCALL LATENCY: getppid] ..." \
                "$(grep -c LATENCY "$KD_OUT") LATENCY lines"
}
