#!/bin/bash
# The container image against the host (make check-image; not part of make
# check: it needs podman and the image).  Runs the image as docs/fleet.md
# says, against a real ovs-vswitchd of the host (a private one, started
# here, netdev datapath), and checks on its standard output a real long
# poll interval (ovs-vswitchd stopped for a known time), a "target" record
# when ovs-vswitchd restarts, and the same interval from the new process;
# once privileged (--privileged), once with the capabilities of
# deploy/kubernetes/ only; then with BPF and PERFMON only (enough on this
# kernel), and without each of them (refused, with a clear error, no
# probe left behind).  Measures the watcher's CPU time and peak memory
# and the image's size.  Then validates deploy/kubernetes/ against the
# Kubernetes schemas, offline (tests/validate-k8s.mjs; the npm packages
# kubernetes-models and js-yaml, installed once into a cache).
#
# Usage: tests/test-image.sh IMAGE      (root; loads eBPF: heavy)
# Prints PASS/FAIL lines, then exactly one "N passed, N failed" line.

set -u
export LC_ALL=C
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
IMAGE=${1:?usage: tests/test-image.sh IMAGE}
PODMAN=${PODMAN:-podman}
PODMAN_LIMITS=${PODMAN_LIMITS:-}
K8S_CACHE=${KD_K8S_CACHE:-/var/cache/kernel_delay/k8s-validate}
MS=1000000
WORK=$(mktemp -d /tmp/kd-test-image.XXXXXX)
OVS_PID='' DB_PID='' RUN_PID=''

# shellcheck source=tests/testlib.sh
. "$HERE/testlib.sh"
note() { printf '# %s\n' "$*"; }
check_eq() {
    if [[ $3 == "$2" ]]; then pass "$1 ($3)"; else
        fail "$1: expected '$2', got '$3'"; fi
}
now_ns() { date +%s%N; }

cleanup() {
    [[ -n $RUN_PID ]] && kill -INT "$RUN_PID" 2>/dev/null
    $PODMAN rm -f kd-check-image >/dev/null 2>&1
    for pid in $OVS_PID $DB_PID; do
        kill -CONT "$pid" 2>/dev/null
        kill -TERM "$pid" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

# A private OVS: ovsdb-server and ovs-vswitchd of this script.
ovs_vswitchd() {
    ovs-vswitchd "unix:$WORK/db.sock" -vconsole:off \
        --log-file="$WORK/ovs-vswitchd.log" >/dev/null 2>&1 &
    OVS_PID=$!
}
ovs_start() {
    export OVS_RUNDIR=$WORK OVS_LOGDIR=$WORK OVS_DBDIR=$WORK \
           OVS_SYSCONFDIR=$WORK
    ovsdb-tool create "$WORK/conf.db" \
        /usr/share/openvswitch/vswitch.ovsschema >/dev/null || return 1
    ovsdb-server --remote="punix:$WORK/db.sock" -vconsole:off \
        --log-file="$WORK/ovsdb-server.log" "$WORK/conf.db" \
        >/dev/null 2>&1 &
    DB_PID=$!
    for _ in $(seq 300); do
        [[ -S $WORK/db.sock ]] && break
        sleep 0.1
    done
    ovs-vsctl --db="unix:$WORK/db.sock" --timeout=30 --no-wait init
    ovs_vswitchd
    # A bridge (netdev datapath, as in the e2e suite): without one, the
    # main thread can wait in poll() for good, and a poll() that SIGSTOP
    # interrupts continues as restart_syscall() after SIGCONT, so the
    # interval that holds the stop would end only at its next poll().
    modprobe tun 2>/dev/null
    ovs-vsctl --db="unix:$WORK/db.sock" --timeout=30 \
        add-br kdimg0 -- set bridge kdimg0 datapath_type=netdev
}

# until_record OUT JQ_FILTER SECONDS: waits for a record that JQ_FILTER
# (a select()) keeps.  Not "jq -e JQ_FILTER": jq 1.6 exits 0 for an empty
# file, and the test went on before the image had written anything.
until_record() {
    local end=$(($(now_ns) + $3 * 1000 * MS))

    until jq -n -e "any(inputs | $2; true)" "$1" >/dev/null 2>&1; do
        (($(now_ns) > end)) && return 1
        sleep 0.1
    done
}

# hold OUT PID: stops ovs-vswitchd PID for 1 s at a time until the image
# reports its main thread's interval (the first stop may come before the
# capture is on); checks the interval against the stop seen from here.
hold() {
    local out=$1 pid=$2 t0 t1 rec
    for _ in 1 2 3 4 5; do
        t0=$(now_ns)
        kill -STOP "$pid"
        sleep 1
        t1=$(now_ns)
        kill -CONT "$pid"
        if until_record "$out" "select(.type == \"long_poll\"
                                       and .tid == $pid)" 10; then
            break
        fi
    done
    rec=$(jq -c "select(.type == \"long_poll\" and .tid == $pid)" "$out" |
          tail -n 1)
    check_eq "$TAG: a long poll record of ovs-vswitchd $pid, its node" \
             "$pid ovs-vswitchd check-node stopped" \
             "$(jq -r '"\(.tid) \(.name) \(.node) \(.dominant)"' \
                <<<"${rec:-null}")"
    # Stopped for the 1 s held here, at most the whole stop.
    local s
    s=$(jq -r '.stopped_ns // 0' <<<"${rec:-null}")
    if ((s >= 900 * MS && s <= t1 - t0 + 1000 * MS)); then
        pass "$TAG: stopped_ns $s within the stop held ($((t1 - t0)) ns)"
    else
        fail "$TAG: stopped_ns $s not within the stop ($((t1 - t0)) ns)"
    fi
}

