/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_HIST_H
#define KD_HIST_H 1

#include <stdint.h>

#include "sample.h"

/* Log2 histograms (--histogram): a thread's counts by slot, the slots'
 * value ranges and percentile estimates, shared by the text and JSON
 * reports.  Pure: nothing here touches the kernel. */

/* The counts of thread 't''s histogram of 'what' (a syscall number,
 * KD_HIST_READY or KD_HIST_RUN) by slot; returns their sum. */
uint64_t kd_hist_counts(const struct kd_thread *t, uint32_t what,
                        uint64_t counts[KD_HIST_SLOTS]);

/* The value range of slot 'slot', as bcc prints it: slot 0 holds the
 * value 0 alone, and is printed in text with slot 1, as "0 -> 1". */
void kd_hist_range(unsigned int slot, uint64_t *low, uint64_t *high);

/* An estimate of percentile 'p' (0 to 100): the upper bound of the slot
 * that holds it, or 'max' when that is lower.  0 for an empty histogram.
 * The slots are those the kernel counts in ('counts' as kd_hist_counts()
 * gives them), never slot 0 folded into slot 1 as the text shows them:
 * the value 0 has a slot of its own, whose upper bound is 0, so that a
 * percentile that falls on values of 0 is 0, in text as in JSON. */
uint64_t kd_hist_percentile(const uint64_t counts[KD_HIST_SLOTS], double p,
                            uint64_t max);

/* The percentiles both reports give of a histogram, by
 * kd_hist_percentile(), with its maximum. */
struct kd_hist_percentiles {
    uint64_t p50, p90, p99, max;
};

void kd_hist_percentiles(const uint64_t counts[KD_HIST_SLOTS], uint64_t max,
                         struct kd_hist_percentiles *);

#endif /* hist.h */
