/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Syscall names and numbers of the build's architecture. */

#include "syscalls.h"

#include <stdio.h>
#include <string.h>

/* syscall_table.h is generated at build time from <sys/syscall.h> by
 * tools/gen-syscall-table.sh: one KD_SYSCALL(NR, NAME) line per syscall,
 * sorted by number. */

static const struct kd_syscall kd_syscalls[] = {
#define KD_SYSCALL(NR, NAME) { NR, #NAME },
#include "syscall_table.h"
#undef KD_SYSCALL
};

const char *
kd_syscall_name(unsigned int nr)
{
    size_t lo = 0, hi = sizeof kd_syscalls / sizeof kd_syscalls[0];

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (kd_syscalls[mid].nr == nr) {
            return kd_syscalls[mid].name;
        } else if (kd_syscalls[mid].nr < nr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return NULL;
}

static const struct kd_syscall *
kd_syscall_find(const struct kd_syscall *table, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (!strcmp(table[i].name, name)) {
            return &table[i];
        }
    }
    return NULL;
}

int
kd_syscall_nr(const char *name)
{
    const struct kd_syscall *s
        = kd_syscall_find(kd_syscalls,
                          sizeof kd_syscalls / sizeof kd_syscalls[0], name);

    return s ? (int) s->nr : -1;
}

const char *
kd_syscall_format(unsigned int nr, char *buf, size_t size)
{
    const char *name = kd_syscall_name(nr);

    if (name) {
        snprintf(buf, size, "%s", name);
    } else {
        snprintf(buf, size, "[unknown: %u]", nr);
    }
    return buf;
}

const struct kd_syscall *
kd_syscall_poll_in(const struct kd_syscall *table, size_t n)
{
    const struct kd_syscall *poll = kd_syscall_find(table, n, "poll");

    return poll ? poll : kd_syscall_find(table, n, "ppoll");
}

const struct kd_syscall *
kd_syscall_poll(void)
{
    return kd_syscall_poll_in(kd_syscalls,
                              sizeof kd_syscalls / sizeof kd_syscalls[0]);
}

int
kd_syscall_poll_nr(void)
{
    const struct kd_syscall *poll = kd_syscall_poll();

    return poll ? (int) poll->nr : -1;
}

size_t
kd_syscall_count(void)
{
    return sizeof kd_syscalls / sizeof kd_syscalls[0];
}
