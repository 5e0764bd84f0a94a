/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The reference's text layout: numbers, fields, timestamps, sections. */

#include "report.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void
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

/* The sections of the statistics a thread has one of, in the
 * reference's order (enum kd_report_stat): the first number column is
 * the total, or the average for LONG POLL; MIN is there or not. */
static const struct kd_report_stat_section {
    const char *title;
    const char *header;
    size_t stat;                /* Offset of the kd_stat pointer. */
    bool average;
    bool min;
} kd_report_stat_sections[KD_N_REPORT_STATS] = {
    [KD_REPORT_POLL] = {
      "[LONG POLL STATISTICS]",
      "COUNT             AVERAGE ns            MIN ns            MAX ns",
      offsetof(struct kd_thread, poll), true, true },
    [KD_REPORT_RUN] = {
      "[THREAD RUN STATISTICS]",
      "SCHED_CNT           TOTAL ns            MIN ns            MAX ns",
      offsetof(struct kd_thread, run), false, true },
    [KD_REPORT_READY] = {
      "[THREAD READY STATISTICS]",
      "SCHED_CNT           TOTAL ns            MAX ns",
      offsetof(struct kd_thread, ready), false, false },
    [KD_REPORT_STOP] = {
      "[THREAD STOPPED STATISTICS]",
      "STOP_CNT            TOTAL ns            MAX ns",
      offsetof(struct kd_thread, stop), false, false },
};

const struct kd_stat *
kd_report_stat(struct kd_ds *ds, const struct kd_thread *t,
               enum kd_report_stat which)
{
    const struct kd_report_stat_section *sec
        = &kd_report_stat_sections[which];
    const struct kd_stat *st
        = *(const struct kd_stat *const *) ((const char *) t + sec->stat);
    uint64_t v[3];
    size_t n = 0;

    if (!st) {
        return NULL;
    }
    v[n++] = sec->average ? st->total_ns / st->count : st->total_ns;
    if (sec->min) {
        v[n++] = st->min_ns;
    }
    v[n++] = st->max_ns;
    kd_report_section(ds, sec->title, sec->header);
    kd_report_counts(ds, st->count, v, n);
    return st;
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

void
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
kd_report_thread_line(struct kd_ds *ds, const struct kd_thread *t)
{
    kd_ds_put_format(ds, "%10" PRIu32 " ", t->tid);
    kd_report_field(ds, t->name, 16, true, false);
    kd_ds_put_cstr(ds, " [SYSCALL STATISTICS]\n" KD_REPORT_INDENT);
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

