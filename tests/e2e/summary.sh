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
    wait_exit "$KD_PID" 30
    check_eq "$tag: exit status" 0 "$WAIT_RC"
    check_bpf_released $tag
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
    line=$(awk -v t="$u3" '$1 == t && /%/' "$KD_OUT" | tail -n 1)
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
}
