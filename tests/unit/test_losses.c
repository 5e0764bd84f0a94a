/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/losses.c: what a capture lost, per sample, added up
 * into its total since the start. */

#include <stdint.h>
#include <string.h>

#include "losses.h"
#include "util.h"
#include "check.h"

/* Recursion misses: one entry per function, in the order they first
 * came, none for a zero count. */
static void
test_losses_misses(void)
{
    struct kd_losses l = KD_LOSSES_INITIALIZER;

    kd_losses_add_miss(&l, "sched_switch", 0);
    CHECK_UINT(l.n_misses, 0);
    kd_losses_add_miss(&l, "sched_switch", 2);
    kd_losses_add_miss(&l, "sys_enter", 5);
    kd_losses_add_miss(&l, "sched_switch", 3);
    if (CHECK_UINT(l.n_misses, 2)) {
        CHECK_STR(l.misses[0].hook, "sched_switch");
        CHECK_UINT(l.misses[0].count, 5);
        CHECK_STR(l.misses[1].hook, "sys_enter");
        CHECK_UINT(l.misses[1].count, 5);
    }
    CHECK_UINT(kd_losses_misses(&l), 10);
    kd_losses_destroy(&l);
    CHECK(l.misses == NULL && l.n_misses == 0);
    CHECK_UINT(kd_losses_misses(&l), 0);
}

/* Two samples' losses add up to the total; the total keeps the unloaded
 * upcall module once one sample saw it go. */
static void
test_losses_add(void)
{
    struct kd_losses total = KD_LOSSES_INITIALIZER;
    struct kd_losses a = KD_LOSSES_INITIALIZER;
    struct kd_losses b = KD_LOSSES_INITIALIZER;

    a.map_full[KD_MAP_SYSCALLS] = 4;
    a.switches_missed = 1;
    a.events_dropped = 2;
    a.lost_stacks = 7;
    kd_losses_add_miss(&a, "sys_exit", 1);
    b.map_full[KD_MAP_SYSCALLS] = 1;
    b.map_full[KD_MAP_TSTATS] = 6;
    b.triggers_missed = 3;
    b.upcall_module_gone = "openvswitch";
    kd_losses_add_miss(&b, "sched_switch", 8);
    kd_losses_add_miss(&b, "sys_exit", 2);

    kd_losses_add(&total, &a);
    CHECK(total.upcall_module_gone == NULL);
    kd_losses_add(&total, &b);
    kd_losses_add(&total, &(struct kd_losses) KD_LOSSES_INITIALIZER);
    CHECK_UINT(total.map_full[KD_MAP_SYSCALLS], 5);
    CHECK_UINT(total.map_full[KD_MAP_TSTATS], 6);
    CHECK_UINT(total.switches_missed, 1);
    CHECK_UINT(total.events_dropped, 2);
    CHECK_UINT(total.triggers_missed, 3);
    CHECK_UINT(total.lost_stacks, 7);
    CHECK_STR(total.upcall_module_gone, "openvswitch");
    if (CHECK_UINT(total.n_misses, 2)) {
        CHECK_STR(total.misses[0].hook, "sys_exit");
        CHECK_UINT(total.misses[0].count, 3);
        CHECK_STR(total.misses[1].hook, "sched_switch");
        CHECK_UINT(total.misses[1].count, 8);
    }
    /* The samples' own counts are left as they were. */
    CHECK_UINT(a.misses[0].count, 1);
    CHECK_UINT(b.map_full[KD_MAP_SYSCALLS], 1);
    kd_losses_destroy(&a);
    kd_losses_destroy(&b);
    kd_losses_destroy(&total);
}

static const struct test tests[] = {
    TEST(test_losses_misses),
    TEST(test_losses_add),
};

CHECK_SUITE(losses, tests)
