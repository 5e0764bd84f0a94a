/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/render_text.c: the text report as a pure function of
 * a snapshot, literal snapshots in, literal text out. */

#include <stdint.h>
#include <string.h>

#include "gap.h"
#include "render_text.h"
#include "report.h"
#include "snapshot.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
test_render_text_sample(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_miss miss;
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;

    make_snapshot(&snap, stacks, events, &miss);
    snap.losses.upcall_module_gone = "openvswitch";
    kd_render_text_sample(&ds, &snap, NULL);

    kd_report_sample(&expected, &snap.sample);
    kd_ds_put_cstr(&expected,
        "\n# WARNING: Kernel module openvswitch was unloaded: upcalls are "
        "not counted since.\n");
    kd_report_events_header(&expected);
    kd_report_event(&expected, 1500000000, 1500002000, 43, "handler1", 7);
    kd_ds_put_cstr(&expected,
        "          do_sys_poll+0x1a [kernel]\n"
        "          main+0x10 [workload]\n");
    kd_report_event(&expected, 1600000000, 1600001000, 44,
                    "bad\033]0;x\a", 7);
    kd_ds_put_cstr(&expected, "          do_sys_poll+0x1a [kernel]\n");
    kd_report_lost_stacks(&expected, 1);
    kd_ds_put_cstr(&expected,
        "\n# WARNING: 9 events were not counted because eBPF maps were "
        "full: syscalls 9.\n"
        "#          The statistics above are incomplete; size the maps for "
        "more\n"
        "#          threads with the --max-threads option.\n"
        "\n# WARNING: The kernel skipped kernel_delay's eBPF programs 5 "
        "times,\n"
        "#          as another eBPF program was running on the same CPU: "
        "sched_switch 5.\n"
        "#          The statistics above miss those events.\n"
        "\n# WARNING: kernel_delay's eBPF programs did not see 3 context "
        "switches\n"
        "#          of the traced threads, which the kernel made without "
        "running\n"
        "#          the sched_switch tracepoint: a turn whose start was not "
        "seen is timed\n"
        "#          by the kernel's own run time of its thread; a thread "
        "seen switching\n"
        "#          in twice is one RUN and READY short.\n");
    CHECK_STR(kd_ds_cstr(&ds), kd_ds_cstr(&expected));
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "\033");
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "\a");
    kd_ds_destroy(&ds);
    kd_ds_destroy(&expected);
}

/* Without events or warnings, the report is the statistics alone. */
static void
test_render_text_plain(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;

    memset(&snap, 0, sizeof snap);
    kd_render_text_sample(&ds, &snap, NULL);
    kd_report_sample(&expected, &snap.sample);
    CHECK_STR(kd_ds_cstr(&ds), kd_ds_cstr(&expected));
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "WARNING");
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "SYSCALL EVENTS");
    kd_ds_destroy(&ds);
    kd_ds_destroy(&expected);
}

/* A sample with no syscall event over the threshold, or no thread that
 * the filter keeps, says so; warnings of one are worded for one. */
static void
test_render_text_empty(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_ds expected = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;

    memset(&snap, 0, sizeof snap);
    snap.tgid = 42;
    snap.with_events = true;
    snap.events_over_ns = 1000000;
    kd_render_text_sample(&ds, &snap, NULL);
    kd_report_sample(&expected, &snap.sample);
    kd_ds_put_cstr(&expected, "\n\n# No syscall longer than 1,000,000 ns "
                   "in this sample.\n");
    CHECK_STR(kd_ds_cstr(&ds), kd_ds_cstr(&expected));
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "SYSCALL EVENTS");
    kd_ds_destroy(&ds);
    kd_ds_destroy(&expected);

    /* -s 0, --tid: no thread, no syscall; one of each loss. */
    snap.events_over_ns = 0;
    snap.filtered = true;
    snap.losses.map_full[KD_MAP_SYSCALLS] = 1;
    snap.losses.switches_missed = 1;
    kd_render_text_sample(&ds, &snap, NULL);
    kd_report_sample(&expected, &snap.sample);
    kd_ds_put_cstr(&expected,
        "# No thread of process 42 matched --thread or --tid in this "
        "sample.\n"
        "\n\n# No syscall of the threads reported in this sample.\n"
        "\n# WARNING: 1 event was not counted because eBPF maps were full: "
        "syscalls 1.\n"
        "#          The statistics above are incomplete; size the maps for "
        "more\n"
        "#          threads with the --max-threads option.\n"
        "\n# WARNING: kernel_delay's eBPF programs did not see 1 context "
        "switch\n");
    CHECK(!strncmp(kd_ds_cstr(&ds), kd_ds_cstr(&expected),
                   strlen(kd_ds_cstr(&expected))));
    kd_ds_destroy(&ds);
    kd_ds_destroy(&expected);
}

