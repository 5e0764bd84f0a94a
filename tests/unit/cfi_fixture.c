/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Code whose call frame information is in .debug_frame only: the Makefile
 * builds this file without unwind tables (-fno-asynchronous-unwind-tables
 * -fno-unwind-tables) and with -g, as code is for which only a separate
 * debug file describes the frames (tests/unit/test_cfi.c). */

#include "cfi_fixture.h"

volatile int kd_cfi_fixture_sink;

__attribute__((noinline)) int
kd_cfi_fixture_leaf(int n)
{
    int local[8];

    for (int i = 0; i < 8; i++) {
        local[i] = n + i;
        kd_cfi_fixture_sink += local[i];
    }
    return local[n & 7];
}

__attribute__((noinline)) int
kd_cfi_fixture_caller(int n)
{
    int r = kd_cfi_fixture_leaf(n);

    kd_cfi_fixture_sink += r;
    return r + 1;
}
