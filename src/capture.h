/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_CAPTURE_H
#define KD_CAPTURE_H 1

#include <stdbool.h>
#include <stdint.h>

#include "events.h"
#include "hook.h"
#include "layout.h"
#include "losses.h"
#include "options.h"
#include "sample.h"


/* Sizes of the eBPF maps, for --max-threads N: N threads, 8 syscalls and
 * 2 interrupt handlers per thread on average. */
#define KD_SYSCALLS_PER_THREAD  8
#define KD_IRQS_PER_THREAD      2
#define KD_HISTS_PER_THREAD     32
#define KD_RAN_PER_THREAD       8

/* Frames in a stack of the stack map (the kernel's PERF_MAX_STACK_DEPTH). */
#define KD_STACK_DEPTH          127

/* The capture states (KD_CAPTURE_*), counters (KD_COUNTER_*) and maps that
 * can fill up (KD_MAP_*, KD_N_FULL_MAPS) are those of kd_abi.h. */

/* The eBPF side of a capture: the program, loaded and attached, its maps,
 * the consumer of its events, and the account of what it lost.  Opaque:
 * what its clients need comes out through the functions below. */
struct kd_capture;

/* How many syscall events a CPU sends before it wakes the reader up, for
 * a ring buffer of 'pages' pages: so many that wake-ups are rare, so few
 * that what all CPUs leave pending fills at most a quarter of the buffer. */
size_t kd_capture_wakeup_events(unsigned int pages);

/* Builds the eBPF program's source for 'options', with the parts 'needs'
 * asks for (kd_options_needs(), but upcalls only if the kernel can trace
 * them), for target 'tgid' with kernel layout 'layout', after 'prefix'
 * (code the hooks need, or NULL).  Touches nothing in the kernel.
 * Returns 0 and the text in '*text', or a positive errno and '*error'. */
int kd_capture_source(const struct kd_options *, const struct kd_needs *,
                      unsigned int tgid, const struct kd_layout *,
                      const char *prefix, char **text, char **error);

/* Compiles, loads and attaches the program for 'options' and 'tgid', with
 * the triggers' 'hooks' (NULL where there is none), prepared already, into
 * a new capture, '*capture'.  Returns 0 or a positive errno with a message
 * in '*error'.  Call kd_capture_close() on '*capture' in any case. */
int kd_capture_open(struct kd_capture **capture, const struct kd_options *,
                    unsigned int tgid, struct kd_hook *start_hook,
                    struct kd_hook *stop_hook, char **error);

/* The target process. */
unsigned int kd_capture_tgid(const struct kd_capture *);

/* What the capture's program has (kd_options_needs(), upcalls only if the
 * kernel can trace them). */
const struct kd_needs *kd_capture_needs(const struct kd_capture *);

/* The consumer of the program's ring buffer, or NULL if it has none. */
struct kd_events *kd_capture_events(struct kd_capture *);

/* What the events said so far (nothing without a ring buffer). */
const struct kd_event_state *kd_capture_event_state(
    const struct kd_capture *);

/* Sets the capture state (KD_CAPTURE_*). */
int kd_capture_set(struct kd_capture *, uint64_t state);

/* Gets the capture state (KD_CAPTURE_*). */
int kd_capture_get(struct kd_capture *, uint64_t *state);

/* Reads the statistics of the sample that just ended into 'sample' and
 * empties the maps for the next one; then what the capture lost during
 * the sample into 'losses' (kd_capture_take_losses()). */
int kd_capture_collect(struct kd_capture *, struct kd_sample *sample,
                       struct kd_losses *losses, char **error);

/* The one account of what the capture lost: reads what it lost since the
 * last call (or its start) into '*losses' (free with kd_losses_destroy()),
 * adds it to the total since the start (kd_capture_total_losses()), and
 * returns 0; or a positive errno with a message in '*error'.  Everything
 * but the lost stacks, which the snapshot counts. */
int kd_capture_take_losses(struct kd_capture *, struct kd_losses *losses,
                           char **error);

/* What the capture lost since it started, as of the last
 * kd_capture_take_losses(). */
const struct kd_losses *kd_capture_total_losses(const struct kd_capture *);

/* Reads stack 'id' of the stack map into 'ips' (KD_STACK_DEPTH frames).
 * Returns the number of frames, 0 if there is none. */
size_t kd_capture_stack(struct kd_capture *, int32_t id, uint64_t *ips);

/* The same from the stack map of --profile-hz and --off-cpu. */
size_t kd_capture_profile_stack(struct kd_capture *, int32_t id,
                                uint64_t *ips);

/* --profile-hz, --off-cpu: reads every count of map profile_counts into
 * a new array '*counts' of '*n' (see kd_gap_set_profile()).  Returns 0 or
 * a positive errno with a message in '*error'. */
struct kd_profile_count;
int kd_capture_profile_counts(struct kd_capture *,
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
int kd_capture_profile_sweep(struct kd_capture *, char **error);

/* Empties the stack map, once the sample's stacks are reported. */
int kd_capture_clear_stacks(struct kd_capture *);

/* Empties the maps of --profile-hz and --off-cpu, once a sample's counts
 * and stacks are read (time and trigger modes). */
int kd_capture_clear_profile(struct kd_capture *);

/* --long-poll-events: the intervals still going on at 'now' (CLOCK_MONOTONIC)
 * that began more than 'min_ns' before, read from the threads' map entries
 * (see kd_gap_event_in_progress()), into a new array '*events' of '*n'.
 * Returns 0 or a positive errno with a message in '*error'. */
struct kd_gap_event;
int kd_capture_open_gaps(struct kd_capture *, uint64_t now, uint64_t min_ns,
                         struct kd_gap_event **events, size_t *n,
                         char **error);

/* Detaches and frees everything (nothing for NULL). */
void kd_capture_close(struct kd_capture *);

#endif /* capture.h */
