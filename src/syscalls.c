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
struct kd_syscall {
    unsigned int nr;
    const char *name;
};

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

int
kd_syscall_nr(const char *name)
{
    for (size_t i = 0; i < sizeof kd_syscalls / sizeof kd_syscalls[0];
         i++) {
        if (!strcmp(kd_syscalls[i].name, name)) {
            return kd_syscalls[i].nr;
        }
    }
    return -1;
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

size_t
kd_syscall_count(void)
{
    return sizeof kd_syscalls / sizeof kd_syscalls[0];
}