# image_run OUT ERR FLAGS...: the image, with podman's FLAGS, watches
# long poll intervals of ovs-vswitchd in the host's PID namespace,
# writing to OUT and ERR; stopped after IMAGE_TIMEOUT seconds if set
# (exit status 124).  It execs podman: run it in the background (its
# PID is podman's, for SIGINT) or in a subshell.
image_run() {
    local out=$1 err=$2 limit=()

    shift 2
    [[ -n ${IMAGE_TIMEOUT:-} ]] && limit=(timeout "$IMAGE_TIMEOUT")
    # shellcheck disable=SC2086  # PODMAN and PODMAN_LIMITS are words.
    exec "${limit[@]}" $PODMAN run --rm --name kd-check-image --network=none \
        --pid=host $PODMAN_LIMITS -e KD_NODE_NAME=check-node "$@" "$IMAGE" \
        --long-poll-events $((500 * MS)) --json --wait-target \
        >"$out" 2>"$err"
}

# watch TAG FLAGS...: the image, with FLAGS, watches the private OVS,
# which restarts mid-watch.
watch() {
    local out=$WORK/$1.out err=$WORK/$1.err pid1 pid2 kdpid cpu0 cpu1 t0 t1
    TAG=$1
    shift
    image_run "$out" "$err" "$@" &
    RUN_PID=$!
    pid1=$OVS_PID
    if ! until_record "$out" "select(.type == \"target\"
                                     and .event == \"attached\"
                                     and .pid == $pid1)" 120; then
        fail "$TAG: attached to ovs-vswitchd $pid1:\
 $(head -c 400 "$err" | tr '\n' ' ')"
        kill -INT "$RUN_PID"; wait "$RUN_PID"; RUN_PID=
        return
    fi
    pass "$TAG: attached to ovs-vswitchd $pid1"
    kdpid=$($PODMAN inspect --format '{{.State.Pid}}' kd-check-image)
    hold "$out" "$pid1"

    # The restart: a "lost" record, then "attached" to the new one.
    kill -TERM "$pid1"
    wait "$pid1" 2>/dev/null
    until_record "$out" "select(.type == \"target\" and .event == \"lost\"
                                and .pid == $pid1)" 30 &&
        pass "$TAG: lost ovs-vswitchd $pid1" ||
        fail "$TAG: lost ovs-vswitchd $pid1"
    ovs_vswitchd
    pid2=$OVS_PID
    until_record "$out" "select(.type == \"target\"
                                and .event == \"attached\"
                                and .pid == $pid2)" 120 &&
        pass "$TAG: attached again, to ovs-vswitchd $pid2" ||
        fail "$TAG: attached again, to ovs-vswitchd $pid2"
    hold "$out" "$pid2"

    # Watching, idle: CPU time over 10 s, peak memory.
    if [[ -n $kdpid && -r /proc/$kdpid/stat ]]; then
        cpu0=$(awk '{ print $14 + $15 }' "/proc/$kdpid/stat")
        t0=$(now_ns)
        sleep 10
        cpu1=$(awk '{ print $14 + $15 }' "/proc/$kdpid/stat")
        t1=$(now_ns)
        note "$TAG: watcher CPU $(awk -v c=$((cpu1 - cpu0)) \
                 -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" \
                 'BEGIN { printf "%.2f%%", c / hz * 1e9 / t * 100 }')" \
             "of a CPU while watching for $(((t1 - t0) / MS)) ms," \
             "peak memory (VmHWM)" \
             "$(awk '/VmHWM/ { print $2, $3 }' "/proc/$kdpid/status")," \
             "now (VmRSS)" \
             "$(awk '/VmRSS/ { print $2, $3 }' "/proc/$kdpid/status")"
    fi
    kill -INT "$RUN_PID"
    wait "$RUN_PID"
    check_eq "$TAG: exit status after SIGINT" 0 "$?"
    RUN_PID=
    check_eq "$TAG: \"node\" in every record" "" \
             "$(jq -r 'select(.node != "check-node") | .type' "$out" |
                xargs)"
    note "$TAG: stderr: $(head -c 300 "$err" | tr '\n' ' ')"
}

