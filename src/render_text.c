/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The text report of a sample or a long poll interval, from a snapshot. */

#include "render_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gap.h"
#include "hist.h"
#include "render_text_gap.h"
#include "report.h"
#include "snapshot.h"
#include "summary.h"
#include "syscalls.h"

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

/* bcc's stars: 'val' of 'val_max' on 'width' characters. */
static void
kd_render_text_hist_stars(struct kd_ds *ds, uint64_t val, uint64_t val_max,
                          int width)
{
    int n = val_max ? (int) ((double) width * val / val_max) : 0;

    n = n < width ? n : width;
    kd_ds_put_char_multiple(ds, '*', n);
    kd_ds_put_char_multiple(ds, ' ', width - n);
}

void
kd_render_text_hist(struct kd_ds *ds,
                    const uint64_t counts_[KD_HIST_SLOTS], uint64_t max)
{
    struct kd_hist_percentiles p;
    uint64_t counts[KD_HIST_SLOTS];
    uint64_t val_max = 0;
    int idx_max = -1, stars = 40;
    char a[32], b[32], c[32], d[32];
    bool wide;

    /* The percentiles of the slots as counted; slot 0 (the value 0) is
     * shown with slot 1, as bcc shows it, "0 -> 1". */
    kd_hist_percentiles(counts_, max, &p);
    memcpy(counts, counts_, sizeof counts);
    counts[1] += counts[0];
    counts[0] = 0;
    for (int i = 1; i < KD_HIST_SLOTS; i++) {
        if (counts[i]) {
            idx_max = i;
        }
        if (counts[i] > val_max) {
            val_max = counts[i];
        }
    }
    if (idx_max < 1) {
        return;
    }
    wide = idx_max > 32;
    if (wide) {
        stars /= 2;
        kd_ds_put_format(ds, KD_REPORT_INDENT "               %-29s : "
                         "count     distribution\n", "ns");
    } else {
        kd_ds_put_format(ds, KD_REPORT_INDENT "     %-19s : count     "
                         "distribution\n", "ns");
    }
    for (int i = 1; i <= idx_max; i++) {
        uint64_t low, high;

        kd_hist_range(i, &low, &high);
        kd_ds_put_format(ds, wide ? KD_REPORT_INDENT "%20" PRIu64 " -> %-20"
                                    PRIu64 " : %-8" PRIu64 " |"
                                  : KD_REPORT_INDENT "%10" PRIu64 " -> %-10"
                                    PRIu64 " : %-8" PRIu64 " |",
                         low, high, counts[i]);
        kd_render_text_hist_stars(ds, counts[i], val_max, stars);
        kd_ds_put_cstr(ds, "|\n");
    }
    kd_ds_put_format(ds, KD_REPORT_INDENT "p50 <= %s ns, p90 <= %s ns, "
                     "p99 <= %s ns, max %s ns\n",
                     kd_report_thousands(p.p50, a),
                     kd_report_thousands(p.p90, b),
                     kd_report_thousands(p.p99, c),
                     kd_report_thousands(p.max, d));
}

/* Thread 't''s histogram of 'what', if it has one. */
static void
kd_render_text_thread_hist(struct kd_ds *ds, const struct kd_thread *t,
                           uint32_t what, uint64_t max)
{
    uint64_t counts[KD_HIST_SLOTS];

    if (t->n_hists && kd_hist_counts(t, what, counts)) {
        kd_render_text_hist(ds, counts, max);
    }
}

/* 'part' of 'whole' as a percentage, "12.3%", in 'buf'. */
static const char *
kd_render_text_percent(uint64_t part, uint64_t whole, char *buf,
                       size_t size)
{
    snprintf(buf, size, "%.1f%%", whole ? 100.0 * part / whole : 0.0);
    return buf;
}

/* The tasks that held the CPU while each thread that waited in the run
 * queue waited, the three longest: "NAME[TID/PID] SHARE" each. */
