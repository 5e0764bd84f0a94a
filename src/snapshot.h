/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SNAPSHOT_H
#define KD_SNAPSHOT_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gap.h"
#include "losses.h"
#include "sample.h"
#include "summary.h"

struct kd_capture;

/* One sample, complete: everything its report says, so that the reports
 * (render_text.h, render_json.h) are pure functions of it.  Made in two
 * steps: kd_snapshot_take() reads the kernel's maps, events and stacks;
 * kd_snapshot_resolve() names the threads (from /proc where the sample does
 * not) and the stack frames (symbols). */

/* The sample's window. */
struct kd_window {
    unsigned int index;             /* 1 for the first sample. */

    /* CLOCK_MONOTONIC ns, as bpf_ktime_get_ns(), and the wall clock. */
    uint64_t start_ns, stop_ns;
    struct timespec start_wall, stop_wall;

    /* The triggers' times, 0 when no trigger started or stopped it. */
    uint64_t start_trigger_ns, stop_trigger_ns;
    uint64_t delta_ns;              /* Stop - start, both triggers only. */

    bool skipped;                   /* Delta under --trigger-delta. */
    bool target_exited;             /* During the sample. */
};

/* The window's length, ns. */
static inline uint64_t
kd_window_ns(const struct kd_window *w)
{
    return w->stop_ns - w->start_ns;
}

/* One stack of the stack map: its addresses, then its formatted frames
 * (the tracing machinery's frames on top of a kernel stack left out). */
struct kd_stack {
    bool taken;                 /* Read from the stack map. */
    bool kernel;
    uint32_t end;               /* How its walk ended (enum kd_uw_end):
                                 * cut short, it ends with a frame that
                                 * says so. */
    uint64_t *ips;
    size_t n_ips;
    char **frames;              /* NULL until resolved. */
    size_t n_frames;
};

/* One syscall event, with its thread's name once resolved. */
struct kd_snapshot_event {
    uint32_t tid;
    uint32_t syscall;
    uint64_t entry_ns;
    uint64_t exit_ns;
    int32_t kernel_stack_id;    /* Negative: none. */
    int32_t user_stack_id;
    const char *name;           /* Owned by the snapshot. */
};

struct kd_snapshot {
    unsigned int tgid;
    struct kd_window window;

    /* What the report holds, from the options. */
    bool with_events;           /* --syscall-events. */
    uint64_t events_over_ns;    /* Their threshold, 0 for all. */
    bool with_wall_clock;       /* --wall-clock: their text times. */

    /* CLOCK_REALTIME - CLOCK_MONOTONIC when the sample was read: turns
     * the events' times into wall-clock times (kd_snapshot_wall()). */
    int64_t wall_offset_ns;
    bool with_stacks;           /* ... with stacks. */
    bool with_summary;          /* --summary. */
    bool filtered;              /* --thread or --tid: threads left out. */

    /* The statistics, grouped per thread and filtered once resolved, and
     * the summary's rows (with_summary). */
    struct kd_sample sample;
    struct kd_summary_row *rows;

    /* The syscall events, in time order; once resolved, only those of the
     * threads the filter keeps. */
    struct kd_snapshot_event *events;
    size_t n_events;
    char **names;               /* The events' thread names. */
    size_t n_names;
    struct kd_stack *stacks;    /* The kernel stacks by id, then the user
                                 * stacks (the events hold the indexes). */
    size_t n_stacks;

    /* --profile-hz and --off-cpu: the sample's counts (read, then the maps
     * emptied), the addresses of their stacks by id and, once resolved,
     * per thread of 'sample' (in its order), its on-CPU stacks and where it
     * slept, as a long poll interval has them ('thread_stacks' NULL
     * without either option). */
    unsigned int profile_hz;
    bool off_cpu;
    struct kd_profile_count *counts;
    size_t n_counts;
    struct kd_stack *profile_stacks;    /* The kernel stacks by id, then
                                         * the user stacks by id from
                                         * 'profile_user_base'. */
    size_t n_profile_stacks;
    size_t profile_user_base;
    struct kd_gap *thread_stacks;

    /* What the capture lost during the sample (map entries not reported
     * for a skipped one; stacks counted once resolved, for the events
     * kept), and since it started. */
    struct kd_losses losses;
    struct kd_losses total;
};

/* Monotonic 'ns' of 'snap' as a wall-clock time. */
static inline struct timespec
kd_snapshot_wall(const struct kd_snapshot *snap, uint64_t ns)
{
    int64_t wall = (int64_t) ns + snap->wall_offset_ns;

    return (struct timespec) { .tv_sec = wall / 1000000000,
                               .tv_nsec = wall % 1000000000 };
}

struct kd_thread_filter;

/* Reads the sample that just ended, with 'window', from 'capture' into
 * 'snap' and empties the maps for the next one (the stack map and the
 * events too); the report holds what the capture's options ask for.
 * Returns 0 or a positive errno with a message in '*error'; call
 * kd_snapshot_destroy() in any case. */
int kd_snapshot_take(struct kd_snapshot *snap, struct kd_capture *capture,
                     const struct kd_window *window, char **error);

/* Groups the statistics per thread and names the threads, keeps those
 * 'filter' keeps, computes the summary, and names the events' threads and
 * stack frames.  Nothing to do for a skipped sample. */
void kd_snapshot_resolve(struct kd_snapshot *snap,
                         const struct kd_thread_filter *filter);

void kd_snapshot_destroy(struct kd_snapshot *snap);

#endif /* snapshot.h */
