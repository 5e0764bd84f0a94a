/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_STACKMAPS_H
#define KD_STACKMAPS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The maps of a capture's stacks: those of -s's syscall events
 * (stack_traces), and those of --profile-hz and --off-cpu with their
 * counts (profile_stacks, profile_counts): read, swept, emptied. */

struct kd_capture;

/* Frames in a stack of a stack map (the kernel's PERF_MAX_STACK_DEPTH). */
#define KD_STACK_DEPTH          127

/* Reads stack 'id', a user stack if 'user' (else the kernel's), of the
 * maps of -s's events, or with 'profile' of --profile-hz and --off-cpu,
 * into 'ips' (KD_STACK_DEPTH frames), and how its walk ended into '*end'
 * (enum kd_uw_end: a user stack unwound from the CFI may be cut short;
 * KD_UW_END_WHOLE for any other).  Returns the number of frames, 0 if
 * there is none. */
size_t kd_stackmaps_stack(struct kd_capture *, bool profile, int32_t id,
                          bool user, uint64_t *ips, uint32_t *end);

/* A number above every id of a kernel stack (of -s's events, or with
 * 'profile' of --profile-hz and --off-cpu): where the ids of user stacks
 * can start when both kinds share one array. */
size_t kd_stackmaps_user_base(const struct kd_capture *, bool profile);

/* --profile-hz, --off-cpu: reads every count of map profile_counts into
 * a new array '*counts' of '*n' (see kd_gap_set_profile()).  Returns 0 or
 * a positive errno with a message in '*error'. */
struct kd_profile_count;
int kd_stackmaps_counts(struct kd_capture *,
                        struct kd_profile_count **counts, size_t *n,
                        char **error);

/* --profile-hz, --off-cpu: deletes from map profile_counts the counts of the
 * intervals that are neither going on (read from the threads' map
 * entries) nor ended and not yet reported (the ring buffer is drained
 * into the events' state after that read), and from the stack map the
 * stacks that no count left holds and that none held at the previous
 * sweep either (a stack made after the read of the counts may be a new
 * count's).  A count that takes up a stack after that read and before its
 * deletion finds it made again by its next sample of it; if none comes,
 * the interval's report says the stack is lost.  Returns 0 or a positive
 * errno with a message in '*error'. */
int kd_stackmaps_sweep(struct kd_capture *, char **error);

/* Empties the stack map, once the sample's stacks are reported. */
int kd_stackmaps_clear(struct kd_capture *);

/* Empties the maps of --profile-hz and --off-cpu, once a sample's counts
 * and stacks are read (time and trigger modes). */
int kd_stackmaps_clear_profile(struct kd_capture *);

#endif /* stackmaps.h */
