/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_CFI_H
#define KD_CFI_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <libelf.h>

#include "kd_abi.h"

/* The unwind table of one ELF file, built from its call frame information
 * (CFI): .eh_frame, which every x86_64 and arm64 binary keeps, stripped or
 * not, and .debug_frame of its separate debug file where one is installed
 * (for what .eh_frame leaves out).  Reads files only, never the kernel.
 *
 * The DWARF CFI state machine runs here, once per file (through libdw);
 * each row of the table is the outcome for one address range, reduced to
 * what the eBPF unwinder follows (struct kd_uw_row: the CFA from SP or
 * FP, the RA and the caller's FP saved at offsets from it, and the few
 * special frames).  A rule it cannot follow (a CFA from another register,
 * a DWARF expression other than the PLT's) becomes KD_UW_CFA_NONE, as do
 * the gaps between functions: the unwinder tries the frame pointer
 * there. */

struct kd_cfi_row {
    uint64_t addr;              /* The file's address where it begins. */
    struct kd_uw_row rule;      /* 'off' is not used here. */
};

struct kd_cfi_table {
    struct kd_cfi_row *rows;    /* By address; consecutive rows differ. */
    size_t n, allocated;
    size_t n_fdes;              /* Functions (FDEs) read. */
    size_t n_unsupported;       /* Rows of rules it cannot follow. */
    bool eh_frame;              /* Rows came from .eh_frame, */
    bool debug_frame;           /* and from .debug_frame. */
};

#define KD_CFI_TABLE_INITIALIZER { NULL, 0, 0, 0, 0, false, false }

/* Builds into 'table' the rows of 'elf' (its .eh_frame), then those of
 * 'debug' (its separate debug file, or NULL: its .debug_frame) for the
 * functions .eh_frame lacks.  Returns 0, or a positive errno with a
 * message in '*error': ENOENT when neither has CFI, ENOTSUP for a machine
 * other than x86_64 and arm64. */
int kd_cfi_build(Elf *elf, Elf *debug, struct kd_cfi_table *table,
                 char **error);

void kd_cfi_destroy(struct kd_cfi_table *);

/* The row that applies at 'addr', or NULL before the first. */
const struct kd_cfi_row *kd_cfi_find(const struct kd_cfi_table *,
                                     uint64_t addr);

/* The GNU build ID of 'elf' into 'id' (of 'size' bytes at most), as its
 * length, or 0 if it has none. */
size_t kd_cfi_build_id(Elf *elf, uint8_t *id, size_t size);

/* The path of the separate debug file of 'elf' named by its build ID
 * under directory 'root' ("/" or a process's root), as a new string, or
 * NULL if it has no build ID. */
char *kd_cfi_debug_path(Elf *elf, const char *root);

#endif /* cfi.h */
