/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/names.c: the names of softirq vectors and upcall
 * errnos. */

#include "names.h"
#include "util.h"
#include "check.h"

static void
test_names_softirq(void)
{
    char buf[32];

    CHECK_STR(kd_names_softirq(0, buf, sizeof buf), "hi");
    CHECK_STR(kd_names_softirq(3, buf, sizeof buf), "net_rx");
    CHECK_STR(kd_names_softirq(9, buf, sizeof buf), "rcu");
    CHECK_STR(kd_names_softirq(12, buf, sizeof buf), "<unknown:12>");
}

static void
test_names_upcall_errno(void)
{
    CHECK(kd_names_upcall_errno(0) == NULL);
    CHECK_STR(kd_names_upcall_errno(105), "ENOBUFS");
    CHECK(kd_names_upcall_errno(4096) == NULL);
}

static const struct test tests[] = {
    TEST(test_names_softirq),
    TEST(test_names_upcall_errno),
};

CHECK_SUITE(names, tests)
