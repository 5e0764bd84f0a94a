/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Unit tests of src/cfi.c: the unwind tables of real ELF files, this test
 * program's own (its .eh_frame, and the .debug_frame of the functions of
 * tests/unit/cfi_fixture.c) and libc's. */

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <unistd.h>

#include "cfi.h"
#include "cfi_fixture.h"
#include "check.h"

/* Opens 'path' as an ELF file ('*fd' to close after elf_end()). */
static Elf *
open_elf(const char *path, int *fd)
{
    elf_version(EV_CURRENT);
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    return *fd >= 0 ? elf_begin(*fd, ELF_C_READ_MMAP, NULL) : NULL;
}

static void
close_elf(Elf *elf, int fd)
{
    if (elf) {
        elf_end(elf);
    }
    if (fd >= 0) {
        close(fd);
    }
}

/* The address of function 'f' of this program in its file: the ELF
 * header is mapped at the address of its first loadable segment, whether
 * the program is position-independent or not. */
static uint64_t
file_address(const void *f)
{
    extern char __executable_start[];
    uint64_t first = UINT64_MAX;
    int fd;
    Elf *elf = open_elf("/proc/self/exe", &fd);
    size_t n = 0;

    if (elf && !elf_getphdrnum(elf, &n)) {
        for (size_t i = 0; i < n; i++) {
            GElf_Phdr ph;

            if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD
                && ph.p_vaddr < first) {
                first = ph.p_vaddr;
            }
        }
    }
    close_elf(elf, fd);
    return (uintptr_t) f - (uintptr_t) __executable_start
           + (first == UINT64_MAX ? 0 : first);
}

/* The rule at the entry of a function: the CFA is the stack pointer as the
 * call left it, the return address saved at its top (x86_64), or still in
 * the link register (arm64). */
static void
check_entry_rule(const struct kd_cfi_row *r)
{
    if (!CHECK(r != NULL)) {
        return;
    }
    CHECK_INT(r->rule.cfa, KD_UW_CFA_SP);
#if defined(__x86_64__)
    CHECK_INT(r->rule.cfa_off, 8);
    CHECK_INT(r->rule.ra_off, -8);
    CHECK_INT(r->rule.regs, KD_UW_FP_SAME);
#elif defined(__aarch64__)
    CHECK_INT(r->rule.cfa_off, 0);
    CHECK_INT(r->rule.regs >> 4, KD_UW_RA_LR);
#endif
}

static void
test_cfi_self(void)
{
    struct kd_cfi_table t;
    char *error = NULL;
    int fd;
    Elf *elf = open_elf("/proc/self/exe", &fd);
    uint64_t lo = 0;

    if (!CHECK(elf != NULL)) {
        return;
    }
    CHECK_INT(kd_cfi_build(elf, NULL, &t, &error), 0);
    CHECK(error == NULL);
    CHECK(t.eh_frame);
    CHECK(!t.debug_frame);
    CHECK(t.n > 100);
    CHECK(t.n_fdes > 50);
    /* Sorted, and no two neighbours alike. */
    for (size_t i = 1; i < t.n; i++) {
        if (!CHECK(t.rows[i].addr > t.rows[i - 1].addr)
            || !CHECK(memcmp(&t.rows[i].rule, &t.rows[i - 1].rule,
                             sizeof t.rows[i].rule))) {
            break;
        }
    }
    check_entry_rule(kd_cfi_find(&t, file_address(kd_cfi_find)));
    check_entry_rule(kd_cfi_find(&t, file_address(test_cfi_self)));
    CHECK(kd_cfi_find(&t, lo) == NULL || t.rows[0].addr == 0);
    kd_cfi_destroy(&t);
    close_elf(elf, fd);
}

/* The functions of cfi_fixture.c have no .eh_frame: a gap of the table,
 * until the .debug_frame of their "debug file" (this program itself, which
 * holds it) fills it. */
