/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The reference's text layout: numbers, fields, sections, names. */

#include "report.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "names.h"
#include "summary.h"
#include "syscalls.h"
#include "util.h"

const char *
kd_report_thousands(uint64_t value, char buf[32])
{
    char digits[24];
    int n = 0, out = 0;

    /* By hand, not snprintf(): a report formats several per thread. */
    do {
        digits[n++] = '0' + value % 10;
        value /= 10;
    } while (value);
    while (n) {
        buf[out++] = digits[--n];
        if (n && n % 3 == 0) {
            buf[out++] = ',';
        }
    }
    buf[out] = '\0';
    return buf;
}

void
kd_report_field(struct kd_ds *ds, const char *s, int width, bool left,
                bool truncate)
{
    size_t start = ds->length;
    size_t chars = kd_ds_put_safe(ds, s, strlen(s),
                                  truncate ? (size_t) width : SIZE_MAX);
    size_t pad = chars < (size_t) width ? width - chars : 0;

    /* Padded on the rendered form, after it, then moved before it when
     * right-aligned: the width is only known once it is rendered. */
    kd_ds_put_char_multiple(ds, ' ', pad);
    if (!left && pad) {
        memmove(ds->string + start + pad, ds->string + start,
                ds->length - start - pad);
        memset(ds->string + start, ' ', pad);
    }
}

const char *
kd_report_wall_time(const struct timespec *ts, char buf[40])
{
    struct tm local;
    char date[24];
    int usec = ts->tv_nsec / 1000 % 1000000;

    localtime_r(&ts->tv_sec, &local);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S", &local);

    /* isoformat() leaves the fraction out when it is zero. */
    if (usec) {
        snprintf(buf, 40, "%.23s.%06d", date, usec);
    } else {
        snprintf(buf, 40, "%.23s", date);
    }
    return buf;
}

void
kd_report_timestamp(struct kd_ds *ds, const char *msg,
                    const struct timespec *now)
{
    char local[40], hms[16];
    struct tm utc;

    gmtime_r(&now->tv_sec, &utc);
    strftime(hms, sizeof hms, "%H:%M:%S", &utc);
    kd_ds_put_format(ds, "%s @%s (%s UTC)\n", msg,
                     kd_report_wall_time(now, local), hms);
}

void
kd_report_num(struct kd_ds *ds, uint64_t value, int width)
{
    char buf[32];

    kd_report_field(ds, kd_report_thousands(value, buf), width, false,
                    false);
}

/* bcc's stars: 'val' of 'val_max' on 'width' characters. */
static void
kd_report_hist_stars(struct kd_ds *ds, uint64_t val, uint64_t val_max,
                     int width)
{
    int n = val_max ? (int) ((double) width * val / val_max) : 0;

    n = n < width ? n : width;
    kd_ds_put_char_multiple(ds, '*', n);
    kd_ds_put_char_multiple(ds, ' ', width - n);
}

void
kd_report_hist(struct kd_ds *ds, const uint64_t counts_[KD_HIST_SLOTS],
               uint64_t max)
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
        kd_report_hist_stars(ds, counts[i], val_max, stars);
        kd_ds_put_cstr(ds, "|\n");
    }
    kd_ds_put_format(ds, KD_REPORT_INDENT "p50 <= %s ns, p90 <= %s ns, "
                     "p99 <= %s ns, max %s ns\n",
                     kd_report_thousands(p.p50, a),
                     kd_report_thousands(p.p90, b),
                     kd_report_thousands(p.p99, c),
                     kd_report_thousands(p.max, d));
}

/* The first line of a section after the first: a blank line, the title
 * under the RESOURCE SPECIFIC column, then the column names. */
static void
kd_report_section(struct kd_ds *ds, const char *title, const char *columns)
{
    kd_ds_put_format(ds, "\n" KD_REPORT_INDENT "%s\n" KD_REPORT_INDENT
                     "%s\n", title, columns);
}

void
kd_report_syscalls_header(struct kd_ds *ds, const char *last)
{
    kd_ds_put_format(ds, "%-20s %6s  %10s  %16s  %16s\n",
                     "NAME", "NUMBER", "COUNT", "TOTAL ns", last);
}

void
kd_report_syscall_row(struct kd_ds *ds, const char *name, int64_t nr,
                      uint64_t count, uint64_t total_ns, uint64_t last_ns)
{
    kd_ds_put_cstr(ds, KD_REPORT_INDENT);
    kd_report_field(ds, name, 20, true, true);
    if (nr < 0) {
        kd_ds_put_format(ds, " %6s", "");
    } else {
        kd_ds_put_format(ds, " %6" PRId64, nr);
    }
    kd_ds_put_format(ds, "  %10" PRIu64 "  ", count);
    kd_report_num(ds, total_ns, 16);
    kd_ds_put_cstr(ds, "  ");
    kd_report_num(ds, last_ns, 16);
    kd_ds_put_char(ds, '\n');
}

