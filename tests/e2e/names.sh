# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# Names the target chooses (beyond the reference): escaped in the text
# report, summary and events, never raw on the terminal; real in --json.
# The text is what is checked.  Sourced by tests/e2e.sh.

# A name the target chooses cannot reach the terminal as it is: a live
# thread that names itself with an ANSI colour, a newline and an OSC window
# title ended by BEL shows escaped ("\x1b", "\n", "\x07") in the report,
# the summary and the syscall events, and neither standard output nor
# standard error holds an ESC or a BEL byte, or the name split over two
# lines.  --json keeps the real name (escaped as JSON).
scenario_hostile_names() {
    local tag=hostile_names pid=${WL_PID[main]} tid=${WL_TID[main:handler5]}
    # ESC "[31mkd" LF "x" ESC "]0;t" BEL: 15 bytes, TASK_COMM_LEN - 1.
    local hex=1b5b33316d6b640a781b5d303b7407
    local name=$'\e[31mkd\nx\e]0;t\a' shown='\x1b[31mkd\nx\x1b]0;t\x07'
    local file got re

    # Renamed inside the window, so that its prctl() and write() are there.
    kd_begin $tag 1 -p "$pid" --tid "$tid" --summary -s 0 || return
    wl_cmd main "rename handler5 $hex" || fail "$tag: job" done \
                                               "$WL_REPLY_LINE"
    kd_finish "$tag" 30
    for file in "$KD_OUT" "$KD_ERR"; do
        check_eq "$tag: no ESC or BEL byte in ${file##*/}" 0 \
                 "$(tr -dc '\033\007' <"$file" | wc -c)"
        check_eq "$tag: no line of ${file##*/} ends inside the name" 0 \
                 "$(grep -c '\[31mkd$' "$file")"
    done
    check_eq "$tag: the thread's header line" 1 \
             "$(grep -cxF "$(printf '%10s %s [SYSCALL STATISTICS]' "$tid" \
                                "$shown")" "$KD_OUT")"
    re="^ *$tid $(sed 's/[][\.*^$]/\\&/g' <<<"$shown") +[0-9.]+% "
    check_eq "$tag: its summary row" 1 "$(grep -cE "$re" "$KD_OUT")"
    check_eq "$tag: its prctl() event, COMM escaped" 1 \
             "$(grep -F " $tid $shown " "$KD_OUT" | grep -c ' prctl$')"

    if kd_attached_job ${tag}_json "rename handler5 $hex" -p "$pid" \
           --tid "$tid" --json --sample-time 1; then
        check_eq "$tag --json: no ESC or BEL byte" 0 \
                 "$(tr -dc '\033\007' <"$KD_OUT" | wc -c)"
        got=$(jq -r ".threads[] | select(.tid == $tid) | .name" "$KD_OUT"
              echo .)
        got=${got%$'\n.'}
        # Compared, and printed, in bash's quoted form: never raw.
        check_eq "$tag --json: the real name" "$(printf '%q' "$name")" \
                 "$(printf '%q' "$got")"
    fi

    # "handler5" again.
    wl_cmd main "rename handler5 68616e646c657235" \
        || fail "$tag: handler5 gets its name back" done "$WL_REPLY_LINE"
}
