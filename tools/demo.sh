#!/bin/bash
# The demo behind "make demo": starts the bundled workload (tests/workload,
# a process with OVS-like thread names), runs kernel_delay against it for
# one sample, and, during that sample, has the workload's threads make
# syscalls, poll, wait in the run queue behind a CPU hog, send loopback
# traffic (soft IRQs), get hit by disk interrupts (hard IRQs), get stopped
# and continued, and start a thread that exits.  Every section of the
# report shows up.
set -eu
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
    echo "demo: run as root (kernel_delay attaches eBPF programs)" >&2
    exit 1
fi

dir=$(mktemp -d)
wl_pid=""
kd_pid=""
cleanup() {
    [ -n "$kd_pid" ] && kill "$kd_pid" 2>/dev/null
    if [ -n "$wl_pid" ]; then
        kill -CONT "$wl_pid" 2>/dev/null
        kill "$wl_pid" 2>/dev/null
        wait "$wl_pid" 2>/dev/null
    fi
    rm -rf "$dir"
}
trap cleanup EXIT

mkfifo "$dir/ctl" "$dir/reply"
tests/workload --ctl "$dir/ctl" --reply "$dir/reply" --io-dir /var/tmp \
    --die-with-parent > "$dir/threads" &
wl_pid=$!
for _ in $(seq 100); do
    grep -q '^ready$' "$dir/threads" 2>/dev/null && break
    sleep 0.05
done
exec 3<>"$dir/ctl" 4<>"$dir/reply"

# The CPU that takes the block device's interrupts, for the hard IRQ demo.
irq_cpu=$(awk 'NR == 1 { ncpu = NF; next }
               /virtio[0-9]+-req|nvme|ahci/ {
                   best = 2
                   for (i = 3; i <= ncpu + 1; i++) {
                       if ($i + 0 > $best + 0) { best = i }
                   }
                   print best - 2
                   exit
               }' /proc/interrupts)
irq_cpu=${irq_cpu:-0}
other_cpu=$(( (irq_cpu + 1) % $(nproc) ))

cmd() {
    echo "$*" >&3
    read -r -u 4 answer
    echo "demo: workload: $* -> $answer" >&2
}

echo "demo: running ./kernel_delay -p $wl_pid --sample-time 3" >&2
./kernel_delay -p "$wl_pid" --sample-time 3 > "$dir/report" &
kd_pid=$!
for _ in $(seq 200); do
    grep -q '^# Start sampling' "$dir/report" 2>/dev/null && break
    sleep 0.05
done

cmd syscalls 1000 10
cmd poll 20 5
cmd contend 300 "$other_cpu"
cmd udp 200
cmd irqspin 400 "$irq_cpu"
cmd spawn-exit revalidator99
kill -STOP "$wl_pid"
sleep 0.2
kill -CONT "$wl_pid"

wait "$kd_pid"
kd_pid=""
cat "$dir/report"
cmd quit
wait "$wl_pid" 2>/dev/null || true
wl_pid=""
