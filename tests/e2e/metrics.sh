# shellcheck shell=bash
# shellcheck disable=SC2015  # "test && test || fail" is meant everywhere.
# --metrics: the endpoint scraped by a real Prometheus (Debian's
# prometheus package) while the workload makes long poll intervals of
# known causes, compared with the tool's JSON records of the same run
# (metrics_prometheus); and the watch against hostile clients of the
# endpoint (metrics_hostile).  Sourced by tests/e2e.sh.

# The intervals: revalidator2's, over 200 ms; the 1 ms ones of the jobs
# are not.
MX_THRESHOLD=$((200 * MS))

# mx_start TAG ARGS...: starts the tool with --metrics on a free port of
# loopback, --json and ARGS; waits until it captures.  MX_URL is its
# endpoint.  Fails and returns 1 if it does not start.
mx_start() {
    local tag=$1

    shift
    kd_start "$tag" -p "${WL_PID[main]}" --long-poll-events "$MX_THRESHOLD" \
        --json --metrics 127.0.0.1:0 --node-name e2e-node "$@"
    if ! kd_wait_capture 1 30 ||
       ! poll_until "$KD_PID" 5 0.02 grep -q '^kernel_delay: metrics at ' \
            "$KD_ERR"; then
        wait_exit "$KD_PID" 5
        fail "$tag: kernel_delay starts capturing, with its endpoint (exit\
 $WAIT_RC: $(head -c 300 "$KD_ERR" | tr '\n' ' '))"
        return 1
    fi
    MX_URL=$(sed -n 's/^kernel_delay: metrics at //p' "$KD_ERR")
    KD_PROG_IDS=$(pid_prog_ids "$KD_PID")
}

# MX_LONG: jq's filter of revalidator2's intervals (TID $t) over the
# threshold ($thr).  MX_JOB: those of its jobs, all but its waits for the
# next job, blocked in the read of its command.  On the host those last
# less than the threshold; in the lane's emulated guests (make
# check-kernels) the script's steps between two jobs take longer, and
# each such wait is reported too, mostly blocked in syscalls, which is
# what it is.
# shellcheck disable=SC2016  # $t and $thr are jq's.
MX_LONG='select(.type == "long_poll" and .tid == $t and .gap_ns > $thr)'
MX_JOB="$MX_LONG | select(.dominant != \"blocked_in_syscalls\")"

# mx_jq ARGS...: jq -s ARGS on the tool's JSON so far (its complete
# lines), with $t revalidator2's TID and $thr the threshold.
mx_jq() {
    kd_json_complete |
        jq -s --argjson t "${WL_TID[main:revalidator2]}" \
            --argjson thr "$MX_THRESHOLD" "$@"
}

# mx_count: how many intervals of revalidator2's jobs the JSON has.
mx_count() {
    mx_jq "map($MX_JOB) | length" 2>/dev/null
}

# mx_reported N: the JSON has N intervals of revalidator2's jobs, or
# more.
mx_reported() {
    local n

    n=$(mx_count)
    ((${n:-0} >= $1))
}

