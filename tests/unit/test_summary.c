/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/summary.c: each thread's row from a grouped sample,
 * their order, the syscalls but poll(), and the names of who ran
 * instead. */

#include <stdint.h>
#include <string.h>

#include "sample.h"
#include "summary.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

static void
test_summary_compute(void)
{
    struct kd_summary_row rows[2];
    struct kd_sample s;

    make_summary_sample(&s);
    kd_summary_compute(&s, rows);

    /* Longest run-queue wait first. */
    CHECK_UINT(rows[0].tid, 2);
    CHECK_STR(rows[0].name, "urcu2");
    CHECK_UINT(rows[0].ready_ns, 250000000);
    CHECK_UINT(rows[0].max_ready_ns, 120000000);
    CHECK_UINT(rows[0].run_ns, 0);
    CHECK_UINT(rows[0].n_ran, 2);
    CHECK(rows[0].ran == s.threads[1].ran);
    CHECK_UINT(rows[1].tid, 1);
    CHECK_UINT(rows[1].run_ns, 100000000);
    CHECK_UINT(rows[1].ready_ns, 0);
    CHECK_UINT(rows[1].syscall_ns, 50000000);
    CHECK_UINT(rows[1].n_ran, 0);
}

/* Equal waits: by name, then TID; hard and soft IRQ times summed. */
static void
test_summary_order(void)
{
    const struct kd_hardirq_entry hardirqs[2] = {
        { { 3, "eth0" }, { 1, 1000, 1000, 1000 } },
        { { 3, "nvme0q1" }, { 2, 3000, 2000, 1000 } },
    };
    const struct kd_softirq_entry softirqs[1] = {
        { { 3, 3 }, { 4, 500, 200, 50 } },
    };
    struct kd_thread threads[3] = {
        { .tid = 9, .name = "b" },
        { .tid = 8, .name = "b" },
        { .tid = 3, .name = "a", .hardirqs = hardirqs, .n_hardirqs = 2,
          .softirqs = softirqs, .n_softirqs = 1 },
    };
    struct kd_sample s = { .pid = 1, .threads = threads, .n_threads = 3 };
    struct kd_summary_row rows[3];

    kd_summary_compute(&s, rows);
    CHECK_UINT(rows[0].tid, 3);
    CHECK_UINT(rows[0].hardirq_ns, 4000);
    CHECK_UINT(rows[0].softirq_ns, 500);
    CHECK_UINT(rows[1].tid, 8);
    CHECK_UINT(rows[2].tid, 9);

    /* No thread, no row. */
    s.n_threads = 0;
    kd_summary_compute(&s, rows);
}

static void
test_summary_syscalls_but_poll(void)
{
    uint64_t count, total;
    struct kd_sample s;

    make_summary_sample(&s);
    kd_summary_syscalls_but_poll(&s.threads[0], &count, &total);
    CHECK_UINT(count, 2);
    CHECK_UINT(total, 50000000);
    kd_summary_syscalls_but_poll(&s.threads[1], &count, &total);
    CHECK_UINT(count, 0);
    CHECK_UINT(total, 0);
}

static void
test_summary_ran_name(void)
{
    struct kd_ran_entry full = { { 2, 5 }, { 1, 1, 1, 0, "" } };
    char name[KD_COMM_LEN + 1];
    struct kd_sample s;

    make_summary_sample(&s);
    CHECK_STR(kd_summary_ran_name(&s.threads[1].ran[0], name), "pmd\0334");
    CHECK(kd_summary_ran_name(&s.threads[1].ran[1], name) == NULL);

    /* All 16 bytes of a name, without a NUL. */
    memcpy(full.ran.comm, "0123456789abcdef", KD_COMM_LEN);
    CHECK_STR(kd_summary_ran_name(&full, name), "0123456789abcdef");
}

static const struct test tests[] = {
    TEST(test_summary_compute),
    TEST(test_summary_order),
    TEST(test_summary_syscalls_but_poll),
    TEST(test_summary_ran_name),
};

CHECK_SUITE(summary, tests)
