/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_BCC_SHIM_H
#define KD_BCC_SHIM_H 1

#include <stdbool.h>

/* While a compile is under way (between kd_bcc_shim_begin() and
 * kd_bcc_shim_end()), libbcc's question "is bpf_probe_read_kernel a kernel
 * symbol?" is answered by asking the kernel whether it has that eBPF
 * helper, instead of by loading every symbol of /proc/kallsyms.  See
 * bcc_shim.c. */
void kd_bcc_shim_begin(void);
void kd_bcc_shim_end(void);

/* Whether the last compile's question was answered here. */
bool kd_bcc_shim_answered(void);

#endif /* bcc_shim.h */