# The mounts and security options of deploy/kubernetes/, for the runs
# with some capabilities only.
CONFINED=(--security-opt seccomp=unconfined --security-opt apparmor=unconfined
          -v /sys/kernel/tracing:/sys/kernel/tracing
          -v /sys/kernel/debug:/sys/kernel/debug
          -v /sys/kernel/btf:/sys/kernel/btf:ro)

# How many bcc kprobes and uprobes tracefs holds: a run that fails must
# leave none behind.
kernel_leftovers() {
    local t=/sys/kernel/tracing

    cat "$t/kprobe_events" "$t/uprobe_events" 2>/dev/null |
        grep -c '_bcc_'
}

# least CAPS: the image with capabilities CAPS only watches the private
# OVS: attached, a real long poll interval, exit status 0 on SIGINT.
least() {
    local out=$WORK/least.out err=$WORK/least.err
    TAG="only $1"
    image_run "$out" "$err" --cap-drop=ALL --cap-add="$1" "${CONFINED[@]}" &
    RUN_PID=$!
    if until_record "$out" "select(.type == \"target\"
                                   and .event == \"attached\"
                                   and .pid == $OVS_PID)" 120; then
        pass "$TAG: attached to ovs-vswitchd $OVS_PID"
        hold "$out" "$OVS_PID"
    else
        fail "$TAG: attached to ovs-vswitchd $OVS_PID:\
 $(head -c 400 "$err" | tr '\n' ' ')"
    fi
    kill -INT "$RUN_PID"
    wait "$RUN_PID"
    check_eq "$TAG: exit status after SIGINT" 0 "$?"
    RUN_PID=
}

# refused CAPS WHY: without one capability of the least set, the image
# exits by itself with a clear error (WHY, an extended regular
# expression, on its standard error) and leaves no probe in the kernel.
refused() {
    local out=$WORK/refused.out err=$WORK/refused.err rc left0 left1
    TAG="only $1"
    left0=$(kernel_leftovers)
    (IMAGE_TIMEOUT=180 image_run "$out" "$err" --cap-drop=ALL \
        --cap-add="$1" "${CONFINED[@]}")
    rc=$?
    $PODMAN rm -f kd-check-image >/dev/null 2>&1
    if ((rc != 0 && rc != 124)) && grep -Eq "$2" "$err"; then
        pass "$TAG: refused, exit status $rc:\
 $(grep -Em1 "$2" "$err" | head -c 200)"
    else
        fail "$TAG: expected an error matching '$2' and a non-zero exit\
 status, got $rc: $(head -c 400 "$err" | tr '\n' ' ')"
    fi
    check_eq "$TAG: no record of an attach" "" \
             "$(jq -r 'select(.event == "attached") | .pid' "$out" |
                xargs)"
    left1=$(kernel_leftovers)
    check_eq "$TAG: bcc probes left in tracefs" "$left0" "$left1"
}

