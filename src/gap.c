/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Long poll intervals decoded into the parts their time splits into. */

#include "gap.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const kd_gap_part_keys[] = {
#define KD_GAP_PART_KEY(ID, KEY, LABEL) KEY,
    KD_GAP_PARTS(KD_GAP_PART_KEY)
#undef KD_GAP_PART_KEY
};

static const char *const kd_gap_part_labels[] = {
#define KD_GAP_PART_LABEL(ID, KEY, LABEL) LABEL,
    KD_GAP_PARTS(KD_GAP_PART_LABEL)
#undef KD_GAP_PART_LABEL
};

const char *
kd_gap_part_key(enum kd_gap_part part)
{
    return part < KD_N_GAP_PARTS ? kd_gap_part_keys[part] : "?";
}

const char *
kd_gap_part_label(enum kd_gap_part part)
{
    return part < KD_N_GAP_PARTS ? kd_gap_part_labels[part] : "?";
}

static int
kd_gap_syscall_cmp(const void *a_, const void *b_)
{
    const struct kd_gap_syscall *a = a_, *b = b_;

    if (a->total_ns != b->total_ns) {
        return a->total_ns > b->total_ns ? -1 : 1;
    }
    return a->nr < b->nr ? -1 : a->nr > b->nr;
}

static int
kd_gap_ran_cmp(const void *a_, const void *b_)
{
    const struct kd_gap_ran *a = a_, *b = b_;

    if (a->ns != b->ns) {
        return a->ns > b->ns ? -1 : 1;
    }
    return a->tid < b->tid ? -1 : a->tid > b->tid;
}

static struct timespec
kd_gap_wall(uint64_t mono_ns, int64_t mono_to_wall_ns)
{
    int64_t ns = (int64_t) mono_ns + mono_to_wall_ns;
    struct timespec ts = {
        .tv_sec = ns / 1000000000,
        .tv_nsec = ns % 1000000000,
    };

    return ts;
}

static uint64_t
kd_min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

void
kd_gap_decode(const struct kd_gap_event *ev, int64_t mono_to_wall_ns,
              unsigned int index, struct kd_gap *gap)
{
    const struct kd_gap_detail *d = &ev->detail;
    const uint64_t *acct = ev->acct.v;
    uint64_t irq, blocked = 0, listed = 0, sum = 0, largest = 0;

    memset(gap, 0, sizeof *gap);
    gap->index = index;
    gap->pid = ev->pid;
    gap->tid = ev->head.tid;
    kd_fixed_cstr(gap->name, ev->comm, sizeof ev->comm);
    gap->start_ns = ev->start_ns;
    gap->end_ns = ev->head.ts > ev->start_ns ? ev->head.ts : ev->start_ns;
    gap->start_wall = kd_gap_wall(gap->start_ns, mono_to_wall_ns);
    gap->end_wall = kd_gap_wall(gap->end_ns, mono_to_wall_ns);
    gap->waits = acct[KD_ACCT_WAITS];
    gap->preemptions = acct[KD_ACCT_PREEMPTIONS];
    gap->sleeps = acct[KD_ACCT_SLEEPS];

    gap->n_syscalls = kd_min_u64(d->n_syscalls, KD_GAP_SYSCALLS);
    memcpy(gap->syscalls, d->syscalls,
           gap->n_syscalls * sizeof *gap->syscalls);
    if (gap->n_syscalls) {
        qsort(gap->syscalls, gap->n_syscalls, sizeof *gap->syscalls,
              kd_gap_syscall_cmp);
    }
    gap->other_syscalls = d->other_syscalls;
    for (size_t i = 0; i < gap->n_syscalls; i++) {
        blocked += gap->syscalls[i].blocked_ns;
    }
    blocked += d->other_syscalls.blocked_ns;

    gap->n_ran = kd_min_u64(d->n_ran, KD_GAP_RAN);
    memcpy(gap->ran, d->ran, gap->n_ran * sizeof *gap->ran);
    if (gap->n_ran) {
        qsort(gap->ran, gap->n_ran, sizeof *gap->ran, kd_gap_ran_cmp);
    }
    for (size_t i = 0; i < gap->n_ran; i++) {
        listed += gap->ran[i].ns;
    }
    gap->ran_others_ns = acct[KD_ACCT_READY] > listed
                         ? acct[KD_ACCT_READY] - listed : 0;

    /* Interrupts are part of the time on CPU; syscalls, of the time
     * asleep. */
    irq = acct[KD_ACCT_HARDIRQ] + acct[KD_ACCT_SOFTIRQ];
    gap->parts[KD_GAP_ON_CPU] = acct[KD_ACCT_RUN]
                                - kd_min_u64(irq, acct[KD_ACCT_RUN]);
    gap->on_cpu_kernel_ns = kd_min_u64(acct[KD_ACCT_KERNEL],
                                       gap->parts[KD_GAP_ON_CPU]);
    gap->on_cpu_user_ns = gap->parts[KD_GAP_ON_CPU] - gap->on_cpu_kernel_ns;
    gap->parts[KD_GAP_RUN_QUEUE] = acct[KD_ACCT_READY];
    gap->parts[KD_GAP_STOPPED] = acct[KD_ACCT_STOP];
    gap->parts[KD_GAP_HARDIRQ] = acct[KD_ACCT_HARDIRQ];
    gap->parts[KD_GAP_SOFTIRQ] = acct[KD_ACCT_SOFTIRQ];
    gap->parts[KD_GAP_BLOCKED_SYSCALLS] = kd_min_u64(blocked,
                                                     acct[KD_ACCT_SLEEP]);
    gap->parts[KD_GAP_BLOCKED_OTHER] = acct[KD_ACCT_SLEEP]
                                       - gap->parts[KD_GAP_BLOCKED_SYSCALLS];
    for (int i = 0; i < KD_GAP_UNACCOUNTED; i++) {
        sum += gap->parts[i];
    }
    gap->unaccounted_ns = (int64_t) (kd_gap_ns(gap) - sum);
    gap->parts[KD_GAP_UNACCOUNTED] = gap->unaccounted_ns > 0
                                     ? gap->unaccounted_ns : 0;

    gap->dominant = KD_GAP_ON_CPU;
    for (int i = 0; i < KD_N_GAP_PARTS; i++) {
        if (gap->parts[i] > largest) {
            largest = gap->parts[i];
            gap->dominant = i;
        }
    }
}
