/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/hist.c: a thread's counts by slot, the slots' ranges
 * as bcc prints them, and the percentile estimates. */

#include <stdint.h>

#include "hist.h"
#include "sample.h"
#include "util.h"
#include "check.h"

static void
test_hist_range(void)
{
    uint64_t low, high;

    kd_hist_range(0, &low, &high);
    CHECK_UINT(low, 0);
    CHECK_UINT(high, 0);
    kd_hist_range(1, &low, &high);
    CHECK_UINT(low, 0);
    CHECK_UINT(high, 1);
    kd_hist_range(3, &low, &high);
    CHECK_UINT(low, 4);
    CHECK_UINT(high, 7);
    kd_hist_range(64, &low, &high);
    CHECK_UINT(high, UINT64_MAX);
}

static void
test_hist_percentile(void)
{
    uint64_t counts[KD_HIST_SLOTS] = { 0 };

    CHECK_UINT(kd_hist_percentile(counts, 50, 0), 0);
    counts[3] = 50;         /* 4..7 */
    counts[5] = 40;         /* 16..31 */
    counts[7] = 10;         /* 64..127 */
    CHECK_UINT(kd_hist_percentile(counts, 50, 100), 7);
    CHECK_UINT(kd_hist_percentile(counts, 51, 100), 31);
    CHECK_UINT(kd_hist_percentile(counts, 90, 100), 31);
    CHECK_UINT(kd_hist_percentile(counts, 91, 100), 100);
    CHECK_UINT(kd_hist_percentile(counts, 99, 100), 100);
}

/* The entries of one histogram of a thread, summed per slot; those of
 * other histograms and slots out of range left out. */
static void
test_hist_counts(void)
{
    const struct kd_hist_entry hists[] = {
        { { 1, 0, 3, 0 }, 4 },
        { { 1, 0, 5, 0 }, 2 },
        { { 1, KD_HIST_READY, 3, 0 }, 7 },
        { { 1, KD_HIST_READY, 9, 0 }, 1 },
        { { 1, KD_HIST_READY, KD_HIST_SLOTS, 0 }, 100 },
        { { 1, KD_HIST_RUN, 3, 0 }, 8 },
    };
    struct kd_thread t = { .tid = 1, .hists = hists,
                           .n_hists = KD_ARRAY_SIZE(hists) };
    uint64_t counts[KD_HIST_SLOTS];

    CHECK_UINT(kd_hist_counts(&t, KD_HIST_READY, counts), 8);
    CHECK_UINT(counts[3], 7);
    CHECK_UINT(counts[9], 1);
    CHECK_UINT(counts[5], 0);
    CHECK_UINT(kd_hist_counts(&t, 0, counts), 6);
    CHECK_UINT(counts[3], 4);
    CHECK_UINT(counts[5], 2);
    CHECK_UINT(counts[9], 0);
    CHECK_UINT(kd_hist_counts(&t, 1, counts), 0);
    for (int i = 0; i < KD_HIST_SLOTS; i++) {
        CHECK_UINT(counts[i], 0);
    }
}

static const struct test tests[] = {
    TEST(test_hist_range),
    TEST(test_hist_percentile),
    TEST(test_hist_counts),
};

CHECK_SUITE(hist, tests)
