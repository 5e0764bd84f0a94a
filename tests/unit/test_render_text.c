/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/render_text.c: the text report as a pure function of
 * a snapshot, literal snapshots in, literal text out. */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gap.h"
#include "render_text.h"
#include "report.h"
#include "sample.h"
#include "snapshot.h"
#include "summary.h"
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

    kd_render_text_threads(&expected, &snap.sample);
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
    kd_render_text_threads(&expected, &snap.sample);
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
    kd_render_text_threads(&expected, &snap.sample);
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
    kd_render_text_threads(&expected, &snap.sample);
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

/* Report of a whole sample. */

/* The indentation of everything under a thread's first line. */
#define IND "                            "

#if defined(__x86_64__)

/* Written from the reference's process_results() format strings. */
static const char expected_report[] =
    "TID        THREAD           <RESOURCE SPECIFIC>\n"
    "---------- ---------------- "
        "--------------------------------------"
        "--------------------------------------\n"
    /* Named from its exit record; no syscalls, yet the header lines. */
    "      1002 dpdk-worker      [SYSCALL STATISTICS]\n"
    IND "NAME                 NUMBER       COUNT"
        "          TOTAL ns            MAX ns\n"
    "\n"
    IND "[THREAD RUN STATISTICS]\n"
    IND "SCHED_CNT           TOTAL ns            MIN ns"
        "            MAX ns\n"
    IND "         5       123,456,789             1,000"
        "        99,999,999\n"
    "\n"
    IND "[SOFT IRQ STATISTICS]\n"
    IND "NAME                 VECT_NR       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "net_rx                     3           7"
        "             7,000             2,000\n"
    IND "TOTAL:                                 7"
        "             7,000\n"
    "\n"
    "      1001 handler1         [SYSCALL STATISTICS]\n"
    IND "NAME                 NUMBER       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "poll                      7           3"
        "         3,000,000         2,000,000\n"
    IND "futex                   202           2"
        "         1,234,567         1,000,000\n"
    IND "read                      0          10"
        "             5,000               900\n"
    IND "[unknown: 999]          999           1"
        "                20                20\n"
    IND "sched_get_priority_m    146           1"
        "                10                10\n"
    IND "TOTAL( - poll):                      14"
        "         1,239,597\n"
    "\n"
    IND "[LONG POLL STATISTICS]\n"
    IND "COUNT             AVERAGE ns            MIN ns"
        "            MAX ns\n"
    IND "         3               333               100"
        "               600\n"
    "\n"
    IND "[THREAD RUN STATISTICS]\n"
    IND "SCHED_CNT           TOTAL ns            MIN ns"
        "            MAX ns\n"
    IND "         4             8,000             1,000"
        "             4,000\n"
    "\n"
    IND "[THREAD READY STATISTICS]\n"
    IND "SCHED_CNT           TOTAL ns            MAX ns\n"
    IND "         6            60,000            30,000\n"
    "\n"
    IND "[THREAD STOPPED STATISTICS]\n"
    IND "STOP_CNT            TOTAL ns            MAX ns\n"
    IND "         2             3,000             2,000\n"
    "\n"
    IND "[HARD IRQ STATISTICS]\n"
    IND "NAME                       COUNT          TOTAL ns"
        "            MAX ns\n"
    IND "nvme0q1                        1             9,000"
        "             9,000\n"
    IND "eth0-TxRx-0                    4             8,000"
        "             3,000\n"
    IND "averyveryverylongirq           2               500"
        "               400\n"
    IND "TOTAL:                         7            17,500\n"
    "\n"
    IND "[SOFT IRQ STATISTICS]\n"
    IND "NAME                 VECT_NR       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "timer                      1           2"
        "            50,000            40,000\n"
    IND "net_rx                     3           7"
        "             7,000             2,000\n"
    IND "<unknown:12>              12           1"
        "               100               100\n"
    IND "TOTAL:                                10"
        "            57,100\n"
    "\n"
    /* "wörker": padded to 16 characters, not bytes; only poll, so no
     * TOTAL line. */
    "      1003 w\xc3\xb6" "rker           [SYSCALL STATISTICS]\n"
    IND "NAME                 NUMBER       COUNT"
        "          TOTAL ns            MAX ns\n"
    IND "poll                      7           5"
        "               500               300\n";

