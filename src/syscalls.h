/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SYSCALLS_H
#define KD_SYSCALLS_H 1

#include <stddef.h>

/* The name of syscall 'nr' of the build's architecture, or NULL. */
const char *kd_syscall_name(unsigned int nr);

/* The number of syscall 'name', or -1. */
int kd_syscall_nr(const char *name);

/* Formats the name of syscall 'nr' into 'buf' as the reference prints it:
 * the name, or "[unknown: NR]".  Returns 'buf'. */
const char *kd_syscall_format(unsigned int nr, char *buf, size_t size);

/* Number of syscalls in the table. */
size_t kd_syscall_count(void);

#endif /* syscalls.h */
