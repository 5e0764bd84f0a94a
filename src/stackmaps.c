/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The maps of stacks and of their counts: read, swept, emptied. */

#include "stackmaps.h"

#include <bcc/bcc_common.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture_priv.h"
#include "gap.h"
#include "maps.h"
#include "util.h"
#include "waiter.h"

/* Reads stack 'id' of stack map 'map' into 'ips' (KD_STACK_DEPTH of
 * them), and returns how many frames it has: 0 when there is none. */
static size_t
kd_stackmaps_read(struct kd_capture *c, const char *map, int32_t id,
                     uint64_t *ips)
{
    int fd = kd_program_map_fd(&c->prog, map);
    uint32_t key = id;
    size_t n = 0;

    if (id < 0 || fd < 0) {
        return 0;
    }
    memset(ips, 0, KD_STACK_DEPTH * sizeof *ips);
    if (kd_map_lookup(fd, &key, ips)) {
        return 0;
    }
    while (n < KD_STACK_DEPTH && ips[n]) {
        n++;
    }
    return n;
}

size_t
kd_stackmaps_stack(struct kd_capture *c, int32_t id, uint64_t *ips)
{
    return kd_stackmaps_read(c, "stack_traces", id, ips);
}

/* Whether the program has maps profile_counts and profile_stacks. */
static bool
kd_stackmaps_on(const struct kd_capture *c)
{
    return c->needs.profile || c->needs.blocked;
}

size_t
kd_stackmaps_profile_stack(struct kd_capture *c, int32_t id, uint64_t *ips)
{
    return kd_stackmaps_on(c)
           ? kd_stackmaps_read(c, "profile_stacks", id, ips) : 0;
}

/* How profile_counts' entries are laid out in a struct kd_profile_count
 * array. */
static const struct kd_map_layout kd_profile_counts_layout = {
    .key_size = sizeof(struct kd_profile_key),
    .value_size = sizeof(struct kd_profile_value),
    .value_offset = offsetof(struct kd_profile_count, value),
    .entry_size = sizeof(struct kd_profile_count),
};

int
kd_stackmaps_counts(struct kd_capture *c,
                          struct kd_profile_count **counts, size_t *n,
                          char **error)
{
    int err;

    *counts = NULL;
    *n = 0;
    *error = NULL;
    if (!kd_stackmaps_on(c)) {
        return 0;
    }
    err = kd_map_read(kd_program_map_fd(&c->prog, "profile_counts"),
                      &kd_profile_counts_layout,
                      bpf_table_max_entries(c->prog.module,
                                            "profile_counts"),
                      false, (void **) counts, n);
    if (err) {
        *error = kd_xasprintf("Failed to read eBPF map 'profile_counts': "
                              "%s", strerror(err));
    }
    return err;
}

/* An interval, as (thread, start). */
struct kd_interval_id {
    uint32_t tid;
    uint64_t start_ns;
};

static int
kd_interval_cmp(const void *a_, const void *b_)
{
    const struct kd_interval_id *a = a_, *b = b_;

    if (a->tid != b->tid) {
        return a->tid < b->tid ? -1 : 1;
    }
    return a->start_ns < b->start_ns ? -1 : a->start_ns > b->start_ns;
}

/* Whether (tid, start_ns) is in 'v', sorted by kd_interval_cmp(). */
static bool
kd_interval_listed(const struct kd_interval_id *v, size_t n, uint32_t tid,
                   uint64_t start_ns)
{
    struct kd_interval_id key = { tid, start_ns };

    return n && bsearch(&key, v, n, sizeof *v, kd_interval_cmp);
}

/* Marks stack 'id' held in 'held' (of 'n'). */
static void
kd_stack_hold(int32_t id, uint8_t *held, size_t n)
{
    if (id >= 0 && (size_t) id < n) {
        held[id] = 1;
    }
}

/* The intervals whose counts a sweep keeps, sorted: those going on (read
 * from the tstate map, at 'read_ns'), then those that ended and wait in
 * the ring buffer (drained into the events' state after that read, so
 * that an interval that ends between the two is in one or the other).
 * The stacks of the sleeps going on are marked in 'held' (of 'n'). */
static int
kd_stackmaps_kept_intervals(struct kd_capture *c, struct kd_interval_id **kept,
                          size_t *n_kept, uint64_t *read_ns, uint8_t *held,
                          size_t n_held, char **error)
{
    struct kd_event_state *state = &c->events.state;
    struct kd_tstate_entry *v;
    size_t n;
    int err;

    *read_ns = kd_now_ns();
    err = kd_capture_read_tstate(c, &v, &n, error);
    if (err) {
        return err;
    }
    kd_events_drain(&c->events);
    *kept = kd_xcalloc(n + state->n_gaps + 1, sizeof **kept);
    *n_kept = 0;
    for (size_t i = 0; i < n; i++) {
        const struct kd_gap_block *b = &v[i].g.block;

        if (v[i].g.start_ns) {
            (*kept)[(*n_kept)++] = (struct kd_interval_id) {
                v[i].tid, v[i].g.start_ns
            };
        }
        if (b->ts) {
            kd_stack_hold(b->user_stack_id, held, n_held);
            kd_stack_hold(b->kernel_stack_id, held, n_held);
            kd_stack_hold(b->waker_user_stack_id, held, n_held);
            kd_stack_hold(b->waker_kernel_stack_id, held, n_held);
        }
    }
    for (size_t i = 0; i < state->n_gaps; i++) {
        (*kept)[(*n_kept)++] = (struct kd_interval_id) {
            state->gaps[i].head.tid, state->gaps[i].start_ns
        };
    }
    free(v);
    qsort(*kept, *n_kept, sizeof **kept, kd_interval_cmp);
    return 0;
}

