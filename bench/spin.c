/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * spin: times getppid() for the benchmarks (bench/run.sh).
 *
 * Usage:
 *   spin [-c CPU] [-P [-L MS]] -t SECONDS  call for SECONDS, on request
 *   spin [-c CPU] -f                       call for ever
 *
 * With -t, for every line read on standard input, calls getppid() as fast
 * as it can for SECONDS, then prints the number of calls made and the
 * seconds they took, "%lu %.6f": a burst at full rate, at a chosen time.
 *
 * With -P, the calls are poll(NULL, 0, 0) instead, a poll loop at full
 * rate (figure 6); with -L, every 100 ms of the burst, one interval
 * between two poll() calls is made MS ms long (a busy loop, no syscall).
 * The line then has a third number: how many such long intervals.
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

/* -P: poll(NULL, 0, 0) instead of getppid(). */
static bool poll_mode;

/* -L: the length of a long interval, in ns (0: none). */
static double long_ns;

static void
calls(unsigned long count)
{
    long nr = poll_mode ? SYS_poll : SYS_getppid;

    for (unsigned long i = 0; i < count; i++) {
        syscall(nr, NULL, 0, 0);
    }
}

/* Calls getppid() (or poll()) for 'seconds'; returns the number of calls
 * and stores the time they took, in nanoseconds, in '*elapsed', and the
 * number of long intervals made in '*longs'. */
static unsigned long
burst(double seconds, double *elapsed, unsigned long *longs)
{
    double start = now_ns(), end = start + seconds * 1e9, now = start;
    double next_long = start + 100e6;
    unsigned long n = 0;

    *longs = 0;
    while (now < end) {
        calls(256);
        n += 256;
        now = now_ns();
        if (long_ns > 0 && now >= next_long && now + long_ns < end) {
            double until = now + long_ns;

            /* Between the last call above and the next one. */
            while (now_ns() < until) {
                continue;
            }
            ++*longs;
            next_long += 100e6;
            now = now_ns();
        }
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

    while ((opt = getopt(argc, argv, "c:t:fPL:")) != -1) {
        switch (opt) {
        case 'c':
            cpu = atoi(optarg);
            break;
        case 'P':
            poll_mode = true;
            break;
        case 'L':
            long_ns = strtod(optarg, NULL) * 1e6;
            break;
        case 't':
            seconds = strtod(optarg, NULL);
            break;
        case 'f':
            forever = true;
            break;
        default:
            fprintf(stderr, "usage: spin [-c CPU] [-P [-L MS]] -t SECONDS "
                    "| -f\n");
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
        unsigned long longs;
        double elapsed;
        unsigned long n = burst(seconds, &elapsed, &longs);

        if (poll_mode) {
            printf("%lu %.6f %lu\n", n, elapsed / 1e9, longs);
        } else {
            printf("%lu %.6f\n", n, elapsed / 1e9);
        }
        fflush(stdout);
    }
    return 0;
}
