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
#define KD_LAYOUT_EXPR_SIZE 64

struct kd_layout {
    bool from_btf;
    const char *state_field;    /* "__state" (>= 5.14) or "state". */
    const char *includes;       /* Extra #include lines, or "". */
    char task_pid[KD_LAYOUT_EXPR_SIZE];
    char task_tgid[KD_LAYOUT_EXPR_SIZE];
    char task_state[KD_LAYOUT_EXPR_SIZE];
    char task_state_size[KD_LAYOUT_EXPR_SIZE];
    char task_cpu[KD_LAYOUT_EXPR_SIZE];     /* The CPU whose run queue the
                                             * task is on (task_cpu()). */
    char task_comm[KD_LAYOUT_EXPR_SIZE];
    char task_sum_exec[KD_LAYOUT_EXPR_SIZE];    /* The task's run time
                                                 * (schedstat's first
                                                 * field), a u64. */
    char task_pcount[KD_LAYOUT_EXPR_SIZE];      /* Its timeslices
                                                 * (schedstat's third
                                                 * field), a u64; -1 where
                                                 * the kernel keeps none. */
    char task_run_delay[KD_LAYOUT_EXPR_SIZE];   /* Its time in run queues
                                                 * (schedstat's second
                                                 * field), likewise. */
    char irqaction_name[KD_LAYOUT_EXPR_SIZE];
    char syscall_nr[KD_LAYOUT_EXPR_SIZE];   /* Syscall number in pt_regs. */
    char syscall_nr_size[KD_LAYOUT_EXPR_SIZE];  /* Its size: 8 (x86_64's
                                                 * orig_ax) or 4 (arm64's
                                                 * s32 syscallno). */
    char regs_rc[KD_LAYOUT_EXPR_SIZE];      /* Return value in pt_regs. */
    char regs_pc[KD_LAYOUT_EXPR_SIZE];      /* The user registers an */
    char regs_sp[KD_LAYOUT_EXPR_SIZE];      /* unwinder starts from, in */
    char regs_fp[KD_LAYOUT_EXPR_SIZE];      /* pt_regs (the link */
    char regs_lr[KD_LAYOUT_EXPR_SIZE];      /* register: arm64's). */
};

/* Fills 'layout' from the running kernel's BTF, or, when the kernel has
 * none (or 'no_btf' is true), with header-based expressions.  Returns 0 or
 * a positive errno with a message in '*error' (to be freed). */
int kd_layout_init(struct kd_layout *layout, bool no_btf, char **error);

#endif /* layout.h */
