/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_RENDER_TEXT_H
#define KD_RENDER_TEXT_H 1

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "kd_abi.h"
#include "sample.h"
#include "target.h"
#include "util.h"

struct kd_losses;
struct kd_sample;
struct kd_snapshot;
struct kd_summary_row;

/* The text report, in the reference's layout: pure functions of a
 * snapshot (snapshot.h), which touch neither the kernel nor /proc; the
 * text implementation of the output (output.h) writes them.  The JSON
 * report (render_json.h) has the same entry points, but for the final
 * warnings, which its records hold.
 *
 * Here is all that the text says and in which order: the sections of a
 * sample, those beyond the reference (histograms, the summary, stacks)
 * among them, the warnings and notes; report.h writes each section that
 * the reference has, alone, and render_text_gap.h the block of one long
 * poll interval (kd_render_text_gap()). */

/* Appends the report of resolved sample 'snap' to 'ds': the threads, the
 * upcalls, the syscall events with their stacks, the summary, and the
 * warnings about what the sample misses.  When 'sink' is not NULL, hands
 * 'ds' to it as it grows, so that a sample of many events needs no more
 * memory than a few of them. */
void kd_render_text_sample(struct kd_ds *, const struct kd_snapshot *snap,
                           const struct kd_ds_sink *sink);

/* The per-thread part of a sample's report: the "TID THREAD" header,
 * then each thread's sections (report.h), with --histogram each
 * histogram under the section it belongs to. */
void kd_render_text_threads(struct kd_ds *, const struct kd_sample *);

/* A log2 histogram (--histogram, hist.h), as bcc's tools print one,
 * indented under a section, then its p50, p90, p99 and max
 * (kd_hist_percentiles()). */
void kd_render_text_hist(struct kd_ds *,
                         const uint64_t counts[KD_HIST_SLOTS], uint64_t max);

/* The summary table (--summary) of a sample window of 'window_ns', the
 * line naming the thread that waited longest in the run queue and who
 * ran instead of it, and who ran instead of each thread that waited. */
void kd_render_text_summary(struct kd_ds *, const struct kd_summary_row *,
                            size_t n, uint64_t window_ns);

/* The warnings the reference prints after the last sample, from what
 * the capture lost in 'total', after 'sample_count' samples were asked
 * for. */
void kd_render_text_final(struct kd_ds *, const struct kd_losses *total,
                          unsigned int sample_count);

/* The note that process 'tgid' exited: while the tool waited for the
 * start trigger, or during the sample. */
void kd_render_text_exited(struct kd_ds *, unsigned int tgid,
                           bool waiting);

/* The end of a --long-poll-events run: how many intervals were reported,
 * the warnings about what the capture lost in 'total', and whether
 * process 'tgid' exited. */
void kd_render_text_watch_end(struct kd_ds *, unsigned int tgid,
                              const struct kd_losses *total,
                              unsigned int reported, bool target_exited);

/* The note that no start trigger 'what' fired in 'waited_ns', with its
 * end of line. */
void kd_render_text_wait_end(struct kd_ds *, const char *what,
                             uint64_t waited_ns);
/* The line that says what happened to the target under --wait-target, at
 * wall time 'now': the tool waits for ovs-vswitchd, attached to process
 * 'tgid', or lost it. */
void kd_render_text_target(struct kd_ds *, enum kd_target_event,
                           unsigned int tgid, const struct timespec *now);

#endif /* render_text.h */
