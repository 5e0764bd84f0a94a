/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Long poll intervals' stacks in the folded format of flame graphs. */

#include "folded.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gap.h"
#include "util.h"

/* Appends 'len' bytes of 's' as a folded frame's text: escaped as
 * kd_ds_put_safe_cstr() does, ';' as ':', a space kept. */
static void
kd_folded_text(struct kd_ds *ds, const char *s, size_t len)
{
    char *copy = kd_xasprintf("%.*s", (int) len, s);

    for (char *p = copy; *p; p++) {
        if (*p == ';') {
            *p = ':';
        }
    }
    kd_ds_put_safe_cstr(ds, copy);
    free(copy);
}

void
kd_folded_frame(struct kd_ds *ds, const char *frame, bool kernel)
{
    const char *module = strstr(frame, " [");
    size_t len;

    if (!strncmp(frame, "[unknown]", 9)) {
        if (module) {
            kd_folded_text(ds, module + 1, strlen(module + 1));
        } else {
            kd_ds_put_cstr(ds, "[unknown]");
        }
    } else {
        /* "name+0xOFF [module]": the name. */
        len = strcspn(frame, "+ ");
        kd_folded_text(ds, frame, len ? len : strlen(frame));
    }
    if (kernel) {
        kd_ds_put_cstr(ds, "_[k]");
    }
}

/* The root frames of 'gap', then 'marker'. */
static void
kd_folded_root(struct kd_ds *ds, const struct kd_gap *gap,
               const char *marker)
{
    char when[32];

    kd_folded_text(ds, gap->name, strlen(gap->name));
    kd_ds_put_format(ds, " %" PRIu32 ";long poll %s %.1f ms;%s", gap->tid,
                     kd_utc_time(&gap->end_wall, when),
                     kd_gap_ns(gap) / 1e6, marker);
}

/* ';' and the frames of 'f', outermost first. */
static void
kd_folded_frames(struct kd_ds *ds, const struct kd_frames *f)
{
    for (size_t j = f->n; j-- > 0;) {
        kd_ds_put_char(ds, ';');
        kd_folded_frame(ds, f->v[j], j < f->n_kernel);
    }
}

/* --off-cpu: each (blocked stack, waker) pair, the waker's frames on top
 * of the sleeper's after a "waker:NAME" frame, as bcc's offwaketime
 * folds them. */
static void
kd_folded_blocked(struct kd_ds *ds, const struct kd_gap *gap)
{
    uint64_t rest_ns = gap->other_blocked_ns;

    for (size_t i = 0; i < gap->n_blocked; i++) {
        const struct kd_gap_blocked *b = &gap->blocked[i];

        if (!b->frames.n) {
            rest_ns += kd_gap_blocked_ns(b);
            continue;
        }
        kd_folded_root(ds, gap, "blocked");
        kd_folded_frames(ds, &b->frames);
        if (b->woken) {
            kd_ds_put_cstr(ds, ";waker:");
            if (b->context != KD_WAKER_TASK) {
                kd_ds_put_cstr(ds, b->context == KD_WAKER_HARDIRQ
                                   ? "[hard IRQ] " : "[soft IRQ] ");
            }
            kd_folded_text(ds, b->waker_name, strlen(b->waker_name));
            kd_folded_frames(ds, &b->waker_frames);
        }
        kd_ds_put_format(ds, " %" PRIu64 "\n", kd_gap_blocked_ns(b));
    }
    if (rest_ns) {
        kd_folded_root(ds, gap, "blocked");
        kd_ds_put_format(ds, ";[other stacks] %" PRIu64 "\n", rest_ns);
    }
}

void
kd_folded_gap(struct kd_ds *ds, const struct kd_gap *gap)
{
    uint64_t rest_ns = gap->other_ns;

    if (gap->off_cpu) {
        kd_folded_blocked(ds, gap);
    }
    if (!gap->profile_hz) {
        return;
    }
    for (size_t i = 0; i < gap->n_stacks; i++) {
        const struct kd_gap_profile_stack *st = &gap->stacks[i];
        struct kd_frames f;

        if (!st->n_frames) {
            rest_ns += st->ns;
            continue;
        }
        kd_folded_root(ds, gap, "on-cpu");
        f = kd_gap_stack_frames(st);
        kd_folded_frames(ds, &f);
        kd_ds_put_format(ds, " %" PRIu64 "\n", st->ns);
    }
    if (rest_ns) {
        kd_folded_root(ds, gap, "on-cpu");
        kd_ds_put_format(ds, ";[other stacks] %" PRIu64 "\n", rest_ns);
    }
    if (gap->lost_ns) {
        kd_folded_root(ds, gap, "on-cpu");
        kd_ds_put_format(ds, ";[no room in the map] %" PRIu64 "\n",
                         gap->lost_ns);
    }
}
