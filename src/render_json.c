/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "render_json.h"

#include <inttypes.h>

#include "gap.h"
#include "json.h"
#include "report.h"
#include "snapshot.h"
#include "syscalls.h"

static void
kd_render_json_time(struct kd_ds *ds, const char *key,
                    const struct timespec *ts)
{
    char buf[40];

    kd_json_key(ds, key);
    kd_json_string(ds, kd_format_wall_time(ts, buf));
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
kd_render_json_head(struct kd_ds *ds, const struct kd_snapshot *snap)
{
    const struct kd_window *w = &snap->window;

    kd_ds_put_format(ds, "{\"version\":%d,\"pid\":%u,\"sample\":%u,"
                     "\"skipped\":", KD_JSON_VERSION, snap->tgid, w->index);
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
static void
kd_render_json_events(struct kd_ds *ds, const struct kd_snapshot *snap,
                      FILE *out)
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
        if (snap->with_stacks) {
            kd_ds_put_cstr(ds, ",\"kernel_stack\":");
            kd_render_json_stack(ds, snap, e->kernel_stack_id);
            kd_ds_put_cstr(ds, ",\"user_stack\":");
            kd_render_json_stack(ds, snap, e->user_stack_id);
        }
        kd_ds_put_char(ds, '}');
        if (out) {
            kd_ds_flush(ds, out, 1 << 16);
        }
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
            kd_json_key(ds, kd_full_map_name(i));
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
    kd_ds_put_char(ds, '}');
}

void
kd_render_json_sample(struct kd_ds *ds, const struct kd_snapshot *snap,
                      FILE *out)
{
    const struct kd_sample *sample = &snap->sample;

    kd_render_json_head(ds, snap);
    if (snap->window.skipped) {
        kd_render_json_warnings(ds, &snap->losses, &snap->total);
        kd_ds_put_cstr(ds, "}\n");
        return;
    }
    kd_ds_put_cstr(ds, ",\"threads\":");
    kd_report_json_threads(ds, sample);
    kd_ds_put_cstr(ds, ",\"upcalls\":");
    kd_report_json_upcalls(ds, sample->upcalls, sample->n_upcalls,
                           sample->n_cpus);
    kd_ds_put_cstr(ds, ",\"syscall_events\":");
    if (snap->with_events) {
        kd_render_json_events(ds, snap, out);
    } else {
        kd_json_null(ds);
    }
    kd_ds_put_cstr(ds, ",\"summary\":");
    if (snap->with_summary) {
        kd_report_json_summary(ds, snap->rows, sample->n_threads,
                               kd_window_ns(&snap->window));
    } else {
        kd_json_null(ds);
    }
    kd_render_json_warnings(ds, &snap->losses, &snap->total);
    kd_ds_put_cstr(ds, ",\"target_exited\":");
    kd_json_bool(ds, snap->window.target_exited);
    kd_ds_put_cstr(ds, "}\n");
}

void
kd_render_json_exited_waiting(struct kd_ds *ds, unsigned int tgid)
{
    kd_ds_put_format(ds, "{\"version\":%d,\"pid\":%u,\"target_exited\":"
                     "true,\"waiting_for\":\"start trigger\"}\n",
                     KD_JSON_VERSION, tgid);
}

/* A name of KD_COMM_LEN bytes, maybe without its NUL. */
static void
kd_render_json_comm(struct kd_ds *ds, const char comm[KD_COMM_LEN])
{
    char name[KD_COMM_LEN + 1];

    snprintf(name, sizeof name, "%.*s", KD_COMM_LEN, comm);
    kd_json_string(ds, name);
}

static void
kd_render_json_gap_syscall(struct kd_ds *ds, const struct kd_gap_syscall *s)
{
    kd_ds_put_format(ds, "\"count\":%" PRIu32 ",\"total_ns\":%" PRIu64
                     ",\"blocked_ns\":%" PRIu64 "}", s->count, s->total_ns,
                     s->blocked_ns);
}

void
kd_render_json_gap(struct kd_ds *ds, const struct kd_gap *gap,
                   const struct kd_losses *total)
{
    bool first = true;

    kd_ds_put_format(ds, "{\"version\":%d,\"type\":\"long_poll\","
                     "\"index\":%u,\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
                     ",\"name\":", KD_JSON_VERSION, gap->index, gap->pid,
                     gap->tid);
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
    kd_render_json_warnings(ds, total, total);
    kd_ds_put_cstr(ds, "}\n");
}

void
kd_render_json_watch_end(struct kd_ds *ds, unsigned int tgid,
                         const struct kd_losses *total,
                         unsigned int reported, bool target_exited)
{
    kd_ds_put_format(ds, "{\"version\":%d,\"type\":\"long_poll_end\","
                     "\"pid\":%u,\"reported\":%u", KD_JSON_VERSION,
                     tgid, reported);
    kd_render_json_warnings(ds, total, total);
    kd_ds_put_cstr(ds, ",\"target_exited\":");
    kd_json_bool(ds, target_exited);
    kd_ds_put_cstr(ds, "}\n");
}
