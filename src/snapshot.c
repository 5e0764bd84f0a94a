/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* One sample: read from the kernel, then its threads and frames named. */

#include "snapshot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "stackmaps.h"
#include "events.h"
#include "stacks.h"
#include "symbols.h"
#include "target.h"
#include "util.h"
#include "waiter.h"

static int
kd_event_cmp(const void *a_, const void *b_)
{
    const struct kd_snapshot_event *a = a_, *b = b_;

    if (a->exit_ns != b->exit_ns) {
        return a->exit_ns < b->exit_ns ? -1 : 1;
    }
    return a->entry_ns < b->entry_ns ? -1 : a->entry_ns > b->entry_ns;
}

/* Reads stack 'id' (of the kernel when 'kernel') once into '*stacks' (of
 * '*n'), from the stack maps of -s or, with 'profile', of --profile-hz and
 * --off-cpu: a kernel stack at index 'id', a user stack at 'user_base' +
 * 'id' (its index in '*index' if not NULL). */
static void
kd_snapshot_read_stack(struct kd_stack **stacks, size_t *n_stacks,
                       struct kd_capture *capture, int32_t id, bool kernel,
                       bool profile, size_t user_base, int32_t *index)
{
    uint64_t ips[KD_STACK_DEPTH];
    struct kd_stack *stack;
    size_t i;

    if (index) {
        *index = -1;
    }
    if (id < 0) {
        return;
    }
    i = (size_t) id + (kernel ? 0 : user_base);
    if (index) {
        *index = i;
    }
    if (i >= *n_stacks) {
        size_t n = *n_stacks * 2 > i ? *n_stacks * 2 : i + 1;

        *stacks = kd_xreallocarray(*stacks, n, sizeof **stacks);
        memset(&(*stacks)[*n_stacks], 0, (n - *n_stacks) * sizeof **stacks);
        *n_stacks = n;
    }
    stack = &(*stacks)[i];
    if (stack->taken) {
        return;
    }
    stack->taken = true;
    stack->kernel = kernel;
    stack->n_ips = kd_stackmaps_stack(capture, profile, id, !kernel, ips,
                                      &stack->end);
    stack->ips = kd_xcalloc(stack->n_ips ? stack->n_ips : 1, sizeof *ips);
    memcpy(stack->ips, ips, stack->n_ips * sizeof *ips);
}

/* --profile-hz, --off-cpu: the sample's counts and their stacks, unless
 * 'skipped'; then the maps emptied for the next sample. */
static int
kd_snapshot_take_profile(struct kd_snapshot *snap,
                         struct kd_capture *capture, bool skipped,
                         char **error)
{
    int err = 0;

    snap->profile_user_base = kd_stackmaps_user_base(capture, true);
    if (!skipped) {
        err = kd_stackmaps_counts(capture, &snap->counts, &snap->n_counts,
                                  error);
    }
    for (size_t i = 0; !err && i < snap->n_counts; i++) {
        const struct kd_profile_key *k = &snap->counts[i].key;
        const int32_t ids[4] = {
            k->kernel_stack_id, k->user_stack_id,
            k->waker_kernel_stack_id, k->waker_user_stack_id,
        };

        for (size_t j = 0; j < KD_ARRAY_SIZE(ids); j++) {
            kd_snapshot_read_stack(&snap->profile_stacks,
                                   &snap->n_profile_stacks, capture, ids[j],
                                   !(j & 1), true, snap->profile_user_base,
                                   NULL);
        }
    }
    if (!err) {
        err = kd_stackmaps_clear_profile(capture);
        if (err) {
            *error = kd_xasprintf("Failed to clear the eBPF maps of the "
                                  "stacks: %s", strerror(err));
        }
    }
    return err;
}

/* The syscall events of the sample, with their stacks. */
static void
kd_snapshot_take_events(struct kd_snapshot *snap,
                        struct kd_capture *capture)
{
    const struct kd_event_state *ev = kd_capture_event_state(capture);
    size_t user_base = kd_stackmaps_user_base(capture, false);

