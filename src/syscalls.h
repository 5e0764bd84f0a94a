/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SYSCALLS_H
#define KD_SYSCALLS_H 1

#include <stddef.h>

/* One syscall of a table: its number and its name. */
struct kd_syscall {
    unsigned int nr;
    const char *name;
};

/* The name of syscall 'nr' of the build's architecture, or NULL. */
const char *kd_syscall_name(unsigned int nr);

/* The number of syscall 'name', or -1. */
int kd_syscall_nr(const char *name);

/* Formats the name of syscall 'nr' into 'buf' as the reference prints it:
 * the name, or "[unknown: NR]".  Returns 'buf'. */
const char *kd_syscall_format(unsigned int nr, char *buf, size_t size);

/* The entry of 'table' ('n' entries) for the syscall that glibc's poll()
 * makes, the "poll" of LONG POLL STATISTICS, --long-poll-events,
 * --skip-syscall-poll-events and "TOTAL( - poll)": "poll" where the
 * architecture has it (x86_64), else "ppoll" (arm64, and every architecture
 * of the kernel's generic syscall table, has no poll), else NULL. */
const struct kd_syscall *kd_syscall_poll_in(const struct kd_syscall *table,
                                            size_t n);

/* The same in the build's architecture's table: the one place that chooses
 * which syscall is "poll". */
const struct kd_syscall *kd_syscall_poll(void);

/* The number of kd_syscall_poll(), or -1 if there is none. */
int kd_syscall_poll_nr(void);

/* Number of syscalls in the table. */
size_t kd_syscall_count(void);

#endif /* syscalls.h */
