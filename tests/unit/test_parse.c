/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/parse.c: the strict number and duration parsers. */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "util.h"
#include "check.h"

static void
test_parse_u64(void)
{
    uint64_t u;

    u = 99;
    CHECK_INT(kd_parse_u64("0", 0, 10, &u), 0);
    CHECK_UINT(u, 0);
    CHECK_INT(kd_parse_u64("10", 0, 10, &u), 0);
    CHECK_UINT(u, 10);
    CHECK_INT(kd_parse_u64("+7", 0, 10, &u), 0);
    CHECK_UINT(u, 7);
    CHECK_INT(kd_parse_u64("007", 0, 10, &u), 0);
    CHECK_UINT(u, 7);
    CHECK_INT(kd_parse_u64("18446744073709551615", 0, UINT64_MAX, &u), 0);
    CHECK_UINT(u, UINT64_MAX);
    CHECK_INT(kd_parse_u64("18446744073709551614", 0, UINT64_MAX, &u), 0);
    CHECK_UINT(u, UINT64_MAX - 1);

    CHECK_INT(kd_parse_u64("11", 0, 10, &u), ERANGE);
    CHECK_INT(kd_parse_u64("4", 5, 10, &u), ERANGE);
    CHECK_INT(kd_parse_u64("-5", 0, 10, &u), ERANGE);
    CHECK_INT(kd_parse_u64("18446744073709551616", 0, UINT64_MAX, &u),
              ERANGE);
    CHECK_INT(kd_parse_u64("99999999999999999999999", 0, UINT64_MAX, &u),
              ERANGE);

    CHECK_INT(kd_parse_u64("", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("+", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("-", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("++5", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("-5x", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("5x", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64(" 5", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("5 ", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("0x10", 0, 100, &u), EINVAL);
    CHECK_INT(kd_parse_u64("1.0", 0, 10, &u), EINVAL);
    CHECK_INT(kd_parse_u64("99999999999999999999999x", 0, UINT64_MAX, &u),
              EINVAL);
}

static void
test_parse_seconds(void)
{
    double d;

    d = 99;
    CHECK_INT(kd_parse_seconds("0.5", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0.5);
    CHECK_INT(kd_parse_seconds("1e3", 0, 1e6, &d), 0);
    CHECK_DOUBLE(d, 1000);
    CHECK_INT(kd_parse_seconds("1E-1", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0.1);
    CHECK_INT(kd_parse_seconds(".5", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0.5);
    CHECK_INT(kd_parse_seconds("5.", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 5);
    CHECK_INT(kd_parse_seconds("+2", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 2);
    CHECK_INT(kd_parse_seconds("0", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 0);
    CHECK_INT(kd_parse_seconds("10", 0, 10, &d), 0);
    CHECK_DOUBLE(d, 10);
    CHECK_INT(kd_parse_seconds("1e-9", 1e-9, 10, &d), 0);
    CHECK_DOUBLE(d, 1e-9);

    CHECK_INT(kd_parse_seconds("-1", 0, 10, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("10.5", 0, 10, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("0", 1e-9, 10, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("1e999", 0, 1e9, &d), ERANGE);
    CHECK_INT(kd_parse_seconds("-1e999", 0, 1e9, &d), ERANGE);

    CHECK_INT(kd_parse_seconds("", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds(".", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("e5", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1e", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1-2", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("nan", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("NAN", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("inf", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("infinity", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("0x1", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("0x1p3", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds(" 1", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1 ", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("1,5", 0, 10, &d), EINVAL);
    CHECK_INT(kd_parse_seconds("abc", 0, 10, &d), EINVAL);
}

/* Durations with units, computed exactly. */
static void
test_parse_duration_ns(void)
{
    static const struct {
        const char *s;
        uint64_t ns;
    } good[] = {
        { "0", 0 }, { "7", 7 }, { "+7", 7 }, { "007", 7 }, { "-0", 0 },
        { "-0ms", 0 }, { "0.0", 0 }, { "0e999999999999", 0 },
        { "1e6", 1000000 }, { "1E6", 1000000 }, { "1e+6", 1000000 },
        { "1.5e3", 1500 }, { "1000e-3", 1 }, { "1500e-3ms", 1500000 },
        { "1.0", 1 }, { "5.", 5 },
        { "50ns", 50 }, { "50us", 50000 }, { "50ms", 50000000 },
        { "2s", 2000000000 }, { "1.5ms", 1500000 }, { ".5us", 500 },
        { "0.000001s", 1000 }, { "1e-3s", 1000000 }, { "1E3us", 1000000 },
        { "0.000000001s", 1 }, { "1500.0ns", 1500 },
        { "9223372036854775807", UINT64_MAX / 2 },
        { "9223372036.854775807s", UINT64_MAX / 2 },
        { "922337203685477580.7e1", UINT64_MAX / 2 },
    };
    static const struct {
        const char *s;
        int error;
    } bad[] = {
        { "", EINVAL }, { "+", EINVAL }, { "-", EINVAL }, { ".", EINVAL },
        { "ms", EINVAL }, { "s", EINVAL }, { ".ms", EINVAL },
        { "5 ms", EINVAL }, { " 5ms", EINVAL }, { "5ms ", EINVAL },
        { "5msx", EINVAL }, { "5m", EINVAL }, { "5sec", EINVAL },
        { "5MS", EINVAL }, { "5Ms", EINVAL }, { "5h", EINVAL },
        { "1e", EINVAL }, { "1e+", EINVAL }, { "1ems", EINVAL },
        { "0x10", EINVAL }, { "1,5ms", EINVAL }, { "1..5", EINVAL },
        { "++5", EINVAL }, { "inf", EINVAL }, { "nan", EINVAL },
        { "5nss", EINVAL }, { "1e3.5", EINVAL },
        { "1.5ns", EDOM }, { "1.5", EDOM }, { "0.1", EDOM },
        { "1e-1", EDOM }, { "0.0000000001s", EDOM }, { "1e-999999999s", EDOM },
        { "-1", ERANGE }, { "-1ms", ERANGE }, { "-0.5ns", ERANGE },
        { "9223372036854775808", ERANGE }, { "9223372036.854775808s", ERANGE },
        { "18446744073709551616", ERANGE }, { "1e30", ERANGE },
        { "1e999999999999999999999", ERANGE },
        { "99999999999999999999999999999999ms", ERANGE },
    };
    uint64_t u;

    for (size_t i = 0; i < KD_ARRAY_SIZE(good); i++) {
        u = 99;
        if (!CHECK_INT(kd_parse_duration_ns(good[i].s, UINT64_MAX / 2, &u),
                       0)) {
            printf("  (for \"%s\")\n", good[i].s);
        }
        if (!CHECK_UINT(u, good[i].ns)) {
            printf("  (for \"%s\")\n", good[i].s);
        }
    }
    for (size_t i = 0; i < KD_ARRAY_SIZE(bad); i++) {
        u = 99;
        if (!CHECK_INT(kd_parse_duration_ns(bad[i].s, UINT64_MAX / 2, &u),
                       bad[i].error)) {
            printf("  (for \"%s\")\n", bad[i].s);
        }
        if (!CHECK_UINT(u, 99)) {
            printf("  (for \"%s\")\n", bad[i].s);
        }
    }
    CHECK_INT(kd_parse_duration_ns("10ns", 10, &u), 0);
    CHECK_INT(kd_parse_duration_ns("11ns", 10, &u), ERANGE);
    CHECK_INT(kd_parse_duration_ns("18446744073709551615", UINT64_MAX, &u),
              0);
    CHECK_UINT(u, UINT64_MAX);
    CHECK_INT(kd_parse_duration_ns("18446744073709551616", UINT64_MAX, &u),
              ERANGE);
    CHECK_INT(kd_parse_duration_ns("18446744073.709551616s", UINT64_MAX,
                                   &u), ERANGE);
    CHECK(kd_parse_has_unit("5ms") && kd_parse_has_unit("s"));
    CHECK(!kd_parse_has_unit("5") && !kd_parse_has_unit(""));
}

static const struct test tests[] = {
    TEST(test_parse_u64),
    TEST(test_parse_seconds),
    TEST(test_parse_duration_ns),
};

CHECK_SUITE(parse, tests)
