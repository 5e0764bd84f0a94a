/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_CAPTURE_PRIV_H
#define KD_CAPTURE_PRIV_H 1

/* The inside of a capture, for the modules that share its work: capture
 * (the program's life: build, compile, attach, read the samples, close)
 * and stackmaps (the maps of stacks and their counts).  No other module
 * includes this header. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "options.h"
#include "program.h"
#include "unwind.h"

struct kd_capture {
    struct kd_program prog;
    unsigned int tgid;
    int capture_fd;
    int map_full_fd;
    int counters_fd;
    struct kd_needs needs;      /* From the options; upcalls only if the
                                 * kernel can trace them. */
    bool with_events;           /* The ring buffer is open. */
    char *upcall_module;        /* Module of ovs_dp_upcall(), or NULL. */
    bool upcall_module_gone;    /* It was unloaded: the kretprobe is dead. */
    struct kd_events events;

    /* The kernel's counts as of the last kd_capture_take_losses(): each
     * loaded function's recursion misses (prog.funcs;
     * bpf_prog_info.recursion_misses) and the program's counters.  And
     * what was lost since the start. */
    uint64_t *misses_seen;
    size_t n_misses_seen;
    uint64_t counters_seen[KD_N_COUNTERS];
    struct kd_losses total;

    /* --profile-hz: the stacks that no interval held at the last
     * kd_capture_profile_sweep() and that it left, by id (1 each). */
    uint8_t *profile_unheld;

    /* The unwind tables of user stacks (needs.unwind), and the count of
     * walks that met an address in no mapping, when last looked at. */
    struct kd_unwind *unwind;
    uint64_t unwind_no_map;
    uint64_t uw_ends_seen[KD_UW_N_ENDS];
};

/* A thread's tstate entry in --long-poll-events mode, with its TID. */
struct kd_tstate_entry {
    uint32_t tid;
    struct kd_tstate_gap g;
};

/* Reads the threads' tstate entries (--long-poll-events) into a new array
 * '*v' of '*n'.  Returns 0 or a positive errno with '*error'. */
int kd_capture_read_tstate(struct kd_capture *, struct kd_tstate_entry **v,
                           size_t *n, char **error);

/* capture_unwind.c: user stacks unwound from the CFI need the target's
 * tables, built (in a thread) before the program, which is sized for
 * them; without them (no BTF, the mappings not readable), frame pointers,
 * as a note says. */
void kd_capture_unwind_build(struct kd_capture *,
                             const struct kd_options *options, bool from_btf);

/* Loads the unwinders into the program arrays their callers tail-call and
 * fills the tables' maps, before the callers are attached.  Returns 0 or a
 * positive errno with a message in '*error'. */
int kd_capture_unwind_load(struct kd_capture *, const struct kd_options *,
                           char **error);

/* How the walks of user stacks ended since the last call, into 'l'. */
struct kd_losses;
void kd_capture_unwind_losses(struct kd_capture *, struct kd_losses *l);

#endif /* capture_priv.h */
