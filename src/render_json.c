/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The JSON Lines records of a sample or a long poll interval. */

#include "render_json.h"

#include <inttypes.h>
#include <stdio.h>

#include "gap.h"
#include "hist.h"
#include "json.h"
#include "names.h"
#include "snapshot.h"
#include "summary.h"
#include "syscalls.h"

/* Starts a record: its opening brace, its "version" and, when 'node' is
 * not NULL (--node-name), its "node". */
static void
kd_render_json_open(struct kd_ds *ds, const char *node)
{
    kd_ds_put_format(ds, "{\"version\":%d", KD_JSON_VERSION);
    if (node) {
        kd_ds_put_cstr(ds, ",\"node\":");
        kd_json_string(ds, node);
    }
}

static void
kd_render_json_time(struct kd_ds *ds, const char *key,
                    const struct timespec *ts)
{
    kd_json_key(ds, key);
    kd_json_time(ds, ts);
}

/* ,"KEY":VALUE, or null when 'value' is 0. */
static void
kd_render_json_u64_or_null(struct kd_ds *ds, const char *key,
                           uint64_t value)
{
    kd_ds_put_char(ds, ',');
    kd_json_key(ds, key);
    if (value) {
        kd_json_u64(ds, value);
    } else {
        kd_json_null(ds);
    }
}

/* Starts a sample's JSON object, up to its window. */
static void
kd_render_json_head(struct kd_ds *ds, const char *node,
                    const struct kd_snapshot *snap)
{
    const struct kd_window *w = &snap->window;

    kd_render_json_open(ds, node);
    kd_ds_put_format(ds, ",\"pid\":%u,\"sample\":%u,\"skipped\":",
                     snap->tgid, w->index);
    kd_json_bool(ds, w->skipped);
    kd_ds_put_cstr(ds, ",\"window\":{");
    kd_render_json_time(ds, "start", &w->start_wall);
    kd_ds_put_char(ds, ',');
    kd_render_json_time(ds, "stop", &w->stop_wall);
    kd_ds_put_format(ds, ",\"start_ns\":%" PRIu64 ",\"stop_ns\":%" PRIu64
                     ",\"duration_ns\":%" PRIu64, w->start_ns, w->stop_ns,
                     w->stop_ns - w->start_ns);
    kd_render_json_u64_or_null(ds, "start_trigger_ns", w->start_trigger_ns);
    kd_render_json_u64_or_null(ds, "stop_trigger_ns", w->stop_trigger_ns);
    kd_render_json_u64_or_null(ds, "trigger_delta_ns", w->delta_ns);
    kd_ds_put_char(ds, '}');
}

/* A stack's frames as an array, or null when there is none. */
static void
kd_render_json_stack(struct kd_ds *ds, const struct kd_snapshot *snap,
                     int32_t id)
{
    bool first = true;

    if (id < 0 || (size_t) id >= snap->n_stacks) {
        kd_json_null(ds);
        return;
    }
    kd_ds_put_char(ds, '[');
    for (size_t i = 0; i < snap->stacks[id].n_frames; i++) {
        kd_json_next(ds, &first);
        kd_json_string(ds, snap->stacks[id].frames[i]);
    }
    kd_ds_put_char(ds, ']');
}

/* The "syscall_events" array. */
/* ,"KEY":TIME: monotonic 'ns' of 'snap' on the wall clock. */
static void
kd_render_json_event_time(struct kd_ds *ds, const char *key,
                          const struct kd_snapshot *snap, uint64_t ns)
{
    struct timespec ts = kd_snapshot_wall(snap, ns);

    kd_ds_put_char(ds, ',');
    kd_render_json_time(ds, key, &ts);
}

