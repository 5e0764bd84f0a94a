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

/* Whether the program has maps profile_counts and profile_stacks. */
static bool
kd_stackmaps_on(const struct kd_capture *c)
{
    return c->needs.profile || c->needs.blocked;
}

/* The map of the stacks asked for, or NULL if the program has none. */
static const char *
kd_stackmaps_map(const struct kd_capture *c, bool profile, bool user)
{
    if (profile ? !kd_stackmaps_on(c) : !c->needs.stacks) {
        return NULL;
    }
    if (user && c->needs.unwind) {
        return profile ? "profile_user_stacks" : "user_stack_traces";
    }
    return profile ? "profile_stacks" : "stack_traces";
}

size_t
kd_stackmaps_stack(struct kd_capture *c, bool profile, int32_t id,
                   bool user, uint64_t *ips, uint32_t *end)
{
    const char *map = kd_stackmaps_map(c, profile, user);
    int fd = map ? kd_program_map_fd(&c->prog, map) : -1;
    uint32_t key = id;
    size_t n = 0;

    *end = KD_UW_END_WHOLE;
    if (id < 0 || fd < 0) {
        return 0;
    }
    if (user && c->needs.unwind) {
        struct kd_ustack u;

        if (kd_map_lookup(fd, &key, &u)) {
            return 0;
        }
        n = u.len < KD_STACK_DEPTH ? u.len : KD_STACK_DEPTH;
        memcpy(ips, u.pcs, n * sizeof *ips);
        *end = u.end < KD_UW_N_ENDS ? u.end : KD_UW_END_DEPTH;
        return n;
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
kd_stackmaps_user_base(const struct kd_capture *c, bool profile)
{
    const char *map = kd_stackmaps_map(c, profile, false);

    return map ? kd_next_power_of_two(bpf_table_max_entries(c->prog.module,
                                                            map))
               : 0;
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

/* The stacks a sweep keeps: 'v[i]' for kernel stack i, 'v[user + i]'
 * for user stack i ('user' is 0 when both share the kernel's map, as
 * with frame pointers), of 'n' in all. */
struct kd_held {
    uint8_t *v;
    size_t n;
    size_t user;
};

/* Marks stack 'id' (a user stack if 'user') held in 'h'. */
static void
kd_stack_hold(struct kd_held *h, int32_t id, bool user)
{
    size_t i = (size_t) id + (user ? h->user : 0);

    if (id >= 0 && i < h->n) {
        h->v[i] = 1;
    }
}

/* Marks the four stacks of a count, or of a sleep, held in 'h'. */
#define KD_STACKS_HOLD(H, S)                                \
    do {                                                    \
        kd_stack_hold(H, (S)->user_stack_id, true);         \
        kd_stack_hold(H, (S)->kernel_stack_id, false);      \
        kd_stack_hold(H, (S)->waker_user_stack_id, true);   \
        kd_stack_hold(H, (S)->waker_kernel_stack_id, false);\
    } while (0)

/* The intervals whose counts a sweep keeps, sorted: those going on (read
 * from the tstate map, at 'read_ns'), then those that ended and wait in
 * the ring buffer (drained into the events' state after that read, so
 * that an interval that ends between the two is in one or the other).
 * The stacks of the sleeps going on are marked in 'held'. */
static int
kd_stackmaps_kept_intervals(struct kd_capture *c,
                            struct kd_interval_id **kept, size_t *n_kept,
                            uint64_t *read_ns, struct kd_held *held,
                            char **error)
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
            KD_STACKS_HOLD(held, b);
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

/* Deletes from stack map 'name', whose ids are 'base' on in 'held' (and
 * 'c->profile_unheld'), the stacks that no count holds and that none
 * held at the previous sweep either. */
static int
kd_stackmaps_sweep_map(struct kd_capture *c, const char *name,
                       struct kd_held *held, size_t base, size_t n,
                       char **error)
{
    int fd = kd_program_map_fd(&c->prog, name);
    uint32_t *keys = NULL;
    size_t n_keys = 0;
    int err;

    err = kd_map_u32_keys(fd, n, &keys, &n_keys);
    if (err) {
        *error = kd_xasprintf("Failed to list eBPF map '%s': %s", name,
                              strerror(err));
        return err;
    }
    for (size_t i = 0; i < n_keys; i++) {
        uint32_t id = keys[i];

        if (id >= n || held->v[base + id]) {
            continue;
        }
        if (c->profile_unheld[base + id]) {
            kd_map_delete(fd, &id);
        } else {
            held->v[base + id] = 2;
        }
    }
    free(keys);
    return 0;
}

int
kd_stackmaps_sweep(struct kd_capture *c, char **error)
{
    int counts_fd = kd_program_map_fd(&c->prog, "profile_counts");
    struct kd_profile_count *counts = NULL;
    struct kd_interval_id *kept = NULL;
    struct kd_held held = { NULL, 0, 0 };
    size_t n, n_counts = 0, n_kept = 0;
    uint64_t read_ns;
    int err;

    *error = NULL;
    if (!kd_stackmaps_on(c) || counts_fd < 0) {
        return 0;
    }
    /* (Stack ids are bucket numbers, below max_entries rounded up.) */
    n = kd_stackmaps_user_base(c, true);
    held.user = c->needs.unwind ? n : 0;
    held.n = c->needs.unwind ? 2 * n : n;
    held.v = kd_xcalloc(held.n, 1);
    err = kd_stackmaps_kept_intervals(c, &kept, &n_kept, &read_ns, &held,
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
            KD_STACKS_HOLD(&held, k);
        } else {
            kd_map_delete(counts_fd, k);
        }
    }

    /* Then the stacks no count holds, if they were already there, unheld,
     * at the last sweep: a stack made since the read of the counts may be
     * a new count's. */
    if (!c->profile_unheld) {
        c->profile_unheld = kd_xcalloc(held.n, 1);
    }
    err = kd_stackmaps_sweep_map(c, "profile_stacks", &held, 0, n, error);
    if (!err && c->needs.unwind) {
        err = kd_stackmaps_sweep_map(c, "profile_user_stacks", &held, n, n,
                                     error);
    }
    for (size_t id = 0; !err && id < held.n; id++) {
        c->profile_unheld[id] = held.v[id] == 2;
    }

cleanup:
    free(counts);
    free(kept);
    free(held.v);
    return err;
}

/* How a stack map's entries (id, then the addresses) are laid out. */
static const struct kd_map_layout kd_stack_map_layout = {
    .key_size = sizeof(uint32_t),
    .value_size = KD_STACK_DEPTH * sizeof(uint64_t),
    .value_offset = sizeof(uint32_t),
    .entry_size = sizeof(uint32_t) + KD_STACK_DEPTH * sizeof(uint64_t),
};

/* How a map of unwound user stacks' entries are laid out. */
static const struct kd_map_layout kd_user_stack_map_layout = {
    .key_size = sizeof(uint32_t),
    .value_size = sizeof(struct kd_ustack),
    .value_offset = 8,
    .entry_size = 8 + sizeof(struct kd_ustack),
};

/* Empties stack map 'name' (of user stacks unwound from the CFI if
 * 'user'). */
static int
kd_stackmaps_clear_map(struct kd_capture *c, const char *name, bool user)
{
    return kd_map_clear(kd_program_map_fd(&c->prog, name),
                        user ? &kd_user_stack_map_layout
                             : &kd_stack_map_layout,
                        bpf_table_max_entries(c->prog.module, name));
}

/* Empties the stack map, once its stacks are reported. */
int
kd_stackmaps_clear(struct kd_capture *c)
{
    int err;

    if (!c->needs.stacks) {
        return 0;
    }
    err = kd_stackmaps_clear_map(c, "stack_traces", false);
    if (!err && c->needs.unwind) {
        err = kd_stackmaps_clear_map(c, "user_stack_traces", true);
    }
    return err;
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
    if (!err) {
        err = kd_stackmaps_clear_map(c, "profile_stacks", false);
    }
    if (!err && c->needs.unwind) {
        err = kd_stackmaps_clear_map(c, "profile_user_stacks", true);
    }
    return err;
}
