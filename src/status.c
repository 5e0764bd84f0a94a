/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The status line: what a wait has seen so far. */

#include "status.h"

#include <inttypes.h>

/* 'ns' as "42 s", "1m05s" or "2h03m", whole seconds. */
static void
kd_status_elapsed(struct kd_ds *ds, uint64_t ns)
{
    uint64_t s = ns / 1000000000;

    if (s < 60) {
        kd_ds_put_format(ds, "%" PRIu64 " s", s);
    } else if (s < 3600) {
        kd_ds_put_format(ds, "%" PRIu64 "m%02" PRIu64 "s", s / 60, s % 60);
    } else {
        kd_ds_put_format(ds, "%" PRIu64 "h%02" PRIu64 "m", s / 3600,
                         s / 60 % 60);
    }
}

void
kd_status_format(struct kd_ds *ds, const struct kd_status *st)
{
    const char *s = st->n_threads == 1 ? "" : "s";

    if (st->trigger) {
        kd_ds_put_cstr(ds, "Waiting ");
        kd_status_elapsed(ds, st->elapsed_ns);
        kd_ds_put_format(ds, ", %u thread%s, Ctrl-C to stop; start "
                         "trigger: ", st->n_threads, s);
        kd_ds_put_safe_cstr(ds, st->trigger);
        return;
    }
    kd_ds_put_format(ds, "Watching %u thread%s, ", st->n_threads, s);
    kd_status_elapsed(ds, st->elapsed_ns);
    kd_ds_put_cstr(ds, ", Ctrl-C to stop; ");
    if (st->n_intervals) {
        kd_ds_put_format(ds, "%u long poll%s, longest %.1f ms",
                         st->n_intervals, st->n_intervals == 1 ? "" : "s",
                         st->longest_ns / 1e6);
    } else {
        kd_ds_put_cstr(ds, "no long poll yet");
    }
}
