/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/gap.c: a long poll interval decoded from the eBPF
 * event into the parts that add up to it. */

#include <stdint.h>
#include <string.h>

#include "gap.h"
#include "util.h"
#include "check.h"
#include "fixtures.h"

/* The parts add up to the interval, 'unaccounted' included. */
static void
check_sum(const struct kd_gap *gap)
{
    int64_t sum = gap->unaccounted_ns;

    for (int i = 0; i < KD_GAP_UNACCOUNTED; i++) {
        sum += gap->parts[i];
    }
    CHECK_UINT((uint64_t) sum, kd_gap_ns(gap));
}

static void
test_gap_decode(void)
{
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_gap_event(&ev);
    kd_gap_decode(&ev, 1000000000000000000LL, 7, &gap);
    CHECK_UINT(gap.index, 7);
    CHECK_UINT(gap.pid, 40);
    CHECK_UINT(gap.tid, 42);
    CHECK_STR(gap.name, "revalidator12345");    /* 16 bytes, no NUL. */
    CHECK_UINT(kd_gap_ns(&gap), 1000000000);
    CHECK_UINT(gap.end_wall.tv_sec, 1000000000 + 6);
    CHECK_UINT(gap.end_wall.tv_nsec, 0);
    CHECK_UINT(gap.start_wall.tv_sec, 1000000000 + 5);

    /* Interrupts come out of the time on CPU, syscalls out of the time
     * asleep. */
    CHECK_UINT(gap.parts[KD_GAP_ON_CPU], 100000000 - 3000000);
    CHECK_UINT(gap.parts[KD_GAP_HARDIRQ], 1000000);
    CHECK_UINT(gap.parts[KD_GAP_SOFTIRQ], 2000000);
    CHECK_UINT(gap.parts[KD_GAP_RUN_QUEUE], 300000000);
    CHECK_UINT(gap.parts[KD_GAP_STOPPED], 400000000);
    CHECK_UINT(gap.parts[KD_GAP_BLOCKED_SYSCALLS], 150000000);
    CHECK_UINT(gap.parts[KD_GAP_BLOCKED_OTHER], 49000000);
    CHECK_INT(gap.unaccounted_ns, 1000000);
    CHECK_UINT(gap.parts[KD_GAP_UNACCOUNTED], 1000000);
    check_sum(&gap);
    CHECK_INT(gap.dominant, KD_GAP_STOPPED);
    CHECK_UINT(gap.waits, 5);
    CHECK_UINT(gap.preemptions, 4);
    CHECK_UINT(gap.sleeps, 2);

    /* Syscalls by decreasing total time, then the others. */
    CHECK_UINT(gap.n_syscalls, 2);
    CHECK_UINT(gap.syscalls[0].nr, 230);
    CHECK_UINT(gap.syscalls[1].nr, 203);
    CHECK_UINT(gap.other_syscalls.count, 3);

    /* Who ran instead, by decreasing time; the rest of the wait is the
     * others'. */
    CHECK_UINT(gap.n_ran, 2);
    CHECK_STR(gap.ran[0].comm, "pmd4");
    CHECK_UINT(gap.ran[0].ns, 290000000);
    CHECK_UINT(gap.ran[1].tid, 0);
    CHECK_UINT(gap.ran_others_ns, 300000000 - 290000000 - 6000000);
}

/* More syscalls or tasks than the event has room for are cut to its
 * room; parts that add up to more than the interval leave a negative
 * 'unaccounted'; the run queue can dominate. */
