/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/uwtable.c: the rows laid out page by page give the
 * rule the file's table gives at every address; the prefixes of a
 * mapping cover it exactly; and this program's own stack, unwound in user
 * space from its tables as the eBPF unwinder does, gives the return
 * addresses its functions saw. */

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdint.h>
#include <unistd.h>

#include "cfi.h"
#include "uwtable.h"
#include "check.h"

static struct kd_uw_row
rule(uint8_t cfa, int32_t off)
{
    struct kd_uw_row r = { .cfa = cfa, .cfa_off = off, .ra_off = -8 };

    return r;
}

/* A table of rows at 'addrs' (of 'n'), each with CFA offset 8 * (i + 1),
 * then a gap (no CFI) from 'end' on. */
static void
make_table(struct kd_cfi_table *t, const uint64_t *addrs, size_t n,
           uint64_t end)
{
    *t = (struct kd_cfi_table) KD_CFI_TABLE_INITIALIZER;
    t->rows = kd_xcalloc(n + 1, sizeof *t->rows);
    for (size_t i = 0; i < n; i++) {
        t->rows[i].addr = addrs[i];
        t->rows[i].rule = rule(KD_UW_CFA_SP, 8 * (i + 1));
    }
    t->rows[n].addr = end;
    t->rows[n].rule = rule(KD_UW_CFA_NONE, 0);
    t->rows[n].rule.ra_off = 0;
    t->n = n + 1;
}

/* At every address of [lo, hi), the laid-out rows give what the table
 * gives. */
static void
check_same(const struct kd_uwtable *u, const struct kd_uwtable_span *span,
           const struct kd_cfi_table *t, uint64_t lo, uint64_t hi,
           uint64_t step)
{
    for (uint64_t a = lo; a < hi; a += step) {
        const struct kd_cfi_row *want = kd_cfi_find(t, a);
        struct kd_uw_row got;
        bool found = kd_uwtable_find(u, span, a, &got);

        if (!want || want->rule.cfa == KD_UW_CFA_NONE) {
            if (!CHECK(!found || got.cfa == KD_UW_CFA_NONE)) {
                printf("  at %#" PRIx64 "\n", a);
                return;
            }
            continue;
        }
        if (!CHECK(found) || !CHECK_INT(got.cfa, want->rule.cfa)
            || !CHECK_INT(got.cfa_off, want->rule.cfa_off)) {
            printf("  at %#" PRIx64 "\n", a);
            return;
        }
    }
}

static void
test_uwtable_layout(void)
{
    /* Rows before, across and after page boundaries, a page with none
     * of its own (0x3000: the row from 0x2ff0 applies), a page starting
     * exactly on a row (0x5000). */
    static const uint64_t addrs[] = {
        0x1010, 0x1020, 0x1ffe, 0x2ff0, 0x4008, 0x5000, 0x5001, 0x5fff,
    };
    struct kd_uwtable_span span;
    struct kd_cfi_table t;
    struct kd_uwtable u;
    size_t rows, pages;
    struct kd_uw_row got;

    make_table(&t, addrs, KD_ARRAY_SIZE(addrs), 0x6100);
    kd_uwtable_measure(&t, 0x1000, 0x7000, &rows, &pages);
    CHECK_INT(pages, 6);
    /* 0x1000: none, 3 own; 0x2000: 1 + 1; 0x3000: 1; 0x4000: 1 + 1;
     * 0x5000: 3; 0x6000: 1 + 1 (the gap). */
    CHECK_INT(rows, 4 + 2 + 1 + 2 + 3 + 2);

    kd_uwtable_init(&u, 1, 64);
    CHECK_INT(kd_uwtable_add(&u, &t, 0x1000, 0x7000, &span), 0);
    CHECK_INT(span.page_lo, 1);
    CHECK_INT(span.n_pages, 6);
    CHECK_INT(span.page_base, 0);
    CHECK_INT(u.next_row, rows);
    CHECK_INT(u.next_page, 6);
    CHECK(u.dirty[0]);
    check_same(&u, &span, &t, 0x1000, 0x7000, 1);
    /* Outside the file's pages: nothing. */
    CHECK(!kd_uwtable_find(&u, &span, 0x7000, &got));
    CHECK(!kd_uwtable_find(&u, &span, 0x0fff, &got));

    /* A second file goes after the first. */
    CHECK_INT(kd_uwtable_add(&u, &t, 0x1000, 0x3000, &span), 0);
    CHECK_INT(span.page_base, 6);
    check_same(&u, &span, &t, 0x1000, 0x3000, 7);
    kd_uwtable_clean(&u);
    CHECK(!u.dirty[0]);
    CHECK_INT(u.dirty_page, u.next_page);
    kd_uwtable_destroy(&u);
    kd_cfi_destroy(&t);
}

