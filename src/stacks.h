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
 * 'id' (a user stack if 'user') into 'ips' (KD_STACK_DEPTH at most), how
 * its walk ended into '*end' (enum kd_uw_end), and returns how many, 0
 * when the stack is gone. */
struct kd_stack_source {
    size_t (*read)(void *aux, int32_t id, bool user, uint64_t *ips,
                   uint32_t *end);
    void *aux;
};

/* The frame that ends a user stack whose walk was cut short ('end', enum
 * kd_uw_end), as "[stack cut short: REASON]"; NULL for a whole one. */
const char *kd_stacks_cut_frame(uint32_t end, char *buf, size_t size);

/* The frames of kernel stack 'kernel_id' then user stack 'user_id' (-1:
 * none) of 'source', named through 'symbols', with '*found' false if one
 * of them is gone.  A kernel stack taken from a tracepoint ('tracepoint')
 * starts with the tracing machinery's frames: left out.  One sampled on a
 * CPU keeps them: the time was spent there. */
struct kd_frames kd_stacks_frames(const struct kd_stack_source *source,
                                  struct kd_symbols *symbols,
                                  int32_t kernel_id, int32_t user_id,
                                  bool tracepoint, bool *found);

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
