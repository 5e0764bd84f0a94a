/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_FOLDED_H
#define KD_FOLDED_H 1

#include <stdbool.h>
#include <stddef.h>

struct kd_ds;
struct kd_gap;

/* --folded: an interval's stacks in the "folded" format that flame graph
 * tools read (flamegraph.pl, inferno), one line per stack, outermost frame
 * first: "ROOT;ROOT;MARKER;frame;...;frame VALUE".  Pure: nothing here
 * touches the kernel. */

/* Appends to 'ds' the lines of 'gap''s on-CPU stacks: the thread
 * ("NAME TID") and the interval ("long poll END GAP_MS ms") as the root
 * frames, then "on-cpu", then the frames, the kernel's with the "_[k]"
 * suffix that flame graph tools colour as the kernel's; its value is the
 * stack's estimated time on CPU, in ns.  The samples not in a stack shown
 * end in "[other stacks]" and "[no room in the map]".  Nothing when the
 * interval has no profile. */
void kd_folded_gap(struct kd_ds *, const struct kd_gap *gap);

/* Appends frame 'frame' (as kd_symbols_format() makes it: "name+0xOFF
 * [module]", "[unknown] [module]" or "[unknown] 0xADDR") as a folded frame:
 * its function's name, "[module]" when only that is known, "[unknown]"
 * otherwise; with ';' (the separator) as ':', and what a terminal or a
 * parser could take for something else escaped as kd_ds_put_safe_cstr()
 * does. */
void kd_folded_frame(struct kd_ds *, const char *frame, bool kernel);

#endif /* folded.h */
