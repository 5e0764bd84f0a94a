# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# --summary in text (beyond the reference): the table agrees with the
# report's sections and the window; the text table is what is checked.
# Sourced by tests/e2e.sh.

# --summary in text: the table agrees with the sections and the window.
scenario_summary() {
    local tag=summary u3=${WL_TID[main:urcu3]} line window ready share
    local want

    kd_begin $tag 0.8 -p "${WL_PID[main]}" --summary || return
    wl_cmd main "contend 200 0" || fail "$tag: job"
    kd_finish "$tag" 30
    # The report, then a blank line and the summary.
    awk '/^# SUMMARY:/ { exit } { print }' "$KD_OUT" | head -n -1 \
        >"$KD_OUT.report"
    if kd_check_layout "$KD_OUT.report" 0.8; then
        pass "$tag: report layout"
    else
        fail "$tag: report layout: $LAYOUT_ERR"
    fi
    kd_parse "$KD_OUT.report"
    window=$(sed -n 's/^# SUMMARY: share of the \([0-9.]*\) ms sample window spent$/\1/p' \
                 "$KD_OUT")
    [[ -n $window ]] && pass "$tag: title ($window ms)" \
                     || fail "$tag: title" "# SUMMARY: ..." ""
    # urcu3's row of the table (not of the "Ran instead" lines after it).
    line=$(awk -v t="$u3" '/^# Longest/ { exit } $1 == t && /%/' \
               "$KD_OUT" | tail -n 1)
    ready=$(r "$u3.ready.total")
    share=$(awk '{print $4}' <<<"$line")
    want=$(awk -v r="${ready:-0}" -v w="${window:-1}" \
               'BEGIN { printf "%.1f%%", 100 * r / (w * 1e6) }')
    # The window is printed to 0.1 ms: allow 0.1 point of rounding.
    awk -v a="${share%\%}" -v b="${want%\%}" \
        'BEGIN { exit !(a - b <= 0.11 && b - a <= 0.11) }' \
        && pass "$tag: urcu3 RUN QUEUE share $share = READY total / window" \
        || fail "$tag: urcu3 RUN QUEUE share" "$want" "$share"
    grep -q "^# Longest in the run queue: \(urcu3\|pmd4\) " "$KD_OUT" \
        && pass "$tag: the worst thread is named" \
        || fail "$tag: worst line" "urcu3 or pmd4" \
                "$(grep '^# Longest' "$KD_OUT")"
    check_summary_ran "$tag"
}

# check_summary_ran TAG: who ran instead, after "contend" (urcu3 and pmd4
# pinned to one CPU under SCHED_RR, which no ordinary task can take from
# them, whatever else runs on the machine): each one held the CPU while the
# other waited, for most of its wait, and the worst line says so.
check_summary_ran() {
    local tag=$1 u3=${WL_TID[main:urcu3]} p4=${WL_TID[main:pmd4]}
    local pid=${WL_PID[main]} worst line share

    worst=$(sed -n 's/^# Longest in the run queue: \([a-z0-9]*\) .*/\1/p' \
                "$KD_OUT")
    case $worst in
    urcu3) line="mostly behind pmd4 (TID $p4 of PID $pid)." ;;
    pmd4) line="mostly behind urcu3 (TID $u3 of PID $pid)." ;;
    esac
    grep -q "^# Longest in the run queue: .*, $line\$" "$KD_OUT" \
        && pass "$tag: the worst line names who ran instead ($line)" \
        || fail "$tag: the worst line names who ran instead" "$line" \
                "$(grep '^# Longest' "$KD_OUT")"
    for pair in "$u3 pmd4[$p4/$pid]" "$p4 urcu3[$u3/$pid]"; do
        read -r tid who <<<"$pair"
        line=$(awk -v t="$tid" 'f && $1 == t { print; exit }
                                /^# Ran instead/ { f = 1 }' "$KD_OUT")
        share=$(awk -v w="$who" '{ for (i = 3; i < NF; i++)
                                       if ($i == w) {
                                           print $(i + 1); exit
                                       } }' <<<"${line//,/}")
        # Its first task, and most of its wait (the rest: the few kernel
        # threads that ran on that CPU meanwhile).
        if [[ $(awk '{ print $3 }' <<<"$line") == "$who" ]] \
           && awk -v s="${share%\%}" 'BEGIN { exit !(s >= 90) }'; then
            pass "$tag: ran instead of $tid: $who first, $share"
        else
            fail "$tag: ran instead of $tid" "$who first, >= 90%" "$line"
        fi
    done
}