static void
kd_report_syscalls(struct kd_ds *ds, const struct kd_thread *t)
{
    uint64_t total_count, total_ns;

    kd_report_syscalls_header(ds, "MAX ns");
    for (size_t i = 0; i < t->n_syscalls; i++) {
        const struct kd_syscall_entry *e = &t->syscalls[i];
        char name[64];

        kd_report_syscall_row(ds, kd_syscall_format(e->key.nr, name,
                                                    sizeof name),
                              e->key.nr, e->stat.count, e->stat.total_ns,
                              e->stat.max_ns);
    }
    kd_summary_syscalls_but_poll(t, &total_count, &total_ns);
    if (total_count) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-20s %6s  %10" PRIu64 "  ",
                         "TOTAL( - poll):", "", total_count);
        kd_report_num(ds, total_ns, 16);
        kd_ds_put_char(ds, '\n');
    }
    for (size_t i = 0; t->n_hists && i < t->n_syscalls; i++) {
        const struct kd_syscall_entry *e = &t->syscalls[i];
        uint64_t counts[KD_HIST_SLOTS];
        char name[64];

        if (kd_hist_counts(t, e->key.nr, counts)) {
            kd_ds_put_format(ds, "\n" KD_REPORT_INDENT
                             "[SYSCALL LATENCY: %s]\n",
                             kd_syscall_format(e->key.nr, name,
                                               sizeof name));
            kd_report_hist(ds, counts, e->stat.max_ns);
        }
    }
}

/* Up to four number columns, as in "{:10}  {:16,}  {:16,}  {:16,}". */
static void
kd_report_counts(struct kd_ds *ds, uint64_t count, const uint64_t *values,
                 size_t n)
{
    kd_ds_put_format(ds, KD_REPORT_INDENT "%10" PRIu64, count);
    for (size_t i = 0; i < n; i++) {
        kd_ds_put_cstr(ds, "  ");
        kd_report_num(ds, values[i], 16);
    }
    kd_ds_put_char(ds, '\n');
}

/* Thread 't''s histogram of 'what', if it has one. */
static void
kd_report_thread_hist(struct kd_ds *ds, const struct kd_thread *t,
                      uint32_t what, uint64_t max)
{
    uint64_t counts[KD_HIST_SLOTS];

    if (t->n_hists && kd_hist_counts(t, what, counts)) {
        kd_report_hist(ds, counts, max);
    }
}

/* The sections of the statistics a thread has one of, in the
 * reference's order: the first number column is the total, or the
 * average for LONG POLL; MIN is there or not; a histogram follows with
 * --histogram. */
static const struct kd_report_stat_section {
    const char *title;
    const char *header;
    size_t stat;                /* Offset of the kd_stat pointer. */
    bool average;
    bool min;
    int64_t hist;               /* Histogram 'what', or -1. */
} kd_report_stat_sections[] = {
    { "[LONG POLL STATISTICS]",
      "COUNT             AVERAGE ns            MIN ns            MAX ns",
      offsetof(struct kd_thread, poll), true, true, -1 },
    { "[THREAD RUN STATISTICS]",
      "SCHED_CNT           TOTAL ns            MIN ns            MAX ns",
      offsetof(struct kd_thread, run), false, true, KD_HIST_RUN },
    { "[THREAD READY STATISTICS]",
      "SCHED_CNT           TOTAL ns            MAX ns",
      offsetof(struct kd_thread, ready), false, false, KD_HIST_READY },
    { "[THREAD STOPPED STATISTICS]",
      "STOP_CNT            TOTAL ns            MAX ns",
      offsetof(struct kd_thread, stop), false, false, -1 },
};

static void
kd_report_thread_stats(struct kd_ds *ds, const struct kd_thread *t)
{
    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_report_stat_sections); i++) {
        const struct kd_report_stat_section *sec
            = &kd_report_stat_sections[i];
        const struct kd_stat *st
            = *(const struct kd_stat *const *) ((const char *) t
                                                + sec->stat);
        uint64_t v[3];
        size_t n = 0;

        if (!st) {
            continue;
        }
        v[n++] = sec->average ? st->total_ns / st->count : st->total_ns;
        if (sec->min) {
            v[n++] = st->min_ns;
        }
        v[n++] = st->max_ns;
        kd_report_section(ds, sec->title, sec->header);
        kd_report_counts(ds, st->count, v, n);
        if (sec->hist >= 0) {
            kd_report_thread_hist(ds, t, sec->hist, st->max_ns);
        }
    }
}

