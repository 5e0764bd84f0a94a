/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_RENDER_TEXT_GAP_H
#define KD_RENDER_TEXT_GAP_H 1

#include "util.h"

struct kd_gap;

/* The text of one long poll interval (--long-poll-events), part of the
 * text report (render_text.h): pure functions of a decoded interval
 * (gap.h), in the report's layout (report.h).  A sample's threads show
 * their stacks in the same tables (--profile-hz, --off-cpu). */

/* One long poll interval: a block in the report's layout, from its "#
 * Long poll interval" line to its "# Dominant:" line. */
void kd_render_text_gap(struct kd_ds *, const struct kd_gap *);

/* The [ON CPU STACKS] table of 'gap' (--profile-hz), if it has one. */
void kd_render_text_gap_stacks(struct kd_ds *, const struct kd_gap *);

/* The [BLOCKED] table of 'gap' (--off-cpu), if it has one. */
void kd_render_text_gap_blocked(struct kd_ds *, const struct kd_gap *);

#endif /* render_text_gap.h */