static void
test_gap_decode_edges(void)
{
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_gap_event(&ev);
    ev.detail.n_syscalls = 1000;
    ev.detail.n_ran = 1000;
    ev.acct.v[KD_ACCT_STOP] = 0;
    ev.acct.v[KD_ACCT_READY] = 700000000;
    kd_gap_decode(&ev, 0, 1, &gap);
    CHECK_UINT(gap.n_syscalls, KD_GAP_SYSCALLS);
    CHECK_UINT(gap.n_ran, KD_GAP_RAN);
    CHECK_INT(gap.dominant, KD_GAP_RUN_QUEUE);
    CHECK_INT(gap.unaccounted_ns, 1000000 + 400000000 - 400000000);
    check_sum(&gap);

    make_gap_event(&ev);
    ev.acct.v[KD_ACCT_SLEEP] = 100000000;       /* Less than syscalls'. */
    ev.acct.v[KD_ACCT_STOP] = 600000000;
    kd_gap_decode(&ev, 0, 1, &gap);
    CHECK_UINT(gap.parts[KD_GAP_BLOCKED_SYSCALLS], 100000000);
    CHECK_UINT(gap.parts[KD_GAP_BLOCKED_OTHER], 0);
    CHECK_INT(gap.unaccounted_ns, -100000000);
    CHECK_UINT(gap.parts[KD_GAP_UNACCOUNTED], 0);
    check_sum(&gap);

    /* Interrupts longer than the time on CPU: none left on CPU, so none
     * in user space or in the kernel either. */
    make_gap_event(&ev);
    ev.acct.v[KD_ACCT_RUN] = 1000;
    kd_gap_decode(&ev, 0, 1, &gap);
    CHECK_UINT(gap.parts[KD_GAP_ON_CPU], 0);
    CHECK_UINT(gap.on_cpu_user_ns, 0);
    CHECK_UINT(gap.on_cpu_kernel_ns, 0);
    check_sum(&gap);

    /* Time in syscalls is the kernel's part of the time on CPU, the rest
     * the user's; never more than the time on CPU. */
    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);
    CHECK_UINT(gap.on_cpu_kernel_ns, 40000000);
    CHECK_UINT(gap.on_cpu_user_ns, 97000000 - 40000000);
    ev.acct.v[KD_ACCT_KERNEL] = 98000000;
    kd_gap_decode(&ev, 0, 1, &gap);
    CHECK_UINT(gap.on_cpu_kernel_ns, 97000000);
    CHECK_UINT(gap.on_cpu_user_ns, 0);
}

static void
test_gap_names(void)
{
    CHECK_STR(kd_gap_part_key(KD_GAP_ON_CPU), "on_cpu");
    CHECK_STR(kd_gap_part_key(KD_GAP_BLOCKED_SYSCALLS),
              "blocked_in_syscalls");
    CHECK_STR(kd_gap_part_label(KD_GAP_RUN_QUEUE),
              "waiting in the run queue");
    CHECK_STR(kd_gap_part_key(KD_N_GAP_PARTS), "?");
}

/* An interval still going on, read from the thread's map entry: what goes
 * on counted up to now, the syscall it is in among its syscalls; nothing
 * for a thread in no interval, and no syscall entered before the
 * interval. */
