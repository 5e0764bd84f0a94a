/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_STACKS_H
#define KD_STACKS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gap.h"

struct kd_symbols;

/* The stacks of --profile-hz and --off-cpu, named: the counts of map
 * profile_counts turned into the on-CPU stacks and the (blocked stack,
 * waker) pairs of one long poll interval, or of one thread in a sample,
 * their frames resolved. */

/* Where the addresses of a stack come from: 'read' puts those of stack
 * 'id' into 'ips' (KD_STACK_DEPTH at most) and returns how many, 0 when
 * the stack is gone. */
struct kd_stack_source {
    size_t (*read)(void *aux, int32_t id, uint64_t *ips);
    void *aux;
};

/* Gives 'gap', decoded from 'ev' (for a thread in a sample: its TID and
 * its counts' totals), its on-CPU stacks (sampled at 'hz', 0: none) and
 * where it slept ('off_cpu'), from the 'n' 'counts' and the stacks of
 * 'source', named through 'symbols', then merged. */
void kd_stacks_resolve(struct kd_gap *gap, const struct kd_gap_event *ev,
                       unsigned int hz, bool off_cpu,
                       const struct kd_profile_count *counts, size_t n,
                       const struct kd_stack_source *source,
                       struct kd_symbols *symbols);

#endif /* stacks.h */