static void
kd_render_text_ran_instead(struct kd_ds *ds,
                           const struct kd_summary_row *rows, size_t n)
{
    bool any = false;

    for (size_t i = 0; i < n && !any; i++) {
        any = rows[i].ready_ns && rows[i].n_ran;
    }
    if (!any) {
        return;
    }
    kd_ds_put_format(ds, "# Ran instead, while each thread waited in the "
                     "run queue (the longest three):\n%-10s %-16s %s\n",
                     "TID", "THREAD", "TASK[TID/PID] SHARE OF THE WAIT");
    for (size_t i = 0; i < n; i++) {
        const struct kd_summary_row *r = &rows[i];

        if (!r->ready_ns || !r->n_ran) {
            continue;
        }
        kd_ds_put_format(ds, "%10" PRIu32 " ", r->tid);
        kd_report_field(ds, r->name, 16, true, false);
        for (size_t j = 0; j < r->n_ran && j < 3; j++) {
            const struct kd_ran_entry *e = &r->ran[j];
            char name[KD_COMM_LEN + 1], share[16];

            kd_ds_put_cstr(ds, j ? ", " : " ");
            if (kd_summary_ran_name(e, name)) {
                kd_ds_put_safe_cstr(ds, name);
                kd_ds_put_format(ds, "[%" PRIu32 "/%" PRIu32 "]",
                                 e->key.other, e->ran.pid);
            } else {
                kd_ds_put_cstr(ds, "(not known)");
            }
            kd_ds_put_format(ds, " %s",
                             kd_render_text_percent(e->ran.ns, r->ready_ns,
                                                    share, sizeof share));
        }
        kd_ds_put_char(ds, '\n');
    }
}

/* One row of the summary table: the shares of the window, then the
 * longest wait. */
static void
kd_render_text_summary_row(struct kd_ds *ds,
                           const struct kd_summary_row *r,
                           uint64_t window_ns)
{
    static const int widths[] = { 7, 10, 8, 9, 9, 9 };
    const uint64_t parts[] = {
        r->run_ns, r->ready_ns, r->stop_ns, r->hardirq_ns, r->softirq_ns,
        r->syscall_ns,
    };
    char share[16];

    kd_ds_put_format(ds, "%10" PRIu32 " ", r->tid);
    kd_report_field(ds, r->name, 16, true, false);
    for (size_t i = 0; i < KD_ARRAY_SIZE(parts); i++) {
        kd_ds_put_format(ds, " %*s", widths[i],
                         kd_render_text_percent(parts[i], window_ns, share,
                                                sizeof share));
    }
    kd_ds_put_cstr(ds, "  ");
    kd_report_num(ds, r->max_ready_ns, 16);
    kd_ds_put_char(ds, '\n');
}

void
kd_render_text_summary(struct kd_ds *ds, const struct kd_summary_row *rows,
                       size_t n, uint64_t window_ns)
{
    char share[16], num[32], num2[32];
    char name[KD_COMM_LEN + 1];

    kd_ds_put_format(ds, "\n# SUMMARY: share of the %.1f ms sample window "
                     "spent\n", window_ns / 1e6);
    kd_ds_put_format(ds, "%-10s %-16s %7s %10s %8s %9s %9s %9s  %16s\n",
                     "TID", "THREAD", "ON CPU", "RUN QUEUE", "STOPPED",
                     "HARD IRQ", "SOFT IRQ", "SYSCALLS", "LONGEST WAIT ns");
    for (size_t i = 0; i < n; i++) {
        kd_render_text_summary_row(ds, &rows[i], window_ns);
    }
    if (n && rows[0].ready_ns) {
        kd_ds_put_cstr(ds, "# Longest in the run queue: ");
        kd_ds_put_safe_cstr(ds, rows[0].name);
        kd_ds_put_format(ds, " (TID %" PRIu32
                         "), %s ns in all (%s of the window), %s ns at "
                         "most", rows[0].tid,
                         kd_report_thousands(rows[0].ready_ns, num),
                         kd_render_text_percent(rows[0].ready_ns, window_ns,
                                                share, sizeof share),
                         kd_report_thousands(rows[0].max_ready_ns, num2));
        if (rows[0].n_ran && kd_summary_ran_name(&rows[0].ran[0], name)) {
            kd_ds_put_cstr(ds, ", mostly behind ");
            kd_ds_put_safe_cstr(ds, name);
            kd_ds_put_format(ds, " (TID %" PRIu32 " of PID %" PRIu32 ")",
                             rows[0].ran[0].key.other,
                             rows[0].ran[0].ran.pid);
        }
        kd_ds_put_cstr(ds, ".\n");
        kd_render_text_ran_instead(ds, rows, n);
    } else {
        kd_ds_put_cstr(ds, "# No thread waited in the run queue.\n");
    }
}

/* Thread 't''s syscall table, then, with --histogram, the latency
 * histogram of each of its syscalls. */
