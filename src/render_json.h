/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_RENDER_JSON_H
#define KD_RENDER_JSON_H 1

#include <stdbool.h>
#include <time.h>

#include "target.h"
#include "util.h"

struct kd_gap;
struct kd_losses;
struct kd_snapshot;

/* The "version" of the JSON records (--json): 2 since their times are
 * RFC 3339 in UTC ("...Z"; local time without a zone in 1) and syscall
 * events have wall-clock times. */
#define KD_JSON_VERSION 2

/* The JSON Lines report (--json): pure functions of a snapshot
 * (snapshot.h), which touch neither the kernel nor /proc; the JSON
 * implementation of the output (output.h) writes them.  The same entry
 * points as the text report's (render_text.h), but for the final
 * warnings: each record holds its own.  Each takes 'node', the "node"
 * field of every record (--node-name), or NULL for none. */

/* Appends the record of resolved sample 'snap' to 'ds', one line; a
 * skipped sample has its window and warnings only.  When 'sink' is not
 * NULL, hands 'ds' to it as it grows. */
void kd_render_json_sample(struct kd_ds *, const char *node,
                           const struct kd_snapshot *snap,
                           const struct kd_ds_sink *sink);

/* The record that says process 'tgid' exited while the tool waited for the
 * start trigger ('waiting'); nothing when it exited during a sample, which
 * the sample's record says. */
void kd_render_json_exited(struct kd_ds *, const char *node,
                           unsigned int tgid, bool waiting);

/* The record of one long poll interval (--long-poll-events), with the
 * warnings about what the capture lost so far, 'total', one line. */
void kd_render_json_gap(struct kd_ds *, const char *node,
                        const struct kd_gap *, const struct kd_losses *total);

/* The last record of a --long-poll-events run for process 'tgid': how many
 * intervals were reported, the warnings about what the capture lost,
 * 'total', and whether the target exited. */
void kd_render_json_watch_end(struct kd_ds *, const char *node,
                              unsigned int tgid,
                              const struct kd_losses *total,
                              unsigned int reported, bool target_exited);

/* The record of what happened to the target under --wait-target, at
 * wall time 'now': "waiting" for it, "attached" to process 'tgid', or
 * process 'tgid' "lost"; "pid" is null when 'tgid' is 0. */
void kd_render_json_target(struct kd_ds *, const char *node,
                           enum kd_target_event, unsigned int tgid,
                           const struct timespec *now);

#endif /* render_json.h */
