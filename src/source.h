/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SOURCE_H
#define KD_SOURCE_H 1

#include <stddef.h>

#include "layout.h"
#include "options.h"

/* The eBPF program's source: the template, filled for one run.  Touches
 * nothing in the kernel. */

/* Sizes of the eBPF maps, for --max-threads N: N threads, 8 syscalls and
 * 2 interrupt handlers per thread on average. */
#define KD_SYSCALLS_PER_THREAD  8
#define KD_IRQS_PER_THREAD      2
#define KD_HISTS_PER_THREAD     32
#define KD_RAN_PER_THREAD       8

/* How many syscall events a CPU sends before it wakes the reader up, for
 * a ring buffer of 'pages' pages: so many that wake-ups are rare, so few
 * that what all CPUs leave pending fills at most a quarter of the buffer. */
size_t kd_source_wakeup_events(unsigned int pages);

/* The sizes of the maps of the unwind tables (kd_abi.h), with
 * 'needs->unwind': entries of uw_maps, uw_pages and uw_rows. */
struct kd_source_unwind {
    unsigned int maps;
    unsigned int pages;
    unsigned int shards;
};

/* Builds the eBPF program's source for 'options', with the parts 'needs'
 * asks for (kd_options_needs(), but upcalls only if the kernel can trace
 * them), for target 'tgid' with kernel layout 'layout' and unwind tables
 * of sizes 'unwind' (NULL without), after 'prefix' (code the hooks need,
 * or NULL).  Returns 0 and the text in '*text', or a positive errno and
 * '*error'. */
int kd_source_build(const struct kd_options *, const struct kd_needs *,
                    unsigned int tgid, const struct kd_layout *,
                    const struct kd_source_unwind *unwind,
                    const char *prefix, char **text, char **error);

#endif /* source.h */