/* A page's rows never straddle two shards; what does not fit is refused
 * whole. */
static void
test_uwtable_full(void)
{
    enum { N = 3000 };
    uint64_t *addrs = kd_xcalloc(N, sizeof *addrs);
    struct kd_uwtable_span span;
    struct kd_cfi_table t;
    struct kd_uwtable u;
    size_t rows, pages, next;

    /* A page of 3001 rows (the gap's row at the end): 21 fit a shard of
     * 65536 rows. */
    for (size_t i = 0; i < N; i++) {
        addrs[i] = 0x10000 + i;
    }
    make_table(&t, addrs, N, 0x10000 + N);
    kd_uwtable_measure(&t, 0x10000, 0x11000, &rows, &pages);
    CHECK_INT(pages, 1);
    CHECK_INT(rows, N + 1);

    kd_uwtable_init(&u, 2, 1000);
    for (int i = 0; i < 42; i++) {
        CHECK_INT(kd_uwtable_add(&u, &t, 0x10000, 0x11000, &span), 0);
        CHECK_INT(span.n_pages, 1);
        if (!CHECK(u.pages[span.page_base].first / KD_UW_SHARD_ROWS
                   == (u.pages[span.page_base].first + N)
                      / KD_UW_SHARD_ROWS)) {
            break;
        }
    }
    check_same(&u, &span, &t, 0x10000, 0x11000, 3);
    CHECK(u.dirty[1]);
    next = u.next_row;
    CHECK_INT(kd_uwtable_add(&u, &t, 0x10000, 0x11000, &span), ENOSPC);
    CHECK_INT(u.next_row, next);
    kd_uwtable_destroy(&u);

    /* No room for the pages' entries either. */
    kd_uwtable_init(&u, 2, 1);
    CHECK_INT(kd_uwtable_add(&u, &t, 0x10000, 0x12000, &span), ENOSPC);
    CHECK_INT(u.next_page, 0);
    kd_uwtable_destroy(&u);
    kd_cfi_destroy(&t);
    free(addrs);
}

/* The prefixes of [start, end), as an LPM trie's keys, cover it exactly:
 * aligned blocks, in order, each from where the last ended. */
static void
check_prefixes(uint64_t start, uint64_t end, size_t want)
{
    struct kd_uw_map_key keys[128];
    size_t n = kd_uwtable_prefixes(start, end, keys, KD_ARRAY_SIZE(keys));
    uint64_t at = start;

    CHECK_INT(n, want);
    for (size_t i = 0; i < n; i++) {
        uint64_t be, a, size;

        memcpy(&be, keys[i].addr, sizeof be);
        a = __builtin_bswap64(be);
        size = keys[i].prefixlen ? 1ull << (64 - keys[i].prefixlen) : 0;
        if (!CHECK(a == at) || !CHECK(size && !(a & (size - 1)))) {
            return;
        }
        at += size;
    }
    CHECK(at == end);
}

static void
test_uwtable_prefixes(void)
{
    struct kd_uw_map_key one;

    check_prefixes(0x400000, 0x800000, 1);
    check_prefixes(0x1000, 0x3000, 2);
    check_prefixes(0x7f0000001000, 0x7f0000200000, 9);
    check_prefixes(0x7fff12345000, 0x7fff12347000, 2);
    check_prefixes(0x7fff12344000, 0x7fff12348000, 1);
    check_prefixes(0x1000, 0x1000, 0);
    /* Too many for the room given: none. */
    CHECK_INT(kd_uwtable_prefixes(0x1000, 0x3000, &one, 1), 0);
}

/* The eBPF unwinder's walk, in user space: the registers at 'pc', from the
 * tables of this program ('u', 'span', 'bias': its load address less its
 * file's), into 'ras' (of 'max'), the return addresses.  Stops at an
 * address outside the program (libc's start_thread and the like).  Returns
 * how many it found. */
struct model_regs {
    uint64_t pc, sp, fp, lr;
};