static void
kd_render_json_events(struct kd_ds *ds, const struct kd_snapshot *snap,
                      const struct kd_ds_sink *sink)
{
    bool first = true;

    kd_ds_put_char(ds, '[');
    for (size_t i = 0; i < snap->n_events; i++) {
        const struct kd_snapshot_event *e = &snap->events[i];
        char buf[64];

        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"name\":", e->tid);
        kd_json_string(ds, e->name);
        kd_ds_put_cstr(ds, ",\"syscall\":");
        kd_json_string(ds, kd_syscall_format(e->syscall, buf, sizeof buf));
        kd_ds_put_format(ds, ",\"number\":%" PRIu32 ",\"entry_ns\":%" PRIu64
                         ",\"exit_ns\":%" PRIu64, e->syscall, e->entry_ns,
                         e->exit_ns);
        kd_render_json_event_time(ds, "entry", snap, e->entry_ns);
        kd_render_json_event_time(ds, "exit", snap, e->exit_ns);
        if (snap->with_stacks) {
            kd_ds_put_cstr(ds, ",\"kernel_stack\":");
            kd_render_json_stack(ds, snap, e->kernel_stack_id);
            kd_ds_put_cstr(ds, ",\"user_stack\":");
            kd_render_json_stack(ds, snap, e->user_stack_id);
        }
        kd_ds_put_char(ds, '}');
        kd_ds_sink_put(ds, sink);
    }
    kd_ds_put_char(ds, ']');
}

/* The warnings about what the capture lost: in 'losses' (a sample, or a
 * whole --long-poll-events run), but in 'total' since the start where the
 * reference prints them at the end. */
static void
kd_render_json_warnings(struct kd_ds *ds, const struct kd_losses *losses,
                        const struct kd_losses *total)
{
    bool first = true;

    kd_ds_put_cstr(ds, ",\"warnings\":{\"map_full\":{");
    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        if (losses->map_full[i]) {
            kd_json_next(ds, &first);
            kd_json_key(ds, kd_losses_map_name(i));
            kd_json_u64(ds, losses->map_full[i]);
        }
    }
    kd_ds_put_cstr(ds, "},\"recursion_misses\":{");
    first = true;
    for (size_t i = 0; i < losses->n_misses; i++) {
        kd_json_next(ds, &first);
        kd_json_key(ds, losses->misses[i].hook);
        kd_json_u64(ds, losses->misses[i].count);
    }
    kd_ds_put_format(ds, "},\"switches_missed\":%" PRIu64
                     ",\"lost_stacks\":%" PRIu64 ",\"events_dropped\":%"
                     PRIu64 ",\"triggers_missed\":%" PRIu64
                     ",\"upcall_module_unloaded\":",
                     losses->switches_missed, losses->lost_stacks,
                     total->events_dropped, total->triggers_missed);
    kd_json_bool(ds, losses->upcall_module_gone != NULL);
    /* User stacks unwound from the CFI, whole or cut short: only where
     * some were. */
    if (kd_losses_stacks_cut(losses)
        || losses->user_stacks[KD_UW_END_WHOLE]) {
        kd_ds_put_cstr(ds, ",\"user_stacks\":{");
        first = true;
        for (unsigned int i = 0; i < KD_UW_N_ENDS; i++) {
            kd_json_next(ds, &first);
            kd_json_key(ds, kd_losses_uw_end_key(i));
            kd_json_u64(ds, losses->user_stacks[i]);
        }
        kd_ds_put_char(ds, '}');
    }
    kd_ds_put_char(ds, '}');
}

/* ,"KEY":{"count":..,"total_ns":..,["min_ns":..,]"max_ns":..}, or null
 * when there is no 'stat'. */
static void
kd_render_json_stat(struct kd_ds *ds, const char *key,
                    const struct kd_stat *stat, bool with_min)
{
    kd_ds_put_char(ds, ',');
    kd_json_key(ds, key);
    if (!stat) {
        kd_json_null(ds);
        return;
    }
    kd_ds_put_format(ds, "{\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64,
                     stat->count, stat->total_ns);
    if (with_min) {
        kd_ds_put_format(ds, ",\"min_ns\":%" PRIu64, stat->min_ns);
    }
    kd_ds_put_format(ds, ",\"max_ns\":%" PRIu64 "}", stat->max_ns);
}