static void
kd_render_text_syscalls(struct kd_ds *ds, const struct kd_thread *t)
{
    kd_report_syscalls(ds, t);
    for (size_t i = 0; t->n_hists && i < t->n_syscalls; i++) {
        const struct kd_syscall_entry *e = &t->syscalls[i];
        uint64_t counts[KD_HIST_SLOTS];
        char name[64];

        if (kd_hist_counts(t, e->key.nr, counts)) {
            kd_ds_put_format(ds, "\n" KD_REPORT_INDENT
                             "[SYSCALL LATENCY: %s]\n",
                             kd_syscall_format(e->key.nr, name,
                                               sizeof name));
            kd_render_text_hist(ds, counts, e->stat.max_ns);
        }
    }
}

void
kd_render_text_threads(struct kd_ds *ds, const struct kd_sample *sample)
{
    /* The histogram that follows each statistics section, or -1. */
    static const int64_t hists[KD_N_REPORT_STATS] = {
        [KD_REPORT_POLL] = -1, [KD_REPORT_RUN] = KD_HIST_RUN,
        [KD_REPORT_READY] = KD_HIST_READY, [KD_REPORT_STOP] = -1,
    };

    kd_report_threads_header(ds);
    for (size_t i = 0; i < sample->n_threads; i++) {
        const struct kd_thread *t = &sample->threads[i];

        if (i) {
            kd_ds_put_char(ds, '\n');
        }
        kd_report_thread_line(ds, t);
        kd_render_text_syscalls(ds, t);
        for (int j = 0; j < KD_N_REPORT_STATS; j++) {
            const struct kd_stat *st = kd_report_stat(ds, t, j);

            if (st && hists[j] >= 0) {
                kd_render_text_thread_hist(ds, t, hists[j], st->max_ns);
            }
        }
        kd_report_irqs(ds, t);
    }
}

/* Where the syscall events would be, when the sample has none (the
 * reference prints nothing): a line that says so. */
static void
kd_render_text_no_events(struct kd_ds *ds, const struct kd_snapshot *snap)
{
    const char *whose = snap->filtered ? " of the threads reported" : "";
    char num[32];

    if (snap->events_over_ns) {
        kd_ds_put_format(ds, "\n\n# No syscall%s longer than %s ns in this "
                         "sample.\n", whose,
                         kd_report_thousands(snap->events_over_ns, num));
    } else {
        kd_ds_put_format(ds, "\n\n# No syscall%s in this sample.\n", whose);
    }
}

/* The syscall events, their stacks, and the warning about the stacks that
 * could not be kept. */
static void
kd_render_text_events(struct kd_ds *ds, const struct kd_snapshot *snap,
                      const struct kd_ds_sink *sink)
{
    for (size_t i = 0; i < snap->n_events; i++) {
        const struct kd_snapshot_event *e = &snap->events[i];

        if (!i && snap->with_wall_clock) {
            kd_report_events_header_wall(ds);
        } else if (!i) {
            kd_report_events_header(ds);
        }
        if (snap->with_wall_clock) {
            struct timespec entry = kd_snapshot_wall(snap, e->entry_ns);
            struct timespec exit = kd_snapshot_wall(snap, e->exit_ns);

            kd_report_event_wall(ds, &entry, &exit,
                                 e->exit_ns > e->entry_ns
                                 ? e->exit_ns - e->entry_ns : 0,
                                 e->tid, e->name, e->syscall);
        } else {
            kd_report_event(ds, e->entry_ns, e->exit_ns, e->tid, e->name,
                            e->syscall);
        }
        if (snap->with_stacks) {
            kd_render_text_stack(ds, snap, e->kernel_stack_id);
            kd_render_text_stack(ds, snap, e->user_stack_id);
        }
        kd_ds_sink_put(ds, sink);
    }
    if (!snap->n_events) {
        kd_render_text_no_events(ds, snap);
    }
    kd_report_lost_stacks(ds, snap->losses.lost_stacks);
}

/* The entries the maps could not create during the sample. */
static void
kd_render_text_lost(struct kd_ds *ds, const uint64_t lost[KD_N_FULL_MAPS],
                    const char *subject)
{
    uint64_t total = 0;

    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        total += lost[i];
    }
    if (!total) {
        return;
    }
    kd_ds_put_format(ds, "\n# WARNING: %" PRIu64 " %s not counted "
                     "because eBPF maps were full:", total,
                     total == 1 ? "event was" : "events were");
    for (int i = 0; i < KD_N_FULL_MAPS; i++) {
        if (lost[i]) {
            kd_ds_put_format(ds, " %s %" PRIu64,
                             kd_losses_map_name(i), lost[i]);
        }
    }
    kd_ds_put_format(ds, ".\n#          %s; size the maps for more\n"
                     "#          threads with the --max-threads option.\n",
                     subject);
}

