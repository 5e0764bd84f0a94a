/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_LOSSES_H
#define KD_LOSSES_H 1

#include <stddef.h>
#include <stdint.h>

#include "kd_abi.h"

/* What a capture could not see or keep, so that the reports can say what
 * they miss: over one sample, or since the capture started.  The capture
 * reads the kernel's counts in one place (kd_capture_take_losses()); the
 * snapshot holds both (snapshot.h); the reports render them. */

/* An eBPF function the kernel skipped 'count' times, because a BPF
 * program was already running on that CPU (recursion misses). */
struct kd_miss {
    const char *hook;           /* The capture's name for it. */
    uint64_t count;
};

struct kd_losses {
    /* Entries a full map could not create (KD_MAP_*). */
    uint64_t map_full[KD_N_FULL_MAPS];

    /* Recursion misses, non-zero ones only, one per function. */
    struct kd_miss *misses;
    size_t n_misses;

    uint64_t switches_missed;   /* Context switches of the target not seen
                                 * (KD_COUNTER_SWITCHES_MISSED). */
    uint64_t lost_samples;      /* Samples of --profile-hz in a sample */
    uint64_t lost_sleeps;       /* and sleeps of --off-cpu with no room in
                                 * the maps (reported with the stacks). */
    uint64_t events_dropped;    /* Ring buffer full. */
    uint64_t triggers_missed;   /* Start triggers while reporting. */
    uint64_t lost_stacks;       /* Reported events whose stacks could not
                                 * be kept (counted by the snapshot, after
                                 * the thread filter). */
    uint64_t user_stacks[KD_UW_N_ENDS]; /* User stacks unwound from the
                                         * CFI, by how their walk ended
                                         * (enum kd_uw_end): whole, or cut
                                         * short. */

    /* The module of ovs_dp_upcall() once it was unloaded (the capture
     * owns the string): upcalls are not counted since.  Else NULL. */
    const char *upcall_module_gone;
};

#define KD_LOSSES_INITIALIZER { .misses = NULL }

/* The name of map KD_MAP_ID, for the warnings about maps that were full
 * ('map_full' above). */
static inline const char *
kd_losses_map_name(enum kd_full_map map)
{
    static const char *const names[] = {
#define KD_FULL_MAP_NAME(ID, NAME) NAME,
        KD_FULL_MAPS(KD_FULL_MAP_NAME)
#undef KD_FULL_MAP_NAME
    };

    return map < KD_N_FULL_MAPS ? names[map] : "?";
}

/* The user stacks of 'l' cut short (all but the whole ones). */
uint64_t kd_losses_stacks_cut(const struct kd_losses *l);

/* The JSON key and the text of how a walk ended (enum kd_uw_end). */
const char *kd_losses_uw_end_key(unsigned int end);
const char *kd_losses_uw_end_text(unsigned int end);

/* Adds 'count' recursion misses of function 'hook' to 'l'. */
void kd_losses_add_miss(struct kd_losses *l, const char *hook,
                        uint64_t count);

/* Adds every count of 'more' to 'total'; 'total' takes the module of
 * 'more' if it has one. */
void kd_losses_add(struct kd_losses *total, const struct kd_losses *more);

/* The sum of the recursion misses of 'l'. */
uint64_t kd_losses_misses(const struct kd_losses *l);

/* Frees what 'l' holds and empties it. */
void kd_losses_destroy(struct kd_losses *l);

#endif /* losses.h */
