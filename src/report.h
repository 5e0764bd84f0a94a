/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_REPORT_H
#define KD_REPORT_H 1

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "sample.h"
#include "util.h"

/* The reference's text layout, to the character: numbers, fields and
 * timestamps as it writes them, and each section of a report that the
 * reference prints, alone (a thread's syscall table, its statistics and
 * interrupts, the upcalls, the syscall events).  Which sections a report
 * has, in which order, and what it shows beyond the reference, is
 * render_text's.  Pure: nothing here touches the kernel. */

/* Everything under a thread's first line is indented by the width of the
 * "TID" and "THREAD" columns. */
#define KD_REPORT_INDENT "                            "

/* Formats 'value' with thousands separators ("1,234,567"). */
const char *kd_report_thousands(uint64_t value, char buf[32]);

/* 'value' with thousands separators, right-aligned on 'width' columns
 * (Python's "{:16,}"). */
void kd_report_num(struct kd_ds *, uint64_t value, int width);

/* Appends 's' rendered by kd_ds_put_safe() (escaped where it could drive
 * a terminal or break the layout), padded with spaces to 'width' columns
 * of the rendered form (UTF-8 code points, as Python counts them), left-
 * or right-aligned, and cut to 'width' columns when 'truncate'. */
void kd_report_field(struct kd_ds *, const char *s, int width, bool left,
                     bool truncate);

/* "2023-06-08T12:17:22.725127": local time 'ts' in ISO 8601 as Python's
 * datetime.isoformat() writes it (no fraction when it is zero). */
const char *kd_report_wall_time(const struct timespec *ts, char buf[40]);

/* "MSG @2023-06-08T12:17:22.725127 (10:17:22 UTC)": the local time as
 * kd_report_wall_time() writes it, then UTC. */
void kd_report_timestamp(struct kd_ds *, const char *msg,
                         const struct timespec *now);

/* The "TID THREAD <RESOURCE SPECIFIC>" header and its underline. */
void kd_report_threads_header(struct kd_ds *);

/* The column names of a table of syscalls, "NAME NUMBER COUNT TOTAL ns"
 * then 'last', and one row of it: a syscall's name (cut to 20 columns),
 * its number (left blank when negative), count, total and 'last_ns'. */
void kd_report_syscalls_header(struct kd_ds *, const char *last);
void kd_report_syscall_row(struct kd_ds *, const char *name, int64_t nr,
                           uint64_t count, uint64_t total_ns,
                           uint64_t last_ns);

/* The first line of thread 't' in a sample's report, "TID NAME
 * [SYSCALL STATISTICS]", and the indentation of the next. */
void kd_report_thread_line(struct kd_ds *, const struct kd_thread *t);

/* Thread 't''s syscall table, from its column names to its "TOTAL( -
 * poll):" line. */
void kd_report_syscalls(struct kd_ds *, const struct kd_thread *t);

/* The sections of a thread's statistics, in the reference's order. */
enum kd_report_stat {
    KD_REPORT_POLL,             /* [LONG POLL STATISTICS] */
    KD_REPORT_RUN,              /* [THREAD RUN STATISTICS] */
    KD_REPORT_READY,            /* [THREAD READY STATISTICS] */
    KD_REPORT_STOP,             /* [THREAD STOPPED STATISTICS] */
    KD_N_REPORT_STATS
};

/* Thread 't''s section 'which', if it has its statistic: returns it, or
 * NULL (and writes nothing) when it has none. */
const struct kd_stat *kd_report_stat(struct kd_ds *, const struct kd_thread *t,
                                     enum kd_report_stat which);

/* Thread 't''s hard and soft IRQ sections, if it has any. */
void kd_report_irqs(struct kd_ds *, const struct kd_thread *t);

/* Upcall statistics, as the reference prints them: 'entries' holds, per
 * key (0 for successful upcalls, else the errno of failed ones), 'n_cpus'
 * counts.  Prints nothing when all counts are 0. */
void kd_report_upcalls(struct kd_ds *, const struct kd_upcall_entry *,
                       size_t n, int n_cpus);

/* "# SYSCALL EVENTS:" and its column headers. */
void kd_report_events_header(struct kd_ds *);

/* One syscall event of thread 'name'; frames follow with
 * kd_report_frame().  Names and frames are rendered by
 * kd_ds_put_safe(). */
void kd_report_event(struct kd_ds *, uint64_t entry_ts, uint64_t exit_ts,
                     uint32_t tid, const char *name, uint32_t syscall);
void kd_report_frame(struct kd_ds *, const char *frame);

/* The same with --wall-clock: ENTRY and EXIT as UTC wall-clock times
 * (kd_utc_time()), 27 columns each, not CLOCK_MONOTONIC ns. */
void kd_report_events_header_wall(struct kd_ds *);
void kd_report_event_wall(struct kd_ds *, const struct timespec *entry,
                          const struct timespec *exit, uint64_t delta_ns,
                          uint32_t tid, const char *name, uint32_t syscall);

/* The reference's warning about stacks that could not be shown. */
void kd_report_lost_stacks(struct kd_ds *, uint64_t n);

#endif /* report.h */