static void
test_render_text_threads(void)
{
    static const struct fake_name names[] = {
        { 1001, "handler1" },
        { 1003, "w\xc3\xb6rker" },
    };
    struct fake_names aux = { names, KD_ARRAY_SIZE(names), 0, 0 };
    struct kd_sample s;
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    const struct kd_syscall_entry syscalls[] = {
        sc(1001, 146, 1, 10, 10),
        sc(1003, 7, 5, 500, 300),
        sc(1001, 0, 10, 5000, 900),
        sc(1001, 202, 2, 1234567, 1000000),
        sc(1001, 999, 1, 20, 20),
        sc(1001, 7, 3, 3000000, 2000000),
    };
    struct kd_tstats_entry tstats[3];
    const struct kd_hardirq_entry hardirqs[] = {
        hi(1001, "eth0-TxRx-0", 4, 8000, 3000),
        hi(1001, "averyveryverylongirqname_abcdefg", 2, 500, 400),
        hi(1001, "nvme0q1", 1, 9000, 9000),
    };
    const struct kd_softirq_entry softirqs[] = {
        si(1001, 12, 1, 100, 100),
        si(1002, 3, 7, 7000, 2000),
        si(1001, 3, 7, 7000, 2000),
        si(1001, 1, 2, 50000, 40000),
    };
    const struct kd_name_entry exited[] = {
        nm(1002, "dpdk-worker"),
        nm(1004, "idle"),
    };

    memset(tstats, 0, sizeof tstats);
    tstats[0].tid = 1002;
    tstats[0].stats.run = stat4(5, 123456789, 99999999, 1000);
    tstats[1].tid = 1001;
    tstats[1].stats.poll = stat4(3, 1000, 600, 100);
    tstats[1].stats.run = stat4(4, 8000, 4000, 1000);
    tstats[1].stats.ready = stat4(6, 60000, 30000, 5);
    tstats[1].stats.stop = stat4(2, 3000, 2000, 1000);
    /* A thread whose statistics are all empty is not reported. */
    tstats[2].tid = 1004;

    make_sample(&s, 1000, &(struct sample_entries) {
        SAMPLE_ENTRIES(syscalls, syscalls),
        SAMPLE_ENTRIES(tstats, tstats),
        SAMPLE_ENTRIES(hardirqs, hardirqs),
        SAMPLE_ENTRIES(softirqs, softirqs),
        SAMPLE_ENTRIES(names, exited),
    });

    kd_sample_group(&s, fake_thread_name, &aux);
    CHECK_UINT(s.n_threads, 3);
    kd_render_text_threads(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds), expected_report);

    kd_ds_destroy(&ds);
    kd_sample_clear(&s);
    CHECK_UINT(s.pid, 1000);
    CHECK_UINT(s.n_threads, 0);
    CHECK(s.threads == NULL);
}
#endif /* __x86_64__ */

static void
test_render_text_no_threads(void)
{
    struct kd_sample s;
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    memset(&s, 0, sizeof s);
    s.pid = 5;
    kd_sample_group(&s, NULL, NULL);
    CHECK_UINT(s.n_threads, 0);
    kd_render_text_threads(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds),
              "TID        THREAD           <RESOURCE SPECIFIC>\n"
              "---------- ---------------- "
              "--------------------------------------"
              "--------------------------------------\n");
    kd_ds_destroy(&ds);
    kd_sample_clear(&s);
}

/* Names chosen by the target are rendered safely, and the columns after
 * them are padded on the rendered form: the report, the summary, the
 * syscall events and their frames. */
static void
test_render_text_hostile_names(void)
{
    /* A window title set with OSC ... BEL, then a clear screen; a
     * newline, a tab and a backslash. */
    static const char evil[] = "\x1b]0;x\a\x1b[2Jab";
    static const char split[] = "a\nb\tc\\";
    static const struct fake_name names[] = {
        { 2001, evil },
        { 2002, split },
    };
    struct fake_names aux = { names, KD_ARRAY_SIZE(names), 0, 0 };
    struct kd_tstats_entry tstats[2];
    struct kd_summary_row rows[2] = {
        { .tid = 2002, .name = split, .ready_ns = 250000000,
          .max_ready_ns = 120000000 },
        { .tid = 2001, .name = evil, .run_ns = 100000000 },
    };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct kd_sample s;

    memset(tstats, 0, sizeof tstats);
    tstats[0].tid = 2001;
    tstats[0].stats.run = stat4(1, 1000, 1000, 1000);
    tstats[1].tid = 2002;
    tstats[1].stats.run = stat4(2, 3000, 2000, 1000);
    make_sample(&s, 2000, &(struct sample_entries) {
        SAMPLE_ENTRIES(tstats, tstats),
    });
    kd_sample_group(&s, fake_thread_name, &aux);
    kd_render_text_threads(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds),
        "TID        THREAD           <RESOURCE SPECIFIC>\n"
        "---------- ---------------- "
            "--------------------------------------"
            "--------------------------------------\n"
        /* 21 columns: longer than the field, as a long name would be. */
        "      2001 \\x1b]0;x\\x07\\x1b[2Jab [SYSCALL STATISTICS]\n"
        IND "NAME                 NUMBER       COUNT"
            "          TOTAL ns            MAX ns\n"
        "\n"
        IND "[THREAD RUN STATISTICS]\n"
        IND "SCHED_CNT           TOTAL ns            MIN ns"
            "            MAX ns\n"
        IND "         1             1,000             1,000"
            "             1,000\n"
        "\n"
        /* 9 columns, padded with 7 spaces to 16. */
        "      2002 a\\nb\\tc\\\\        [SYSCALL STATISTICS]\n"
        IND "NAME                 NUMBER       COUNT"
            "          TOTAL ns            MAX ns\n"
        "\n"
        IND "[THREAD RUN STATISTICS]\n"
        IND "SCHED_CNT           TOTAL ns            MIN ns"
            "            MAX ns\n"
        IND "         2             3,000             1,000"
            "             2,000\n");
    kd_ds_destroy(&ds);
    kd_sample_clear(&s);

    kd_render_text_summary(&ds, rows, 2, 500000000);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# SUMMARY: share of the 500.0 ms sample window spent\n"
        "TID        THREAD            ON CPU  RUN QUEUE  STOPPED  HARD IRQ"
        "  SOFT IRQ  SYSCALLS   LONGEST WAIT ns\n"
        "      2002 a\\nb\\tc\\\\           0.0%      50.0%     0.0%      0.0%"
        "      0.0%      0.0%       120,000,000\n"
        "      2001 \\x1b]0;x\\x07\\x1b[2Jab   20.0%       0.0%     0.0%"
        "      0.0%      0.0%      0.0%                 0\n"
        "# Longest in the run queue: a\\nb\\tc\\\\ (TID 2002), 250,000,000 ns "
        "in all (50.0% of the window), 120,000,000 ns at most.\n");
    kd_ds_destroy(&ds);

    kd_report_event(&ds, 1000, 2000, 2002, split, 100000);
    kd_report_frame(&ds, "evil\x1b[8m+0x10 [lib\n.so\xc2\x9b]");
    CHECK_STR(kd_ds_cstr(&ds),
        "                 1000                2000       2002 a\\nb\\tc\\\\"
        "                 1  [unknown: 100000]\n"
        "          evil\\x1b[8m+0x10 [lib\\n.so\\xc2\\x9b]\n");
    kd_ds_destroy(&ds);
}