    snap->events = kd_xcalloc(ev->n_syscalls, sizeof *snap->events);
    snap->n_events = ev->n_syscalls;
    for (size_t i = 0; i < ev->n_syscalls; i++) {
        const struct kd_syscall_event *e = &ev->syscalls[i];

        snap->events[i] = (struct kd_snapshot_event) {
            .tid = e->tid,
            .syscall = e->syscall,
            .entry_ns = e->entry_ts,
            .exit_ns = e->exit_ts,
            .kernel_stack_id = -1,
            .user_stack_id = -1,
        };
        /* The events keep the stacks' indexes in snap->stacks. */
        if (snap->with_stacks) {
            struct kd_snapshot_event *s = &snap->events[i];

            kd_snapshot_read_stack(&snap->stacks, &snap->n_stacks, capture,
                                   e->kernel_stack_id, true, false,
                                   user_base, &s->kernel_stack_id);
            kd_snapshot_read_stack(&snap->stacks, &snap->n_stacks, capture,
                                   e->user_stack_id, false, false,
                                   user_base, &s->user_stack_id);
        }
    }
    qsort(snap->events, snap->n_events, sizeof *snap->events, kd_event_cmp);
}

int
kd_snapshot_take(struct kd_snapshot *snap, struct kd_capture *capture,
                 const struct kd_window *window, char **error)
{
    const struct kd_needs *needs = kd_capture_needs(capture);
    struct kd_events *events = kd_capture_events(capture);
    int err;

    memset(snap, 0, sizeof *snap);
    snap->tgid = kd_capture_tgid(capture);
    snap->window = *window;
    snap->with_events = needs->syscall_events;
    snap->events_over_ns = needs->syscall_events_ns;
    snap->with_wall_clock = needs->wall_clock;
    snap->wall_offset_ns = (int64_t) kd_clock_ns(CLOCK_REALTIME)
                           - (int64_t) kd_now_ns();
    snap->with_stacks = needs->stacks;
    snap->with_summary = needs->summary;
    snap->profile_hz = needs->profile_hz;
    snap->off_cpu = needs->blocked;
    snap->sample.pid = snap->tgid;

    err = kd_capture_collect(capture, &snap->sample, &snap->losses, error);
    if (err) {
        return err;
    }
    kd_losses_add(&snap->total, kd_capture_total_losses(capture));
    if (window->skipped) {
        /* Its maps are emptied, and what they lost is not reported. */
        memset(snap->losses.map_full, 0, sizeof snap->losses.map_full);
    } else if (snap->with_events) {
        kd_snapshot_take_events(snap, capture);
    }

    if (events) {
        kd_events_clear_syscalls(events);
    }
    if (needs->profile || needs->blocked) {
        err = kd_snapshot_take_profile(snap, capture, window->skipped,
                                       error);
        if (err) {
            return err;
        }
    }
    err = kd_stackmaps_clear(capture);
    if (err) {
        *error = kd_xasprintf("Failed to clear the eBPF stack map: %s",
                              strerror(err));
    }
    return err;
}

/* The name of thread 'tid' for its events: from the sample, else from
 * /proc, else "<unknown:PID/TID>"; each thread looked up once, in
 * 'snap->names' (sorted by tid, in step with 'tids'). */