static void
test_gap_in_progress(void)
{
    struct kd_tstate_gap g;
    struct kd_gap_event ev;
    struct kd_gap gap;

    memset(&g, 0, sizeof g);
    CHECK(!kd_gap_event_in_progress(&g, 42, 40, 10000, &ev));

    g.start_ns = 1000;
    g.base.v[KD_ACCT_RUN] = 10;
    g.t.acct.v[KD_ACCT_RUN] = 510;
    g.t.acct.v[KD_ACCT_READY] = 300;
    g.t.acct.v[KD_ACCT_SLEEP] = 1000;
    g.t.acct.v[KD_ACCT_KERNEL] = 50;
    g.t.sleep_ts = 9000;                /* Asleep since, in a syscall */
    g.t.syscall_ts = 8500;              /* entered then */
    g.t.syscall_nr = 230;
    g.t.syscall_sleep = 1000;           /* with this much sleep so far. */
    g.detail.n_syscalls = 1;
    g.detail.syscalls[0] = (struct kd_gap_syscall) {
        .nr = 0, .count = 2, .total_ns = 100, .blocked_ns = 0,
    };
    CHECK(kd_gap_event_in_progress(&g, 42, 40, 10000, &ev));
    CHECK_UINT(ev.head.id, KD_EVENT_LONG_POLL_PROGRESS);
    CHECK_UINT(ev.acct.v[KD_ACCT_RUN], 500);
    CHECK_UINT(ev.acct.v[KD_ACCT_READY], 300);
    CHECK_UINT(ev.acct.v[KD_ACCT_SLEEP], 2000);
    CHECK_UINT(ev.detail.n_syscalls, 2);
    CHECK_UINT(ev.detail.syscalls[1].nr, 230);
    CHECK_UINT(ev.detail.syscalls[1].count, 1);
    CHECK_UINT(ev.detail.syscalls[1].total_ns, 1500);
    CHECK_UINT(ev.detail.syscalls[1].blocked_ns, 1000);

    kd_gap_decode(&ev, 0, 5, &gap);
    CHECK(gap.in_progress);
    CHECK_UINT(gap.index, 0);
    CHECK_UINT(kd_gap_ns(&gap), 9000);
    CHECK_INT(gap.open_syscall, 230);
    CHECK_UINT(gap.open_syscall_ns, 1500);
    CHECK_UINT(gap.parts[KD_GAP_BLOCKED_SYSCALLS], 1000);
    CHECK_UINT(gap.parts[KD_GAP_BLOCKED_OTHER], 1000);
    check_sum(&gap);

    /* --off-cpu: the sleep it is in, first among its pairs; none when
     * not traced. */
    CHECK_UINT(ev.pending.ts, 0);
    g.block = (struct kd_gap_block) {
        .ts = 9000, .user_stack_id = 3, .kernel_stack_id = 4,
    };
    CHECK(kd_gap_event_in_progress(&g, 42, 40, 10000, &ev));
    CHECK_UINT(ev.pending.ts, 9000);
    kd_gap_decode(&ev, 0, 5, &gap);
    kd_gap_set_blocked(&gap, &ev, true, NULL, 0);
    CHECK(kd_gap_sleeping(&gap));
    CHECK_UINT(gap.n_blocked, 1);
    CHECK(gap.blocked[0].going_on);
    CHECK(!gap.blocked[0].woken);
    CHECK_UINT(gap.blocked[0].sleep_ns, 1000);
    CHECK_INT(gap.blocked[0].kernel_stack_id, 4);
    kd_gap_destroy(&gap);
    /* Woken at 9600 by TID 44, waiting for a CPU since. */
    g.block.woken_ts = 9600;
    g.block.waker_seen = 1;
    g.block.waker_tid = 44;
    CHECK(kd_gap_event_in_progress(&g, 42, 40, 10000, &ev));
    kd_gap_decode(&ev, 0, 5, &gap);
    kd_gap_set_blocked(&gap, &ev, true, NULL, 0);
    CHECK_UINT(gap.blocked[0].sleep_ns, 600);
    CHECK_UINT(gap.blocked[0].ready_ns, 400);
    CHECK_UINT(gap.blocked[0].waker_tid, 44);
    kd_gap_destroy(&gap);
    kd_gap_decode(&ev, 0, 5, &gap);
    kd_gap_set_blocked(&gap, &ev, false, NULL, 0);
    CHECK_UINT(gap.n_blocked, 0);
    /* A sleep begun before the interval: not its. */
    g.block.ts = 900;
    CHECK(kd_gap_event_in_progress(&g, 42, 40, 10000, &ev));
    CHECK_UINT(ev.pending.ts, 0);
    g.block = (struct kd_gap_block) { .ts = 0 };

    /* On CPU now, inside a syscall entered before the interval (not
     * counted: the interval began after it). */
    g.t.sleep_ts = 0;
    g.t.run_ts = 9500;
    g.t.kernel_ts = 9500;
    g.t.syscall_ts = 900;
    CHECK(kd_gap_event_in_progress(&g, 42, 40, 10000, &ev));
    CHECK_UINT(ev.acct.v[KD_ACCT_RUN], 1000);
    CHECK_UINT(ev.acct.v[KD_ACCT_KERNEL], 550);
    CHECK_UINT(ev.detail.n_syscalls, 1);
    CHECK_UINT(ev.head.entry_ts, 0);
    kd_gap_decode(&ev, 0, 5, &gap);
    CHECK_INT(gap.open_syscall, -1);

    /* An ended interval decoded as before. */
    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 5, &gap);
    CHECK(!gap.in_progress);
    CHECK_INT(gap.open_syscall, -1);
}

