/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_STATUS_H
#define KD_STATUS_H 1

#include <stdint.h>

#include "util.h"

/* The status line shown while waiting: what a wait has seen so far, and
 * the line that says it.  The same in both formats (the output shows it
 * on a terminal only, never on the report's stream).  Pure: nothing here
 * touches the kernel. */

/* What a wait has seen so far, for the status line: the wait for a start
 * trigger ('trigger' set) or the watch of long poll intervals. */
struct kd_status {
    const char *trigger;        /* The start trigger, or NULL: watching. */
    uint64_t elapsed_ns;        /* Since the wait started. */
    unsigned int tgid;
    unsigned int n_threads;     /* The target's threads now. */
    unsigned int n_intervals;   /* Watching: reported so far ... */
    uint64_t longest_ns;        /* ... and the longest of them. */
};

/* The status line (without its end of line) for 'status', short enough
 * for 80 columns, what can be cut last: "Waiting 3 s, 12 threads, Ctrl-C
 * to stop; start trigger: T", or "Watching 12 threads, 1m05s, Ctrl-C to
 * stop; 3 long polls, longest 61.2 ms" ("no long poll yet"). */
void kd_status_format(struct kd_ds *, const struct kd_status *);

#endif /* status.h */
