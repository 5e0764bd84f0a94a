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

/* The value range of slot 'slot', as bcc prints it. */
void kd_hist_range(unsigned int slot, uint64_t *low, uint64_t *high);

/* An estimate of percentile 'p' (0 to 100): the upper bound of the slot
 * that holds it, or 'max' when that is lower.  0 for an empty histogram. */
uint64_t kd_hist_percentile(const uint64_t counts[KD_HIST_SLOTS], double p,
                            uint64_t max);

#endif /* hist.h */