/* The events the kernel did not run a program of ours for, during the
 * sample: it skips a BPF program that would run on a CPU where a BPF
 * program is already running (bpf_prog_info.recursion_misses). */
static void
kd_render_text_misses(struct kd_ds *ds, const struct kd_losses *losses,
                      const char *subject)
{
    uint64_t total = kd_losses_misses(losses);

    if (!total) {
        return;
    }
    kd_ds_put_format(ds, "\n# WARNING: The kernel skipped kernel_delay's "
                     "eBPF programs %" PRIu64 " time%s,\n#          as "
                     "another eBPF program was running on the same CPU:",
                     total, total == 1 ? "" : "s");
    for (size_t i = 0; i < losses->n_misses; i++) {
        kd_ds_put_format(ds, " ");
        kd_ds_put_safe_cstr(ds, losses->misses[i].hook);
        kd_ds_put_format(ds, " %" PRIu64, losses->misses[i].count);
    }
    kd_ds_put_format(ds, ".\n#          %s.\n", subject);
}

/* What the capture missed, in 'losses': map entries and the kernel's
 * skips, 'incomplete' and 'missed' saying what the first two mean for
 * the report, and context switches, 'effect' saying what the last mean. */
static void
kd_render_text_missed(struct kd_ds *ds, const struct kd_losses *losses,
                      const char *incomplete, const char *missed,
                      const char *effect)
{
    uint64_t n = losses->switches_missed;

    kd_render_text_lost(ds, losses->map_full, incomplete);
    kd_render_text_misses(ds, losses, missed);
    if (n) {
        kd_ds_put_format(ds, "\n# WARNING: kernel_delay's eBPF programs did "
                         "not see %" PRIu64 " context switch%s\n#          "
                         "of the traced threads, which the kernel made "
                         "without running\n#          the sched_switch "
                         "tracepoint: a turn whose start was not seen is "
                         "timed\n#          by the kernel's own run time of "
                         "its thread%s", n, n == 1 ? "" : "es", effect);
    }
}

/* --profile-hz, --off-cpu: each thread's on-CPU stacks and where it
 * slept in the sample, for those that have any. */
static void
kd_render_text_thread_stacks(struct kd_ds *ds,
                             const struct kd_snapshot *snap)
{
    const struct kd_losses *l = &snap->losses;

    if (!snap->thread_stacks) {
        return;
    }
    kd_ds_put_cstr(ds, "\n# Stacks of the threads (--profile-hz, "
                   "--off-cpu):\n");
    for (size_t i = 0; i < snap->sample.n_threads; i++) {
        const struct kd_gap *gap = &snap->thread_stacks[i];

        if (!gap->samples && !gap->n_sleeps && !gap->n_blocked) {
            continue;
        }
        kd_ds_put_format(ds, "\n%10" PRIu32 " ", gap->tid);
        kd_report_field(ds, gap->name, 16, true, false);
        kd_ds_put_char(ds, '\n');
        kd_render_text_gap_stacks(ds, gap);
        kd_render_text_gap_blocked(ds, gap);
    }
    if (l->lost_samples || l->lost_sleeps) {
        kd_ds_put_format(ds, "\n# %" PRIu64 " samples and %" PRIu64
                         " sleeps found no room in the maps (raise "
                         "--stack-trace-size).\n", l->lost_samples,
                         l->lost_sleeps);
    }
}

