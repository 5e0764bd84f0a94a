/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Log2 histograms: counts by slot, slot ranges, percentiles. */

#include "hist.h"

#include <string.h>

uint64_t
kd_hist_counts(const struct kd_thread *t, uint32_t what,
               uint64_t counts[KD_HIST_SLOTS])
{
    uint64_t total = 0;

    memset(counts, 0, KD_HIST_SLOTS * sizeof *counts);
    for (size_t i = 0; i < t->n_hists; i++) {
        const struct kd_hist_entry *e = &t->hists[i];

        if (e->key.what == what && e->key.slot < KD_HIST_SLOTS) {
            counts[e->key.slot] += e->count;
            total += e->count;
        }
    }
    return total;
}

void
kd_hist_range(unsigned int slot, uint64_t *low, uint64_t *high)
{
    /* Slot 0 (the value 0) is printed with slot 1, as "0 -> 1". */
    *high = slot ? (slot >= 64 ? UINT64_MAX : (1ull << slot) - 1) : 0;
    *low = slot > 1 ? 1ull << (slot - 1) : 0;
}

uint64_t
kd_hist_percentile(const uint64_t counts[KD_HIST_SLOTS], double p,
                   uint64_t max)
{
    uint64_t total = 0, seen = 0, rank;

    for (int i = 0; i < KD_HIST_SLOTS; i++) {
        total += counts[i];
    }
    if (!total) {
        return 0;
    }
    /* The smallest value with at least p% of the values at or below. */
    rank = (uint64_t) (p / 100.0 * total + 0.999999);
    rank = rank ? rank : 1;
    for (int i = 0; i < KD_HIST_SLOTS; i++) {
        seen += counts[i];
        if (seen >= rank) {
            uint64_t low, high;

            kd_hist_range(i, &low, &high);
            return max && max < high && max >= low ? max : high;
        }
    }
    return max;
}

void
kd_hist_percentiles(const uint64_t counts[KD_HIST_SLOTS], uint64_t max,
                    struct kd_hist_percentiles *p)
{
    p->p50 = kd_hist_percentile(counts, 50, max);
    p->p90 = kd_hist_percentile(counts, 90, max);
    p->p99 = kd_hist_percentile(counts, 99, max);
    p->max = max;
}
