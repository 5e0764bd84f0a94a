/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#include "render_text.h"

#include <inttypes.h>

#include "report.h"
#include "snapshot.h"

/* Writes 'ds' out to 'out' (if not NULL) once it holds 64 kB. */
static void
kd_render_flush(struct kd_ds *ds, FILE *out)
{
    if (out) {
        kd_ds_flush(ds, out, 1 << 16);
    }
}

static void
kd_render_text_stack(struct kd_ds *ds, const struct kd_snapshot *snap,
                     int32_t id)
{
    if (id >= 0 && (size_t) id < snap->n_stacks) {
        const struct kd_stack *stack = &snap->stacks[id];

        for (size_t i = 0; i < stack->n_frames; i++) {
            kd_report_frame(ds, stack->frames[i]);
        }
    }
}

/* The syscall events, their stacks, and the warning about the stacks that
 * could not be kept. */
static void
kd_render_text_events(struct kd_ds *ds, const struct kd_snapshot *snap,
                      FILE *out)
{
    for (size_t i = 0; i < snap->n_events; i++) {
        const struct kd_snapshot_event *e = &snap->events[i];

        if (!i) {
            kd_report_events_header(ds);
        }
        kd_report_event(ds, e->entry_ns, e->exit_ns, e->tid, e->name,
                        e->syscall);
        if (snap->with_stacks) {
            kd_render_text_stack(ds, snap, e->kernel_stack_id);
            kd_render_text_stack(ds, snap, e->user_stack_id);
        }
        kd_render_flush(ds, out);
    }
    kd_report_lost_stacks(ds, snap->lost_stacks);
}

/* The entries the maps could not create during the sample. */
static void
kd_render_text_lost(struct kd_ds *ds, const uint64_t lost[KD_N_FULL_MAPS])
{
    uint64_t total = 0;

    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        total += lost[i];
    }
    if (!total) {
        return;
    }
    kd_ds_put_format(ds, "\n# WARNING: %" PRIu64 " events were not counted "
                     "because eBPF maps were full:", total);
    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        if (lost[i]) {
            kd_ds_put_format(ds, " %s %" PRIu64, kd_full_map_name(i),
                             lost[i]);
        }
    }
    kd_ds_put_cstr(ds, ".\n#          The statistics above are incomplete; "
                   "size the maps for more\n#          threads with the "
                   "--max-threads option.\n");
}

/* The events the kernel did not run a program of ours for, during the
 * sample: it skips a BPF program that would run on a CPU where a BPF
 * program is already running (bpf_prog_info.recursion_misses). */
static void
kd_render_text_misses(struct kd_ds *ds, const struct kd_snapshot *snap)
{
    uint64_t total = 0;

    for (size_t i = 0; i < snap->n_misses; i++) {
        total += snap->misses[i].count;
    }
    if (!total) {
        return;
    }
    kd_ds_put_format(ds, "\n# WARNING: The kernel skipped kernel_delay's "
                     "eBPF programs %" PRIu64 " times,\n#          as "
                     "another eBPF program was running on the same CPU:",
                     total);
    for (size_t i = 0; i < snap->n_misses; i++) {
        kd_ds_put_format(ds, " ");
        kd_ds_put_safe_cstr(ds, snap->misses[i].hook);
        kd_ds_put_format(ds, " %" PRIu64, snap->misses[i].count);
    }
    kd_ds_put_cstr(ds, ".\n#          The statistics above miss those "
                   "events.\n");
}

void
kd_render_text_sample(struct kd_ds *ds, const struct kd_snapshot *snap,
                      FILE *out)
{
    const struct kd_sample *sample = &snap->sample;

    kd_report_sample(ds, sample);
    kd_report_upcalls(ds, sample->upcalls, sample->n_upcalls,
                      sample->n_cpus);
    if (snap->upcall_module_gone) {
        kd_ds_put_cstr(ds, "\n# WARNING: Kernel module ");
        kd_ds_put_safe_cstr(ds, snap->upcall_module);
        kd_ds_put_cstr(ds, " was unloaded: upcalls are not counted "
                       "since.\n");
    }
    kd_render_flush(ds, out);
    if (snap->with_events) {
        kd_render_text_events(ds, snap, out);
    }
    if (snap->with_summary) {
        kd_report_summary(ds, snap->rows, sample->n_threads,
                          kd_window_ns(&snap->window));
    }
    kd_render_text_lost(ds, snap->lost);
    kd_render_text_misses(ds, snap);
    if (snap->switches_missed) {
        kd_ds_put_format(ds, "\n# WARNING: kernel_delay's eBPF programs did "
                         "not see %" PRIu64 " context switches\n#          "
                         "of the traced threads (a thread switched out "
                         "without having switched\n#          in, or in "
                         "twice): the RUN and READY counts above are short "
                         "by\n#          as many.\n", snap->switches_missed);
    }
}

void
kd_render_text_final(struct kd_ds *ds,
                     const uint64_t counters[KD_N_COUNTERS],
                     unsigned int sample_count)
{
    if (counters[KD_COUNTER_EVENTS_DROPPED]) {
        kd_ds_put_format(ds, "\n# WARNING: Not all events were captured, "
                         "%" PRIu64 " were dropped!\n#          Increase "
                         "the BPF ring buffer size with the "
                         "--buffer-page-count option.\n",
                         counters[KD_COUNTER_EVENTS_DROPPED]);
    }
    if (sample_count > 1 && counters[KD_COUNTER_TRIGGERS_MISSED]) {
        kd_ds_put_format(ds, "\n# WARNING: Not all start triggers were "
                         "successful. %" PRIu64 " were missed due to\n#"
                         "          slow userspace processing!\n",
                         counters[KD_COUNTER_TRIGGERS_MISSED]);
    }
}

void
kd_render_text_exited(struct kd_ds *ds, unsigned int tgid, bool waiting)
{
    if (waiting) {
        kd_ds_put_format(ds, "# NOTE: Process %u exited while waiting for "
                         "the start trigger.\n", tgid);
    } else {
        kd_ds_put_format(ds, "\n# NOTE: Process %u exited during the "
                         "sample; the sample above ends there.\n", tgid);
    }
}
