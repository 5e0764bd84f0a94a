/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The text report of a sample or a long poll interval, from a snapshot. */

#include "render_text.h"

#include <inttypes.h>
#include <stdlib.h>

#include "gap.h"
#include "report.h"
#include "snapshot.h"
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

static void kd_render_text_gap_stacks(struct kd_ds *, const struct kd_gap *);
static void kd_render_text_gap_blocked(struct kd_ds *,
                                       const struct kd_gap *);

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

    kd_report_sample(ds, sample);
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
        kd_report_summary(ds, snap->rows, sample->n_threads,
                          kd_window_ns(&snap->window));
    }
    kd_render_text_missed(ds, &snap->losses,
                          "The statistics above are incomplete",
                          "The statistics above miss those events",
                          "; a thread seen switching\n"
                          "#          in twice is one RUN and READY short.\n");
}

/* 'value' of 'whole' as a percentage, on 7 columns. */
static void
kd_render_text_share(struct kd_ds *ds, double value, uint64_t whole)
{
    kd_ds_put_format(ds, "%7.1f%%", whole ? 100.0 * value / whole : 0.0);
}

/* A signed number of ns, with thousands separators, on 'width' columns. */
static void
kd_render_text_signed(struct kd_ds *ds, int64_t value, int width)
{
    char buf[32], num[34];

    snprintf(num, sizeof num, "%s%s", value < 0 ? "-" : "",
             kd_report_thousands(value < 0 ? -(uint64_t) value
                                           : (uint64_t) value,
                                 buf));
    kd_report_field(ds, num, width, false, false);
}

static void
kd_render_text_gap_parts(struct kd_ds *ds, const struct kd_gap *gap)
{
    char num[32];

    kd_ds_put_cstr(ds, "\n" KD_REPORT_INDENT "[WHERE THE TIME WENT]\n"
                   KD_REPORT_INDENT "PART                              "
                   "TOTAL ns    SHARE\n");
    for (int i = 0; i < KD_N_GAP_PARTS; i++) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-24s  ",
                         kd_gap_part_label(i));
        if (i == KD_GAP_UNACCOUNTED) {
            kd_render_text_signed(ds, gap->unaccounted_ns, 16);
            kd_render_text_share(ds, gap->unaccounted_ns, kd_gap_ns(gap));
        } else {
            kd_report_num(ds, gap->parts[i], 16);
            kd_render_text_share(ds, gap->parts[i], kd_gap_ns(gap));
        }
        kd_ds_put_char(ds, '\n');
    }
    kd_ds_put_format(ds, KD_REPORT_INDENT "RUN-QUEUE WAITS %" PRIu64
                     ", PREEMPTIONS %" PRIu64 ", SLEEPS %" PRIu64 "\n",
                     gap->waits, gap->preemptions, gap->sleeps);
    kd_ds_put_cstr(ds, KD_REPORT_INDENT "ON CPU: USER ");
    kd_ds_put_cstr(ds, kd_report_thousands(gap->on_cpu_user_ns, num));
    kd_ds_put_cstr(ds, " ns, SYSTEM ");
    kd_ds_put_cstr(ds, kd_report_thousands(gap->on_cpu_kernel_ns, num));
    kd_ds_put_cstr(ds, " ns\n");
}

static void
kd_render_text_gap_syscalls(struct kd_ds *ds, const struct kd_gap *gap)
{
    if (!gap->n_syscalls) {
        return;
    }
    kd_ds_put_cstr(ds, "\n" KD_REPORT_INDENT "[SYSCALLS]\n"
                   KD_REPORT_INDENT);
    kd_report_syscalls_header(ds, "BLOCKED ns");
    for (size_t i = 0; i < gap->n_syscalls; i++) {
        const struct kd_gap_syscall *s = &gap->syscalls[i];
        char name[64];

        kd_report_syscall_row(ds, kd_syscall_format(s->nr, name,
                                                    sizeof name),
                              s->nr, s->count, s->total_ns, s->blocked_ns);
    }
    if (gap->other_syscalls.count) {
        kd_report_syscall_row(ds, "(others)", -1, gap->other_syscalls.count,
                              gap->other_syscalls.total_ns,
                              gap->other_syscalls.blocked_ns);
    }
    if (gap->open_syscall >= 0) {
        char name[64], num[32];

        kd_ds_put_format(ds, KD_REPORT_INDENT "IN PROGRESS: %s, entered "
                         "%s ns ago\n",
                         kd_syscall_format(gap->open_syscall, name,
                                           sizeof name),
                         kd_report_thousands(gap->open_syscall_ns, num));
    }
}