/* The COUNT, TOTAL ns and MAX ns columns of an interrupt's 'stat', added
 * to the totals. */
static void
kd_report_irq_stat(struct kd_ds *ds, const struct kd_stat *stat,
                   uint64_t *total_count, uint64_t *total_ns)
{
    kd_ds_put_format(ds, "%10" PRIu64 "  ", stat->count);
    kd_report_num(ds, stat->total_ns, 16);
    kd_ds_put_cstr(ds, "  ");
    kd_report_num(ds, stat->max_ns, 16);
    kd_ds_put_char(ds, '\n');
    *total_count += stat->count;
    *total_ns += stat->total_ns;
}

static void
kd_report_irqs(struct kd_ds *ds, const struct kd_thread *t)
{
    uint64_t total_count = 0, total_ns = 0;

    if (t->n_hardirqs) {
        kd_report_section(ds, "[HARD IRQ STATISTICS]",
                          "NAME                       COUNT          TOTAL ns"
                          "            MAX ns");
    }
    for (size_t i = 0; i < t->n_hardirqs; i++) {
        const struct kd_hardirq_entry *e = &t->hardirqs[i];
        char name[KD_IRQ_NAME_LEN + 1];

        kd_fixed_cstr(name, e->key.name, sizeof e->key.name);
        kd_ds_put_cstr(ds, KD_REPORT_INDENT);
        kd_report_field(ds, name, 20, true, true);
        kd_ds_put_cstr(ds, "  ");
        kd_report_irq_stat(ds, &e->stat, &total_count, &total_ns);
    }
    if (total_count) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-20s  %10" PRIu64 "  ",
                         "TOTAL:", total_count);
        kd_report_num(ds, total_ns, 16);
        kd_ds_put_char(ds, '\n');
    }

    total_count = total_ns = 0;
    if (t->n_softirqs) {
        kd_report_section(ds, "[SOFT IRQ STATISTICS]",
                          "NAME                 VECT_NR       COUNT"
                          "          TOTAL ns            MAX ns");
    }
    for (size_t i = 0; i < t->n_softirqs; i++) {
        const struct kd_softirq_entry *e = &t->softirqs[i];
        char buf[32];

        kd_ds_put_cstr(ds, KD_REPORT_INDENT);
        kd_report_field(ds, kd_names_softirq(e->key.vec, buf, sizeof buf),
                        20, true, true);
        kd_ds_put_format(ds, " %7" PRIu32 "  ", e->key.vec);
        kd_report_irq_stat(ds, &e->stat, &total_count, &total_ns);
    }
    if (total_count) {
        kd_ds_put_format(ds, KD_REPORT_INDENT "%-20s %7s  %10" PRIu64 "  ",
                         "TOTAL:", "", total_count);
        kd_report_num(ds, total_ns, 16);
        kd_ds_put_char(ds, '\n');
    }
}

void
kd_report_threads_header(struct kd_ds *ds)
{
    kd_ds_put_format(ds, "%-10s %-16s %s\n", "TID", "THREAD",
                     "<RESOURCE SPECIFIC>");
    kd_ds_put_cstr(ds, "---------- ---------------- "
                   "------------------------------------------------------"
                   "----------------------\n");
}

void
kd_report_sample(struct kd_ds *ds, const struct kd_sample *sample)
{
    kd_report_threads_header(ds);

    for (size_t i = 0; i < sample->n_threads; i++) {
        const struct kd_thread *t = &sample->threads[i];

        if (i) {
            kd_ds_put_char(ds, '\n');
        }
        kd_ds_put_format(ds, "%10" PRIu32 " ", t->tid);
        kd_report_field(ds, t->name, 16, true, false);
        kd_ds_put_cstr(ds, " [SYSCALL STATISTICS]\n" KD_REPORT_INDENT);
        kd_report_syscalls(ds, t);
        kd_report_thread_stats(ds, t);
        kd_report_irqs(ds, t);
    }
}

/* The sums of the per-CPU counts of the upcall entries whose key is
 * 'key', or not 'key' when 'other' (kd_sample_upcall_sums()).  Returns
 * the total and writes the non-zero per-CPU counts as "0: 5, 1: 3" into
 * 'ds'. */
