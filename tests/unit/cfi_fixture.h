/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_CFI_FIXTURE_H
#define KD_CFI_FIXTURE_H 1

/* Functions described by .debug_frame only (tests/unit/cfi_fixture.c). */
int kd_cfi_fixture_leaf(int n);
int kd_cfi_fixture_caller(int n);

#endif /* cfi_fixture.h */
