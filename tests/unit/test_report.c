/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/report.c: numbers, fields and timestamps, the report
 * of a whole sample against literal expected text, the syscall events,
 * upcalls, summary and histograms, and hostile names rendered safely.
 *
 * Every expected text is written out here, taken from the reference
 * kernel_delay.py (its process_results() format strings), never from this
 * program's own output. */

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "sample.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
put_field(const char *s, int width, bool left, bool truncate,
          const char *expected, const char *file, int line)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_ds_put_cstr(&ds, "[");
    kd_report_field(&ds, s, width, left, truncate);
    kd_ds_put_cstr(&ds, "]");
    check_str(kd_ds_cstr(&ds), expected, "kd_report_field()", file, line);
    kd_ds_destroy(&ds);
}

#define CHECK_FIELD(S, WIDTH, LEFT, TRUNCATE, EXPECTED) \
    put_field((S), (WIDTH), (LEFT), (TRUNCATE), (EXPECTED), __FILE__, \
              __LINE__)

static void
test_format_thousands(void)
{
    char buf[32];

    CHECK_STR(kd_report_thousands(0, buf), "0");
    CHECK_STR(kd_report_thousands(7, buf), "7");
    CHECK_STR(kd_report_thousands(999, buf), "999");
    CHECK_STR(kd_report_thousands(1000, buf), "1,000");
    CHECK_STR(kd_report_thousands(99999, buf), "99,999");
    CHECK_STR(kd_report_thousands(100000, buf), "100,000");
    CHECK_STR(kd_report_thousands(1234567, buf), "1,234,567");
    CHECK_STR(kd_report_thousands(UINT64_MAX, buf),
              "18,446,744,073,709,551,615");
}

static void
test_put_field(void)
{
    CHECK_FIELD("abc", 6, true, false, "[abc   ]");
    CHECK_FIELD("abc", 6, false, false, "[   abc]");
    CHECK_FIELD("abc", 6, true, true, "[abc   ]");
    CHECK_FIELD("abcdefgh", 4, true, true, "[abcd]");
    CHECK_FIELD("abcdefgh", 4, false, true, "[abcd]");
    CHECK_FIELD("abcdefgh", 4, true, false, "[abcdefgh]");
    CHECK_FIELD("abcd", 4, true, true, "[abcd]");
    CHECK_FIELD("", 3, false, false, "[   ]");
    CHECK_FIELD("", 0, true, true, "[]");
    CHECK_FIELD("abc", 0, true, true, "[]");

    /* Python counts code points, not bytes. */
    CHECK_FIELD("h\xc3\xa9llo", 7, true, false, "[h\xc3\xa9llo  ]");
    CHECK_FIELD("h\xc3\xa9llo", 7, false, false, "[  h\xc3\xa9llo]");
    CHECK_FIELD("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, false, true,
                "[\xc3\xa9\xc3\xa9\xc3\xa9]");
    /* "日本語テキスト", 3-byte characters. */
    CHECK_FIELD("\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x83\x86"
                "\xe3\x82\xad\xe3\x82\xb9\xe3\x83\x88", 3, true, true,
                "[\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e]");
    /* "😀" is 4 bytes and one character. */
    CHECK_FIELD("\xf0\x9f\x98\x80" "a", 4, true, true,
                "[\xf0\x9f\x98\x80" "a  ]");
    CHECK_FIELD("ab\xf0\x9f\x98\x80" "cd", 3, true, true,
                "[ab\xf0\x9f\x98\x80]");

    /* Widths are those of the rendered form of hostile bytes. */
    CHECK_FIELD("a\x1b", 6, false, false, "[ a\\x1b]");
    CHECK_FIELD("a\x1b", 6, true, false, "[a\\x1b ]");
    CHECK_FIELD("ab\ncd", 4, true, true, "[ab\\n]");
    CHECK_FIELD("ab\ncd", 3, true, true, "[ab ]");
    CHECK_FIELD("ab\ncd", 3, false, true, "[ ab]");
}

static void
restore_tz(char *saved)
{
    if (saved) {
        setenv("TZ", saved, 1);
        free(saved);
    } else {
        unsetenv("TZ");
    }
    tzset();
}

static void
check_timestamp_at(const char *file, int line, const char *msg,
                   time_t sec, long nsec, const char *expected)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec ts = { .tv_sec = sec, .tv_nsec = nsec };

    kd_report_timestamp(&ds, msg, &ts);
    check_str(kd_ds_cstr(&ds), expected, "kd_report_timestamp()", file,
              line);
    kd_ds_destroy(&ds);
}

#define CHECK_TIMESTAMP(MSG, SEC, NSEC, EXPECTED) \
    check_timestamp_at(__FILE__, __LINE__, (MSG), (SEC), (NSEC), (EXPECTED))

