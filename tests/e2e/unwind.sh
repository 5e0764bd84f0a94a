# shellcheck shell=bash
# Scenarios: user stacks unwound from the call frame information, through
# the real kernel, on tests/workload-nofp (built without frame pointers, as
# packages are): its "deep" job spins five calls deep, then blocks in libc's
# read() five calls deep until another thread writes the pipe with libc's
# write() (see tests/workload.c).  The chains must come out whole (down to
# the thread's start, start_thread() of libc) in at least 95% of the
# sampled on-CPU time and in all of the blocked time, in --long-poll-events
# and in time mode, from the binary as built, and stripped with its debug
# file under /usr/lib/debug/.build-id; -s events' stacks too.  The same
# checks fail with --frame-pointers, the walk of the reference: the
# control that shows they can.
#
#   unwind_long_poll  unwind_sample  unwind_stripped  unwind_events
#   unwind_frame_pointers  unwind_dlopen  unwind_depth  unwind_restart

# The chains, as the frames' function names joined by ';' (jq regexes):
# the spin, the read() and the write() that ends it, each down to the
# thread's start.
UW_SPIN='kd_deep_leaf;kd_deep_d;kd_deep_c;kd_deep_b;kd_deep_a;(.*;)?start_thread;'
UW_READ='(__read|read|__libc_read|__GI___libc_read);kd_read_e;kd_read_d;kd_read_c;kd_read_b;kd_read_a;(.*;)?start_thread;'
UW_WRITE='(__GI_write|write|__write|__libc_write|__GI___libc_write);kd_write_b;kd_write_a;(.*;)?start_thread;'

# The jq definitions the checks share: 'chain' turns a stack's frames into
# "name;name;...;" ("kd_deep_leaf+0x37 [workload-nofp]" is kd_deep_leaf),
# 'whole' says it reaches the thread's start (libc's start_thread() for a
# thread it made, __libc_start_main() for the main thread) and was not
# cut short.
UW_JQ='def chain: map(sub("\\+0x[0-9a-f]+( .*)?$"; "")) | join(";") + ";";
def whole: (chain | test("(^|;)(start_thread|__libc_start_main);"))
    and (any(.[]; startswith("[stack cut short")) | not);'

# uw_wl: starts (once) the workload instance built without frame pointers,
# "nofp", or the stripped one, "stripped", from BINARY.
uw_wl() {
    local id=$1 binary=$2

    [[ -n ${WL_PID[$id]:-} ]] && running "${WL_PID[$id]}" && return 0
    WORKLOAD=$binary wl_start "$id" "kd-$id"
}

