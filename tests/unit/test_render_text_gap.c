/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/render_text_gap.c: the text of a long poll interval,
 * a literal interval in, literal text out. */

#include <stdint.h>
#include <string.h>

#include "gap.h"
#include "render_text_gap.h"
#include "report.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

/* An interval still going on: said in its header, its block and the
 * syscall it is in. */
static void
test_render_text_gap_progress(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_gap_event(&ev);
    ev.head.id = KD_EVENT_LONG_POLL_PROGRESS;
    ev.head.entry_ts = ev.head.ts - 150000000;
    ev.head.syscall = 230;
    kd_gap_decode(&ev, 1000000000000000000LL, 1, &gap);
    with_tz("UTC");
    kd_render_text_gap(&ds, &gap);
    with_tz(NULL);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "\n# Long poll interval IN PROGRESS: "
                   "1,000,000,000 ns so far @2001-09-09T01:46:46 ");
    CHECK_CONTAINS(kd_ds_cstr(&ds), " [LONG POLL INTERVAL, IN PROGRESS]\n"
                   "                            START ns             "
                   "NOW ns ");
    CHECK_CONTAINS(kd_ds_cstr(&ds), "\n                            "
                   "IN PROGRESS: clock_nanosleep, entered 150,000,000 ns "
                   "ago\n");
    kd_ds_destroy(&ds);
}

/* One long poll interval: its block, every part with its share of the
 * interval, the syscalls with the others last, who ran instead with the
 * rest of the wait, and the dominant part; the thread's name escaped. */
static void
test_render_text_gap(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_gap_event(&ev);
    ev.comm[3] = '\033';
    kd_gap_decode(&ev, 1000000000000000000LL, 1, &gap);
    with_tz("UTC");
    kd_render_text_gap(&ds, &gap);
    with_tz(NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# Long poll interval of 1,000,000,000 ns ended "
        "@2001-09-09T01:46:46 (01:46:46 UTC)\n"
        "TID        THREAD           <RESOURCE SPECIFIC>\n"
        "---------- ---------------- ------------------------------------"
        "----------------------------------------\n"
        "        42 rev\\x1blidator12345 [LONG POLL INTERVAL]\n"
        "                            START ns             END ns        "
        "                 GAP ns\n"
        "                            5000000000           6000000000    "
        "          1,000,000,000\n"
        "\n"
        "                            [WHERE THE TIME WENT]\n"
        "                            PART                              "
        "TOTAL ns    SHARE\n"
        "                            on CPU                          "
        "97,000,000    9.7%\n"
        "                            waiting in the run queue       "
        "300,000,000   30.0%\n"
        "                            stopped                        "
        "400,000,000   40.0%\n"
        "                            in hard IRQs                     "
        "1,000,000    0.1%\n"
        "                            in soft IRQs                     "
        "2,000,000    0.2%\n"
        "                            blocked in syscalls            "
        "150,000,000   15.0%\n"
        "                            blocked outside syscalls        "
        "49,000,000    4.9%\n"
        "                            unaccounted                      "
        "1,000,000    0.1%\n"
        "                            RUN-QUEUE WAITS 5, PREEMPTIONS 4, "
        "SLEEPS 2\n"
        "                            ON CPU: USER 57,000,000 ns, SYSTEM "
        "40,000,000 ns\n"
        "\n"
        "                            [SYSCALLS]\n"
        "                            NAME                 NUMBER       "
        "COUNT          TOTAL ns        BLOCKED ns\n"
        "                            clock_nanosleep         230           "
        "1       150,100,000       149,990,000\n"
        "                            sched_setaffinity       203           "
        "1         3,000,000            10,000\n"
        "                            (others)                              "
        "3             5,000                 0\n"
        "\n"
        "                            [RAN INSTEAD]\n"
        "                            TID        PID        NAME            "
        "          TOTAL ns    SHARE\n"
        "                                    43         40 pmd4            "
        "       290,000,000   96.7%\n"
        "                                     0          0 swapper/1       "
        "         6,000,000    2.0%\n"
        "                            (others, or not known)               "
        "          4,000,000    1.3%\n"
        "# Dominant: stopped, 400,000,000 ns (40.0%).\n");
    kd_ds_destroy(&ds);

    /* Negative unaccounted time; the run queue dominates, with the task
     * that ran instead named. */
    ev.acct.v[KD_ACCT_STOP] = 0;
    ev.acct.v[KD_ACCT_READY] = 900000000;
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_render_text_gap(&ds, &gap);
    CHECK(strstr(kd_ds_cstr(&ds), "                            unaccounted"
                 "                   -199,000,000  -19.9%\n"
                 "                            RUN-QUEUE WAITS") != NULL);
    CHECK(strstr(kd_ds_cstr(&ds), "# Dominant: waiting in the run queue, "
                 "900,000,000 ns (90.0%), mostly behind pmd4 (TID 43 of "
                 "PID 40).\n") != NULL);
    kd_ds_destroy(&ds);
}