/* One histogram as {"buckets":[...],"p50_ns":..,...}. */
static void
kd_render_json_hist(struct kd_ds *ds, const uint64_t counts[KD_HIST_SLOTS],
                    uint64_t max)
{
    struct kd_hist_percentiles p;
    bool first = true;

    kd_hist_percentiles(counts, max, &p);
    kd_ds_put_cstr(ds, "{\"buckets\":[");
    for (int i = 0; i < KD_HIST_SLOTS; i++) {
        uint64_t low, high;

        if (!counts[i]) {
            continue;
        }
        kd_hist_range(i, &low, &high);
        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"low\":%" PRIu64 ",\"high\":%" PRIu64
                         ",\"count\":%" PRIu64 "}", low, high, counts[i]);
    }
    kd_ds_put_format(ds, "],\"p50_ns\":%" PRIu64 ",\"p90_ns\":%" PRIu64
                     ",\"p99_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 "}",
                     p.p50, p.p90, p.p99, p.max);
}

/* Thread 't''s histogram of 'what' (with the maximum of 'stat'), or null
 * when it has none. */
static void
kd_render_json_stat_hist(struct kd_ds *ds, const struct kd_thread *t,
                         uint32_t what, const struct kd_stat *stat)
{
    uint64_t counts[KD_HIST_SLOTS];

    if (stat && kd_hist_counts(t, what, counts)) {
        kd_render_json_hist(ds, counts, stat->max_ns);
    } else {
        kd_json_null(ds);
    }
}

/* A thread's histograms, or null without --histogram. */
static void
kd_render_json_hists(struct kd_ds *ds, const struct kd_thread *t)
{
    uint64_t counts[KD_HIST_SLOTS];
    bool first = true;

    if (!t->n_hists) {
        kd_json_null(ds);
        return;
    }
    kd_ds_put_cstr(ds, "{\"syscalls\":[");
    for (size_t i = 0; i < t->n_syscalls; i++) {
        const struct kd_syscall_entry *e = &t->syscalls[i];
        char name[64];

        if (kd_hist_counts(t, e->key.nr, counts)) {
            kd_json_next(ds, &first);
            kd_ds_put_cstr(ds, "{\"name\":");
            kd_json_string(ds, kd_syscall_format(e->key.nr, name,
                                                 sizeof name));
            kd_ds_put_format(ds, ",\"number\":%" PRIu32 ",\"histogram\":",
                             e->key.nr);
            kd_render_json_hist(ds, counts, e->stat.max_ns);
            kd_ds_put_char(ds, '}');
        }
    }
    kd_ds_put_cstr(ds, "],\"ready\":");
    kd_render_json_stat_hist(ds, t, KD_HIST_READY, t->ready);
    kd_ds_put_cstr(ds, ",\"run\":");
    kd_render_json_stat_hist(ds, t, KD_HIST_RUN, t->run);
    kd_ds_put_char(ds, '}');
}

/* One entry of who ran instead, as an object. */
static void
kd_render_json_ran_entry(struct kd_ds *ds, const struct kd_ran_entry *e)
{
    char name[KD_COMM_LEN + 1];

    if (kd_summary_ran_name(e, name)) {
        kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"pid\":%" PRIu32
                         ",\"name\":", e->key.other, e->ran.pid);
        kd_json_string(ds, name);
    } else {
        kd_ds_put_cstr(ds, "{\"tid\":null,\"pid\":null,\"name\":null");
    }
    kd_ds_put_format(ds, ",\"ns\":%" PRIu64 ",\"count\":%" PRIu64 "}",
                     e->ran.ns, e->ran.count);
}

/* Who ran instead of a thread: an array, or null when not counted. */
static void
kd_render_json_ran(struct kd_ds *ds, const struct kd_ran_entry *ran,
                   size_t n, bool counted)
{
    bool first = true;

    if (!counted) {
        kd_json_null(ds);
        return;
    }
    kd_ds_put_char(ds, '[');
    for (size_t i = 0; i < n; i++) {
        kd_json_next(ds, &first);
        kd_render_json_ran_entry(ds, &ran[i]);
    }
    kd_ds_put_char(ds, ']');
}