validate() {
    local mods=$K8S_CACHE/node_modules bad=$WORK/bad.yaml

    if [[ ! -d $mods/kubernetes-models || ! -d $mods/js-yaml
          || ! -d $mods/@kubernetes-models/prometheus-operator ]]; then
        mkdir -p "$K8S_CACHE"
        (cd "$K8S_CACHE" && npm install --no-audit --no-fund \
            kubernetes-models@5.1.0 js-yaml@4 \
            @kubernetes-models/prometheus-operator@6.0.0 >/dev/null 2>&1) ||
            { fail "npm install kubernetes-models js-yaml \
@kubernetes-models/prometheus-operator"; return; }
    fi
    for f in "$TOP"/deploy/kubernetes/*.yaml; do
        if node "$HERE/validate-k8s.mjs" "$mods" "$f" >"$WORK/v.out"; then
            pass "$(tr '\n' ' ' <"$WORK/v.out")"
        else
            fail "$(tr '\n' ' ' <"$WORK/v.out")"
        fi
    done
    # The validator can fail: a wrong type, a bad quantity.
    sed 's/hostPID: true/hostPID: "yes"/; s/memory: 512Mi/memory: [512Mi]/' \
        "$TOP/deploy/kubernetes/daemonset.yaml" >"$bad"
    if node "$HERE/validate-k8s.mjs" "$mods" "$bad" >"$WORK/v.out"; then
        fail "a broken DaemonSet is rejected: $(cat "$WORK/v.out")"
    else
        pass "a broken DaemonSet is rejected\
 ($(grep -o 'hostPID must be boolean' "$WORK/v.out"))"
    fi
    # And a broken PodMonitor: the CRDs' schemas hold too.
    sed 's/interval: 30s/interval: [30s]/' \
        "$TOP/deploy/kubernetes/podmonitor.yaml" >"$bad"
    if node "$HERE/validate-k8s.mjs" "$mods" "$bad" >"$WORK/v.out"; then
        fail "a broken PodMonitor is rejected: $(cat "$WORK/v.out")"
    else
        pass "a broken PodMonitor is rejected\
 ($(grep -o 'interval must be string' "$WORK/v.out"))"
    fi
}

main() {
    [[ $(id -u) == 0 ]] || { fail "not root"; return; }
    note "image $IMAGE: $($PODMAN image inspect --format '{{.Size}}' \
        "$IMAGE" | awk '{ printf "%.0f MB", $1 / 1e6 }')"
    validate
    if pgrep -x ovs-vswitchd >/dev/null; then
        fail "an ovs-vswitchd already runs: cannot test a restart here"
        return
    fi
    ovs_start || { fail "a private ovs-vswitchd starts"; return; }
    watch privileged --privileged
    # The least that works (docs/fleet.md): these capabilities, the host's
    # tracefs and BTF as the DaemonSet mounts them.
    watch capabilities --cap-drop=ALL \
        --cap-add=BPF,PERFMON,SYS_ADMIN,SYS_RESOURCE \
        --cap-add=SYS_PTRACE,DAC_READ_SEARCH "${CONFINED[@]}"
    # What each capability is for: on a kernel since 5.8 with BTF and an
    # ovs-vswitchd of root, BPF and PERFMON are enough; without either,
    # the image must refuse with an error that says what was refused.
    least BPF,PERFMON
    refused PERFMON 'could not open bpf map: .*Operation not permitted'
    refused BPF 'Failed to load program: Operation not permitted'
}

main
test_summary
