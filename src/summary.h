/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SUMMARY_H
#define KD_SUMMARY_H 1

#include <stddef.h>
#include <stdint.h>

#include "sample.h"

/* Where each thread's time went during a sample (--summary), and who ran
 * instead of it, computed from the grouped sample for the text and JSON
 * reports alike.  Pure: nothing here touches the kernel. */

/* One thread's row. */
struct kd_summary_row {
    uint32_t tid;
    const char *name;
    uint64_t run_ns;
    uint64_t ready_ns;
    uint64_t stop_ns;
    uint64_t hardirq_ns;
    uint64_t softirq_ns;
    uint64_t syscall_ns;        /* Syscalls other than poll(). */
    uint64_t max_ready_ns;      /* The longest run-queue wait. */
    const struct kd_ran_entry *ran;     /* Who ran instead, by decreasing
                                         * time (--summary counts it). */
    size_t n_ran;
};

/* Fills 'rows' (sample->n_threads of them) from the grouped 'sample',
 * sorted by decreasing run-queue wait, then name. */
void kd_summary_compute(const struct kd_sample *, struct kd_summary_row *);

/* The count and total time of thread 't''s syscalls other than poll(), as
 * the reference's "TOTAL( - poll)" line. */
void kd_summary_syscalls_but_poll(const struct kd_thread *t,
                                  uint64_t *count, uint64_t *total_ns);

/* Who ran instead of a thread, one entry: its name, in 'buf', or NULL
 * when the task that held the CPU is not known. */
const char *kd_summary_ran_name(const struct kd_ran_entry *,
                                char buf[KD_COMM_LEN + 1]);

#endif /* summary.h */