static void
test_render_text_summary(void)
{
    struct kd_sample s;
    struct kd_summary_row rows[2];
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    make_summary_sample(&s);
    kd_summary_compute(&s, rows);
    kd_render_text_summary(&ds, rows, 2, 500000000);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n# SUMMARY: share of the 500.0 ms sample window spent\n"
        "TID        THREAD            ON CPU  RUN QUEUE  STOPPED  HARD IRQ"
        "  SOFT IRQ  SYSCALLS   LONGEST WAIT ns\n"
        "         2 urcu2               0.0%      50.0%     0.0%      0.0%"
        "      0.0%      0.0%       120,000,000\n"
        "         1 handler1           20.0%       0.0%     0.0%      0.0%"
        "      0.0%     10.0%                 0\n"
        "# Longest in the run queue: urcu2 (TID 2), 250,000,000 ns in all "
        "(50.0% of the window), 120,000,000 ns at most, mostly behind "
        "pmd\\x1b4 (TID 3 of PID 1).\n"
        "# Ran instead, while each thread waited in the run queue (the "
        "longest three):\n"
        "TID        THREAD           TASK[TID/PID] SHARE OF THE WAIT\n"
        "         2 urcu2            pmd\\x1b4[3/1] 80.0%, (not known) "
        "20.0%\n");
    kd_ds_destroy(&ds);

}

static void
test_render_text_histograms(void)
{
    uint64_t counts[KD_HIST_SLOTS] = { 0 };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    counts[2] = 20;         /* 2..3 */
    counts[3] = 50;         /* 4..7 */
    counts[5] = 40;         /* 16..31 */
    kd_render_text_hist(&ds, counts, 20);
    CHECK_STR(kd_ds_cstr(&ds),
        "                                 ns                  : count     "
        "distribution\n"
        "                                     0 -> 1          : 0        "
        "|                                        |\n"
        "                                     2 -> 3          : 20       "
        "|****************                        |\n"
        "                                     4 -> 7          : 50       "
        "|****************************************|\n"
        "                                     8 -> 15         : 0        "
        "|                                        |\n"
        "                                    16 -> 31         : 40       "
        "|********************************        |\n"
        "                            p50 <= 7 ns, p90 <= 20 ns, p99 <= 20 "
        "ns, max 20 ns\n");
    kd_ds_destroy(&ds);
}

static const struct test tests[] = {
#if defined(__x86_64__)
    TEST(test_render_text_threads),
#endif
    TEST(test_render_text_no_threads),
    TEST(test_render_text_hostile_names),
    TEST(test_render_text_summary),
    TEST(test_render_text_histograms),
    TEST(test_render_text_target),
    TEST(test_render_text_sample),
    TEST(test_render_text_plain),
    TEST(test_render_text_thread_stacks),
    TEST(test_render_text_empty),
    TEST(test_render_text_wall_clock),
    TEST(test_render_text_wait_end),
    TEST(test_render_text_final),
    TEST(test_render_text_exited),
    TEST(test_render_text_watch_end),
};

CHECK_SUITE(render_text, tests)