static void
kd_render_text_gap_ran(struct kd_ds *ds, const struct kd_gap *gap)
{
    uint64_t wait = gap->parts[KD_GAP_RUN_QUEUE];

    if (!wait) {
        return;
    }
    kd_ds_put_format(ds, "\n" KD_REPORT_INDENT "[RAN INSTEAD]\n"
                     KD_REPORT_INDENT "%-10s %-10s %-16s  %16s    SHARE\n",
                     "TID", "PID", "NAME", "TOTAL ns");
    for (size_t i = 0; i < gap->n_ran; i++) {
        const struct kd_gap_ran *r = &gap->ran[i];
        char name[KD_COMM_LEN + 1];

        kd_fixed_cstr(name, r->comm, sizeof r->comm);
        kd_ds_put_format(ds, KD_REPORT_INDENT "%10" PRIu32 " %10" PRIu32 " ",
                         r->tid, r->pid);
        kd_report_field(ds, name, 16, true, false);
        kd_ds_put_cstr(ds, "  ");
        kd_report_num(ds, r->ns, 16);
        kd_render_text_share(ds, r->ns, wait);
        kd_ds_put_char(ds, '\n');
    }
    if (gap->ran_others_ns) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-38s  ",
                         "(others, or not known)");
        kd_report_num(ds, gap->ran_others_ns, 16);
        kd_render_text_share(ds, gap->ran_others_ns, wait);
        kd_ds_put_char(ds, '\n');
    }
}

/* How many of an interval's on-CPU stacks the text shows; JSON has them
 * all. */
#define KD_TEXT_STACKS 5

/* The label of stack 'i' (from 0) of a table: its number, and whether it
 * was 'lost' or how many it stands for. */
static void
kd_render_text_stack_label(char *label, size_t size, size_t i, bool lost,
                           size_t merged)
{
    if (lost) {
        snprintf(label, size, "#%zu (stack lost)", i + 1);
    } else if (merged > 1) {
        snprintf(label, size, "#%zu (%zu merged)", i + 1, merged);
    } else {
        snprintf(label, size, "#%zu", i + 1);
    }
}

/* One line of the [ON CPU STACKS] table: 'samples' of 'whole', 'ns'. */
static void
kd_render_text_stack_row(struct kd_ds *ds, const char *label,
                         uint32_t samples, uint32_t whole, uint64_t ns)
{
    kd_ds_put_format(ds, KD_REPORT_INDENT "%-22s %7" PRIu32 " ", label,
                     samples);
    kd_render_text_share(ds, samples, whole);
    kd_ds_put_cstr(ds, "  ");
    kd_report_num(ds, ns, 16);
    kd_ds_put_char(ds, '\n');
}

/* 'f''s frames, indented by 'indent' more spaces. */
static void
kd_render_text_frames(struct kd_ds *ds, const struct kd_frames *f,
                      int indent)
{
    for (size_t j = 0; j < f->n; j++) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%*s", indent, "");
        kd_ds_put_safe_cstr(ds, f->v[j]);
        kd_ds_put_char(ds, '\n');
    }
}

