/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * spin: times getppid() for the benchmarks (bench/run.sh).
 *
 * Usage:
 *   spin [-c CPU] -n COUNT [-p PAGES]
 *                             time COUNT calls, on request
 *   spin [-c CPU] -t SECONDS  call for SECONDS, on request
 *   spin [-c CPU] -f          call for ever
 *
 * With -n, for every line read on standard input, makes COUNT
 * syscall(SYS_getppid) calls, timed with clock_gettime(), and prints the
 * mean time per call in nanoseconds twice, "%.2f %.2f": first in the
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID: kernel and user time of this
 * thread only, eBPF programs run in its syscalls included, so that time
 * lost to other processes on the same CPU does not count), then in wall
 * time (CLOCK_MONOTONIC); it exits at the end of its input.  The first
 * request is preceded by an untimed warm-up of COUNT / 10 calls.  So one
 * process can be measured again and again, with and without tracers, and
 * be itself a tracer's target.
 *
 * With -p, each request then also times PAGES page faults (first writes to
 * the pages of an anonymous mapping, emptied again afterwards with
 * madvise(MADV_DONTNEED)), and prints the mean time per fault in the
 * thread's CPU time as a third number.  A page fault enters the kernel
 * without a syscall, so no syscall hook runs in it: it measures how fast
 * the machine is at that moment, independently of the tracers.
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
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

/* Mean CPU time, in nanoseconds, of a first write to each of the 'pages'
 * pages at 'map', which are then emptied again. */
static double
faults(char *map, unsigned long pages)
{
    long page = sysconf(_SC_PAGESIZE);
    double cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);

    for (unsigned long i = 0; i < pages; i++) {
        ((volatile char *) map)[i * page] = 1;
    }
    cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
    madvise(map, pages * page, MADV_DONTNEED);
    return cpu / pages;
}

int
main(int argc, char *argv[])
{
    unsigned long pages = 0;
    char *map = NULL;
    unsigned long count = 0;
    double seconds = 0;
    bool forever = false;
    char line[64];
    int cpu = -1;
    int opt;

    while ((opt = getopt(argc, argv, "c:n:p:t:f")) != -1) {
        switch (opt) {
        case 'c':
            cpu = atoi(optarg);
            break;
        case 'n':
            count = strtoul(optarg, NULL, 10);
            break;
        case 'p':
            pages = strtoul(optarg, NULL, 10);
            break;
        case 't':
            seconds = strtod(optarg, NULL);
            break;
        case 'f':
            forever = true;
            break;
        default:
            fprintf(stderr, "usage: spin [-c CPU] -n COUNT [-p PAGES] | "
                    "-t SECONDS | -f\n");
            return 2;
        }
    }
    if (!forever && !count && !(seconds > 0)) {
        fprintf(stderr, "usage: spin [-c CPU] -n COUNT [-p PAGES] | "
                "-t SECONDS | -f\n");
        return 2;
    }
    if (pages) {
        map = mmap(NULL, pages * sysconf(_SC_PAGESIZE),
                   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                   0);
        if (map == MAP_FAILED) {
            fprintf(stderr, "spin: mmap: %s\n", strerror(errno));
            return 1;
        }
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (cpu >= 0) {
        cpu_set_t set;

        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
        if (sched_setaffinity(0, sizeof set, &set)) {
            fprintf(stderr, "spin: CPU %d: %s\n", cpu, strerror(errno));
            return 1;
        }
    }

    if (forever) {
        for (;;) {
            syscall(SYS_getppid);
        }
    }

    if (seconds > 0) {
        while (fgets(line, sizeof line, stdin)) {
            double elapsed;
            unsigned long n = burst(seconds, &elapsed);

            printf("%lu %.6f\n", n, elapsed / 1e9);
            fflush(stdout);
        }
        return 0;
    }

    calls(count / 10);
    if (pages) {
        faults(map, pages);
    }
    while (fgets(line, sizeof line, stdin)) {
        double cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        double wall = now_ns();

        calls(count);
        wall = now_ns() - wall;
        cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu;
        if (pages) {
            printf("%.2f %.2f %.2f\n", cpu / count, wall / count,
                   faults(map, pages));
        } else {
            printf("%.2f %.2f\n", cpu / count, wall / count);
        }
        fflush(stdout);
    }
    return 0;
}
