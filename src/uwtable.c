/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The contents of the maps of the unwind tables, built in user space. */

#include "uwtable.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cfi.h"
#include "util.h"

#define KD_UW_PAGE_SIZE (1ull << KD_UW_PAGE_SHIFT)

void
kd_uwtable_init(struct kd_uwtable *t, size_t n_shards, size_t n_pages)
{
    memset(t, 0, sizeof *t);
    t->n_shards = n_shards;
    t->rows = kd_xcalloc(n_shards ? n_shards * KD_UW_SHARD_ROWS : 1,
                         sizeof *t->rows);
    t->n_pages = n_pages;
    t->pages = kd_xcalloc(n_pages ? n_pages : 1, sizeof *t->pages);
    t->dirty = kd_xcalloc(n_shards ? n_shards : 1, sizeof *t->dirty);
}

void
kd_uwtable_destroy(struct kd_uwtable *t)
{
    free(t->rows);
    free(t->pages);
    free(t->dirty);
    memset(t, 0, sizeof *t);
}

/* The pages of the file's addresses [lo, hi): from '*first', '*n'. */
static void
kd_uwtable_pages(uint64_t lo, uint64_t hi, uint64_t *first, uint64_t *n)
{
    *first = lo >> KD_UW_PAGE_SHIFT;
    *n = hi > lo ? ((hi - 1) >> KD_UW_PAGE_SHIFT) - *first + 1 : 0;
}

/* Walks the rows of page 'page' of 'cfi': the one in effect at its start,
 * then those that begin in it.  Calls 'row' for each one (its offset in
 * the page), if not NULL, and returns how many there are: 0 if the page
 * has no CFI at all. */
static size_t
kd_uwtable_page_rows(const struct kd_cfi_table *cfi, uint64_t page,
                     struct kd_uw_row *out)
{
    uint64_t start = page << KD_UW_PAGE_SHIFT;
    uint64_t end = start + KD_UW_PAGE_SIZE;
    const struct kd_cfi_row *r = kd_cfi_find(cfi, start);
    const struct kd_cfi_row *last = cfi->rows + cfi->n;
    struct kd_uw_row first = { .cfa = KD_UW_CFA_NONE };
    size_t n = 1;

    if (r) {
        first = r->rule;
        r++;
    } else {
        r = cfi->rows;
    }
    first.off = 0;
    if (out) {
        out[0] = first;
    }
    for (; r < last && r->addr < end; r++) {
        if (r->addr <= start) {
            continue;
        }
        if (out) {
            out[n] = r->rule;
            out[n].off = r->addr - start;
        }
        n++;
    }
    return n == 1 && first.cfa == KD_UW_CFA_NONE ? 0 : n;
}

/* Where a page of 'n' rows goes, from row 'next': returns the row. */
static size_t
kd_uwtable_place(size_t next, size_t n)
{
    size_t in_shard = next & (KD_UW_SHARD_ROWS - 1);

    return in_shard + n > KD_UW_SHARD_ROWS ? next - in_shard
                                             + KD_UW_SHARD_ROWS
                                           : next;
}

void
kd_uwtable_measure(const struct kd_cfi_table *cfi, uint64_t lo, uint64_t hi,
                   size_t *rows, size_t *pages)
{
    uint64_t first, n;

    kd_uwtable_pages(lo, hi, &first, &n);
    *rows = 0;
    *pages = n;
    for (uint64_t i = 0; i < n; i++) {
        *rows += kd_uwtable_page_rows(cfi, first + i, NULL);
    }
}

int
kd_uwtable_add(struct kd_uwtable *t, const struct kd_cfi_table *cfi,
               uint64_t lo, uint64_t hi, struct kd_uwtable_span *span)
{
    size_t max_rows = t->n_shards * KD_UW_SHARD_ROWS;
    size_t next = t->next_row;
    uint64_t first, n;

    kd_uwtable_pages(lo, hi, &first, &n);
    if (n > t->n_pages - t->next_page || first > UINT32_MAX) {
        return ENOSPC;
    }
    /* Where each page goes, first without writing anything. */
    for (uint64_t i = 0; i < n; i++) {
        size_t count = kd_uwtable_page_rows(cfi, first + i, NULL);

        if (count) {
            next = kd_uwtable_place(next, count) + count;
            if (next > max_rows) {
                return ENOSPC;
            }
        }
    }

    span->page_base = t->next_page;
    span->page_lo = first;
    span->n_pages = n;
    for (uint64_t i = 0; i < n; i++) {
        struct kd_uw_page *p = &t->pages[t->next_page + i];
        size_t count = kd_uwtable_page_rows(cfi, first + i, NULL);
        size_t at;

        *p = (struct kd_uw_page) { 0, 0 };
        if (!count) {
            continue;
        }
        at = kd_uwtable_place(t->next_row, count);
        kd_uwtable_page_rows(cfi, first + i, &t->rows[at]);
        p->first = at;
        p->count = count;
        t->dirty[at / KD_UW_SHARD_ROWS] = true;
        t->next_row = at + count;
    }
    t->next_page += n;
    return 0;
}

bool
kd_uwtable_find(const struct kd_uwtable *t,
                const struct kd_uwtable_span *span, uint64_t addr,
                struct kd_uw_row *row)
{
    uint64_t page = (addr >> KD_UW_PAGE_SHIFT) - span->page_lo;
    uint32_t off = addr & (KD_UW_PAGE_SIZE - 1);
    const struct kd_uw_page *p;
    size_t lo, hi;

    if (page >= span->n_pages) {
        return false;
    }
    p = &t->pages[span->page_base + page];
    if (!p->count) {
        return false;
    }
    lo = p->first;
    hi = lo + p->count;
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (t->rows[mid].off <= off) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    *row = t->rows[lo];
    return true;
}

void
kd_uwtable_clean(struct kd_uwtable *t)
{
    memset(t->dirty, 0, t->n_shards * sizeof *t->dirty);
    t->dirty_page = t->next_page;
}

size_t
kd_uwtable_prefixes(uint64_t start, uint64_t end,
                    struct kd_uw_map_key *keys, size_t max)
{
    size_t n = 0;

    while (start < end) {
        unsigned int bits = start ? __builtin_ctzll(start) : 64;
        uint64_t be;

        /* The largest aligned block from 'start' that ends by 'end'. */
        while (bits && (bits >= 64 || (1ull << bits) > end - start)) {
            bits--;
        }
        if (n == max) {
            return 0;
        }
        keys[n].prefixlen = 64 - bits;
        be = __builtin_bswap64(start);
        memcpy(keys[n].addr, &be, sizeof keys[n].addr);
        n++;
        start += 1ull << bits;
    }
    return n;
}