static void
kd_render_text_gap_stacks(struct kd_ds *ds, const struct kd_gap *gap)
{
    uint32_t rest = 0;
    uint64_t rest_ns = 0;

    if (!gap->profile_hz) {
        return;
    }
    kd_ds_put_format(ds, "\n" KD_REPORT_INDENT "[ON CPU STACKS] %" PRIu32
                     " samples at %u Hz\n" KD_REPORT_INDENT
                     "%-22s %7s %8s  %16s\n", gap->samples, gap->profile_hz,
                     "STACK", "SAMPLES", "SHARE", "EST. ON CPU ns");
    for (size_t i = 0; i < gap->n_stacks; i++) {
        const struct kd_gap_profile_stack *st = &gap->stacks[i];
        struct kd_frames f;
        char label[64];

        if (i >= KD_TEXT_STACKS) {
            rest += st->samples;
            rest_ns += st->ns;
            continue;
        }
        kd_render_text_stack_label(label, sizeof label, i, st->lost,
                                   st->merged);
        kd_render_text_stack_row(ds, label, st->samples, gap->samples,
                                 st->ns);
        f = kd_gap_stack_frames(st);
        kd_render_text_frames(ds, &f, 2);
    }
    rest += gap->other_samples;
    rest_ns += gap->other_ns;
    if (rest) {
        kd_render_text_stack_row(ds, "(other stacks)", rest, gap->samples,
                                 rest_ns);
    }
    if (gap->lost_samples) {
        kd_render_text_stack_row(ds, "(no room in the map)",
                                 gap->lost_samples, gap->samples,
                                 gap->lost_ns);
    }
}

/* How many of an interval's (blocked stack, waker) pairs the text shows;
 * JSON has them all. */
#define KD_TEXT_BLOCKED 5

/* One line of the [BLOCKED] table. */
static void
kd_render_text_blocked_row(struct kd_ds *ds, const char *label,
                           uint64_t count, uint64_t sleep_ns,
                           uint64_t ready_ns)
{
    kd_ds_put_format(ds, KD_REPORT_INDENT "%-22s %7" PRIu64 "  ", label,
                     count);
    kd_report_num(ds, sleep_ns, 16);
    kd_ds_put_cstr(ds, "  ");
    kd_report_num(ds, ready_ns, 16);
    kd_ds_put_char(ds, '\n');
}

/* "woken by: ..." of pair 'b'. */
static void
kd_render_text_waker(struct kd_ds *ds, const struct kd_gap_blocked *b)
{
    kd_ds_put_cstr(ds, KD_REPORT_INDENT "  woken by: ");
    if (!b->woken) {
        kd_ds_put_cstr(ds, "(wake-up not seen)\n");
        return;
    }
    if (b->context != KD_WAKER_TASK) {
        kd_ds_put_format(ds, "%s IRQ, interrupting ",
                         b->context == KD_WAKER_HARDIRQ ? "hard" : "soft");
    }
    kd_ds_put_safe_cstr(ds, b->waker_name);
    kd_ds_put_format(ds, " (TID %" PRIu32 " of PID %" PRIu32 ")\n",
                     b->waker_tid, b->waker_pid);
    kd_render_text_frames(ds, &b->waker_frames, 4);
}