int
kd_stackmaps_sweep(struct kd_capture *c, char **error)
{
    int counts_fd = kd_program_map_fd(&c->prog, "profile_counts");
    int stacks_fd = kd_program_map_fd(&c->prog, "profile_stacks");
    struct kd_profile_count *counts = NULL;
    struct kd_interval_id *kept = NULL;
    uint32_t *keys = NULL;
    size_t n, n_counts = 0, n_kept = 0, n_keys = 0;
    uint8_t *held = NULL;
    uint64_t read_ns;
    int err;

    *error = NULL;
    if (!kd_stackmaps_on(c) || counts_fd < 0 || stacks_fd < 0) {
        return 0;
    }
    /* (Stack ids are bucket numbers, below max_entries rounded up.) */
    n = kd_next_power_of_two(bpf_table_max_entries(c->prog.module,
                                                   "profile_stacks"));
    held = kd_xcalloc(n, 1);
    err = kd_stackmaps_kept_intervals(c, &kept, &n_kept, &read_ns, held, n,
                                    error);
    if (!err) {
        err = kd_stackmaps_counts(c, &counts, &n_counts, error);
    }
    if (err) {
        goto cleanup;
    }

    /* The counts of any other interval go: an interval begun after the
     * read of tstate has a start after it. */
    for (size_t i = 0; i < n_counts; i++) {
        const struct kd_profile_key *k = &counts[i].key;

        if (k->start_ns >= read_ns
            || kd_interval_listed(kept, n_kept, k->tid, k->start_ns)) {
            kd_stack_hold(k->user_stack_id, held, n);
            kd_stack_hold(k->kernel_stack_id, held, n);
            kd_stack_hold(k->waker_user_stack_id, held, n);
            kd_stack_hold(k->waker_kernel_stack_id, held, n);
        } else {
            kd_map_delete(counts_fd, k);
        }
    }

    /* Then the stacks no count holds, if they were already there, unheld,
     * at the last sweep: a stack made since the read of the counts may be
     * a new count's. */
    err = kd_map_u32_keys(stacks_fd, n, &keys, &n_keys);
    if (err) {
        *error = kd_xasprintf("Failed to list eBPF map 'profile_stacks': "
                              "%s", strerror(err));
        goto cleanup;
    }
    if (!c->profile_unheld) {
        c->profile_unheld = kd_xcalloc(n, 1);
    }
    for (size_t i = 0; i < n_keys; i++) {
        uint32_t id = keys[i];

        if (id >= n || held[id]) {
            continue;
        }
        if (c->profile_unheld[id]) {
            kd_map_delete(stacks_fd, &id);
        } else {
            held[id] = 2;
        }
    }
    for (size_t id = 0; id < n; id++) {
        c->profile_unheld[id] = held[id] == 2;
    }

cleanup:
    free(keys);
    free(counts);
    free(kept);
    free(held);
    return err;
}

/* How a stack map's entries (id, then the addresses) are laid out. */
static const struct kd_map_layout kd_stack_map_layout = {
    .key_size = sizeof(uint32_t),
    .value_size = KD_STACK_DEPTH * sizeof(uint64_t),
    .value_offset = sizeof(uint32_t),
    .entry_size = sizeof(uint32_t) + KD_STACK_DEPTH * sizeof(uint64_t),
};

/* Empties the stack map, once its stacks are reported. */
int
kd_stackmaps_clear(struct kd_capture *c)
{
    if (!c->needs.stacks) {
        return 0;
    }
    return kd_map_clear(kd_program_map_fd(&c->prog, "stack_traces"),
                        &kd_stack_map_layout,
                        bpf_table_max_entries(c->prog.module,
                                              "stack_traces"));
}

int
kd_stackmaps_clear_profile(struct kd_capture *c)
{
    size_t max;
    int err;

    if (!kd_stackmaps_on(c)) {
        return 0;
    }
    max = bpf_table_max_entries(c->prog.module, "profile_counts");
    err = kd_map_clear(kd_program_map_fd(&c->prog, "profile_counts"),
                       &kd_profile_counts_layout, max);
    return err ? err : kd_map_clear(kd_program_map_fd(&c->prog,
                                                      "profile_stacks"),
                                    &kd_stack_map_layout, max);
}
