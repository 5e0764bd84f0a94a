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

    /* x86_64 has 360 or so, arm64 (generic table) 300 or so. */
    CHECK(kd_syscall_count() > 250);
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

/* The "poll" of long poll intervals: poll where the table has it, else
 * ppoll (arm64's table, like every generic one, has no poll), else none. */
static void
test_syscalls_poll(void)
{
    /* x86_64's numbers; the order of a table does not matter. */
    static const struct kd_syscall with_poll[] = {
        { 271, "ppoll" }, { 0, "read" }, { 7, "poll" }, { 232, "epoll_wait" },
    };
    /* arm64's numbers: no poll. */
    static const struct kd_syscall without_poll[] = {
        { 22, "epoll_pwait" }, { 63, "read" }, { 73, "ppoll" },
        { 441, "epoll_pwait2" },
    };
    static const struct kd_syscall neither[] = {
        { 63, "read" }, { 22, "epoll_pwait" }, { 7, "pollx" },
    };
    const struct kd_syscall *s;

    s = kd_syscall_poll_in(with_poll, 4);
    CHECK(s == &with_poll[2]);
    s = kd_syscall_poll_in(without_poll, 4);
    CHECK(s == &without_poll[2]);
    CHECK(kd_syscall_poll_in(neither, 3) == NULL);
    CHECK(kd_syscall_poll_in(without_poll, 0) == NULL);
    /* Only the first 2 entries: no ppoll either. */
    CHECK(kd_syscall_poll_in(without_poll, 2) == NULL);

    /* The build's own table. */
    s = kd_syscall_poll();
    if (CHECK(s != NULL)) {
        CHECK_INT(kd_syscall_poll_nr(), s->nr);
        CHECK_STR(kd_syscall_name(s->nr), s->name);
        CHECK_INT(kd_syscall_nr(s->name), s->nr);
        if (kd_syscall_nr("poll") >= 0) {
            CHECK_STR(s->name, "poll");
        } else {
            CHECK_STR(s->name, "ppoll");
        }
    }
#if defined(__x86_64__)
    CHECK_INT(kd_syscall_poll_nr(), 7);
    CHECK_STR(kd_syscall_poll()->name, "poll");
#elif defined(__aarch64__)
    CHECK_INT(kd_syscall_nr("poll"), -1);
    CHECK_INT(kd_syscall_poll_nr(), 73);
    CHECK_STR(kd_syscall_poll()->name, "ppoll");
#endif
}

static const struct test tests[] = {
    TEST(test_syscalls),
    TEST(test_syscalls_poll),
};

CHECK_SUITE(syscalls, tests)