static void
kd_render_text_gap_blocked(struct kd_ds *ds, const struct kd_gap *gap)
{
    uint64_t rest = gap->other_blocked_count, rest_ns = gap->other_blocked_ns;
    char num[32];

    if (!gap->off_cpu) {
        return;
    }
    kd_ds_put_format(ds, "\n" KD_REPORT_INDENT "[BLOCKED] %" PRIu32
                     " sleep%s ended in the %s%s\n" KD_REPORT_INDENT
                     "%-22s %7s  %16s  %16s\n", gap->n_sleeps,
                     gap->n_sleeps == 1 ? "" : "s",
                     gap->of_sample ? "sample" : "interval",
                     kd_gap_sleeping(gap) ? ", one going on" : "", "STACK",
                     "SLEEPS", "ASLEEP ns", "RUN QUEUE ns");
    for (size_t i = 0; i < gap->n_blocked; i++) {
        const struct kd_gap_blocked *b = &gap->blocked[i];
        char label[64];

        if (i >= KD_TEXT_BLOCKED) {
            rest += b->count;
            rest_ns += kd_gap_blocked_ns(b);
            continue;
        }
        kd_render_text_stack_label(label, sizeof label, i, b->lost,
                                   b->merged);
        if (b->going_on) {
            snprintf(label, sizeof label, "#%zu (going on)", i + 1);
        }
        kd_render_text_blocked_row(ds, label, b->count, b->sleep_ns,
                                   b->ready_ns);
        kd_render_text_frames(ds, &b->frames, 2);
        kd_render_text_waker(ds, b);
    }
    if (rest) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-22s %7" PRIu64
                         "  %16s ns off CPU\n", "(other stacks)", rest,
                         kd_report_thousands(rest_ns, num));
    }
    if (gap->lost_sleeps) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-22s %7" PRIu32 "\n",
                         "(no room in the map)", gap->lost_sleeps);
    }
}

/* "# Dominant: PART, N ns (P%)", and who ran instead, when the run queue
 * dominates. */
static void
kd_render_text_gap_dominant(struct kd_ds *ds, const struct kd_gap *gap)
{
    char num[32];

    kd_ds_put_format(ds, "# Dominant: %s, %s ns (%.1f%%)",
                     kd_gap_part_label(gap->dominant),
                     kd_report_thousands(gap->parts[gap->dominant], num),
                     kd_gap_ns(gap)
                     ? 100.0 * gap->parts[gap->dominant] / kd_gap_ns(gap)
                     : 0.0);
    if (gap->dominant == KD_GAP_RUN_QUEUE && gap->n_ran) {
        char name[KD_COMM_LEN + 1];

        kd_fixed_cstr(name, gap->ran[0].comm, sizeof gap->ran[0].comm);
        kd_ds_put_cstr(ds, ", mostly behind ");
        kd_ds_put_safe_cstr(ds, name);
        kd_ds_put_format(ds, " (TID %" PRIu32 " of PID %" PRIu32 ")",
                         gap->ran[0].tid, gap->ran[0].pid);
    }
    kd_ds_put_cstr(ds, ".\n");
}

void
kd_render_text_gap(struct kd_ds *ds, const struct kd_gap *gap)
{
    char num[32];

    if (gap->in_progress) {
        kd_ds_put_format(ds, "\n# Long poll interval IN PROGRESS: %s ns "
                         "so far", kd_report_thousands(kd_gap_ns(gap), num));
    } else {
        kd_ds_put_format(ds, "\n# Long poll interval of %s ns ended",
                         kd_report_thousands(kd_gap_ns(gap), num));
    }
    kd_report_timestamp(ds, "", &gap->end_wall);
    kd_report_threads_header(ds);
    kd_ds_put_format(ds, "%10" PRIu32 " ", gap->tid);
    kd_report_field(ds, gap->name, 16, true, false);
    kd_ds_put_format(ds, " [LONG POLL INTERVAL%s]\n" KD_REPORT_INDENT
                     "%-20s %-20s %16s\n" KD_REPORT_INDENT "%-20" PRIu64
                     " %-20" PRIu64 " ",
                     gap->in_progress ? ", IN PROGRESS" : "", "START ns",
                     gap->in_progress ? "NOW ns" : "END ns", "GAP ns",
                     gap->start_ns, gap->end_ns);
    kd_report_num(ds, kd_gap_ns(gap), 16);
    kd_ds_put_char(ds, '\n');
    kd_render_text_gap_parts(ds, gap);
    kd_render_text_gap_syscalls(ds, gap);
    kd_render_text_gap_ran(ds, gap);
    kd_render_text_gap_stacks(ds, gap);
    kd_render_text_gap_blocked(ds, gap);
    kd_render_text_gap_dominant(ds, gap);
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

void
kd_render_text_final(struct kd_ds *ds, const struct kd_losses *total,
                     unsigned int sample_count)
{
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
