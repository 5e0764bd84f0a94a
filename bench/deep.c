/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 *
 * deep: a target whose stacks are known, for the user stacks' figure of
 * the benchmarks (bench/run.sh, figure 9).
 *
 * Usage:
 *   deep [-c CPU]
 *
 * Prints "ready", then spins until killed in deep_leaf(), called by deep_d(), deep_c(),
 * deep_b() and deep_a(), called by main(): deep_leaf() scans a buffer
 * with libc's memchr() (hand-written assembly with CFI) and mixes its
 * own arithmetic in, so that samples fall in both.  Built without frame
 * pointers (as packages are): only the call frame information finds
 * deep_leaf()'s callers, and memchr()'s.  -c pins it to CPU.  It dies with
 * its parent (PR_SET_PDEATHSIG).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helper.h"

uint64_t deep_leaf(uint64_t n);
uint64_t deep_d(uint64_t n);
uint64_t deep_c(uint64_t n);
uint64_t deep_b(uint64_t n);
uint64_t deep_a(uint64_t n);

static volatile uint64_t sink;
static char buf[64 * 1024];

__attribute__((noinline)) uint64_t
deep_leaf(uint64_t n)
{
    uint64_t found = 0;

    for (uint64_t i = 0; i < n; i++) {
        found += memchr(buf, 'x', sizeof buf) != NULL;
        for (int j = 0; j < 20000; j++) {
            sink = sink * 31 + j;
        }
    }
    return found;
}

/* Each does some work after its call, so that the call is no jump. */
#define DEEP_CALLER(NAME, CALLEE)                       \
    __attribute__((noinline)) uint64_t                  \
    NAME(uint64_t n)                                    \
    {                                                   \
        uint64_t r = CALLEE(n);                         \
                                                        \
        sink += r;                                      \
        return r + 1;                                   \
    }
DEEP_CALLER(deep_d, deep_leaf)
DEEP_CALLER(deep_c, deep_d)
DEEP_CALLER(deep_b, deep_c)
DEEP_CALLER(deep_a, deep_b)

int
main(int argc, char *argv[])
{
    long cpu = -1;
    int opt;

    while ((opt = getopt(argc, argv, "c:")) != -1) {
        if (opt == 'c') {
            cpu = strtol(optarg, NULL, 10);
        } else {
            return 2;
        }
    }
    if (bench_helper_start("deep", cpu)) {
        return 1;
    }
    memset(buf, 'a', sizeof buf);
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        sink += deep_a(10);
    }
    return 0;
}
