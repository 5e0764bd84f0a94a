/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * cycler: a process whose one worker thread, named "kd-cycler", repeats
 * one exactly known cycle, fast, until it is killed:
 *
 *     USDT kd_cycler:start, getpgid(0), N x getppid(), getsid(0),
 *     USDT kd_cycler:end, then a sleep of PERIOD_US microseconds.
 *
 * A triggered sample between a start and a stop trigger on the cycle's
 * brackets (u:kd_cycler:start and u:kd_cycler:end, or, on kernels with
 * kprobes, k:__x64_sys_getpgid and kr:__x64_sys_getsid) holds exactly N
 * getppid() calls.  A first sample that holds 2 N of them started in one
 * cycle and stopped in the next: the start trigger was honoured while the
 * stop trigger was not attached yet.
 *
 * To make that race likely, the stop probe kd_cycler:end has
 * CYCLER_DECOYS more locations, in a function that never runs: attaching
 * a USDT trigger attaches every location, which takes a while, and the
 * decoys come first in the probe notes, so the one location that fires is
 * among the last attached.
 *
 * Usage: cycler [-n N] [-p PERIOD_US]
 * Prints "PID TID" of the worker, then "ready", and cycles until SIGTERM
 * or SIGKILL (or its parent's death).
 */

#define _GNU_SOURCE

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/sdt.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CYCLER_DECOYS 16

static long n_calls = 25;
static long period_us = 1000;
static volatile int cycler_never;

/* CYCLER_DECOYS locations of kd_cycler:end, never reached. */
#define DECOY1 DTRACE_PROBE(kd_cycler, end);
#define DECOY4 DECOY1 DECOY1 DECOY1 DECOY1
#define DECOY16 DECOY4 DECOY4 DECOY4 DECOY4
#define DECOY64 DECOY16 DECOY16 DECOY16 DECOY16
#define DECOY256 DECOY64 DECOY64 DECOY64 DECOY64
#define DECOY1024 DECOY256 DECOY256 DECOY256 DECOY256

static void __attribute__((noinline))
cycler_decoys(void)
{
    if (cycler_never) {
        DECOY16
    }
}

static void __attribute__((noinline))
cycler_cycle(void)
{
    DTRACE_PROBE(kd_cycler, start);
    syscall(SYS_getpgid, 0);
    for (long i = 0; i < n_calls; i++) {
        syscall(SYS_getppid);
    }
    syscall(SYS_getsid, 0);
    DTRACE_PROBE(kd_cycler, end);
}

static void *
cycler_worker(void *arg)
{
    struct timespec period = {
        .tv_sec = period_us / 1000000,
        .tv_nsec = (period_us % 1000000) * 1000,
    };

    (void) arg;
    prctl(PR_SET_NAME, "kd-cycler");
    printf("%d %ld\nready\n", (int) getpid(), (long) syscall(SYS_gettid));
    fflush(stdout);
    for (;;) {
        cycler_cycle();
        if (cycler_never) {
            cycler_decoys();
        }
        nanosleep(&period, NULL);
    }
    return NULL;
}

static long
cycler_number(const char *s, long max)
{
    char *end;
    long n;

    errno = 0;
    n = strtol(s, &end, 10);
    if (errno || end == s || *end || n < 0 || n > max) {
        fprintf(stderr, "cycler: '%s' is not a number in [0, %ld]\n", s,
                max);
        exit(2);
    }
    return n;
}

int
main(int argc, char *argv[])
{
    pthread_t thread;
    int opt;

    while ((opt = getopt(argc, argv, "n:p:")) != -1) {
        switch (opt) {
        case 'n':
            n_calls = cycler_number(optarg, 1000000);
            break;
        case 'p':
            period_us = cycler_number(optarg, 10000000);
            break;
        default:
            fprintf(stderr, "usage: cycler [-n N] [-p PERIOD_US]\n");
            return 2;
        }
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (pthread_create(&thread, NULL, cycler_worker, NULL)) {
        fprintf(stderr, "cycler: cannot start its thread\n");
        return 1;
    }
    pthread_join(thread, NULL);
    return 0;
}
