/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * spin: times getppid() for the benchmarks (bench/run.sh).
 *
 * Usage:
 *   spin [-c CPU] -t SECONDS  call for SECONDS, on request
 *   spin [-c CPU] -f          call for ever
 *
 * With -t, for every line read on standard input, calls getppid() as fast
 * as it can for SECONDS, then prints the number of calls made and the
 * seconds they took, "%lu %.6f": a burst at full rate, at a chosen time.
 *
 * With -f, calls getppid() as fast as it can until killed: a target that
 * makes syscalls at full rate.
 *
 * -c pins the process to CPU.  It dies with its parent
 * (PR_SET_PDEATHSIG).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static double
clock_ns(clockid_t clock)
{
    struct timespec ts;

    clock_gettime(clock, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double
now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

static void
calls(unsigned long count)
{
    for (unsigned long i = 0; i < count; i++) {
        syscall(SYS_getppid);
    }
}

/* Calls getppid() for 'seconds'; returns the number of calls and stores
 * the time they took, in nanoseconds, in '*elapsed'. */
static unsigned long
burst(double seconds, double *elapsed)
{
    double start = now_ns(), end = start + seconds * 1e9, now = start;
    unsigned long n = 0;

    while (now < end) {
        calls(256);
        n += 256;
        now = now_ns();
    }
    *elapsed = now - start;
    return n;
}

int
main(int argc, char *argv[])
{
    double seconds = 0;
    bool forever = false;
    char line[64];
    int cpu = -1;
    int opt;

    while ((opt = getopt(argc, argv, "c:t:f")) != -1) {
        switch (opt) {
        case 'c':
            cpu = atoi(optarg);
            break;
        case 't':
            seconds = strtod(optarg, NULL);
            break;
        case 'f':
            forever = true;
            break;
        default:
            fprintf(stderr, "usage: spin [-c CPU] -t SECONDS | -f\n");
            return 2;
        }
    }
    if (!forever && !(seconds > 0)) {
        fprintf(stderr, "usage: spin [-c CPU] -t SECONDS | -f\n");
        return 2;
    }
    if (bench_helper_start("spin", cpu)) {
        return 1;
    }

    if (forever) {
        for (;;) {
            syscall(SYS_getppid);
        }
    }

    while (fgets(line, sizeof line, stdin)) {
        double elapsed;
        unsigned long n = burst(seconds, &elapsed);

        printf("%lu %.6f\n", n, elapsed / 1e9);
        fflush(stdout);
    }
    return 0;
}
