/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The stacks of --profile-hz and --off-cpu, named. */

#include "stacks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "losses.h"
#include "stackmaps.h"
#include "stackmaps.h"
#include "symbols.h"
#include "util.h"

/* Appends to 'frames' (of '*n') the frames of stack 'id' of 'source' (of
 * the kernel if 'kernel').  Returns false if the stack is gone. */
static bool
kd_stacks_append(const struct kd_stack_source *source,
                 struct kd_symbols *symbols, int32_t id, bool kernel,
                 char **frames, size_t *n)
{
    uint64_t ips[KD_STACK_DEPTH];
    uint32_t end = KD_UW_END_WHOLE;
    char frame[512];
    size_t n_ips;

    if (id < 0) {
        return true;
    }
    n_ips = source->read(source->aux, id, !kernel, ips, &end);
    for (size_t i = 0; i < n_ips; i++) {
        kd_symbols_format(symbols, kernel, ips[i], frame, sizeof frame);
        frames[(*n)++] = kd_xstrdup(frame);
    }
    if (n_ips && kd_stacks_cut_frame(end, frame, sizeof frame)) {
        frames[(*n)++] = kd_xstrdup(frame);
    }
    return n_ips > 0;
}

const char *
kd_stacks_cut_frame(uint32_t end, char *buf, size_t size)
{
    if (end == KD_UW_END_WHOLE) {
        return NULL;
    }
    snprintf(buf, size, "[stack cut short: %s]", kd_losses_uw_end_text(end));
    return buf;
}

struct kd_frames
kd_stacks_frames(const struct kd_stack_source *source,
                 struct kd_symbols *symbols, int32_t kernel_id,
                 int32_t user_id, bool tracepoint, bool *found)
{
    struct kd_frames f = {
        .v = kd_xcalloc(2 * KD_STACK_DEPTH + 1, sizeof *f.v),
    };
    size_t skip;

    *found &= kd_stacks_append(source, symbols, kernel_id, true, f.v, &f.n);
    skip = tracepoint ? kd_frames_tracing(f.v, f.n) : 0;
    for (size_t i = 0; i < skip; i++) {
        free(f.v[i]);
    }
    memmove(f.v, f.v + skip, (f.n - skip) * sizeof *f.v);
    f.n -= skip;
    f.n_kernel = f.n;
    *found &= kd_stacks_append(source, symbols, user_id, false, f.v, &f.n);
    return f;
}

void
kd_stacks_resolve(struct kd_gap *gap, const struct kd_gap_event *ev,
                  unsigned int hz, bool off_cpu,
                  const struct kd_profile_count *counts, size_t n,
                  const struct kd_stack_source *source,
                  struct kd_symbols *symbols)
{
    kd_gap_set_profile(gap, ev, hz, counts, n);
    for (size_t i = 0; i < gap->n_stacks; i++) {
        const struct kd_gap_profile_stack *st = &gap->stacks[i];
        bool found = true;
        struct kd_frames f = kd_stacks_frames(source, symbols,
                                              st->kernel_stack_id,
                                              st->user_stack_id, false,
                                              &found);

        kd_gap_set_frames(gap, i, f.v, f.n, f.n_kernel, !found);
    }
    kd_gap_merge_stacks(gap);

    kd_gap_set_blocked(gap, ev, off_cpu, counts, n);
    for (size_t i = 0; i < gap->n_blocked; i++) {
        const struct kd_gap_blocked *b = &gap->blocked[i];
        bool found = true;
        struct kd_frames frames, waker;

        frames = kd_stacks_frames(source, symbols, b->kernel_stack_id,
                                  b->user_stack_id, true, &found);
        waker = kd_stacks_frames(source, symbols, b->waker_kernel_stack_id,
                                 b->waker_user_stack_id, true, &found);
        kd_gap_set_blocked_frames(gap, i, frames, waker, !found);
    }
    kd_gap_merge_blocked(gap);
}