static size_t
model_unwind(const struct kd_uwtable *u, const struct kd_uwtable_span *span,
             uint64_t bias, struct model_regs r, uint64_t *ras, size_t max)
{
    size_t n = 0;
    bool exact = true;

    while (n < max) {
        uint64_t at = r.pc - bias - (exact ? 0 : 1), cfa, ra;
        struct kd_uw_row row;

        if (!kd_uwtable_find(u, span, at, &row)) {
            break;
        }
        if (row.cfa == KD_UW_CFA_SP) {
            cfa = r.sp + row.cfa_off;
        } else if (row.cfa == KD_UW_CFA_FP) {
            cfa = r.fp + row.cfa_off;
        } else {
            break;
        }
        if ((row.regs >> 4) == KD_UW_RA_LR) {
            if (!exact) {
                break;
            }
            ra = r.lr;
        } else {
            memcpy(&ra, (void *) (uintptr_t) (cfa + row.ra_off), sizeof ra);
        }
        if ((row.regs & 0xf) == KD_UW_FP_AT) {
            memcpy(&r.fp, (void *) (uintptr_t) (cfa + row.fp_off),
                   sizeof r.fp);
        }
        ras[n++] = ra;
        r.pc = ra;
        r.sp = cfa;
        exact = false;
    }
    return n;
}

/* What the chain below saw: each function's return address. */
static uint64_t chain_ras[3];
static uint64_t model_ras[8];
static size_t model_n;
static const struct kd_uwtable *model_u;
static const struct kd_uwtable_span *model_span;
static uint64_t model_bias;

__attribute__((noinline)) static void
chain_leaf(void)
{
    struct model_regs r = { 0 };

    chain_ras[0] = (uintptr_t) __builtin_return_address(0);
#if defined(__x86_64__)
    __asm__ volatile("lea 0(%%rip), %0\n\t"
                     "mov %%rsp, %1\n\t"
                     "mov %%rbp, %2"
                     : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp));
#elif defined(__aarch64__)
    __asm__ volatile("adr %0, .\n\t"
                     "mov %1, sp\n\t"
                     "mov %2, x29\n\t"
                     "mov %3, x30"
                     : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp), "=r"(r.lr));
#endif
    model_n = model_unwind(model_u, model_span, model_bias, r, model_ras,
                           KD_ARRAY_SIZE(model_ras));
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void
chain_mid(void)
{
    chain_ras[1] = (uintptr_t) __builtin_return_address(0);
    chain_leaf();
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void
chain_top(void)
{
    chain_ras[2] = (uintptr_t) __builtin_return_address(0);
    chain_mid();
    __asm__ volatile("" ::: "memory");
}

static void
test_uwtable_unwind_self(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
    extern char __executable_start[];
    struct kd_uwtable_span span;
    struct kd_cfi_table t;
    struct kd_uwtable u;
    uint64_t lo = UINT64_MAX, hi = 0, first = UINT64_MAX;
    char *error = NULL;
    size_t n = 0;
    int fd;
    Elf *elf;

    elf_version(EV_CURRENT);
    fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL;
    if (!CHECK(elf != NULL) || !CHECK_INT(kd_cfi_build(elf, NULL, &t,
                                                       &error), 0)) {
        return;
    }
    if (!elf_getphdrnum(elf, &n)) {
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;

            if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD) {
                continue;
            }
            first = ph.p_vaddr < first ? ph.p_vaddr : first;
            if (ph.p_flags & PF_X) {
                lo = ph.p_vaddr < lo ? ph.p_vaddr : lo;
                hi = ph.p_vaddr + ph.p_memsz > hi ? ph.p_vaddr + ph.p_memsz
                                                  : hi;
            }
        }
    }
    kd_uwtable_init(&u, 2, 8192);
    if (CHECK(hi > lo) && CHECK_INT(kd_uwtable_add(&u, &t, lo, hi, &span),
                                    0)) {
        model_u = &u;
        model_span = &span;
        model_bias = (uintptr_t) __executable_start - first;
        chain_top();
        /* leaf -> mid -> top -> this test, and on. */
        if (CHECK(model_n >= 3)) {
            CHECK(model_ras[0] == chain_ras[0]);
            CHECK(model_ras[1] == chain_ras[1]);
            CHECK(model_ras[2] == chain_ras[2]);
        }
    }
    kd_uwtable_destroy(&u);
    kd_cfi_destroy(&t);
    elf_end(elf);
    close(fd);
#endif
}

static const struct test tests[] = {
    TEST(test_uwtable_layout),
    TEST(test_uwtable_full),
    TEST(test_uwtable_prefixes),
    TEST(test_uwtable_unwind_self),
};

CHECK_SUITE(uwtable, tests)
