/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/json.c: JSON strings from any bytes. */

#include "json.h"
#include "util.h"
#include "check.h"

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

static const struct test tests[] = {
    TEST(test_json_string),
};

CHECK_SUITE(json, tests)