/* --wall-clock: the events' ENTRY and EXIT as UTC times, on 27 columns;
 * DELTA, TID, COMM and SYSCALL as without it. */
static void
test_render_text_wall_clock(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot_event events[2];
    struct kd_stack stacks[2];
    struct kd_snapshot snap;
    struct kd_miss miss;

    make_snapshot(&snap, stacks, events, &miss);
    snap.with_wall_clock = true;
    snap.with_stacks = false;
    kd_render_text_sample(&ds, &snap, NULL);
    CHECK_CONTAINS(kd_ds_cstr(&ds),
        "\n\n# SYSCALL EVENTS:\n"
        "                  ENTRY (UTC)                  EXIT (UTC)        TID "
        "COMM             DELTA (us)  SYSCALL\n"
        "  --------------------------- --------------------------- ---------- "
        "---------------- ----------  ----------------\n"
        "  2023-11-14T22:13:20.500000Z 2023-11-14T22:13:20.500002Z         43 "
        "handler1                  2  poll\n"
        "  2023-11-14T22:13:20.600000Z 2023-11-14T22:13:20.600001Z         44 "
        "bad\\x1b]0;x\\x07           1  poll\n");
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "ENTRY (ns)");
    kd_ds_destroy(&ds);
}

static void
test_render_text_final(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_losses total = KD_LOSSES_INITIALIZER;

    kd_render_text_final(&ds, &total, 5);
    CHECK_STR(kd_ds_cstr(&ds), "");

    total.events_dropped = 12;
    total.triggers_missed = 3;
    kd_render_text_final(&ds, &total, 5);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# WARNING: Not all events were captured, 12 were dropped!\n"
        "#          Increase the BPF ring buffer size with the "
        "--buffer-page-count option.\n"
        "\n# WARNING: Not all start triggers were successful. 3 were missed "
        "due to\n"
        "#          slow userspace processing!\n");
    kd_ds_destroy(&ds);

    /* One sample: no missed trigger can matter, as the reference says. */
    kd_render_text_final(&ds, &total, 1);
    CHECK_NOT_CONTAINS(kd_ds_cstr(&ds), "start triggers");
    kd_ds_destroy(&ds);
}

static void
test_render_text_exited(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_text_exited(&ds, 42, true);
    CHECK_STR(kd_ds_cstr(&ds), "# NOTE: Process 42 exited while waiting "
              "for the start trigger.\n");
    kd_ds_destroy(&ds);
    kd_render_text_exited(&ds, 42, false);
    CHECK_STR(kd_ds_cstr(&ds), "\n# NOTE: Process 42 exited during the "
              "sample; the sample above ends there.\n");
    kd_ds_destroy(&ds);
}

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