/* A thread's "syscalls" array and its "syscalls_but_poll". */
static void
kd_render_json_syscalls(struct kd_ds *ds, const struct kd_thread *t)
{
    uint64_t count, total;
    bool first = true;

    kd_ds_put_cstr(ds, ",\"syscalls\":[");
    for (size_t i = 0; i < t->n_syscalls; i++) {
        const struct kd_syscall_entry *e = &t->syscalls[i];
        char buf[64];

        kd_json_next(ds, &first);
        kd_ds_put_cstr(ds, "{\"name\":");
        kd_json_string(ds, kd_syscall_format(e->key.nr, buf, sizeof buf));
        kd_ds_put_format(ds, ",\"number\":%" PRIu32 ",\"count\":%" PRIu64
                         ",\"total_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
                         "}", e->key.nr, e->stat.count, e->stat.total_ns,
                         e->stat.max_ns);
    }
    kd_summary_syscalls_but_poll(t, &count, &total);
    kd_ds_put_format(ds, "],\"syscalls_but_poll\":{\"count\":%" PRIu64
                     ",\"total_ns\":%" PRIu64 "}", count, total);
}

/* A thread's "hard_irqs" and "soft_irqs" arrays. */
static void
kd_render_json_irqs(struct kd_ds *ds, const struct kd_thread *t)
{
    bool first = true;

    kd_ds_put_cstr(ds, ",\"hard_irqs\":[");
    for (size_t i = 0; i < t->n_hardirqs; i++) {
        const struct kd_hardirq_entry *e = &t->hardirqs[i];
        char name[KD_IRQ_NAME_LEN + 1];

        kd_fixed_cstr(name, e->key.name, sizeof e->key.name);
        kd_json_next(ds, &first);
        kd_ds_put_cstr(ds, "{\"name\":");
        kd_json_string(ds, name);
        kd_ds_put_format(ds, ",\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64
                         ",\"max_ns\":%" PRIu64 "}", e->stat.count,
                         e->stat.total_ns, e->stat.max_ns);
    }
    kd_ds_put_cstr(ds, "],\"soft_irqs\":[");
    first = true;
    for (size_t i = 0; i < t->n_softirqs; i++) {
        const struct kd_softirq_entry *e = &t->softirqs[i];
        char buf[32];

        kd_json_next(ds, &first);
        kd_ds_put_cstr(ds, "{\"name\":");
        kd_json_string(ds, kd_names_softirq(e->key.vec, buf, sizeof buf));
        kd_ds_put_format(ds, ",\"vector\":%" PRIu32 ",\"count\":%" PRIu64
                         ",\"total_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64
                         "}", e->key.vec, e->stat.count, e->stat.total_ns,
                         e->stat.max_ns);
    }
    kd_ds_put_char(ds, ']');
}

static void kd_render_json_gap_stacks(struct kd_ds *, const struct kd_gap *);
static void kd_render_json_gap_blocked(struct kd_ds *,
                                       const struct kd_gap *);

/* One thread of the "threads" array, with its sections, and its stacks
 * ('stacks', or NULL). */
static void
kd_render_json_thread(struct kd_ds *ds, const struct kd_sample *sample,
                      const struct kd_thread *t, const struct kd_gap *stacks)
{
    kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"name\":", t->tid);
    kd_json_string(ds, t->name);
    kd_render_json_syscalls(ds, t);
    kd_ds_put_cstr(ds, ",\"long_poll\":");
    if (t->poll) {
        kd_ds_put_format(ds, "{\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64
                         ",\"average_ns\":%" PRIu64 ",\"min_ns\":%" PRIu64
                         ",\"max_ns\":%" PRIu64 "}", t->poll->count,
                         t->poll->total_ns, t->poll->total_ns / t->poll->count,
                         t->poll->min_ns, t->poll->max_ns);
    } else {
        kd_json_null(ds);
    }
    kd_render_json_stat(ds, "run", t->run, true);
    kd_render_json_stat(ds, "ready", t->ready, false);
    kd_render_json_stat(ds, "stopped", t->stop, false);
    kd_render_json_irqs(ds, t);
    kd_ds_put_cstr(ds, ",\"histograms\":");
    kd_render_json_hists(ds, t);
    kd_ds_put_cstr(ds, ",\"ran_instead\":");
    kd_render_json_ran(ds, sample->with_ran ? t->ran : NULL, t->n_ran,
                       sample->with_ran);
    if (stacks) {
        kd_render_json_gap_stacks(ds, stacks);
        kd_render_json_gap_blocked(ds, stacks);
    }
    kd_ds_put_char(ds, '}');
}

