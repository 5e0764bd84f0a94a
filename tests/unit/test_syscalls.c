/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/syscalls.c: the syscall table of this architecture. */

#include <limits.h>

#include "syscalls.h"
#include "check.h"

static void
test_syscalls(void)
{
    char buf[64];
    size_t found = 0;
    unsigned int prev = 0;

    CHECK(kd_syscall_count() > 300);
#if defined(__x86_64__)
    CHECK_STR(kd_syscall_name(0), "read");
    CHECK_STR(kd_syscall_name(1), "write");
    CHECK_STR(kd_syscall_name(7), "poll");
    CHECK_STR(kd_syscall_name(110), "getppid");
    CHECK_STR(kd_syscall_name(202), "futex");
    CHECK_STR(kd_syscall_name(230), "clock_nanosleep");
    CHECK_STR(kd_syscall_name(435), "clone3");
    CHECK_STR(kd_syscall_name(236), "vserver");
    CHECK_STR(kd_syscall_name(262), "newfstatat");
    CHECK(kd_syscall_name(335) == NULL);
    CHECK(kd_syscall_name(423) == NULL);
    CHECK_STR(kd_syscall_format(335, buf, sizeof buf), "[unknown: 335]");
    CHECK_INT(kd_syscall_nr("poll"), 7);
    CHECK_INT(kd_syscall_nr("read"), 0);
    CHECK_INT(kd_syscall_nr("clone3"), 435);
    CHECK_STR(kd_syscall_format(7, buf, sizeof buf), "poll");
    CHECK_STR(kd_syscall_format(0, buf, sizeof buf), "read");
#endif
    CHECK(kd_syscall_name(100000) == NULL);
    CHECK(kd_syscall_name(UINT_MAX) == NULL);
    CHECK_INT(kd_syscall_nr("no_such_syscall"), -1);
    CHECK_INT(kd_syscall_nr(""), -1);
    CHECK_STR(kd_syscall_format(100000, buf, sizeof buf),
              "[unknown: 100000]");
    CHECK_STR(kd_syscall_format(4294967295u, buf, sizeof buf),
              "[unknown: 4294967295]");

    /* A binary search finds every entry only if the table is sorted, and
     * names are unique if each maps back to its own number. */
    for (unsigned int nr = 0; nr <= 1000; nr++) {
        const char *name = kd_syscall_name(nr);

        if (name) {
            found++;
            if (!CHECK_INT(kd_syscall_nr(name), nr)) {
                break;
            }
            if (found > 1) {
                CHECK(nr > prev);
            }
            prev = nr;
        }
    }
    CHECK_UINT(found, kd_syscall_count());
}

static const struct test tests[] = {
    TEST(test_syscalls),
};

CHECK_SUITE(syscalls, tests)
