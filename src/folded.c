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

/* The root frames of 'gap', then "on-cpu". */
static void
kd_folded_root(struct kd_ds *ds, const struct kd_gap *gap)
{
    char when[32];

    kd_folded_text(ds, gap->name, strlen(gap->name));
    kd_ds_put_format(ds, " %" PRIu32 ";long poll %s %.1f ms;on-cpu", gap->tid,
                     kd_utc_time(&gap->end_wall, when),
                     kd_gap_ns(gap) / 1e6);
}

void
kd_folded_gap(struct kd_ds *ds, const struct kd_gap *gap)
{
    uint64_t rest_ns = gap->other_ns;

    if (!gap->profile_hz) {
        return;
    }
    for (size_t i = 0; i < gap->n_stacks; i++) {
        const struct kd_gap_profile_stack *st = &gap->stacks[i];
        size_t n_kernel = st->n_kernel_frames;

        if (!st->n_frames) {
            rest_ns += st->ns;
            continue;
        }
        kd_folded_root(ds, gap);
        /* The frames are innermost first: the other way round here. */
        for (size_t j = st->n_frames; j-- > 0;) {
            kd_ds_put_char(ds, ';');
            kd_folded_frame(ds, st->frames[j], j < n_kernel);
        }
        kd_ds_put_format(ds, " %" PRIu64 "\n", st->ns);
    }
    if (rest_ns) {
        kd_folded_root(ds, gap);
        kd_ds_put_format(ds, ";[other stacks] %" PRIu64 "\n", rest_ns);
    }
    if (gap->lost_ns) {
        kd_folded_root(ds, gap);
        kd_ds_put_format(ds, ";[no room in the map] %" PRIu64 "\n",
                         gap->lost_ns);
    }
}