static void
test_cfi_debug_frame(void)
{
    uint64_t leaf = file_address(kd_cfi_fixture_leaf);
    const struct kd_cfi_row *r;
    struct kd_cfi_table t;
    char *error = NULL;
    int fd, debug_fd;
    Elf *elf = open_elf("/proc/self/exe", &fd);
    Elf *debug = open_elf("/proc/self/exe", &debug_fd);

    if (!CHECK(elf != NULL) || !CHECK(debug != NULL)) {
        return;
    }
    CHECK_INT(kd_cfi_fixture_caller(3), 7);
    CHECK_INT(kd_cfi_build(elf, NULL, &t, &error), 0);
    r = kd_cfi_find(&t, leaf);
    CHECK(r == NULL || r->rule.cfa == KD_UW_CFA_NONE);
    kd_cfi_destroy(&t);

    CHECK_INT(kd_cfi_build(elf, debug, &t, &error), 0);
    CHECK(t.eh_frame);
    CHECK(t.debug_frame);
    check_entry_rule(kd_cfi_find(&t, leaf));
    check_entry_rule(kd_cfi_find(&t,
                                 file_address(kd_cfi_fixture_caller)));
    kd_cfi_destroy(&t);
    close_elf(debug, debug_fd);
    close_elf(elf, fd);
}

/* libc's table has the special frames: the PLT (x86_64), the signal
 * trampoline, the outermost frames (_start's, the new threads'). */
static void
test_cfi_libc(void)
{
    static const char *const paths[] = {
        "/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6",
    };
    size_t kinds[KD_UW_CFA_END + 1] = { 0 };
    struct kd_cfi_table t;
    char *error = NULL;
    Elf *elf = NULL;
    int fd = -1;

    for (size_t i = 0; !elf && i < KD_ARRAY_SIZE(paths); i++) {
        elf = open_elf(paths[i], &fd);
    }
    if (!CHECK(elf != NULL)) {
        return;
    }
    CHECK_INT(kd_cfi_build(elf, NULL, &t, &error), 0);
    CHECK(t.n > 10000);
    for (size_t i = 0; i < t.n; i++) {
        if (CHECK(t.rows[i].rule.cfa <= KD_UW_CFA_END)) {
            kinds[t.rows[i].rule.cfa]++;
        }
    }
    /* Nearly all rows are of a CFA from the stack or frame pointer. */
    CHECK(kinds[KD_UW_CFA_SP] + kinds[KD_UW_CFA_FP] > t.n * 8 / 10);
    CHECK(kinds[KD_UW_CFA_SIGNAL] >= 1);
    CHECK(kinds[KD_UW_CFA_END] >= 1);
#if defined(__x86_64__)
    CHECK(kinds[KD_UW_CFA_PLT] >= 1);
#endif
    kd_cfi_destroy(&t);
    close_elf(elf, fd);
}

static void
test_cfi_build_id(void)
{
    uint8_t id[64];
    char *path;
    int fd;
    Elf *elf = open_elf("/proc/self/exe", &fd);
    size_t n;

    if (!CHECK(elf != NULL)) {
        return;
    }
    n = kd_cfi_build_id(elf, id, sizeof id);
    CHECK(n >= 8);
    path = kd_cfi_debug_path(elf, "/proc/1/root");
    if (CHECK(path != NULL)) {
        char want[64];

        snprintf(want, sizeof want, "/proc/1/root/usr/lib/debug/.build-id/"
                 "%02x/%02x", id[0], id[1]);
        CHECK(!strncmp(path, want, strlen(want)));
        CHECK(strlen(path) == strlen("/proc/1/root/usr/lib/debug/"
                                     ".build-id/xx/.debug") + 2 * (n - 1));
    }
    free(path);
    path = kd_cfi_debug_path(elf, "/");
    CHECK(path && !strncmp(path, "/usr/lib/debug/.build-id/", 25));
    free(path);
    close_elf(elf, fd);
}

/* What is no ELF file, or has no CFI, says so. */
static void
test_cfi_errors(void)
{
    static char junk[4096] = "not an ELF file";
    struct kd_cfi_table t;
    char *error = NULL;
    Elf *elf;

    elf_version(EV_CURRENT);
    elf = elf_memory(junk, sizeof junk);
    if (!CHECK(elf != NULL)) {
        return;
    }
    CHECK_INT(kd_cfi_build(elf, NULL, &t, &error), EINVAL);
    CHECK(error != NULL);
    CHECK(t.n == 0);
    free(error);
    elf_end(elf);
}

static const struct test tests[] = {
    TEST(test_cfi_self),
    TEST(test_cfi_debug_frame),
    TEST(test_cfi_libc),
    TEST(test_cfi_build_id),
    TEST(test_cfi_errors),
};

CHECK_SUITE(cfi, tests)
