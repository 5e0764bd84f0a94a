/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/report.c: numbers, fields and timestamps, the syscall
 * events and the upcalls against literal expected text.
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

static const struct test tests[] = {
    TEST(test_format_thousands),
    TEST(test_put_field),
    TEST(test_report_timestamp),
    TEST(test_format_wall_time),
    TEST(test_report_events),
    TEST(test_report_upcalls),
};

CHECK_SUITE(report, tests)