/* --profile-hz: the interval's stacks on CPU, under its other blocks,
 * frames escaped. */
static void
test_render_text_gap_stacks(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_gap_event ev;
    struct kd_gap gap;
    const char *text;

    make_profiled_gap(&ev, &gap);
    free(gap.stacks[0].frames[0]);
    gap.stacks[0].frames[0] = kd_xstrdup("sp\033n+0x1 [ovs-vswitchd]");
    kd_gap_merge_stacks(&gap);
    kd_render_text_gap(&ds, &gap);
    text = strstr(kd_ds_cstr(&ds), "\n" KD_REPORT_INDENT "[ON CPU STACKS]");
    CHECK_STR(text,
        "\n"
        "                            [ON CPU STACKS] 100 samples at 99 Hz\n"
        "                            STACK                  SAMPLES    SHARE"
        "    EST. ON CPU ns\n"
        "                            #1                          50    50.0%"
        "        48,500,000\n"
        "                              sp\\x1bn+0x1 [ovs-vswitchd]\n"
        "                              main+0x2 [ovs-vswitchd]\n"
        "                            #2 (2 merged)               48    48.0%"
        "        46,560,000\n"
        "                              clear_user+0x10 [kernel]\n"
        "                              read+0x5 [libc.so.6]\n"
        "                              main+0x2 [ovs-vswitchd]\n"
        "                            (no room in the map)         2     2.0%"
        "         1,940,000\n"
        "# Dominant: stopped, 400,000,000 ns (40.0%).\n");
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gap);

    /* Without --profile-hz, no block. */
    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_render_text_gap(&ds, &gap);
    CHECK(!strstr(kd_ds_cstr(&ds), "ON CPU STACKS"));
    CHECK(!strstr(kd_ds_cstr(&ds), "[BLOCKED]"));
    kd_ds_destroy(&ds);

    /* --off-cpu: where it slept and who woke it, a waker's name safe. */
    make_blocked_gap(&ev, &gap);
    kd_gap_merge_blocked(&gap);
    strcpy(gap.blocked[1].waker_name, "swap;\033r/1");
    kd_render_text_gap(&ds, &gap);
    text = strstr(kd_ds_cstr(&ds), "\n" KD_REPORT_INDENT "[BLOCKED]");
    CHECK_STR(text,
        "\n"
        "                            [BLOCKED] 5 sleeps ended in the interval"
        "\n"
        "                            STACK                   SLEEPS         AS"
        "LEEP ns      RUN QUEUE ns\n"
        "                            #1 (2 merged)                3       400,"
        "000,000         3,000,000\n"
        "                              schedule+0x1 [kernel]\n"
        "                              read+0x5 [libc.so.6]\n"
        "                              wait_reply+0x10 [ovs-vswitchd]\n"
        "                              woken by: writer (TID 44 of PID 40)\n"
        "                                try_to_wake_up+0x1 [kernel]\n"
        "                                write+0x2 [libc.so.6]\n"
        "                                send_reply+0x3 [ovs-vswitchd]\n"
        "                            #2                           1        50,"
        "000,000                 0\n"
        "                              futex_wait+0x2 [kernel]\n"
        "                              lll_lock+0x5 [libc.so.6]\n"
        "                              woken by: hard IRQ, interrupting swap;"
        "\\x1br/1 (TID 0 of PID 0)\n"
        "                                try_to_wake_up+0x1 [kernel]\n"
        "                                hrtimer_interrupt+0x10 [kernel]\n"
        "                            #3                           1        10,"
        "000,000                 0\n"
        "                              do_nanosleep+0x3 [kernel]\n"
        "                              nanosleep+0x4 [libc.so.6]\n"
        "                              woken by: (wake-up not seen)\n"
        "                            (no room in the map)         1\n"
        "# Dominant: stopped, 400,000,000 ns (40.0%).\n");
    kd_gap_destroy(&gap);
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
    TEST(test_render_text_gap),
    TEST(test_render_text_gap_progress),
    TEST(test_render_text_gap_stacks),
};

CHECK_SUITE(render_text_gap, tests)