/* The "threads" array. */
static void
kd_render_json_threads(struct kd_ds *ds, const struct kd_snapshot *snap)
{
    const struct kd_sample *sample = &snap->sample;
    bool first = true;

    kd_ds_put_char(ds, '[');
    for (size_t i = 0; i < sample->n_threads; i++) {
        kd_json_next(ds, &first);
        kd_render_json_thread(ds, sample, &sample->threads[i],
                              snap->thread_stacks
                              ? &snap->thread_stacks[i] : NULL);
    }
    kd_ds_put_char(ds, ']');
}

/* The "summary" object: the rows of a window of 'window_ns'. */
static void
kd_render_json_summary(struct kd_ds *ds, const struct kd_summary_row *rows,
                       size_t n, uint64_t window_ns)
{
    bool first = true;

    kd_ds_put_format(ds, "{\"window_ns\":%" PRIu64 ",\"threads\":[",
                     window_ns);
    for (size_t i = 0; i < n; i++) {
        const struct kd_summary_row *r = &rows[i];

        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"name\":", r->tid);
        kd_json_string(ds, r->name);
        kd_ds_put_format(ds, ",\"run_ns\":%" PRIu64 ",\"ready_ns\":%" PRIu64
                         ",\"stopped_ns\":%" PRIu64 ",\"hard_irq_ns\":%"
                         PRIu64 ",\"soft_irq_ns\":%" PRIu64
                         ",\"syscalls_but_poll_ns\":%" PRIu64
                         ",\"longest_ready_ns\":%" PRIu64
                         ",\"ran_instead_top\":", r->run_ns,
                         r->ready_ns, r->stop_ns, r->hardirq_ns,
                         r->softirq_ns, r->syscall_ns, r->max_ready_ns);
        if (r->n_ran) {
            kd_render_json_ran_entry(ds, &r->ran[0]);
        } else {
            kd_json_null(ds);
        }
        kd_ds_put_char(ds, '}');
    }
    kd_ds_put_cstr(ds, "],\"worst\":");
    if (n && rows[0].ready_ns) {
        kd_ds_put_format(ds, "%" PRIu32, rows[0].tid);
    } else {
        kd_json_null(ds);
    }
    kd_ds_put_char(ds, '}');
}

/* The "upcalls" object: per errno, the per-CPU counts; or null. */
static void
kd_render_json_upcalls(struct kd_ds *ds,
                       const struct kd_upcall_entry *entries, size_t n,
                       int n_cpus)
{
    bool first = true;

    if (!n) {
        kd_json_null(ds);
        return;
    }
    kd_ds_put_cstr(ds, "{\"by_errno\":[");
    for (size_t i = 0; i < n; i++) {
        const char *name = kd_names_upcall_errno(entries[i].key);
        bool first_cpu = true;

        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"errno\":%" PRIu64 ",\"name\":",
                         entries[i].key);
        if (name) {
            kd_json_string(ds, name);
        } else {
            kd_json_null(ds);
        }
        kd_ds_put_cstr(ds, ",\"per_cpu\":[");
        for (int cpu = 0; cpu < n_cpus; cpu++) {
            kd_json_next(ds, &first_cpu);
            kd_json_u64(ds, entries[i].per_cpu[cpu]);
        }
        kd_ds_put_cstr(ds, "]}");
    }
    kd_ds_put_cstr(ds, "]}");
}

