/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The text of one long poll interval, and the stacks tables that a
 * sample's threads share with it. */

#include "render_text_gap.h"

#include <inttypes.h>
#include <stdio.h>

#include "gap.h"
#include "report.h"
#include "syscalls.h"

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

void
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

void
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