/* The end of a --long-poll-events run, with its warnings. */
static void
test_render_text_watch_end(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_losses total = KD_LOSSES_INITIALIZER;

    kd_render_text_watch_end(&ds, 7, &total, 1, false);
    CHECK_STR(kd_ds_cstr(&ds), "\n# 1 long poll interval reported.\n");
    kd_ds_destroy(&ds);
    total.switches_missed = 2;
    total.events_dropped = 3;
    kd_render_text_watch_end(&ds, 7, &total, 0, false);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# 0 long poll intervals reported.\n"
        "\n# WARNING: kernel_delay's eBPF programs did not see 2 context "
        "switches\n"
        "#          of the traced threads, which the kernel made without "
        "running\n"
        "#          the sched_switch tracepoint: a turn whose start was not "
        "seen is timed\n"
        "#          by the kernel's own run time of its thread; what is "
        "still not\n"
        "#          known is unaccounted.\n"
        "\n# WARNING: Not all events were captured, 3 were dropped!\n"
        "#          Increase the BPF ring buffer size with the "
        "--buffer-page-count option.\n");
    kd_ds_destroy(&ds);

    /* No interval reported: nothing "above" to speak of. */
    total = (struct kd_losses) KD_LOSSES_INITIALIZER;
    total.map_full[KD_MAP_SYSCALLS] = 2;
    kd_render_text_watch_end(&ds, 7, &total, 0, false);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# 0 long poll intervals reported.\n"
        "\n# WARNING: 2 events were not counted because eBPF maps were "
        "full: syscalls 2.\n"
        "#          An interval may have gone unreported; size the maps for "
        "more\n"
        "#          threads with the --max-threads option.\n");
    kd_ds_destroy(&ds);
    kd_render_text_watch_end(&ds, 7, &total, 3, false);
    CHECK_CONTAINS(kd_ds_cstr(&ds), "The intervals above are incomplete");
    kd_ds_destroy(&ds);

    /* The target exited: a note, last. */
    total = (struct kd_losses) KD_LOSSES_INITIALIZER;
    kd_render_text_watch_end(&ds, 42, &total, 2, true);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# 2 long poll intervals reported.\n"
        "\n# NOTE: Process 42 exited.\n");
    kd_ds_destroy(&ds);
}

/* The note at a wait's end, the trigger rendered safe. */
static void
test_render_text_wait_end(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_render_text_wait_end(&ds, "u:kd_workload:job_start", 3100000000ull);
    CHECK_STR(kd_ds_cstr(&ds), "kernel_delay: no start trigger fired in "
              "3.1 s (u:kd_workload:job_start)\n");
    kd_ds_destroy(&ds);
}

/* The lines of --wait-target. */
static void
test_render_text_target(void)
{
    struct timespec now = { .tv_sec = 1000000006, .tv_nsec = 0 };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    with_tz("UTC");
    kd_render_text_target(&ds, KD_TARGET_WAITING, 0, &now);
    kd_render_text_target(&ds, KD_TARGET_ATTACHED, 40, &now);
    kd_render_text_target(&ds, KD_TARGET_LOST, 40, &now);
    with_tz(NULL);
    CHECK_STR(kd_ds_cstr(&ds),
        "# Waiting for ovs-vswitchd @2001-09-09T01:46:46 (01:46:46 UTC)\n"
        "\n# Attached to process 40 @2001-09-09T01:46:46 (01:46:46 UTC)\n"
        "\n# Lost process 40; waiting for ovs-vswitchd "
        "@2001-09-09T01:46:46 (01:46:46 UTC)\n");
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

/* --profile-hz and --off-cpu in a sample: the stacks of each thread that
 * has any, after the statistics; what found no room. */
static void
test_render_text_thread_stacks(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_snapshot snap;
    struct kd_thread threads[2];
    struct kd_gap gaps[2];
    const char *text;

    make_stacks_snapshot(&snap, threads, gaps);
    kd_render_text_sample(&ds, &snap, NULL);
    text = strstr(kd_ds_cstr(&ds),
                  "\n# Stacks of the threads (--profile-hz, --off-cpu):\n"
                  "\n        42 revalidator12345\n"
                  "\n" KD_REPORT_INDENT "[ON CPU STACKS] 100 samples at "
                  "99 Hz\n");
    CHECK(text != NULL);
    CHECK_CONTAINS(text ? text : "", "\n" KD_REPORT_INDENT "[BLOCKED] 5 "
                   "sleeps ended in the sample\n");
    CHECK_CONTAINS(text ? text : "", "\n# 3 samples and 1 sleeps found no "
                   "room in the maps (raise --stack-trace-size).\n");
    CHECK_NOT_CONTAINS(text ? text : "", "        43 idle");
    kd_ds_destroy(&ds);
    kd_gap_destroy(&gaps[0]);
}

static const struct test tests[] = {
    TEST(test_render_text_target),
    TEST(test_render_text_sample),
    TEST(test_render_text_plain),
    TEST(test_render_text_thread_stacks),
    TEST(test_render_text_empty),
    TEST(test_render_text_wall_clock),
    TEST(test_render_text_wait_end),
    TEST(test_render_text_final),
    TEST(test_render_text_exited),
    TEST(test_render_text_gap),
    TEST(test_render_text_gap_progress),
    TEST(test_render_text_gap_stacks),
    TEST(test_render_text_watch_end),
};

CHECK_SUITE(render_text, tests)
