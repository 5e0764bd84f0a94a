# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# What the tool says of its limits: the note on standard error where
# upcalls cannot be traced (upcall_note, read from --json), and the warning
# when the eBPF maps are full (map_full: the warning's text, which names
# the option to use, is what is checked).  Sourced by tests/e2e.sh.

# Without --skip-upcall-stats, a kernel that cannot trace ovs_dp_upcall
# (no openvswitch module, or no kprobes as here) gets one note on stderr
# and a normal run.
scenario_upcall_note() {
    local tag=upcall_note

    kd_json_begin $tag 0.2 -p "${WL_PID[main]}" || return
    kd_json_end
    check_eq "$tag: one note on stderr" 1 \
             "$(grep -c '^kernel_delay: note: no upcall statistics: ' "$KD_ERR")"
    kd_json_begin ${tag}_skip 0.2 -p "${WL_PID[main]}" --skip-upcall-stats \
        || return
    kd_json_end
    check_eq "$tag: no note with --skip-upcall-stats" 0 \
             "$(grep -c 'upcall' "$KD_ERR")"
}

# More threads than --max-threads sized the maps for: the sample ends with
# a warning that counts what was lost and names the option; never silent.
scenario_map_full() {
    local tag=map_full re lost n maps

    kd_start $tag -p "${WL_PID[main]}" --sample-time 1 --max-threads 64
    kd_wait_started 30 || { fail "$tag: kernel_delay starts"; return; }
    wl_cmd main "spawn-many 150" || fail "$tag: job" "done" "$WL_REPLY_LINE"
    kd_finish "$tag" 30
    re='# WARNING: ([0-9]+) events were not counted because eBPF maps were full: ([a-z 0-9]+)\.'
    if [[ $(tr '\n' ' ' <"$KD_OUT") =~ $re ]]; then
        lost=${BASH_REMATCH[1]}
        maps=${BASH_REMATCH[2]}
        check_range "$tag: events not counted" 1 100000 "$lost"
        [[ $maps == *tstate* ]] \
            && pass "$tag: the thread state map is named ($maps)" \
            || fail "$tag: maps named" "tstate N" "$maps"
    else
        fail "$tag: map-full warning" "'# WARNING: N events were not\
 counted ...'" "$(grep -A1 WARNING "$KD_OUT" | tr '\n' ' ')"
    fi
    grep -q -- '--max-threads option' "$KD_OUT" \
        && pass "$tag: warning names --max-threads" \
        || fail "$tag: warning names --max-threads"
    n=$(grep -c ' \[SYSCALL STATISTICS\]$' "$KD_OUT")
    check_range "$tag: threads reported (at most the maps' 64)" 1 64 "$n"
}