static const char *
kd_snapshot_event_name(struct kd_snapshot *snap, uint32_t **tids,
                       uint32_t tid)
{
    size_t lo = 0, hi = snap->n_names;
    const char *name;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if ((*tids)[mid] == tid) {
            return snap->names[mid];
        } else if ((*tids)[mid] < tid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }

    snap->names = kd_xreallocarray(snap->names, snap->n_names + 1,
                                   sizeof *snap->names);
    *tids = kd_xreallocarray(*tids, snap->n_names + 1, sizeof **tids);
    memmove(&snap->names[lo + 1], &snap->names[lo],
            (snap->n_names - lo) * sizeof *snap->names);
    memmove(&(*tids)[lo + 1], &(*tids)[lo],
            (snap->n_names - lo) * sizeof **tids);
    snap->n_names++;

    name = kd_sample_thread_name(&snap->sample, tid);
    (*tids)[lo] = tid;
    snap->names[lo] = name ? kd_xstrdup(name)
                           : kd_target_thread_name(snap->tgid, tid, NULL);
    if (!snap->names[lo]) {
        snap->names[lo] = kd_xasprintf("<unknown:%u/%u>", snap->tgid, tid);
    }
    return snap->names[lo];
}

/* Formats the frames of 'stack'. */
static void
kd_snapshot_resolve_stack(struct kd_stack *stack, struct kd_symbols *symbols)
{
    char frame[512];

    stack->frames = kd_xcalloc(stack->n_ips + 1, sizeof *stack->frames);
    for (size_t i = 0; i < stack->n_ips; i++) {
        kd_symbols_format(symbols, stack->kernel, stack->ips[i], frame,
                          sizeof frame);
        stack->frames[stack->n_frames++] = kd_xstrdup(frame);
    }
    /* Taken from a tracepoint (sys_exit): its machinery's frames out. */
    if (stack->kernel) {
        size_t skip = kd_frames_tracing(stack->frames, stack->n_frames);

        for (size_t i = 0; i < skip; i++) {
            free(stack->frames[i]);
        }
        memmove(stack->frames, stack->frames + skip,
                (stack->n_frames - skip) * sizeof *stack->frames);
        stack->n_frames -= skip;
    }
    if (stack->n_ips && kd_stacks_cut_frame(stack->end, frame,
                                            sizeof frame)) {
        stack->frames[stack->n_frames++] = kd_xstrdup(frame);
    }
}

/* Names the events' threads, keeps those of the threads 'filter' keeps,
 * counts their lost stacks and formats their stacks. */
static void
kd_snapshot_resolve_events(struct kd_snapshot *snap,
                           const struct kd_thread_filter *filter)
{
    struct kd_symbols symbols;
    uint32_t *tids = NULL;
    size_t n = 0;

    kd_symbols_init(&symbols, snap->tgid);
    for (size_t i = 0; i < snap->n_events; i++) {
        struct kd_snapshot_event *e = &snap->events[i];
        int32_t ids[2] = { e->kernel_stack_id, e->user_stack_id };

        e->name = kd_snapshot_event_name(snap, &tids, e->tid);
        if (!kd_thread_filter_match(filter, e->tid, e->name)) {
            continue;
        }
        snap->events[n++] = *e;
        if (!snap->with_stacks) {
            continue;
        }
        if (ids[0] < 0 || ids[1] < 0) {
            snap->losses.lost_stacks++;
        }
        for (size_t j = 0; j < KD_ARRAY_SIZE(ids); j++) {
            if (ids[j] >= 0 && !snap->stacks[ids[j]].frames) {
                kd_snapshot_resolve_stack(&snap->stacks[ids[j]], &symbols);
            }
        }
    }
    snap->n_events = n;
    free(tids);
    kd_symbols_destroy(&symbols);
}

/* The stacks of the profile's maps as the sample read them. */
static size_t
kd_snapshot_profile_stack(void *snap_, int32_t id, bool user, uint64_t *ips,
                          uint32_t *end)
{
    const struct kd_snapshot *snap = snap_;
    const struct kd_stack *stack;
    size_t i = (size_t) id + (user ? snap->profile_user_base : 0);

    *end = KD_UW_END_WHOLE;
    if (id < 0 || i >= snap->n_profile_stacks) {
        return 0;
    }
    stack = &snap->profile_stacks[i];
    memcpy(ips, stack->ips, stack->n_ips * sizeof *ips);
    *end = stack->end;
    return stack->n_ips;
}