/* The profile: the interval's own counts, by decreasing samples, their
 * share of the time on CPU; stacks of the same functions merged; beyond
 * KD_GAP_STACKS, summed. */
static void
test_gap_profile(void)
{
    struct kd_profile_count counts[KD_GAP_STACKS + 4];
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_profiled_gap(&ev, &gap);
    CHECK_UINT(gap.profile_hz, 99);
    CHECK_UINT(gap.samples, 100);
    CHECK_UINT(gap.lost_samples, 2);
    CHECK_UINT(gap.lost_ns, 97000000 * 2 / 100);
    CHECK_UINT(gap.n_stacks, 3);
    CHECK_UINT(gap.stacks[0].samples, 50);
    CHECK_INT(gap.stacks[0].kernel_stack_id, -1);
    CHECK_UINT(gap.stacks[0].ns, 97000000 / 2);
    CHECK_UINT(gap.stacks[2].samples, 18);

    kd_gap_merge_stacks(&gap);
    CHECK_UINT(gap.n_stacks, 2);
    CHECK_UINT(gap.stacks[1].samples, 48);
    CHECK_UINT(gap.stacks[1].merged, 2);
    CHECK_UINT(gap.stacks[1].ns, 97000000ull * 48 / 100);
    CHECK_STR(gap.stacks[1].frames[0], "clear_user+0x10 [kernel]");
    CHECK_UINT(gap.other_samples, 0);
    kd_gap_destroy(&gap);
    CHECK(!gap.stacks);

    /* More stacks than a report keeps; distinct functions. */
    memset(counts, 0, sizeof counts);
    for (size_t i = 0; i < KD_ARRAY_SIZE(counts); i++) {
        counts[i].key.tid = 42;
        counts[i].key.start_ns = ev.start_ns;
        counts[i].key.user_stack_id = i;
        counts[i].key.kernel_stack_id = -1;
        counts[i].value.count = 1 + i;
    }
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_gap_set_profile(&gap, &ev, 99, counts, KD_ARRAY_SIZE(counts));
    CHECK_UINT(gap.n_stacks, KD_ARRAY_SIZE(counts));
    for (size_t i = 0; i < gap.n_stacks; i++) {
        char **f = kd_xcalloc(1, sizeof *f);

        f[0] = kd_xasprintf("f%zu+0x1 [m]", i);
        kd_gap_set_frames(&gap, i, f, 1, 0, false);
    }
    kd_gap_merge_stacks(&gap);
    CHECK_UINT(gap.n_stacks, KD_GAP_STACKS);
    CHECK_UINT(gap.stacks[0].samples, KD_ARRAY_SIZE(counts));
    CHECK_UINT(gap.other_samples, 1 + 2 + 3 + 4);
    kd_gap_destroy(&gap);

    /* Off: nothing. */
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_gap_set_profile(&gap, &ev, 0, counts, KD_ARRAY_SIZE(counts));
    CHECK_UINT(gap.n_stacks, 0);
    CHECK_UINT(gap.profile_hz, 0);
    kd_gap_destroy(&gap);
}