static uint64_t
kd_report_upcall_sums(const struct kd_upcall_entry *entries, size_t n,
                      int n_cpus, uint64_t key, bool other, struct kd_ds *ds)
{
    uint64_t *per_cpu = kd_xcalloc(n_cpus > 0 ? n_cpus : 1,
                                   sizeof *per_cpu);
    uint64_t total = kd_sample_upcall_sums(entries, n, n_cpus, key, other,
                                           per_cpu);
    bool first = true;

    for (int cpu = 0; cpu < n_cpus; cpu++) {
        if (per_cpu[cpu]) {
            kd_ds_put_format(ds, "%s%d: %" PRIu64, first ? "" : ", ", cpu,
                             per_cpu[cpu]);
            first = false;
        }
    }
    free(per_cpu);
    return total;
}

static int
kd_report_upcall_cmp(const void *a_, const void *b_)
{
    const struct kd_upcall_entry *a = a_, *b = b_;

    return a->key < b->key ? -1 : a->key > b->key;
}

void
kd_report_upcalls(struct kd_ds *ds, const struct kd_upcall_entry *entries,
                  size_t n, int n_cpus)
{
    struct kd_ds per_cpu = KD_DS_EMPTY_INITIALIZER;
    struct kd_upcall_entry *sorted;
    uint64_t total;

    /* "Total upcalls" is the sum over every key, i.e. over keys that are
     * not a key no entry has. */
    total = kd_report_upcall_sums(entries, n, n_cpus, UINT64_MAX, true,
                                  &per_cpu);
    if (!total) {
        kd_ds_destroy(&per_cpu);
        return;
    }
    kd_ds_put_format(ds, "\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: "
                     "N_UPCALLS_PER_CPU, ...]):\n"
                     "  Total upcalls       : %" PRIu64 " [%s]\n", total,
                     kd_ds_cstr(&per_cpu));

    sorted = kd_xcalloc(n, sizeof *sorted);
    memcpy(sorted, entries, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, kd_report_upcall_cmp);
    for (size_t i = 0; i < n; i++) {
        uint64_t key = sorted[i].key;

        kd_ds_destroy(&per_cpu);
        total = kd_report_upcall_sums(entries, n, n_cpus, key, false,
                                      &per_cpu);
        if (!key) {
            struct kd_ds failed_cpu = KD_DS_EMPTY_INITIALIZER;
            uint64_t failed = kd_report_upcall_sums(entries, n, n_cpus, 0,
                                                    true, &failed_cpu);

            /* As the reference: only broken down when some failed. */
            if (failed) {
                kd_ds_put_format(ds, "  Successfull upcalls : %" PRIu64
                                 " [%s]\n", total, kd_ds_cstr(&per_cpu));
                kd_ds_put_format(ds, "  Failed upcalls      : %" PRIu64
                                 " [%s]\n", failed,
                                 kd_ds_cstr(&failed_cpu));
            }
            kd_ds_destroy(&failed_cpu);
        } else if (total) {
            const char *name = kd_names_upcall_errno(key);
            char num[24];

            snprintf(num, sizeof num, "%" PRIu64, key);
            kd_ds_put_format(ds, "    %3s, ", num);
            kd_report_field(ds, name ? name : "_unknown_", 13, true, false);
            kd_ds_put_format(ds, ": %" PRIu64 " [%s]\n", total,
                             kd_ds_cstr(&per_cpu));
        }
    }
    free(sorted);
    kd_ds_destroy(&per_cpu);
}

void
kd_report_events_header(struct kd_ds *ds)
{
    kd_ds_put_format(ds, "\n\n# SYSCALL EVENTS:\n  %19s %19s %10s %-16s "
                     "%10s  %s\n", "ENTRY (ns)", "EXIT (ns)", "TID", "COMM",
                     "DELTA (us)", "SYSCALL");
    kd_ds_put_cstr(ds, "  ------------------- ------------------- ---------- "
                   "---------------- ----------  ----------------\n");
}

/* An event's columns after TID: COMM, DELTA (us) and SYSCALL. */
static void
kd_report_event_rest(struct kd_ds *ds, uint64_t delta_ns, const char *name,
                     uint32_t syscall)
{
    char buf[64];

    kd_report_field(ds, name, 16, true, false);
    kd_ds_put_char(ds, ' ');
    kd_report_num(ds, delta_ns / 1000, 10);
    kd_ds_put_format(ds, "  %s\n", kd_syscall_format(syscall, buf,
                                                     sizeof buf));
}

