/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* What a capture lost, per sample and in total: counts added up. */

#include "losses.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

void
kd_losses_add_miss(struct kd_losses *l, const char *hook, uint64_t count)
{
    size_t i = 0;

    if (!count) {
        return;
    }
    while (i < l->n_misses && strcmp(l->misses[i].hook, hook)) {
        i++;
    }
    if (i == l->n_misses) {
        l->misses = kd_xreallocarray(l->misses, i + 1, sizeof *l->misses);
        l->misses[l->n_misses++] = (struct kd_miss) { .hook = hook };
    }
    l->misses[i].count += count;
}

void
kd_losses_add(struct kd_losses *total, const struct kd_losses *more)
{
    for (size_t i = 0; i < KD_N_FULL_MAPS; i++) {
        total->map_full[i] += more->map_full[i];
    }
    for (size_t i = 0; i < more->n_misses; i++) {
        kd_losses_add_miss(total, more->misses[i].hook,
                           more->misses[i].count);
    }
    total->switches_missed += more->switches_missed;
    total->lost_samples += more->lost_samples;
    total->lost_sleeps += more->lost_sleeps;
    total->events_dropped += more->events_dropped;
    total->triggers_missed += more->triggers_missed;
    total->lost_stacks += more->lost_stacks;
    for (size_t i = 0; i < KD_UW_N_ENDS; i++) {
        total->user_stacks[i] += more->user_stacks[i];
    }
    if (more->upcall_module_gone) {
        total->upcall_module_gone = more->upcall_module_gone;
    }
}

uint64_t
kd_losses_misses(const struct kd_losses *l)
{
    uint64_t n = 0;

    for (size_t i = 0; i < l->n_misses; i++) {
        n += l->misses[i].count;
    }
    return n;
}

void
kd_losses_destroy(struct kd_losses *l)
{
    free(l->misses);
    memset(l, 0, sizeof *l);
}

uint64_t
kd_losses_stacks_cut(const struct kd_losses *l)
{
    uint64_t n = 0;

    for (size_t i = 0; i < KD_UW_N_ENDS; i++) {
        n += i == KD_UW_END_WHOLE ? 0 : l->user_stacks[i];
    }
    return n;
}

const char *
kd_losses_uw_end_key(unsigned int end)
{
    static const char *const keys[] = {
#define KD_UW_END_KEY(ID, KEY, TEXT) KEY,
        KD_UW_ENDS(KD_UW_END_KEY)
#undef KD_UW_END_KEY
    };

    return end < KD_UW_N_ENDS ? keys[end] : "?";
}

const char *
kd_losses_uw_end_text(unsigned int end)
{
    static const char *const texts[] = {
#define KD_UW_END_TEXT(ID, KEY, TEXT) TEXT,
        KD_UW_ENDS(KD_UW_END_TEXT)
#undef KD_UW_END_TEXT
    };

    return end < KD_UW_N_ENDS ? texts[end] : "?";
}
