/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_CAPTURE_H
#define KD_CAPTURE_H 1

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "hook.h"
#include "layout.h"
#include "options.h"
#include "program.h"
#include "sample.h"


/* Sizes of the eBPF maps, for --max-threads N: N threads, 8 syscalls and
 * 2 interrupt handlers per thread on average. */
#define KD_SYSCALLS_PER_THREAD  8
#define KD_IRQS_PER_THREAD      2
#define KD_HISTS_PER_THREAD     32
#define KD_RAN_PER_THREAD       8

/* Frames in a stack of the stack map (the kernel's PERF_MAX_STACK_DEPTH). */
#define KD_STACK_DEPTH          127

/* The capture states (KD_CAPTURE_*), counters (KD_COUNTER_*) and maps that
 * can fill up (KD_MAP_*, KD_N_FULL_MAPS) are those of kd_abi.h. */

/* The eBPF side of a capture: the program, loaded and attached, its maps,
 * and the consumer of its events. */
struct kd_capture {
    struct kd_program prog;
    unsigned int tgid;
    int capture_fd;
    int map_full_fd;
    int counters_fd;
    struct kd_needs needs;      /* From the options; upcalls only if the
                                 * kernel can trace them. */
    bool with_events;           /* The ring buffer is open. */
    char *upcall_module;        /* Module of ovs_dp_upcall(), or NULL. */
    bool upcall_module_gone;    /* It was unloaded: the kretprobe is dead. */
    struct kd_events events;

    /* Per loaded function (prog.funcs): the kernel's count of the times
     * it skipped the function because a BPF program was already running
     * on that CPU (bpf_prog_info.recursion_misses), as of the last sample,
     * and the increase during that sample. */
    uint64_t *misses_seen;
    uint64_t *misses;
    size_t n_misses;

    /* KD_COUNTER_SWITCHES_MISSED as of the last sample. */
    uint64_t switches_missed_seen;
};

/* How many syscall events a CPU sends before it wakes the reader up, for
 * a ring buffer of 'pages' pages: so many that wake-ups are rare, so few
 * that what all CPUs leave pending fills at most a quarter of the buffer. */
size_t kd_capture_wakeup_events(unsigned int pages);

/* Builds the eBPF program's source for 'options', with the parts 'needs'
 * asks for (kd_options_needs(), but upcalls only if the kernel can trace
 * them), for target 'tgid' with kernel layout 'layout', after 'prefix'
 * (code the hooks need, or NULL).  Touches nothing in the kernel.
 * Returns 0 and the text in '*text', or a positive errno and '*error'. */
int kd_capture_source(const struct kd_options *, const struct kd_needs *,
                      unsigned int tgid, const struct kd_layout *,
                      const char *prefix, char **text, char **error);

/* Compiles, loads and attaches the program for 'options' and 'tgid', with
 * the triggers' 'hooks' (NULL where there is none), prepared already.
 * Returns 0 or a positive errno with a message in '*error'.  Call
 * kd_capture_close() in any case. */
int kd_capture_open(struct kd_capture *, const struct kd_options *,
                    unsigned int tgid, struct kd_hook *start_hook,
                    struct kd_hook *stop_hook, char **error);

/* The hook of loaded function 'i' of the capture's program, for messages:
 * "sched_switch" for raw tracepoint sched_switch, else the function's
 * name. */
const char *kd_capture_func_hook(const struct kd_capture *, size_t i);

/* Sets the capture state (KD_CAPTURE_*). */
int kd_capture_set(struct kd_capture *, uint64_t state);

/* Gets the capture state (KD_CAPTURE_*). */
int kd_capture_get(struct kd_capture *, uint64_t *state);

/* Totals of the program's counters since it started. */
int kd_capture_counters(struct kd_capture *,
                        uint64_t counters[KD_N_COUNTERS]);

/* Reads the statistics of the sample that just ended into 'sample' and
 * empties the maps for the next one.  '*lost' receives, per map, how many
 * entries could not be created because it was full. */
int kd_capture_collect(struct kd_capture *, struct kd_sample *,
                       uint64_t lost[KD_N_FULL_MAPS], char **error);

/* Reads, and resets, the count of entries each map could not create into
 * '*lost', and updates the recursion misses ('misses').  Returns 0 or a
 * positive errno with a message in '*error'. */
int kd_capture_read_warnings(struct kd_capture *,
                             uint64_t lost[KD_N_FULL_MAPS], char **error);

/* Reads stack 'id' of the stack map into 'ips' (KD_STACK_DEPTH frames).
 * Returns the number of frames, 0 if there is none. */
size_t kd_capture_stack(struct kd_capture *, int32_t id, uint64_t *ips);

/* Empties the stack map, once the sample's stacks are reported. */
int kd_capture_clear_stacks(struct kd_capture *);

void kd_capture_close(struct kd_capture *);

#endif /* capture.h */