# mx_jobs TAG: the three intervals of revalidator2, of known causes: a wait
# in the run queue behind pmd4, which holds its CPU under SCHED_FIFO (the
# CPU hog); a spin and reads of /dev/zero on CPU, under SCHED_FIFO; a stop
# of the process, held 600 ms here.  Each must be reported (its record in
# the JSON, beyond those of earlier calls) within 5 s of its end, and the
# three be all the new ones, in that order and of those causes, but for
# revalidator2's waits for its next job (MX_JOB), each of which must be
# mostly blocked in syscalls.
mx_jobs() {
    local tag=$1 rv=${WL_TID[main:revalidator2]} pid=${WL_PID[main]} n base
    local all

    all=$(mx_jq "map($MX_LONG) | length")
    base=$(mx_count)
    base=${base:-0}
    wl_cmd main "longpoll 10 10 400 0" ||
        fail "$tag: the run-queue job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 5 0.05 mx_reported $((base + 1)) ||
        fail "$tag: the run-queue interval reported within 5 s"
    wl_cmd main "usersys 300 100" ||
        fail "$tag: the on-CPU job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 5 0.05 mx_reported $((base + 2)) ||
        fail "$tag: the on-CPU interval reported within 5 s"
    wl_send main "longpoll-stop 10 10 10 0"
    if poll_until "" 30 0.001 eval '[[ $(thread_state "$pid" "$rv") == T ]]'
    then
        nap 0.6
    else
        fail "$tag: revalidator2 stops itself"
    fi
    kill -CONT "$pid"
    wl_reply main 30 || fail "$tag: the stop job" "done" "$WL_REPLY_LINE"
    poll_until "$KD_PID" 5 0.05 mx_reported $((base + 3)) ||
        fail "$tag: the stopped interval reported within 5 s"
    # Every new interval over the threshold: the jobs' by their causes,
    # a wait for the next job as "wait".
    n=$(mx_jq --argjson all "${all:-0}" "map($MX_LONG) | .[\$all:]
            | map(if .dominant == \"blocked_in_syscalls\" then \"wait\"
                  else .dominant end)")
    check_eq "$tag: revalidator2's three intervals, by cause (JSON)" \
             "run_queue on_cpu stopped" \
             "$(jq -r 'map(select(. != "wait")) | join(" ")' <<<"$n")"
    note "$tag: revalidator2's new intervals: $(jq -r 'join(" ")' <<<"$n")"
}

# The thread class of a JSON record, as the metrics tell it.
MX_CLASS='def class: if .tid == .pid or .name == "ovs-vswitchd" then "main"
    elif (.name | startswith("handler")) then "handler"
    elif (.name | startswith("revalidator")) then "revalidator"
    elif (.name | startswith("urcu")) then "urcu"
    elif (.name | startswith("pmd")) then "pmd" else "other" end;
  def records: map(select(.type == "long_poll"));'

# prom_start TAG TARGET: Prometheus on a free port of loopback, scraping
# TARGET ("127.0.0.1:PORT") every second, its data in the run's work
# directory; PROM_URL is its address.  Fails and returns 1 if it is not
# ready within 30 s.
prom_start() {
    local tag=$1 dir=$WORKDIR/prometheus port

    rm -rf "$dir"
    mkdir -p "$dir"
    cat >"$dir/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: kernel-delay
    static_configs:
      - targets: ["$2"]
EOF
    for _ in 1 2 3 4 5; do
        port=$((20000 + RANDOM % 20000))
        # Taken: something answers there.
        (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue
        prometheus --config.file="$dir/prometheus.yml" \
            --storage.tsdb.path="$dir/data" \
            --web.listen-address="127.0.0.1:$port" \
            --log.level=warn >"$dir/log" 2>&1 &
        PROM_PID=$!
        track_pid "$PROM_PID"
        PROM_URL=http://127.0.0.1:$port
        if poll_until "$PROM_PID" 30 0.1 \
                curl -sf -o /dev/null "$PROM_URL/-/ready"; then
            return 0
        fi
        kill "$PROM_PID" 2>/dev/null
        wait "$PROM_PID" 2>/dev/null
    done
    fail "$tag: Prometheus starts: $(tail -c 400 "$dir/log" | tr '\n' ' ')"
    return 1
}

prom_stop() {
    kill -TERM "$PROM_PID" 2>/dev/null
    wait "$PROM_PID" 2>/dev/null
}

# prom_query QUERY: the vector of QUERY now, as {"LABELS": VALUE} (the
# labels named by the jq expression PROM_KEY, default the class; "" for a
# series without them, as a sum's), from Prometheus' HTTP API.
prom_query() {
    curl -sf -G --data-urlencode "query=$1" "$PROM_URL/api/v1/query" |
        jq -c "[.data.result[] | {key: ((.metric | ${PROM_KEY:-.class})
                                        // \"\" | tostring),
                                  value: (.value[1] | tonumber)}]
               | from_entries"
}

# mx_scraped: Prometheus has scraped as many intervals as the JSON has
# records.
mx_scraped() {
    local n

    n=$(kd_json_complete | jq -s 'map(select(.type == "long_poll")) | length')
    [[ $(prom_query 'sum(kernel_delay_long_poll_interval_seconds_count)' |
         jq -r '.[]? // empty') == "$n" ]]
}

