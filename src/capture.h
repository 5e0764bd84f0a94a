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


/* The capture states (KD_CAPTURE_*), counters (KD_COUNTER_*) and maps that
 * can fill up (KD_MAP_*, KD_N_FULL_MAPS) are those of kd_abi.h. */

/* The eBPF side of a capture: the program, loaded and attached, its maps,
 * the consumer of its events, and the account of what it lost.  Opaque:
 * what its clients need comes out through the functions below. */
struct kd_capture;

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

/* --long-poll-events: the intervals still going on at 'now' (CLOCK_MONOTONIC)
 * that began more than 'min_ns' before, read from the threads' map entries
 * (see kd_gap_event_in_progress()), into a new array '*events' of '*n'.
 * Returns 0 or a positive errno with a message in '*error'. */
struct kd_gap_event;
int kd_capture_open_gaps(struct kd_capture *, uint64_t now, uint64_t min_ns,
                         struct kd_gap_event **events, size_t *n,
                         char **error);

/* --trace-dir: the history of the thread of long poll interval 'gap', as
 * its ring was when the interval ended (sent with it) or, in progress,
 * now (read from the map): its records oldest first in a new array
 * '*recs' of '*n', and how many older ones it lost, '*lost'.  Returns 0;
 * ENOENT if there is none (no room for the thread's ring, or --trace-dir
 * is off); or another positive errno with a message in '*error'. */
struct kd_gap;
int kd_capture_trace_history(struct kd_capture *, const struct kd_gap *gap,
                             struct kd_trace_rec **recs, size_t *n,
                             uint64_t *lost, char **error);

/* Keeps the unwind tables up to date with the target's mappings: reads
 * them again when the unwinder met an address in none of them (a library
 * loaded since), or once a second.  Called every time the loops wake up.
 * Returns 0 or a positive errno with a message in '*error'. */
int kd_capture_refresh(struct kd_capture *, char **error);

/* Detaches and frees everything (nothing for NULL). */
void kd_capture_close(struct kd_capture *);

#endif /* capture.h */
