/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * threads: a benchmark target (bench/run.sh) with many busy-ish threads.
 *
 * Usage:
 *   threads N [SLEEP_MS]
 *   threads N SPIN_MS spin
 *
 * Starts N threads, named "bw-00000" to "bw-NNNNN".  Each one, for ever,
 * makes three getppid() and one write() of nothing to /dev/null, then
 * sleeps SLEEP_MS milliseconds (default 50) in clock_nanosleep(), so that
 * every thread shows syscalls, runs and wake-ups in every sample longer
 * than SLEEP_MS.  Once every thread runs, prints "ready N" on standard
 * output; then the main thread waits for a signal.  With N = 0, it is an
 * idle process.  It dies with its parent (PR_SET_PDEATHSIG).
 *
 * With "spin", each thread instead calls poll(NULL, 0, 0), then spins
 * for SPIN_MS ms of wall time without a syscall, for ever: N threads
 * always inside a poll interval and on a CPU when they can be (figure 8).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Small stacks, so that thousands of threads stay cheap. */
#define STACK_SIZE (64 * 1024)

static atomic_uint n_running;
static long sleep_ms = 50;
static bool spin;
static int null_fd = -1;

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
worker(void *arg)
{
    unsigned int idx = (unsigned int) (uintptr_t) arg;
    struct timespec ts = {
        .tv_sec = sleep_ms / 1000,
        .tv_nsec = (sleep_ms % 1000) * 1000000L,
    };
    char name[16];

    snprintf(name, sizeof name, "bw-%05u", idx);
    pthread_setname_np(pthread_self(), name);
    atomic_fetch_add(&n_running, 1);
    while (spin) {
        uint64_t end;

        syscall(SYS_poll, NULL, 0, 0);
        end = now_ns() + sleep_ms * 1000000ull;
        while (now_ns() < end) {
            continue;
        }
    }
    for (;;) {
        syscall(SYS_getppid);
        syscall(SYS_getppid);
        syscall(SYS_getppid);
        if (write(null_fd, "", 0) < 0) {
            abort();
        }
        clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
    }
    return NULL;
}

int
main(int argc, char *argv[])
{
    pthread_attr_t attr;
    unsigned long n;

    if (argc < 2 || argc > 4 || (argc == 4 && strcmp(argv[3], "spin"))) {
        fprintf(stderr, "usage: threads N [SLEEP_MS [spin]]\n");
        return 2;
    }
    n = strtoul(argv[1], NULL, 10);
    spin = argc == 4;
    if (argc >= 3) {
        sleep_ms = strtol(argv[2], NULL, 10);
        if (sleep_ms <= 0) {
            fprintf(stderr, "threads: bad SLEEP_MS\n");
            return 2;
        }
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd < 0) {
        fprintf(stderr, "threads: /dev/null: %s\n", strerror(errno));
        return 1;
    }

    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, STACK_SIZE);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    for (unsigned long i = 0; i < n; i++) {
        pthread_t thread;
        int err;

        err = pthread_create(&thread, &attr, worker, (void *) (uintptr_t) i);
        if (err) {
            fprintf(stderr, "threads: thread %lu: %s\n", i, strerror(err));
            return 1;
        }
    }
    while (atomic_load(&n_running) < n) {
        usleep(1000);
    }
    printf("ready %lu\n", n);
    fflush(stdout);
    for (;;) {
        pause();
    }
}
