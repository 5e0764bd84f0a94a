/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* A library the workload loads with dlopen() after kernel_delay attached
 * ("dlspin", tests/workload.c): its code must be unwound through tables
 * built when it appears.  Built without frame pointers, as packages are. */

#include <stdint.h>
#include <time.h>

uint64_t kd_lib_leaf(uint64_t until);
uint64_t kd_lib_b(uint64_t until);
uint64_t kd_lib_a(uint64_t until);

static volatile uint64_t kd_lib_sink;

/* Spins until 'until' (CLOCK_MONOTONIC ns), no syscall. */
__attribute__((noinline)) uint64_t
kd_lib_leaf(uint64_t until)
{
    struct timespec ts;
    uint64_t n = 0;

    do {
        for (int i = 0; i < 100000; i++) {
            kd_lib_sink = kd_lib_sink * 31 + i;
        }
        n++;
        clock_gettime(CLOCK_MONOTONIC, &ts);
    } while ((uint64_t) ts.tv_sec * 1000000000ull + ts.tv_nsec < until);
    return n;
}

__attribute__((noinline)) uint64_t
kd_lib_b(uint64_t until)
{
    uint64_t n = kd_lib_leaf(until);

    kd_lib_sink += n;
    return n + 1;
}

__attribute__((noinline)) uint64_t
kd_lib_a(uint64_t until)
{
    uint64_t n = kd_lib_b(until);

    kd_lib_sink += n;
    return n + 1;
}
