/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The names of softirq vectors and upcall errnos. */

#include "names.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

const char *
kd_names_softirq(uint32_t vec, char *buf, size_t size)
{
    static const char *const names[] = {
        "hi", "timer", "net_tx", "net_rx", "block", "irq_poll",
        "tasklet", "sched", "hrtimer", "rcu",
    };

    if (vec < KD_ARRAY_SIZE(names)) {
        return names[vec];
    }
    snprintf(buf, size, "<unknown:%" PRIu32 ">", vec);
    return buf;
}

const char *
kd_names_upcall_errno(uint64_t key)
{
    return key && key < 4096 ? strerrorname_np(key) : NULL;
}
