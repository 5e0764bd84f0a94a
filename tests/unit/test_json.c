/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/json.c: JSON strings from any bytes. */

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
test_json_string(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    kd_json_string(&ds, "a\"b\\c\nd\te\x01\x7f");
    CHECK_STR(kd_ds_cstr(&ds), "\"a\\\"b\\\\c\\nd\\te\\u0001\\u007f\"");
    kd_ds_destroy(&ds);

    /* Valid UTF-8 as is; invalid bytes as their Latin-1 code points. */
    kd_json_string(&ds, "h\xc3\xa9 \xf0\x9f\x98\x80 \xff\xc3(\xed\xa0\x80");
    CHECK_STR(kd_ds_cstr(&ds), "\"h\xc3\xa9 \xf0\x9f\x98\x80 \\u00ff\\u00c3("
              "\\u00ed\\u00a0\\u0080\"");
    kd_ds_destroy(&ds);

    /* Overlong encoding of '/'. */
    kd_json_string(&ds, "\xc0\xaf");
    CHECK_STR(kd_ds_cstr(&ds), "\"\\u00c0\\u00af\"");
    kd_ds_destroy(&ds);
}

/* RFC 3339 in UTC, whatever the local zone: New York's 02:24:37 EST is
 * 07:24:37Z; microseconds always, truncated. */
static void
test_json_time(void)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    struct timespec ts = { .tv_sec = 1795591477, .tv_nsec = 595260999 };
    struct tm local;

    with_tz("America/New_York");
    /* The zone is in effect (tzdata installed): 02:24 local time. */
    localtime_r(&ts.tv_sec, &local);
    CHECK_INT(local.tm_hour, 2);
    kd_json_time(&ds, &ts);
    CHECK_STR(kd_ds_cstr(&ds), "\"2026-11-25T07:24:37.595260Z\"");
    kd_ds_destroy(&ds);

    ts = (struct timespec) { .tv_sec = 1700000000, .tv_nsec = 0 };
    kd_json_time(&ds, &ts);
    CHECK_STR(kd_ds_cstr(&ds), "\"2023-11-14T22:13:20.000000Z\"");
    kd_ds_destroy(&ds);
    with_tz(NULL);
}

static const struct test tests[] = {
    TEST(test_json_string),
    TEST(test_json_time),
};

CHECK_SUITE(json, tests)
