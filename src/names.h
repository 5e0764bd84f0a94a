/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_NAMES_H
#define KD_NAMES_H 1

#include <stddef.h>
#include <stdint.h>

/* The names that the reports, text and JSON alike, give to the numbers
 * the kernel counts by: softirq vectors and the errnos of failed upcalls.
 * Pure: nothing here touches the kernel. */

/* The reference's name of softirq vector 'vec' ("net_rx"), or
 * "<unknown:VEC>" in 'buf'. */
const char *kd_names_softirq(uint32_t vec, char *buf, size_t size);

/* The name of errno 'key' of an upcall ("ENOBUFS"), or NULL for success
 * or an unknown number. */
const char *kd_names_upcall_errno(uint64_t key);

#endif /* names.h */
