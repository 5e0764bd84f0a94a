/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_UWTABLE_H
#define KD_UWTABLE_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kd_abi.h"

struct kd_cfi_table;

/* The contents of the maps of the unwind tables (kd_abi.h), as user space
 * builds them: the rows of every file, page by page, in shards of
 * KD_UW_SHARD_ROWS (the values of uw_rows), and the pages' entries (those
 * of uw_pages).  Tables only grow: a file's pages and rows stay where they
 * are put.  Touches nothing in the kernel: unwind.c copies what changed
 * into the maps. */
struct kd_uwtable {
    struct kd_uw_row *rows;     /* n_shards * KD_UW_SHARD_ROWS. */
    size_t n_shards;
    size_t next_row;            /* The first free row. */
    struct kd_uw_page *pages;
    size_t n_pages;
    size_t next_page;           /* The first free page entry. */
    bool *dirty;                /* By shard: changed since the last
                                 * kd_uwtable_clean(). */
    size_t dirty_page;          /* Page entries from here to next_page
                                 * changed. */
};

/* A file's place in the tables: its pages from 'page_lo' (its addresses
 * >> KD_UW_PAGE_SHIFT) on are entries 'page_base' on. */
struct kd_uwtable_span {
    uint32_t page_base;
    uint32_t page_lo;
    uint32_t n_pages;
};

/* Tables of 'n_shards' shards and 'n_pages' page entries. */
void kd_uwtable_init(struct kd_uwtable *, size_t n_shards, size_t n_pages);
void kd_uwtable_destroy(struct kd_uwtable *);

/* How many rows and page entries 'cfi' takes for the file's addresses
 * [lo, hi), as kd_uwtable_add() puts them. */
void kd_uwtable_measure(const struct kd_cfi_table *cfi, uint64_t lo,
                        uint64_t hi, size_t *rows, size_t *pages);

/* Adds the rows of 'cfi' for the file's addresses [lo, hi) into '*span'.
 * Returns 0, or ENOSPC when they do not fit (nothing is kept). */
int kd_uwtable_add(struct kd_uwtable *, const struct kd_cfi_table *cfi,
                   uint64_t lo, uint64_t hi, struct kd_uwtable_span *span);

/* The row the eBPF unwinder finds at the file's address 'addr' of 'span',
 * looked up as it does, into '*row'; false where there is none. */
bool kd_uwtable_find(const struct kd_uwtable *,
                     const struct kd_uwtable_span *span, uint64_t addr,
                     struct kd_uw_row *row);

/* Marks everything clean (copied into the maps). */
void kd_uwtable_clean(struct kd_uwtable *);

/* The keys of uw_maps (an LPM trie) that cover the addresses [start, end)
 * exactly, into 'keys' (of 'max'): returns how many, or 0 if more than
 * 'max' are needed. */
size_t kd_uwtable_prefixes(uint64_t start, uint64_t end,
                           struct kd_uw_map_key *keys, size_t max);

#endif /* uwtable.h */
