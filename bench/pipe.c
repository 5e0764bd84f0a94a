/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * pipe: times context switches of tasks that are not the target, as
 * "perf bench sched pipe" does, for the benchmarks (bench/run.sh, figure
 * 7).
 *
 * Usage: pipe [-c CPU] -n ROUNDS -r REPEATS
 *
 * Forks a child; both pinned to CPU, they pass one byte back and forth
 * through two pipes, ROUNDS round trips (each two context switches, a
 * sleep and a wake-up on each side) per measurement, REPEATS
 * measurements.  Prints one line per measurement, "m NS", NS the
 * nanoseconds per round trip, then "done".
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long
number(const char *s, const char *what)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 100000000) {
        fprintf(stderr, "pipe: bad %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

/* Passes each byte back until the pipe closes. */
static void
child(int in, int out)
{
    char c;

    while (read(in, &c, 1) == 1) {
        if (write(out, &c, 1) != 1) {
            break;
        }
    }
    _exit(0);
}

int
main(int argc, char **argv)
{
    long cpu = -1, rounds = 0, repeats = 0;
    int to_child[2], to_parent[2], opt;
    pid_t pid;

    while ((opt = getopt(argc, argv, "c:n:r:")) != -1) {
        switch (opt) {
        case 'c':
            cpu = number(optarg, "CPU");
            break;
        case 'n':
            rounds = number(optarg, "ROUNDS");
            break;
        case 'r':
            repeats = number(optarg, "REPEATS");
            break;
        default:
            fprintf(stderr, "usage: pipe [-c CPU] -n ROUNDS -r REPEATS\n");
            return 2;
        }
    }
    if (!rounds || !repeats) {
        fprintf(stderr, "usage: pipe [-c CPU] -n ROUNDS -r REPEATS\n");
        return 2;
    }
    if (bench_helper_start("pipe", cpu) || pipe(to_child)
        || pipe(to_parent)) {
        return 1;
    }
    pid = fork();
    if (pid < 0) {
        perror("pipe: fork");
        return 1;
    }
    if (!pid) {
        close(to_child[1]);
        close(to_parent[0]);
        child(to_child[0], to_parent[1]);
    }
    close(to_child[0]);
    close(to_parent[1]);
    for (long r = 0; r < repeats; r++) {
        uint64_t start = now_ns();
        char c = 'p';

        for (long i = 0; i < rounds; i++) {
            if (write(to_child[1], &c, 1) != 1
                || read(to_parent[0], &c, 1) != 1) {
                perror("pipe: round trip");
                return 1;
            }
        }
        printf("m %.1f\n", (double) (now_ns() - start) / rounds);
        fflush(stdout);
    }
    close(to_child[1]);
    waitpid(pid, NULL, 0);
    printf("done\n");
    return 0;
}