static void
timestamp_cases(void)
{
    /* 2023-06-08 10:17:22 UTC, summer time (UTC+2). */
    CHECK_TIMESTAMP("# Start sampling", 1686219442, 725127000,
                    "# Start sampling @2023-06-08T12:17:22.725127 "
                    "(10:17:22 UTC)\n");
    /* Nanoseconds beyond the microsecond are dropped. */
    CHECK_TIMESTAMP("# Start sampling", 1686219442, 725127999,
                    "# Start sampling @2023-06-08T12:17:22.725127 "
                    "(10:17:22 UTC)\n");
    CHECK_TIMESTAMP("# Sample dump", 1686219442, 1000,
                    "# Sample dump @2023-06-08T12:17:22.000001 "
                    "(10:17:22 UTC)\n");
    /* isoformat() leaves out a zero fraction. */
    CHECK_TIMESTAMP("# Sample dump", 1686219442, 0,
                    "# Sample dump @2023-06-08T12:17:22 (10:17:22 UTC)\n");
    CHECK_TIMESTAMP("# Sample dump", 1686219442, 999,
                    "# Sample dump @2023-06-08T12:17:22 (10:17:22 UTC)\n");
    /* 2023-01-15 07:00:00 UTC, winter time (UTC+1). */
    CHECK_TIMESTAMP("# Stop sampling", 1673766000, 500000000,
                    "# Stop sampling @2023-01-15T08:00:00.500000 "
                    "(07:00:00 UTC)\n");
    /* The same local time twice, on 2023-10-29. */
    CHECK_TIMESTAMP("#", 1698539400, 0,
                    "# @2023-10-29T02:30:00 (00:30:00 UTC)\n");
    CHECK_TIMESTAMP("#", 1698543000, 0,
                    "# @2023-10-29T02:30:00 (01:30:00 UTC)\n");
    /* Local date differs from the UTC date. */
    CHECK_TIMESTAMP("x", 1686265200, 250000,
                    "x @2023-06-09T01:00:00.000250 (23:00:00 UTC)\n");
}

static void
test_report_timestamp(void)
{
    const char *tz = getenv("TZ");
    char *saved = tz ? kd_xstrdup(tz) : NULL;

    /* Europe/Amsterdam's rule, written out so that no tzdata is needed. */
    setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3", 1);
    tzset();
    timestamp_cases();

    /* The same through the time zone database, where it is installed. */
    if (!access("/usr/share/zoneinfo/Europe/Amsterdam", R_OK)) {
        setenv("TZ", "Europe/Amsterdam", 1);
        tzset();
        timestamp_cases();
    }

    setenv("TZ", "UTC0", 1);
    tzset();
    CHECK_TIMESTAMP("# Sample dump", 0, 0,
                    "# Sample dump @1970-01-01T00:00:00 (00:00:00 UTC)\n");
    restore_tz(saved);
}

static void
test_format_wall_time(void)
{
    struct timespec ts = { .tv_sec = 1700000000, .tv_nsec = 123456789 };
    char buf[40];

    utc();
    CHECK_STR(kd_report_wall_time(&ts, buf), "2023-11-14T22:13:20.123456");
    ts.tv_nsec = 999;       /* Under a microsecond: no fraction. */
    CHECK_STR(kd_report_wall_time(&ts, buf), "2023-11-14T22:13:20");
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
test_report_sample(void)
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

    memset(&s, 0, sizeof s);
    s.pid = 1000;
    s.syscalls = xmemdup(syscalls, sizeof syscalls);
    s.n_syscalls = KD_ARRAY_SIZE(syscalls);
    s.tstats = xmemdup(tstats, sizeof tstats);
    s.n_tstats = KD_ARRAY_SIZE(tstats);
    s.hardirqs = xmemdup(hardirqs, sizeof hardirqs);
    s.n_hardirqs = KD_ARRAY_SIZE(hardirqs);
    s.softirqs = xmemdup(softirqs, sizeof softirqs);
    s.n_softirqs = KD_ARRAY_SIZE(softirqs);
    s.names = xmemdup(exited, sizeof exited);
    s.n_names = KD_ARRAY_SIZE(exited);

    kd_sample_group(&s, fake_thread_name, &aux);
    CHECK_UINT(s.n_threads, 3);
    kd_report_sample(&ds, &s);
    CHECK_STR(kd_ds_cstr(&ds), expected_report);

    kd_ds_destroy(&ds);
    kd_sample_clear(&s);
    CHECK_UINT(s.pid, 1000);
    CHECK_UINT(s.n_threads, 0);
    CHECK(s.threads == NULL);
}
#endif /* __x86_64__ */

