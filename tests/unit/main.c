/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The runner of the unit tests: tests/unit/test_MODULE.c tests
 * src/MODULE.c, and registers its table as the suite MODULE
 * (CHECK_SUITE(), tests/check.h).  The Makefile links this file with the
 * test files of the modules of CORE_SRCS, which never touch the kernel,
 * into tests/unit/core_units, which links no libbcc or libbpf; and with
 * those of KERNEL_SRCS, for what these modules do without the kernel
 * (text they build, what they parse), into tests/unit/kernel_units.
 * Neither makes a BPF syscall or needs any privilege.  tests/unit/run
 * runs both and adds up their results.
 *
 * "tests/unit/core_units -k trigger" runs the tests whose names, or whose
 * module's names, contain "trigger". */

#include <string.h>

#include "check.h"

static struct check_suite *suites;

void
check_register(struct check_suite *suite)
{
    struct check_suite **p = &suites;

    while (*p && strcmp((*p)->name, suite->name) < 0) {
        p = &(*p)->next;
    }
    suite->next = *p;
    *p = suite;
}

int
main(int argc, char *argv[])
{
    return check_main_suites(suites, argc, argv);
}