void
kd_render_json_sample(struct kd_ds *ds, const char *node,
                      const struct kd_snapshot *snap,
                      const struct kd_ds_sink *sink)
{
    const struct kd_sample *sample = &snap->sample;

    kd_render_json_head(ds, node, snap);
    if (snap->window.skipped) {
        kd_render_json_warnings(ds, &snap->losses, &snap->total);
        kd_ds_put_cstr(ds, "}\n");
        return;
    }
    kd_ds_put_cstr(ds, ",\"threads\":");
    kd_render_json_threads(ds, snap);
    kd_ds_put_cstr(ds, ",\"upcalls\":");
    kd_render_json_upcalls(ds, sample->upcalls, sample->n_upcalls,
                           sample->n_cpus);
    kd_ds_put_cstr(ds, ",\"syscall_events\":");
    if (snap->with_events) {
        kd_render_json_events(ds, snap, sink);
    } else {
        kd_json_null(ds);
    }
    kd_ds_put_cstr(ds, ",\"summary\":");
    if (snap->with_summary) {
        kd_render_json_summary(ds, snap->rows, sample->n_threads,
                               kd_window_ns(&snap->window));
    } else {
        kd_json_null(ds);
    }
    if (snap->thread_stacks) {
        kd_ds_put_format(ds, ",\"stacks_lost\":{\"samples\":%" PRIu64
                         ",\"sleeps\":%" PRIu64 "}", snap->losses.lost_samples,
                         snap->losses.lost_sleeps);
    }
    kd_render_json_warnings(ds, &snap->losses, &snap->total);
    kd_ds_put_cstr(ds, ",\"target_exited\":");
    kd_json_bool(ds, snap->window.target_exited);
    kd_ds_put_cstr(ds, "}\n");
}

void
kd_render_json_exited(struct kd_ds *ds, const char *node, unsigned int tgid,
                      bool waiting)
{
    /* During a sample, the sample's record says it. */
    if (!waiting) {
        return;
    }
    kd_render_json_open(ds, node);
    kd_ds_put_format(ds, ",\"pid\":%u,\"target_exited\":true,"
                     "\"waiting_for\":\"start trigger\"}\n", tgid);
}

/* A name of KD_COMM_LEN bytes, maybe without its NUL. */
static void
kd_render_json_comm(struct kd_ds *ds, const char comm[KD_COMM_LEN])
{
    char name[KD_COMM_LEN + 1];

    kd_json_string(ds, kd_fixed_cstr(name, comm, KD_COMM_LEN));
}

static void
kd_render_json_gap_syscall(struct kd_ds *ds, const struct kd_gap_syscall *s)
{
    kd_ds_put_format(ds, "\"count\":%" PRIu32 ",\"total_ns\":%" PRIu64
                     ",\"blocked_ns\":%" PRIu64 "}", s->count, s->total_ns,
                     s->blocked_ns);
}

/* A "frames" array of 'f'. */
static void
kd_render_json_frames(struct kd_ds *ds, const struct kd_frames *f)
{
    bool first = true;

    kd_ds_put_cstr(ds, "\"frames\":[");
    for (size_t j = 0; j < f->n; j++) {
        kd_json_next(ds, &first);
        kd_json_string(ds, f->v[j]);
    }
    kd_ds_put_char(ds, ']');
}

/* --profile-hz: the interval's on-CPU stacks, all of them. */
static void
kd_render_json_gap_stacks(struct kd_ds *ds, const struct kd_gap *gap)
{
    bool first = true;

    if (!gap->profile_hz) {
        return;
    }
    kd_ds_put_format(ds, ",\"profile\":{\"hz\":%u,\"samples\":%" PRIu32
                     ",\"other_samples\":%" PRIu32 ",\"other_ns\":%" PRIu64
                     ",\"lost_samples\":%" PRIu32 ",\"lost_ns\":%" PRIu64
                     "},\"on_cpu_stacks\":[", gap->profile_hz, gap->samples,
                     gap->other_samples, gap->other_ns, gap->lost_samples,
                     gap->lost_ns);
    for (size_t i = 0; i < gap->n_stacks; i++) {
        const struct kd_gap_profile_stack *st = &gap->stacks[i];
        struct kd_frames f = kd_gap_stack_frames(st);

        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"samples\":%" PRIu32 ",\"ns\":%" PRIu64
                         ",\"merged\":%zu,\"lost\":%s,", st->samples,
                         st->ns, st->merged, st->lost ? "true" : "false");
        kd_render_json_frames(ds, &f);
        kd_ds_put_char(ds, '}');
    }
    kd_ds_put_char(ds, ']');
}