# A real Prometheus scrapes the tool every second while revalidator2 makes
# three long intervals (run queue behind a CPU hog, on CPU, stopped);
# Prometheus' HTTP API must then count each interval under its class and
# cause, the histogram's count, buckets and the time of each part exactly
# as the JSON records of the same run say, and who ran instead too.
scenario_metrics_prometheus() {
    local tag=metrics_prometheus om text got want target

    if ! command -v prometheus >/dev/null; then
        fail "$tag: prometheus is not installed (tools/install-deps.sh test)"
        return
    fi
    mx_start $tag || return
    target=${MX_URL#http://}
    prom_start $tag "${target%%/*}" || { lp_end $tag; return; }
    poll_until "$KD_PID" 30 0.2 eval \
        '[[ $(prom_query "up{job=\"kernel-delay\"}" | jq -r ".[]?") == 1 ]]' ||
        fail "$tag: Prometheus scrapes the endpoint (up == 1)"

    mx_jobs $tag
    poll_until "$KD_PID" 30 0.2 mx_scraped ||
        fail "$tag: Prometheus has every interval within 30 s"

    # What the tool serves, in both formats, while it watches.
    text=$(curl -sf "$MX_URL")
    om=$(curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
              "$MX_URL")
    if got=$(promtool check metrics <<<"$text" 2>&1); then
        pass "$tag: promtool check metrics: clean"
    else
        fail "$tag: promtool check metrics: $(head -c 600 <<<"$got")"
    fi
    check_eq "$tag: OpenMetrics on request, ended by # EOF" "# EOF" \
             "$(tail -n 1 <<<"$om")"

    # Each interval under its class and cause, the histogram's count and
    # buckets, and the parts' time, as the JSON says (its records are all
    # there: the tool still runs, nothing happens).
    want=$(jq -cs "$MX_CLASS"' records | group_by(class)
             | map({key: (.[0] | class), value: length}) | from_entries' \
             < <(kd_json_complete))
    got=$(prom_query 'kernel_delay_long_poll_interval_seconds_count > 0')
    check_eq "$tag: intervals by class: Prometheus = the JSON records" \
             "$(jq -S -c . <<<"$want")" "$(jq -S -c . <<<"$got")"
    want=$(jq -cs "$MX_CLASS"' records
             | group_by([class, .dominant])
             | map({key: "\(.[0] | class)/\(.[0].dominant)",
                    value: length}) | from_entries' \
             < <(kd_json_complete))
    got=$(PROM_KEY='"\(.class)/\(.dominant)"' \
          prom_query 'kernel_delay_long_poll_intervals_total > 0')
    check_eq "$tag: intervals by class and dominant part" \
             "$(jq -S -c . <<<"$want")" "$(jq -S -c . <<<"$got")"
    got=$(PROM_KEY='"\(.class)/\(.dominant)"' prom_query \
          'kernel_delay_long_poll_intervals_total{class="revalidator"}' |
          jq -r '"\(."revalidator/run_queue") \(."revalidator/on_cpu")
                 \(."revalidator/stopped")"' | xargs)
    check_eq "$tag: revalidator2's run queue, on CPU and stopped, counted" \
             "1 1 1" "$got"
    want=$(jq -cs "$MX_CLASS"' records as $r
             | [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                2.5, 5, 10, 30, 60] as $le
             | [$r[] | class] | unique
             | map(. as $c | $le[] as $l
                   | {key: "\($c)/\($l)",
                      value: [$r[] | select(class == $c
                                            and .gap_ns <= $l * 1e9)]
                             | length})
             | from_entries' < <(kd_json_complete))
    got=$(PROM_KEY='"\(.class)/\(.le)"' prom_query \
          'kernel_delay_long_poll_interval_seconds_bucket{le!="+Inf"}
           and on (class) kernel_delay_long_poll_interval_seconds_count > 0')
    check_eq "$tag: the histogram's buckets" "$(jq -S -c . <<<"$want")" \
             "$(jq -S -c . <<<"$got")"
    # The time of each part: as the JSON's sums, to the microsecond
    # (Prometheus keeps floats).
    want=$(jq -cs "$MX_CLASS"' records as $r
             | ["on_cpu", "run_queue", "stopped", "hardirq", "softirq",
                "blocked_in_syscalls", "blocked_outside_syscalls",
                "unaccounted"] as $parts
             | [$r[] | class] | unique
             | map(. as $c | $parts[] as $p
                   | {key: "\($c)/\($p)",
                      value: ([$r[] | select(class == $c)
                               | .["\($p)_ns"] | if . < 0 then 0 else . end]
                              | add / 1e9)})
             | from_entries' < <(kd_json_complete))
    got=$(PROM_KEY='"\(.class)/\(.part)"' prom_query \
          'kernel_delay_long_poll_part_seconds_total
           and on (class) kernel_delay_long_poll_interval_seconds_count > 0')
    check_eq "$tag: the time of each part (to 1 us)" "" \
             "$(jq -rn --argjson w "$want" --argjson g "$got" '
                 [($w | keys[]) as $k
                  | select((($w[$k] - ($g[$k] // -1)) | fabs) > 1e-6)
                  | "\($k): JSON \($w[$k]), Prometheus \($g[$k])"]
                 | join(", ")')"
    # Who ran instead: all of it, the hog first.
    want=$(jq -s "$MX_CLASS"' records | map(.run_queue_ns) | add / 1e9' \
              < <(kd_json_complete))
    got=$(prom_query 'sum(kernel_delay_ran_instead_seconds_total)' |
          jq -r '.[]')
    check_eq "$tag: who ran instead adds up to the run-queue time (1 us)" \
             ok "$(jq -rn --argjson w "$want" --argjson g "${got:-0}" \
                    'if ($w - $g | fabs) <= 1e-6 then "ok"
                     else "JSON \($w), Prometheus \($g)" end')"
    want=$(jq -s "$MX_CLASS"' records | [.[].ran_instead[]
                 | select(.name == "pmd4") | .ns] | add / 1e9' \
              < <(kd_json_complete))
    got=$(PROM_KEY=.task prom_query \
          'topk(1, kernel_delay_ran_instead_seconds_total)')
    check_eq "$tag: pmd4 ran longest instead, as long as the JSON says" \
             "pmd4 ok" "$(jq -r --argjson w "$want" 'to_entries[0]
                 | "\(.key) \(if (.value - $w | fabs) <= 1e-6 then "ok"
                             else "\(.value), JSON \($w)" end)"' <<<"$got")"
    check_eq "$tag: the node, as in the JSON records" "e2e-node" \
             "$(PROM_KEY=.node prom_query kernel_delay_info | jq -r 'keys[]')"
    check_eq "$tag: attached, no re-attach" "1 0" \
             "$(prom_query 'kernel_delay_target_attached' | jq -r '.[]')\
 $(prom_query 'kernel_delay_target_reattaches_total' | jq -r '.[]')"
    got=$(prom_query 'process_resident_memory_bytes' | jq -r '.[]')
    check_range "$tag: its own memory (RSS), 1 to 1024 MiB" $((1 << 20)) \
                $((1 << 30)) "${got:-0}"

    prom_stop
    lp_end $tag
    lp_check_records $tag
}

# The watch beside hostile clients of its endpoint
# (tests/hostile_client: connections held open, more than the server
# keeps; garbage; huge headers; a slow request; a client that never
# reads its answers; all of them again and again): every interval of
# revalidator2 is still reported, within 5 s of its end; the endpoint
# still answers a good client; the tool's descriptors stay bounded.
scenario_metrics_hostile() {
    local tag=metrics_hostile hostile fds text i port

    if [[ ! -x $HERE/hostile_client ]]; then
        fail "$tag: tests/hostile_client is not built (make workload)"
        return
    fi
    mx_start $tag || return
    port=${MX_URL#http://127.0.0.1:}
    port=${port%%/*}
    hostile=$WORKDIR/hostile.out
    "$HERE/hostile_client" 127.0.0.1 "$port" 20 >"$hostile" 2>&1 &
    local hpid=$!
    track_pid "$hpid"
    nap 1
    for i in 1 2; do
        mx_jobs "$tag (round $i)"
    done
    fds=$(awk '/^process_open_fds/ { print $2 }' <<<"$(curl -sf -m 5 \
            "$MX_URL")")
    wait_exit "$hpid" 30
    check_eq "$tag: the hostile client ran to its end" 0 "$WAIT_RC"
    note "$tag: $(tail -n 1 "$hostile")"
    # At most 16 connections and the listening socket beside the tool's
    # own descriptors (about 40 with the eBPF maps and programs).
    check_range "$tag: its open descriptors while attacked" 1 200 \
                "${fds:-0}"

    # A good client is answered, and the server says what it refused.
    text=$(curl -sf -m 5 "$MX_URL")
    check_eq "$tag: answered after the attack, its histogram counting\
 every interval" \
             "$(jq -s 'map(select(.type == "long_poll")) | length' \
                  < <(kd_json_complete))" \
             "$(awk '/^kernel_delay_long_poll_interval_seconds_count/ {
                         n += $2 } END { print n + 0 }' <<<"$text")"
    check_eq "$tag: garbage answered 400, connections evicted" "yes yes" \
             "$(awk '/^kernel_delay_http_responses_total\{code="400"\}/ {
                         a = $2 > 0 ? "yes" : "no" }
                     /reason="evicted"/ { b = $2 > 0 ? "yes" : "no" }
                     END { print a, b }' <<<"$text")"
    check_eq "$tag: headers too large answered 431" yes \
             "$(awk '/^kernel_delay_http_responses_total\{code="431"\}/ {
                         print ($2 > 0 ? "yes" : "no") }' <<<"$text")"
    lp_end $tag
    lp_check_records $tag
}
