/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SAMPLER_H
#define KD_SAMPLER_H 1

struct kd_capture;
struct kd_evidence;
struct kd_options;
struct kd_output;
struct kd_thread_filter;
struct kd_waiter;

/* The sampling loop: what it works with. */
struct kd_sampler {
    struct kd_capture *capture;         /* Open, every probe attached. */
    const struct kd_options *options;
    const struct kd_output *output;     /* What it reports to (output.h). */
    const struct kd_thread_filter *filter;
    struct kd_waiter *waiter;
    struct kd_evidence *evidence;       /* --trace-dir, --on-long-poll:
                                         * what is kept of each interval
                                         * reported, or NULL. */

    /* The long poll intervals reported so far: by every watch of the run,
     * as --wait-target re-attaches. */
    unsigned int reported;
};

/* Takes the samples, as the reference does: each one starts now or on the
 * start trigger, and ends after --sample-time or on the stop trigger; each
 * one read into a snapshot, resolved, and reported to the output.
 * Ends after --sample-count samples, on a signal or when the target exits.
 * With --long-poll-events, watches instead, until --sample-count intervals
 * in all ('reported'), a signal or the target's exit.
 * Returns 0 or a positive errno (after printing the error). */
int kd_sampler_run(struct kd_sampler *);

/* The warnings the reference prints after the last sample. */
void kd_sampler_final_warnings(const struct kd_sampler *);

#endif /* sampler.h */