void
kd_render_text_sample(struct kd_ds *ds, const struct kd_snapshot *snap,
                      const struct kd_ds_sink *sink)
{
    const struct kd_sample *sample = &snap->sample;

    kd_render_text_threads(ds, sample);
    if (snap->filtered && !sample->n_threads) {
        kd_ds_put_format(ds, "# No thread of process %u matched --thread or "
                         "--tid in this sample.\n", snap->tgid);
    }
    kd_report_upcalls(ds, sample->upcalls, sample->n_upcalls,
                      sample->n_cpus);
    if (snap->losses.upcall_module_gone) {
        kd_ds_put_cstr(ds, "\n# WARNING: Kernel module ");
        kd_ds_put_safe_cstr(ds, snap->losses.upcall_module_gone);
        kd_ds_put_cstr(ds, " was unloaded: upcalls are not counted "
                       "since.\n");
    }
    kd_render_text_thread_stacks(ds, snap);
    kd_ds_sink_put(ds, sink);
    if (snap->with_events) {
        kd_render_text_events(ds, snap, sink);
    }
    if (snap->with_summary) {
        kd_render_text_summary(ds, snap->rows, sample->n_threads,
                               kd_window_ns(&snap->window));
    }
    kd_render_text_missed(ds, &snap->losses,
                          "The statistics above are incomplete",
                          "The statistics above miss those events",
                          "; a thread seen switching\n"
                          "#          in twice is one RUN and READY short.\n");
}

void
kd_render_text_watch_end(struct kd_ds *ds, unsigned int tgid,
                         const struct kd_losses *total,
                         unsigned int reported, bool target_exited)
{
    kd_ds_put_format(ds, "\n# %u long poll interval%s reported.\n",
                     reported, reported == 1 ? "" : "s");
    kd_render_text_missed(ds, total,
                          reported ? "The intervals above are incomplete"
                                   : "An interval may have gone unreported",
                          reported ? "The intervals above miss those events"
                                   : "An interval may have gone unreported",
                          "; what is still not\n"
                          "#          known is unaccounted.\n");
    kd_render_text_final(ds, total, 1);
    if (target_exited) {
        kd_ds_put_format(ds, "\n# NOTE: Process %u exited.\n", tgid);
    }
}

/* The user stacks unwound from the CFI that were cut short, and why. */
static void
kd_render_text_stacks_cut(struct kd_ds *ds, const struct kd_losses *total)
{
    uint64_t cut = kd_losses_stacks_cut(total);
    uint64_t all = cut + total->user_stacks[KD_UW_END_WHOLE];
    const char *sep = "";

    if (!cut) {
        return;
    }
    kd_ds_put_format(ds, "\n# NOTE: %" PRIu64 " of %" PRIu64 " user stacks "
                     "were cut short (", cut, all);
    for (unsigned int i = 0; i < KD_UW_N_ENDS; i++) {
        if (i != KD_UW_END_WHOLE && total->user_stacks[i]) {
            kd_ds_put_format(ds, "%s%s: %" PRIu64, sep,
                             kd_losses_uw_end_text(i), total->user_stacks[i]);
            sep = ", ";
        }
    }
    kd_ds_put_cstr(ds, ");\n#       each ends with a \"[stack cut short: "
                   "...]\" frame.\n");
}

void
kd_render_text_final(struct kd_ds *ds, const struct kd_losses *total,
                     unsigned int sample_count)
{
    kd_render_text_stacks_cut(ds, total);
    if (total->events_dropped) {
        kd_ds_put_format(ds, "\n# WARNING: Not all events were captured, "
                         "%" PRIu64 " were dropped!\n#          Increase "
                         "the BPF ring buffer size with the "
                         "--buffer-page-count option.\n",
                         total->events_dropped);
    }
    if (sample_count > 1 && total->triggers_missed) {
        kd_ds_put_format(ds, "\n# WARNING: Not all start triggers were "
                         "successful. %" PRIu64 " were missed due to\n#"
                         "          slow userspace processing!\n",
                         total->triggers_missed);
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

void
kd_render_text_wait_end(struct kd_ds *ds, const char *what,
                        uint64_t waited_ns)
{
    kd_ds_put_format(ds, "kernel_delay: no start trigger fired in %.1f s (",
                     waited_ns / 1e9);
    kd_ds_put_safe_cstr(ds, what);
    kd_ds_put_cstr(ds, ")\n");
}

void
kd_render_text_target(struct kd_ds *ds, enum kd_target_event event,
                      unsigned int tgid, const struct timespec *now)
{
    char line[96];

    switch (event) {
    case KD_TARGET_ATTACHED:
        snprintf(line, sizeof line, "\n# Attached to process %u", tgid);
        break;
    case KD_TARGET_LOST:
        snprintf(line, sizeof line, "\n# Lost process %u; waiting for "
                 "ovs-vswitchd", tgid);
        break;
    case KD_TARGET_WAITING:
    case KD_N_TARGET_EVENTS:
    default:
        snprintf(line, sizeof line, "# Waiting for ovs-vswitchd");
        break;
    }
    kd_report_timestamp(ds, line, now);
}