static void
test_gap_blocked(void)
{
    struct kd_gap_event ev;
    struct kd_gap gap;

    make_blocked_gap(&ev, &gap);
    CHECK(gap.off_cpu);
    CHECK_UINT(gap.n_sleeps, 5);
    CHECK_UINT(gap.lost_sleeps, 1);
    /* Its own four pairs, by decreasing time. */
    CHECK_UINT(gap.n_blocked, 4);
    CHECK_UINT(kd_gap_blocked_ns(&gap.blocked[0]), 302000000);
    CHECK_UINT(gap.blocked[0].count, 2);
    CHECK(gap.blocked[0].woken);
    CHECK_UINT(gap.blocked[0].waker_tid, 44);
    CHECK_UINT(gap.blocked[0].waker_pid, 40);
    CHECK_STR(gap.blocked[0].waker_name, "writer");
    CHECK_INT(gap.blocked[0].context, KD_WAKER_TASK);
    CHECK_UINT(gap.blocked[0].waker_frames.n, 3);
    /* A hard IRQ: the interrupted task's user frames dropped. */
    CHECK_INT(gap.blocked[2].context, KD_WAKER_HARDIRQ);
    CHECK_UINT(gap.blocked[2].waker_frames.n, 2);
    CHECK(!gap.blocked[3].woken);

    /* The first two: the same functions and waker. */
    kd_gap_merge_blocked(&gap);
    CHECK_UINT(gap.n_blocked, 3);
    CHECK_UINT(gap.blocked[0].count, 3);
    CHECK_UINT(gap.blocked[0].merged, 2);
    CHECK_UINT(gap.blocked[0].sleep_ns, 400000000);
    CHECK_UINT(gap.blocked[0].ready_ns, 3000000);
    CHECK_STR(gap.blocked[0].frames.v[0], "schedule+0x1 [kernel]");
    CHECK_UINT(gap.other_blocked_count, 0);
    kd_gap_destroy(&gap);
    CHECK(!gap.blocked);

    /* Not traced: none. */
    make_gap_event(&ev);
    kd_gap_decode(&ev, 0, 1, &gap);
    kd_gap_set_blocked(&gap, &ev, false, NULL, 0);
    CHECK(!gap.off_cpu);
    CHECK_UINT(gap.n_blocked, 0);
}

static void
test_gap_waker_context(void)
{
    char *task[] = { "try_to_wake_up+0x1 [kernel]",
                     "futex_wake+0x2 [kernel]" };
    char *hard[] = { "try_to_wake_up+0x1 [kernel]",
                     "hrtimer_wakeup+0x2 [kernel]",
                     "__hrtimer_run_queues+0x3 [kernel]",
                     "hrtimer_interrupt+0x4 [kernel]",
                     "__sysvec_apic_timer_interrupt+0x5 [kernel]" };
    char *soft[] = { "try_to_wake_up+0x1 [kernel]",
                     "call_timer_fn+0x2 [kernel]",
                     "handle_softirqs+0x3 [kernel]",
                     "irq_exit_rcu+0x4 [kernel]",
                     "sysvec_apic_timer_interrupt+0x5 [kernel]" };
    char *arm64[] = { "try_to_wake_up+0x1 [kernel]",
                      "gic_handle_irq+0x2 [kernel]",
                      "el1_interrupt+0x3 [kernel]" };

    CHECK_INT(kd_waker_context(task, 2), KD_WAKER_TASK);
    CHECK_INT(kd_waker_context(hard, 5), KD_WAKER_HARDIRQ);
    CHECK_INT(kd_waker_context(soft, 5), KD_WAKER_SOFTIRQ);
    CHECK_INT(kd_waker_context(arm64, 3), KD_WAKER_HARDIRQ);
    CHECK_INT(kd_waker_context(NULL, 0), KD_WAKER_TASK);
}

static const struct test tests[] = {
    TEST(test_gap_decode),
    TEST(test_gap_decode_edges),
    TEST(test_gap_in_progress),
    TEST(test_gap_names),
    TEST(test_gap_profile),
    TEST(test_gap_blocked),
    TEST(test_gap_waker_context),
};

CHECK_SUITE(gap, tests)