static const char *
kd_waker_context_name(enum kd_waker_context context)
{
    return context == KD_WAKER_HARDIRQ ? "hardirq"
           : context == KD_WAKER_SOFTIRQ ? "softirq" : "task";
}

/* --off-cpu: where the thread slept in the interval, and who woke it. */
static void
kd_render_json_gap_blocked(struct kd_ds *ds, const struct kd_gap *gap)
{
    bool first = true;

    if (!gap->off_cpu) {
        return;
    }
    kd_ds_put_format(ds, ",\"off_cpu\":{\"sleeps\":%" PRIu32
                     ",\"other_sleeps\":%" PRIu64 ",\"other_ns\":%" PRIu64
                     ",\"lost_sleeps\":%" PRIu32 "},\"blocked\":[",
                     gap->n_sleeps, gap->other_blocked_count,
                     gap->other_blocked_ns, gap->lost_sleeps);
    for (size_t i = 0; i < gap->n_blocked; i++) {
        const struct kd_gap_blocked *b = &gap->blocked[i];

        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"count\":%" PRIu64 ",\"ns\":%" PRIu64
                         ",\"sleep_ns\":%" PRIu64 ",\"run_queue_ns\":%"
                         PRIu64 ",\"merged\":%zu,\"lost\":%s,\"going_on\":%s,",
                         b->count, kd_gap_blocked_ns(b), b->sleep_ns,
                         b->ready_ns, b->merged, b->lost ? "true" : "false",
                         b->going_on ? "true" : "false");
        kd_render_json_frames(ds, &b->frames);
        kd_ds_put_cstr(ds, ",\"waker\":");
        if (!b->woken) {
            kd_ds_put_cstr(ds, "null}");
            continue;
        }
        kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"pid\":%" PRIu32
                         ",\"name\":", b->waker_tid, b->waker_pid);
        kd_json_string(ds, b->waker_name);
        kd_ds_put_format(ds, ",\"context\":\"%s\",",
                         kd_waker_context_name(b->context));
        kd_render_json_frames(ds, &b->waker_frames);
        kd_ds_put_cstr(ds, "}}");
    }
    kd_ds_put_char(ds, ']');
}

