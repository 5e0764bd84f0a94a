/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_UNWIND_H
#define KD_UNWIND_H 1

#include <stddef.h>
#include <stdint.h>

#include "source.h"

/* The unwind tables of one target process, in the eBPF program's maps:
 * one table per file the process runs code of (its executable, its
 * libraries, the vDSO), built from the file's CFI (cfi.c), laid out by
 * uwtable.c, shared by every mapping of the file, and one entry per
 * executable mapping.  Code made at run time (a mapping of no file) gets
 * an entry without a table: the unwinder follows frame pointers there.
 * The mappings are read again when the unwinder meets an address in none
 * of them (a library loaded later) or when they change. */
struct kd_unwind;

/* What the tables hold and take. */
struct kd_unwind_stats {
    size_t mappings;            /* Executable mappings known. */
    size_t files;               /* Files with a table. */
    size_t files_no_cfi;        /* Files without CFI (frame pointers). */
    size_t files_full;          /* Files left out: the tables were full
                                 * (--unwind-memory). */
    size_t rows;                /* Rows used, */
    size_t rows_max;            /* of the rows there is room for. */
    size_t pages;               /* Page entries used. */
    uint64_t build_ns;          /* Time spent building tables. */
    uint64_t kernel_bytes;      /* The maps' memory, as the kernel counts
                                 * it (0 before kd_unwind_load()). */
};

/* Reads the executable mappings of process 'pid' into '*u', sizes the
 * tables of their files from their CFI's sizes, in at most 'max_bytes' of
 * kernel memory, and starts building them, in a thread of its own, while
 * the caller compiles the program.  Returns 0 or a positive errno with a
 * message in '*error' (and nothing in '*u'). */
int kd_unwind_create(struct kd_unwind **u, unsigned int pid,
                     size_t max_bytes, char **error);

/* The sizes of the maps that hold the tables: room for those built, and
 * for more (files mapped later), within the bound. */
void kd_unwind_sizes(const struct kd_unwind *, struct kd_source_unwind *);

/* Writes the tables, once built, into the program's maps uw_maps,
 * uw_maps_at, uw_pages and uw_rows ('maps_fd', 'maps_at_fd', 'pages_fd',
 * 'rows_fd').  Returns 0 or a positive errno with a message in '*error'. */
int kd_unwind_load(struct kd_unwind *, int maps_fd, int maps_at_fd,
                   int pages_fd, int rows_fd, char **error);

/* Reads the mappings again if 'force' or if they may have changed (at
 * most once a second), and updates the maps: tables for new files,
 * entries for new mappings, none for those gone.  Returns 0 or a positive
 * errno with a message in '*error'. */
int kd_unwind_refresh(struct kd_unwind *, bool force, char **error);

/* What the tables hold (once built) and take. */
void kd_unwind_stats(struct kd_unwind *, struct kd_unwind_stats *);

/* Frees everything (nothing for NULL); the maps go with the program. */
void kd_unwind_destroy(struct kd_unwind *);

#endif /* unwind.h */