/* Each thread's on-CPU stacks and where it slept, as a long poll interval
 * of the length of the sample would have them: its time on CPU is its
 * run time in the sample (THREAD RUN). */
static void
kd_snapshot_resolve_thread_stacks(struct kd_snapshot *snap)
{
    struct kd_stack_source source = {
        .read = kd_snapshot_profile_stack,
        .aux = snap,
    };
    struct kd_symbols symbols;

    if (!snap->profile_hz && !snap->off_cpu) {
        return;
    }
    kd_symbols_init(&symbols, snap->tgid);
    snap->thread_stacks = kd_xcalloc(snap->sample.n_threads + 1,
                                     sizeof *snap->thread_stacks);
    for (size_t i = 0; i < snap->sample.n_threads; i++) {
        const struct kd_thread *t = &snap->sample.threads[i];
        struct kd_gap *gap = &snap->thread_stacks[i];
        struct kd_gap_event ev;

        memset(&ev, 0, sizeof ev);
        ev.head.tid = t->tid;
        for (size_t j = 0; j < snap->n_counts; j++) {
            const struct kd_profile_count *c = &snap->counts[j];

            if (c->key.tid != t->tid) {
                continue;
            } else if (c->key.kind == KD_COUNT_ON_CPU) {
                ev.detail.profile.samples += c->value.count;
            } else {
                ev.detail.profile.sleeps += c->value.count;
            }
        }
        memset(gap, 0, sizeof *gap);
        gap->of_sample = true;
        gap->tid = t->tid;
        snprintf(gap->name, sizeof gap->name, "%s", t->name);
        gap->parts[KD_GAP_ON_CPU] = t->run ? t->run->total_ns : 0;
        kd_stacks_resolve(gap, &ev, snap->profile_hz, snap->off_cpu,
                          snap->counts, snap->n_counts, &source, &symbols);
    }
    kd_symbols_destroy(&symbols);
}

void
kd_snapshot_resolve(struct kd_snapshot *snap,
                    const struct kd_thread_filter *filter)
{
    if (snap->window.skipped) {
        return;
    }
    kd_sample_group(&snap->sample, kd_target_thread_name, NULL);
    kd_sample_filter(&snap->sample, filter);
    snap->filtered = filter->has_regex || filter->n_tids;
    if (snap->with_summary) {
        snap->rows = kd_xcalloc(snap->sample.n_threads, sizeof *snap->rows);
        kd_summary_compute(&snap->sample, snap->rows);
    }
    kd_snapshot_resolve_events(snap, filter);
    kd_snapshot_resolve_thread_stacks(snap);
}

void
kd_snapshot_destroy(struct kd_snapshot *snap)
{
    /* One per thread of the sample: before it is cleared. */
    for (size_t i = 0; snap->thread_stacks && i < snap->sample.n_threads;
         i++) {
        kd_gap_destroy(&snap->thread_stacks[i]);
    }
    free(snap->thread_stacks);
    kd_sample_clear(&snap->sample);
    free(snap->rows);
    free(snap->events);
    for (size_t i = 0; i < snap->n_names; i++) {
        free(snap->names[i]);
    }
    free(snap->names);
    for (size_t i = 0; i < snap->n_stacks; i++) {
        for (size_t j = 0; j < snap->stacks[i].n_frames; j++) {
            free(snap->stacks[i].frames[j]);
        }
        free(snap->stacks[i].frames);
        free(snap->stacks[i].ips);
    }
    free(snap->stacks);
    free(snap->counts);
    for (size_t i = 0; i < snap->n_profile_stacks; i++) {
        free(snap->profile_stacks[i].ips);
    }
    free(snap->profile_stacks);
    kd_losses_destroy(&snap->losses);
    kd_losses_destroy(&snap->total);
    memset(snap, 0, sizeof *snap);
}
