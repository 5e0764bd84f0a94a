/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/status.c: the status line. */

#include "status.h"
#include "util.h"
#include "check.h"

/* The status line, waiting and watching, the trigger rendered safe. */
static void
test_status_format(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_status st = {
        .trigger = "up:libc.so.6:fork\033]0;x", .elapsed_ns = 3999999999ull,
        .tgid = 42, .n_threads = 12,
    };

    kd_status_format(&ds, &st);
    CHECK_STR(kd_ds_cstr(&ds), "Waiting 3 s, 12 threads, Ctrl-C to stop; "
              "start trigger: up:libc.so.6:fork\\x1b]0;x");
    kd_ds_destroy(&ds);

    st = (struct kd_status) { .tgid = 42, .n_threads = 1,
                              .elapsed_ns = 65000000000ull };
    kd_status_format(&ds, &st);
    CHECK_STR(kd_ds_cstr(&ds), "Watching 1 thread, 1m05s, Ctrl-C to stop; "
              "no long poll yet");
    kd_ds_destroy(&ds);

    st.n_intervals = 3;
    st.longest_ns = 61234567;
    st.elapsed_ns = 7384000000000ull;
    kd_status_format(&ds, &st);
    CHECK_STR(kd_ds_cstr(&ds), "Watching 1 thread, 2h03m, Ctrl-C to stop; "
              "3 long polls, longest 61.2 ms");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_status_format),
};

CHECK_SUITE(status, tests)
