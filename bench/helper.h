/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * What the benchmark's helper programs share.
 */

#ifndef BENCH_HELPER_H
#define BENCH_HELPER_H 1

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

/* Makes the calling process die with its parent and, when 'cpu' is not
 * negative, pins it to CPU 'cpu'.  Returns 0, or an errno value after
 * printing why, prefixed with 'program'. */
static inline int
bench_helper_start(const char *program, long cpu)
{
    cpu_set_t set;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (cpu < 0) {
        return 0;
    }
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set)) {
        int err = errno;

        fprintf(stderr, "%s: CPU %ld: %s\n", program, cpu, strerror(err));
        return err;
    }
    return 0;
}

#endif /* bench/helper.h */