# uw_check TAG REC: the checks of one interval's (or one thread's) record
# REC (JSON: on_cpu_stacks, blocked, profile), against the last "deep"
# job's reply: the spin's chain in at least 95% of the samples, every
# blocked stack whole, the read()'s chain as long as the read() lasted
# less its CPU time, woken by handler1 whose stack is whole too.
#
# A sample or a sleep whose stack found its slot in a stack map taken by
# another stack (a kernel stack in profile_stacks, as a stack map does, or
# a user stack in profile_user_stacks) is counted lost, and the record
# says so: then nothing is checked, STACK_COLLIDED is set, and the
# scenario runs again with 4 times the slots (stack_retry, in
# tests/e2e/longpoll.sh), which fails if it loses any again.  (Seen once in
# the lane, on 6.12: one sample and the read()'s sleep lost, under
# emulation, where more samples land in the kernel, each with a stack.)
uw_check() {
    local tag=$1 rec=$2 n spin whole read read_ns waker bad failed lost

    n=$(jq -r '.profile.samples // 0' <<<"$rec")
    if ! is_uint "$n" || ((n < 50)); then
        fail "$tag: samples of revalidator2" "at least 50" "${n:-none}"
        return
    fi
    lost=$(jq -r '"\(.profile.lost_samples // 0) samples and
                   \(.off_cpu.lost_sleeps // 0) sleeps"' <<<"$rec" | xargs)
    if [[ $lost != "0 samples and 0 sleeps" ]]; then
        STACK_COLLIDED=1 STACK_LOST=$lost
        return
    fi
    spin=$(jq -r --arg re "$UW_SPIN" "$UW_JQ"'
        [.on_cpu_stacks[] | select(.frames | whole and (chain | test($re)))
         | .samples] | add // 0' <<<"$rec")
    whole=$(jq -r "$UW_JQ"'
        [.on_cpu_stacks[] | select(.frames | whole) | .samples]
        | add // 0' <<<"$rec")
    if ((spin * 100 >= n * 95)); then
        pass "$tag: the spin five calls deep, whole, in $spin of $n samples"
    else
        fail "$tag: samples whose stack is the spin's chain, whole" \
             ">= 95% of $n" "$spin ($(jq -c "$UW_JQ"'
                 [.on_cpu_stacks[] | select(.frames | whole | not)
                  | .frames] | .[0]' <<<"$rec"))"
    fi
    check_eq "$tag: every sample's stack whole" "$n" "$whole"
    ((whole == n)) ||
        note "$tag: those not whole: $(jq -c "$UW_JQ"'
                  [.on_cpu_stacks[] | select(.frames | whole | not)
                   | {samples, frames}]' <<<"$rec")"

    bad=$(jq -c "$UW_JQ"'[.blocked[] | (.waker.frames // []) as $w
                  | select((.frames | whole | not)
                           or (($w | length) > 0 and ($w | whole | not)))]
                  | .[0] // empty' <<<"$rec")
    check_eq "$tag: every blocked stack and waker stack whole" "" "$bad"
    read_ns=$(reply_field read_ns)
    read=$(jq -r --arg re "$UW_READ" "$UW_JQ"'
        [.blocked[] | select(.frames | chain | test($re)) | .ns]
        | add // 0' <<<"$rec")
    if is_uint "$read_ns"; then
        failed=$TEST_FAILED
        check_close "$tag: the read()'s chain blocked as long as the read()" \
                    "$read_ns" "$read" $((5 * MS * WAIT_SCALE))
        ((TEST_FAILED == failed)) ||
            note "$tag: the sleeps: $(jq -c "$UW_JQ"'
                      .off_cpu, [.blocked[] | {count, ns,
                       chain: (.frames | chain),
                       waker: (.waker.frames // [] | chain)}],
                      .warnings' <<<"$rec" | tr '\n' ' ')"
    else
        fail "$tag: the workload's truth" "read_ns=..." "$WL_REPLY_LINE"
    fi
    waker=$(jq -r --arg re "$UW_READ" --arg w "$UW_WRITE" "$UW_JQ"'
        [.blocked[] | select((.frames | chain | test($re))
                             and (.waker.frames // [] | chain | test($w)))
         | "\(.waker.tid) \(.waker.name)"] | .[0] // empty' <<<"$rec")
    check_eq "$tag: woken by handler1, its write() chain whole" \
             "$(reply_field waker_tid) handler1" "$waker"
}

# uw_long_poll TAG ID [OPTION...]: a --long-poll-events run on workload
# instance ID during one "deep 400 100" job; its record into LP_REC.
uw_long_poll() {
    local tag=$1 id=$2 rv=${WL_TID[$2:revalidator2]}

    shift 2
    lp_start "$tag" -p "${WL_PID[$id]}" --long-poll-events 200ms \
        --tid "$rv" --json --profile-hz 499 --off-cpu "$@" || return 1
    wl_cmd "$id" "deep 400 100" \
        || fail "$tag: job deep" "done" "$WL_REPLY_LINE"
    lp_end "$tag"
    lp_check_records "$tag"
    lp_record "$rv"
    if [[ -z $LP_REC ]]; then
        fail "$tag: revalidator2's interval reported" "an interval" \
             "none (job: $WL_REPLY_LINE; revalidator2 $rv is" \
             "$(cat "/proc/${WL_PID[$id]}/task/$rv/comm" 2>&1); output:" \
             "$(head -c 400 "$KD_OUT" | tr '\n' ' '))"
        return 1
    fi
}

scenario_unwind_long_poll() {
    uw_wl nofp "$HERE/workload-nofp" || return
    UW_ID=nofp
    stack_retry unwind_long_poll uw_long_poll_run 16384 "the walks' stacks"
}

# uw_long_poll_run TAG [OPTION...]: uw_long_poll on workload instance
# UW_ID, then uw_check.
UW_ID=
uw_long_poll_run() {
    local tag=$1

    shift
    uw_long_poll "$tag" "$UW_ID" "$@" || return
    uw_check "$tag" "$LP_REC"
}

scenario_unwind_sample() {
    uw_wl nofp "$HERE/workload-nofp" || return
    stack_retry unwind_sample uw_sample_run 16384 "the walks' stacks"
}

# uw_sample_run TAG [OPTION...]: one run of scenario_unwind_sample.
uw_sample_run() {
    local tag=$1 rv

    shift
    rv=${WL_TID[nofp:revalidator2]}
    kd_json_open "$tag" -p "${WL_PID[nofp]}" --tid "$rv" \
        --profile-hz 499 --off-cpu "$@" || return
    wl_cmd nofp "deep 400 100" \
        || fail "$tag: job deep" "done" "$WL_REPLY_LINE"
    kd_interrupt "$tag" 60
    uw_check "$tag" "$(jq -c --argjson t "$rv" \
                        '.threads[]? | select(.tid == $t)' "$KD_OUT" \
                     | head -n 1)"
}

scenario_unwind_stripped() {
    local bin=$WORKDIR/workload-stripped id

    objcopy --only-keep-debug "$HERE/workload-nofp" "$WORKDIR/wl.debug" &&
        strip --strip-all -o "$bin" "$HERE/workload-nofp" ||
        { fail "unwind_stripped: objcopy and strip"; return; }
    id=$(readelf -n "$bin" | awk '/Build ID:/ { print $3 }')
    if [[ -z $id ]] || readelf -S "$bin" | grep -q '\.symtab'; then
        fail "unwind_stripped: a stripped binary with a build ID" \
             "yes" "build ID '$id'"
        return
    fi
    # Where the tools look for it by build ID; removed at the end (and by
    # cleanup in tests/e2e/lib.sh).
    E2E_DEBUG_FILE=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
    mkdir -p "${E2E_DEBUG_FILE%/*}"
    cp "$WORKDIR/wl.debug" "$E2E_DEBUG_FILE"
    UW_ID=stripped
    uw_wl stripped "$bin" &&
        stack_retry unwind_stripped uw_long_poll_run 16384 \
            "the walks' stacks"
    wl_stop stripped
    rm -f "$E2E_DEBUG_FILE"
    E2E_DEBUG_FILE=
}

scenario_unwind_events() {
    local tag=unwind_events rv got

    uw_wl nofp "$HERE/workload-nofp" || return
    rv=${WL_TID[nofp:revalidator2]}
    kd_json_open $tag -p "${WL_PID[nofp]}" --tid "$rv" -s 50ms || return
    wl_cmd nofp "deep 100 100" \
        || fail "$tag: job deep" "done" "$WL_REPLY_LINE"
    kd_interrupt $tag 60
    got=$(jq -r --arg re "$UW_READ" "$UW_JQ"'
        [.syscall_events[]? | select(.syscall == "read")
         | .user_stack // [] | select(whole and (chain | test($re)))]
        | length' "$KD_OUT" | head -n 1)
    check_eq "$tag: the read() event's user stack, five calls deep, whole" \
             1 "$got"
}

# The control: the reference's walk through frame pointers, on the same
# binary, gets none of the chains whole.
scenario_unwind_frame_pointers() {
    local tag=unwind_frame_pointers n spin

    uw_wl nofp "$HERE/workload-nofp" || return
    uw_long_poll $tag nofp --frame-pointers || return
    n=$(lr '.profile.samples // 0')
    spin=$(jq -r --arg re "$UW_SPIN" "$UW_JQ"'
        [.on_cpu_stacks[] | select(.frames | whole and (chain | test($re)))
         | .samples] | add // 0' <<<"$LP_REC")
    if is_uint "$n" && ((n >= 50)) && ((spin * 100 < n * 95)); then
        pass "$tag: frame pointers get the spin's chain whole in $spin of\
 $n samples only (the checks above can fail)"
    else
        fail "$tag: frame pointers get the spin's chain whole" \
             "in < 95% of >= 50 samples" "$spin of $n"
    fi
}

# A library loaded after the tool attached: the unwinder meets addresses
# in no mapping it knows, and user space reads the mappings again and
# loads the library's table.  The first spin, right after dlopen(), may
# be cut short; the second, 500 ms later, must be whole.
scenario_unwind_dlopen() {
    local tag=unwind_dlopen rv n lib rec

    # A fresh instance: the library must be new to the process.
    wl_stop nofp
    uw_wl nofp "$HERE/workload-nofp" || return
    rv=${WL_TID[nofp:revalidator2]}
    lp_start $tag -p "${WL_PID[nofp]}" --long-poll-events 200ms \
        --tid "$rv" --json --profile-hz 499 || return
    wl_cmd nofp "dlspin $HERE/libkdunwind.so 400" \
        || fail "$tag: job dlspin" "done" "$WL_REPLY_LINE"
    lp_end $tag
    lp_check_records $tag
    check_eq "$tag: the library mapped after the tool attached" yes \
             "$(grep -q 'libkdunwind\.so' "/proc/${WL_PID[nofp]}/maps" \
                && echo yes)"
    rec=$(jq -c --argjson t "$rv" \
              'select(.type == "long_poll" and .tid == $t)' "$KD_OUT" \
          | tail -n 1)
    n=$(jq -r '.profile.samples // 0' <<<"$rec")
    lib=$(jq -r "$UW_JQ"'
        [.on_cpu_stacks[] | select(.frames | whole
             and (chain | test("kd_lib_leaf;kd_lib_b;kd_lib_a;(.*;)?start_thread;")))
         | .samples] | add // 0' <<<"$rec")
    if is_uint "$n" && ((n >= 50)) && ((lib * 100 >= n * 95)); then
        pass "$tag: the library's spin, whole, in $lib of $n samples"
    else
        fail "$tag: samples of the spin in the library loaded later, whole" \
             ">= 95% of >= 50" "$lib of $n"
    fi
}

# Stacks as deep as the unwinder goes: a recursion of 110 calls comes out
# whole (the unwinder ran again and again, 8 frames each time); one of 200
# is cut at 127 frames, and says so.
scenario_unwind_depth() {
    local tag=unwind_depth rv rec got

    uw_wl nofp "$HERE/workload-nofp" || return
    rv=${WL_TID[nofp:revalidator2]}
    lp_start $tag -p "${WL_PID[nofp]}" --long-poll-events 200ms \
        --tid "$rv" --json --profile-hz 499 || return
    wl_cmd nofp "recurse 110 300" \
        || fail "$tag: job recurse 110" "done" "$WL_REPLY_LINE"
    wl_cmd nofp "recurse 200 300" \
        || fail "$tag: job recurse 200" "done" "$WL_REPLY_LINE"
    lp_end $tag
    lp_check_records $tag
    # The records of the two intervals, in order.
    rec=$(jq -c --argjson t "$rv" \
              'select(.type == "long_poll" and .tid == $t)' "$KD_OUT")
    got=$(jq -rs "$UW_JQ"'
        .[0] // {} | [.on_cpu_stacks[]? | .frames
                      | select(whole and (chain
                               | test("kd_deep_leaf;(kd_recurse;){110}")))
                      | length] | max // 0' <<<"$rec")
    if is_uint "$got" && ((got >= 113)); then
        pass "$tag: a stack 110 calls deep, whole ($got frames)"
    else
        fail "$tag: a stack 110 calls deep, whole" ">= 113 frames" "$got"
    fi
    got=$(jq -rs '
        .[1] // {} | [.on_cpu_stacks[]? | .frames
                      | select(any(.[]; startswith("kd_recurse+"))
                               and all(.[]; test(" \\[(kernel|bpf)\\]$")
                                            | not))
                      | "\(length) \(last)"] | unique | .[0] // empty' \
          <<<"$rec")
    check_eq "$tag: one 200 calls deep: 127 frames, then why it stops" \
             "128 [stack cut short: deeper than 127 frames]" "$got"
    got=$(jq -r 'select(.type == "long_poll_end")
                 | .warnings.user_stacks.depth // 0' "$KD_OUT")
    if is_uint "$got" && ((got > 0)); then
        pass "$tag: the stacks cut at 127 frames counted ($got)"
    else
        fail "$tag: the stacks cut at 127 frames counted" "> 0" "$got"
    fi
}

# --wait-target: the process restarts (an upgrade) and the watch attaches
# to the new one, whose tables it builds anew: a workload built without
# frame pointers, named ovs-vswitchd, twice.
scenario_unwind_restart() {
    local tag=unwind_restart real pid n spin i ids=

    real=$(pgrep -x ovs-vswitchd | xargs)
    if [[ -n $real ]]; then
        skip "$tag: an ovs-vswitchd runs ($real): cannot be the target"
        return
    fi
    # No target yet: the capture starts with each process (below).
    kd_start $tag --long-poll-events 200ms --json --wait-target \
        --profile-hz 499
    for i in 1 2; do
        WORKLOAD=$HERE/workload-nofp wl_start "restart$i" ovs-vswitchd ||
            return
        pid=${WL_PID[restart$i]}
        poll_until "$KD_PID" 60 0.05 \
            grep -q "\"event\":\"attached\",\"pid\":$pid" "$KD_OUT" ||
            fail "$tag: attached to process $i ($pid)"
        kd_wait_capture 1 60 || fail "$tag: capturing process $i"
        ids+=" $KD_PROG_IDS"
        wl_cmd "restart$i" "deep 400 100" ||
            fail "$tag: job deep, process $i" "done" "$WL_REPLY_LINE"
        poll_until "$KD_PID" 30 0.05 \
            grep -q "\"type\":\"long_poll\",.*\"pid\":$pid" "$KD_OUT"
        wl_stop "restart$i"
    done
    # Those of both attaches: none left loaded.
    KD_PROG_IDS=$(xargs -n 1 <<<"$ids" | sort -u | xargs)
    lp_end $tag
    for i in 1 2; do
        pid=$(jq -rs --argjson n "$i" '[.[] | select(.type == "target"
                                            and .event == "attached")]
                                       | .[$n - 1].pid // empty' "$KD_OUT")
        LP_REC=$(jq -c --argjson p "${pid:-0}" \
                     'select(.type == "long_poll" and .pid == $p)
                      | select(.name == "revalidator2")' "$KD_OUT" |
                 head -n 1)
        n=$(lr '.profile.samples // 0')
        spin=$(jq -r --arg re "$UW_SPIN" "$UW_JQ"'
            [.on_cpu_stacks[]? | select(.frames | whole
                                        and (chain | test($re)))
             | .samples] | add // 0' <<<"${LP_REC:-null}")
        if is_uint "$n" && ((n >= 50)) && ((spin * 100 >= n * 95)); then
            pass "$tag: process $i ($pid): the spin whole in $spin of\
 $n samples"
        else
            fail "$tag: process $i ($pid): the spin whole" \
                 ">= 95% of >= 50 samples" "$spin of ${n:-none}"
        fi
    done
}