void
kd_render_json_gap(struct kd_ds *ds, const char *node,
                   const struct kd_gap *gap, const struct kd_losses *total)
{
    bool first = true;

    kd_render_json_open(ds, node);
    if (gap->in_progress) {
        kd_ds_put_cstr(ds, ",\"type\":\"long_poll_progress\"");
    } else {
        kd_ds_put_format(ds, ",\"type\":\"long_poll\",\"index\":%u",
                         gap->index);
    }
    kd_ds_put_format(ds, ",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"name\":", gap->pid, gap->tid);
    kd_json_string(ds, gap->name);
    kd_ds_put_format(ds, ",\"start_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64
                     ",", gap->start_ns, gap->end_ns);
    kd_render_json_time(ds, "start", &gap->start_wall);
    kd_ds_put_char(ds, ',');
    kd_render_json_time(ds, "end", &gap->end_wall);
    kd_ds_put_format(ds, ",\"gap_ns\":%" PRIu64, kd_gap_ns(gap));
    for (int i = 0; i < KD_N_GAP_PARTS; i++) {
        kd_ds_put_format(ds, ",\"%s_ns\":", kd_gap_part_key(i));
        if (i == KD_GAP_UNACCOUNTED) {
            kd_ds_put_format(ds, "%" PRId64, gap->unaccounted_ns);
        } else {
            kd_json_u64(ds, gap->parts[i]);
        }
    }
    kd_ds_put_format(ds, ",\"on_cpu_user_ns\":%" PRIu64
                     ",\"on_cpu_kernel_ns\":%" PRIu64,
                     gap->on_cpu_user_ns, gap->on_cpu_kernel_ns);
    kd_ds_put_cstr(ds, ",\"dominant\":");
    kd_json_string(ds, kd_gap_part_key(gap->dominant));
    kd_ds_put_format(ds, ",\"waits\":%" PRIu64 ",\"preemptions\":%" PRIu64
                     ",\"sleeps\":%" PRIu64 ",\"syscalls\":[",
                     gap->waits, gap->preemptions, gap->sleeps);
    for (size_t i = 0; i < gap->n_syscalls; i++) {
        const struct kd_gap_syscall *s = &gap->syscalls[i];
        char name[64];

        kd_json_next(ds, &first);
        kd_ds_put_cstr(ds, "{\"name\":");
        kd_json_string(ds, kd_syscall_format(s->nr, name, sizeof name));
        kd_ds_put_format(ds, ",\"number\":%" PRIu32 ",", s->nr);
        kd_render_json_gap_syscall(ds, s);
    }
    kd_ds_put_cstr(ds, "],\"other_syscalls\":{");
    kd_render_json_gap_syscall(ds, &gap->other_syscalls);
    kd_ds_put_cstr(ds, ",\"ran_instead\":[");
    first = true;
    for (size_t i = 0; i < gap->n_ran; i++) {
        const struct kd_gap_ran *r = &gap->ran[i];

        kd_json_next(ds, &first);
        kd_ds_put_format(ds, "{\"tid\":%" PRIu32 ",\"pid\":%" PRIu32
                         ",\"name\":", r->tid, r->pid);
        kd_render_json_comm(ds, r->comm);
        kd_ds_put_format(ds, ",\"ns\":%" PRIu64 ",\"count\":%" PRIu64 "}",
                         r->ns, r->count);
    }
    kd_ds_put_format(ds, "],\"ran_instead_others_ns\":%" PRIu64,
                     gap->ran_others_ns);
    kd_render_json_gap_stacks(ds, gap);
    kd_render_json_gap_blocked(ds, gap);
    if (gap->in_progress && gap->open_syscall >= 0) {
        char name[64];

        kd_ds_put_cstr(ds, ",\"syscall_in_progress\":{\"name\":");
        kd_json_string(ds, kd_syscall_format(gap->open_syscall, name,
                                             sizeof name));
        kd_ds_put_format(ds, ",\"number\":%" PRId64 ",\"ns\":%" PRIu64
                         "}", gap->open_syscall, gap->open_syscall_ns);
    } else if (gap->in_progress) {
        kd_ds_put_cstr(ds, ",\"syscall_in_progress\":null");
    }
    kd_render_json_warnings(ds, total, total);
    kd_ds_put_cstr(ds, "}\n");
}

void
kd_render_json_watch_end(struct kd_ds *ds, const char *node,
                         unsigned int tgid, const struct kd_losses *total,
                         unsigned int reported, bool target_exited)
{
    kd_render_json_open(ds, node);
    kd_ds_put_format(ds, ",\"type\":\"long_poll_end\",\"pid\":%u,"
                     "\"reported\":%u", tgid, reported);
    kd_render_json_warnings(ds, total, total);
    kd_ds_put_cstr(ds, ",\"target_exited\":");
    kd_json_bool(ds, target_exited);
    kd_ds_put_cstr(ds, "}\n");
}

void
kd_render_json_target(struct kd_ds *ds, const char *node,
                      enum kd_target_event event, unsigned int tgid,
                      const struct timespec *now)
{
    kd_render_json_open(ds, node);
    kd_ds_put_cstr(ds, ",\"type\":\"target\",\"event\":");
    kd_json_string(ds, kd_target_event_name(event));
    kd_ds_put_cstr(ds, ",\"pid\":");
    if (tgid) {
        kd_ds_put_format(ds, "%u", tgid);
    } else {
        kd_json_null(ds);
    }
    kd_ds_put_char(ds, ',');
    kd_render_json_time(ds, "time", now);
    kd_ds_put_cstr(ds, "}\n");
}
