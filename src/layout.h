/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_LAYOUT_H
#define KD_LAYOUT_H 1

#include <stdbool.h>

/* Where the eBPF program finds the kernel fields it reads.  With BTF the
 * offsets are numbers read from the running kernel; without BTF they are
 * C expressions (offsetof()) that libbcc resolves with the installed
 * kernel headers, which must then match the running kernel. */
struct kd_layout {
    bool from_btf;
    const char *state_field;    /* "__state" (>= 5.14) or "state". */
    const char *includes;       /* Extra #include lines, or "". */
    char task_pid[64];
    char task_tgid[64];
    char task_state[64];
    char task_state_size[64];
    char irqaction_name[64];
    char syscall_nr[64];        /* Syscall number in struct pt_regs. */
};

/* Fills 'layout' from the running kernel's BTF, or, when the kernel has
 * none (or 'no_btf' is true), with header-based expressions.  Returns 0 or
 * a positive errno with a message in '*error' (to be freed). */
int kd_layout_init(struct kd_layout *layout, bool no_btf, char **error);

#endif /* layout.h */
