/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/hist.c: a thread's counts by slot, the slots' ranges
 * as bcc prints them, and the percentile estimates. */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "render_json.h"
#include "render_text.h"
#include "sample.h"
#include "snapshot.h"
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

static int
compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *) a, *(char *const *) b);
}

/* The percentiles in report 'r', one "P50 P90 P99 MAX" line each,
 * sorted: from the text's "p50 <= X ns, p90 <= Y ns, p99 <= Z ns, max M
 * ns" lines, or from JSON's "p50_ns":X,"p90_ns":Y,"p99_ns":Z,"max_ns":M
 * when 'json'. */
static char *
percentiles_of(const char *r, bool json)
{
    const char *mark = json ? "\"p50_ns\":" : "p50 <= ";
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    char *lines[16];
    size_t n = 0;

    for (const char *p = strstr(r, mark); p && n < 16;
         p = strstr(p + 1, mark)) {
        char plain[256];
        uint64_t v[4] = { 0 };
        size_t len = 0;

        /* The text's numbers without their thousands separators. */
        for (const char *q = p; *q && *q != '\n' && *q != '}'
                                && len < sizeof plain - 1; q++) {
            if (*q != ',' || json) {
                plain[len++] = *q;
            }
        }
        plain[len] = '\0';
        if (json) {
            sscanf(plain, "\"p50_ns\":%" SCNu64 ",\"p90_ns\":%" SCNu64
                   ",\"p99_ns\":%" SCNu64 ",\"max_ns\":%" SCNu64,
                   &v[0], &v[1], &v[2], &v[3]);
        } else {
            sscanf(plain, "p50 <= %" SCNu64 " ns p90 <= %" SCNu64
                   " ns p99 <= %" SCNu64 " ns max %" SCNu64,
                   &v[0], &v[1], &v[2], &v[3]);
        }
        lines[n++] = kd_xasprintf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %"
                                  PRIu64, v[0], v[1], v[2], v[3]);
    }
    qsort(lines, n, sizeof *lines, compare_strings);
    for (size_t i = 0; i < n; i++) {
        kd_ds_put_format(&ds, "%s\n", lines[i]);
        free(lines[i]);
    }
    return kd_ds_steal_cstr(&ds);
}

/* The text and the JSON report of the same sample give the same
 * percentiles: for a syscall whose latencies are mostly 0 ns (slot 0,
 * which the text shows with slot 1), for run-queue waits all of 0 ns,
 * and for times on CPU spread over several slots. */
static void
test_hist_text_json_agree(void)
{
    static const struct kd_stat run = { .count = 100, .total_ns = 50000,
                                        .max_ns = 3000, .min_ns = 3 };
    static const struct kd_stat ready = { .count = 10, .max_ns = 0 };
    static const struct kd_syscall_entry syscalls[] = {
        { { 7, 39 }, { 100, 600, 6, 0 } },
    };
    static const struct kd_hist_entry hists[] = {
        { { 7, 39, 0, 0 }, 90 },            /* getpid: 0 ns ... */
        { { 7, 39, 3, 0 }, 10 },            /* ... and 4 to 7 ns. */
        { { 7, KD_HIST_READY, 0, 0 }, 10 }, /* Waits of 0 ns. */
        { { 7, KD_HIST_RUN, 2, 0 }, 40 },   /* 2 to 3 ns. */
        { { 7, KD_HIST_RUN, 6, 0 }, 55 },   /* 32 to 63 ns. */
        { { 7, KD_HIST_RUN, 12, 0 }, 5 },   /* 2048 to 4095 ns. */
    };
    struct kd_thread thread = {
        .tid = 7, .name = "handler1", .syscalls = syscalls, .n_syscalls = 1,
        .hists = hists, .n_hists = KD_ARRAY_SIZE(hists), .run = &run,
        .ready = &ready,
    };
    struct kd_ds text = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds json = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;
    char *from_text, *from_json;

    memset(&snap, 0, sizeof snap);
    snap.tgid = 1;
    snap.sample.pid = 1;
    snap.sample.threads = &thread;
    snap.sample.n_threads = 1;
    kd_render_text_sample(&text, &snap, NULL);
    kd_render_json_sample(&json, NULL, &snap, NULL);
    from_text = percentiles_of(kd_ds_cstr(&text), false);
    from_json = percentiles_of(kd_ds_cstr(&json), true);
    CHECK_STR(from_text, from_json);
    /* Sorted: the waits', getpid's, the times on CPU. */
    CHECK_STR(from_json, "0 0 0 0\n0 0 6 6\n63 63 3000 3000\n");
    free(from_text);
    free(from_json);
    kd_ds_destroy(&text);
    kd_ds_destroy(&json);
}

static const struct test tests[] = {
    TEST(test_hist_range),
    TEST(test_hist_percentile),
    TEST(test_hist_counts),
    TEST(test_hist_text_json_agree),
};

CHECK_SUITE(hist, tests)