static void
test_report_empty_sample(void)
{
    struct kd_sample s;
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    memset(&s, 0, sizeof s);
    s.pid = 5;
    kd_sample_group(&s, NULL, NULL);
    CHECK_UINT(s.n_threads, 0);
    kd_report_sample(&ds, &s);
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
test_report_hostile_names(void)
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
    memset(&s, 0, sizeof s);
    s.pid = 2000;
    s.tstats = xmemdup(tstats, sizeof tstats);
    s.n_tstats = KD_ARRAY_SIZE(tstats);
    kd_sample_group(&s, fake_thread_name, &aux);
    kd_report_sample(&ds, &s);
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

    kd_report_summary(&ds, rows, 2, 500000000);
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
test_report_events(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_report_events_header(&ds);
    kd_report_event(&ds, 2161821694935486ull, 2161821695031201ull, 3359699,
                    "revalidator14", 202);
    kd_report_frame(&ds, "__GI___lll_lock_wait+0x30 [libc.so.6]");
    kd_report_event(&ds, 1000, 1234567890, 7, "a-very-long-thread-name",
                    100000);
    /* Literal text from the reference's format strings. */
    CHECK_STR(kd_ds_cstr(&ds),
        "\n\n# SYSCALL EVENTS:\n"
        "           ENTRY (ns)           EXIT (ns)        TID COMM        "
        "     DELTA (us)  SYSCALL\n"
        "  ------------------- ------------------- ---------- ------------"
        "---- ----------  ----------------\n"
        "     2161821694935486    2161821695031201    3359699 revalidator1"
        "4            95  futex\n"
        "          __GI___lll_lock_wait+0x30 [libc.so.6]\n"
        "                 1000          1234567890          7 a-very-long-"
        "thread-name  1,234,566  [unknown: 100000]\n");
    kd_ds_destroy(&ds);

    kd_report_lost_stacks(&ds, 0);
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_report_lost_stacks(&ds, 3);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n#WARNING: We where not able to display 3 stack traces!\n"
        "#         Consider increasing the stack trace size using\n"
        "#         the '--stack-trace-size' option.\n"
        "#         Note that this can also happen due to a stack id\n"
        "#         collision.\n");
    kd_ds_destroy(&ds);
}

static void
test_report_upcalls(void)
{
    uint64_t ok[2] = { 5, 3 }, enobufs[2] = { 0, 2 }, eagain[2] = { 1, 0 };
    uint64_t zero[2] = { 0, 0 };
    struct kd_upcall_entry all[] = {
        { 105, enobufs }, { 0, ok }, { 11, eagain }, { 7, zero },
    };
    struct kd_upcall_entry only_ok[] = { { 0, ok } };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_report_upcalls(&ds, all, KD_ARRAY_SIZE(all), 2);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n"
        "  Total upcalls       : 11 [0: 6, 1: 5]\n"
        "  Successfull upcalls : 8 [0: 5, 1: 3]\n"
        "  Failed upcalls      : 3 [0: 1, 1: 2]\n"
        "     11, EAGAIN       : 1 [0: 1]\n"
        "    105, ENOBUFS      : 2 [1: 2]\n");
    kd_ds_destroy(&ds);

    /* Only successes: the reference prints the total alone. */
    kd_report_upcalls(&ds, only_ok, 1, 2);
    CHECK_STR(kd_ds_cstr(&ds),
        "\n\n# UPCALL STATISTICS (TOTAL [CPU_ID: N_UPCALLS_PER_CPU, ...]):\n"
        "  Total upcalls       : 8 [0: 5, 1: 3]\n");
    kd_ds_destroy(&ds);

    /* Nothing at all: no section. */
    kd_report_upcalls(&ds, all + 3, 1, 2);
    CHECK_STR(kd_ds_cstr(&ds), "");
    kd_ds_destroy(&ds);
}

static void
test_report_summary(void)
{
    struct kd_sample s;
    struct kd_summary_row rows[2];
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    make_summary_sample(&s);
    kd_summary_compute(&s, rows);
    kd_report_summary(&ds, rows, 2, 500000000);
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
test_histograms(void)
{
    uint64_t counts[KD_HIST_SLOTS] = { 0 };
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    counts[2] = 20;         /* 2..3 */
    counts[3] = 50;         /* 4..7 */
    counts[5] = 40;         /* 16..31 */
    kd_report_hist(&ds, counts, 20);
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
    TEST(test_format_thousands),
    TEST(test_put_field),
    TEST(test_report_timestamp),
    TEST(test_format_wall_time),
#if defined(__x86_64__)
    TEST(test_report_sample),
#endif
    TEST(test_report_empty_sample),
    TEST(test_report_hostile_names),
    TEST(test_report_events),
    TEST(test_report_upcalls),
    TEST(test_report_summary),
    TEST(test_histograms),
};

CHECK_SUITE(report, tests)