void
kd_report_event(struct kd_ds *ds, uint64_t entry_ts, uint64_t exit_ts,
                uint32_t tid, const char *name, uint32_t syscall)
{
    kd_ds_put_format(ds, "  %19" PRIu64 " %19" PRIu64 " %10" PRIu32 " ",
                     entry_ts, exit_ts, tid);
    kd_report_event_rest(ds, exit_ts > entry_ts ? exit_ts - entry_ts : 0,
                         name, syscall);
}

void
kd_report_events_header_wall(struct kd_ds *ds)
{
    kd_ds_put_format(ds, "\n\n# SYSCALL EVENTS:\n  %27s %27s %10s %-16s "
                     "%10s  %s\n", "ENTRY (UTC)", "EXIT (UTC)", "TID",
                     "COMM", "DELTA (us)", "SYSCALL");
    kd_ds_put_cstr(ds, "  --------------------------- "
                   "--------------------------- ---------- "
                   "---------------- ----------  ----------------\n");
}

void
kd_report_event_wall(struct kd_ds *ds, const struct timespec *entry,
                     const struct timespec *exit, uint64_t delta_ns,
                     uint32_t tid, const char *name, uint32_t syscall)
{
    char entry_buf[32], exit_buf[32];

    kd_ds_put_format(ds, "  %s %s %10" PRIu32 " ",
                     kd_utc_time(entry, entry_buf),
                     kd_utc_time(exit, exit_buf), tid);
    kd_report_event_rest(ds, delta_ns, name, syscall);
}

void
kd_report_frame(struct kd_ds *ds, const char *frame)
{
    kd_ds_put_cstr(ds, "          ");
    kd_ds_put_safe_cstr(ds, frame);
    kd_ds_put_char(ds, '\n');
}

void
kd_report_lost_stacks(struct kd_ds *ds, uint64_t n)
{
    if (n) {
        kd_ds_put_format(ds, "\n#WARNING: We where not able to display %"
                         PRIu64 " stack traces!\n"
                         "#         Consider increasing the stack trace size "
                         "using\n"
                         "#         the '--stack-trace-size' option.\n"
                         "#         Note that this can also happen due to a "
                         "stack id\n"
                         "#         collision.\n", n);
    }
}

/* 'part' of 'whole' as a percentage, "12.3%", in 'buf'. */
static const char *
kd_report_share(uint64_t part, uint64_t whole, char *buf, size_t size)
{
    snprintf(buf, size, "%.1f%%", whole ? 100.0 * part / whole : 0.0);
    return buf;
}

/* The tasks that held the CPU while each thread that waited in the run
 * queue waited, the three longest: "NAME[TID/PID] SHARE" each. */
static void
kd_report_ran_instead(struct kd_ds *ds, const struct kd_summary_row *rows,
                      size_t n)
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
                             kd_report_share(e->ran.ns, r->ready_ns, share,
                                             sizeof share));
        }
        kd_ds_put_char(ds, '\n');
    }
}

/* One row of the summary table: the shares of the window, then the
 * longest wait. */
static void
kd_report_summary_row(struct kd_ds *ds, const struct kd_summary_row *r,
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
                         kd_report_share(parts[i], window_ns, share,
                                         sizeof share));
    }
    kd_ds_put_cstr(ds, "  ");
    kd_report_num(ds, r->max_ready_ns, 16);
    kd_ds_put_char(ds, '\n');
}

void
kd_report_summary(struct kd_ds *ds, const struct kd_summary_row *rows,
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
        kd_report_summary_row(ds, &rows[i], window_ns);
    }
    if (n && rows[0].ready_ns) {
        kd_ds_put_cstr(ds, "# Longest in the run queue: ");
        kd_ds_put_safe_cstr(ds, rows[0].name);
        kd_ds_put_format(ds, " (TID %" PRIu32
                         "), %s ns in all (%s of the window), %s ns at "
                         "most", rows[0].tid,
                         kd_report_thousands(rows[0].ready_ns, num),
                         kd_report_share(rows[0].ready_ns, window_ns, share,
                                         sizeof share),
                         kd_report_thousands(rows[0].max_ready_ns, num2));
        if (rows[0].n_ran && kd_summary_ran_name(&rows[0].ran[0], name)) {
            kd_ds_put_cstr(ds, ", mostly behind ");
            kd_ds_put_safe_cstr(ds, name);
            kd_ds_put_format(ds, " (TID %" PRIu32 " of PID %" PRIu32 ")",
                             rows[0].ran[0].key.other,
                             rows[0].ran[0].ran.pid);
        }
        kd_ds_put_cstr(ds, ".\n");
        kd_report_ran_instead(ds, rows, n);
    } else {
        kd_ds_put_cstr(ds, "# No thread waited in the run queue.\n");
    }
}
