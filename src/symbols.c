/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Stack frames named through libbcc's symbol caches. */

#include "symbols.h"

#include <bcc/bcc_syms.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "waiter.h"

/* The kernel's symbol cache, for the whole run: the kernel's symbols
 * change only with its modules, and reading them costs far more than a
 * sample.  What the modules were when it was read (a hash of their names
 * and load addresses, as /proc/modules lists them), and when that was
 * last looked at. */
static void *kd_kernel_symcache;
static uint64_t kd_kernel_modules;
static uint64_t kd_kernel_modules_ns;

/* The program's eBPF functions (kd_symbols_set_bpf()). */
static struct kd_symbols_bpf *kd_bpf_funcs;
static size_t kd_n_bpf_funcs;

/* How often the modules are looked at: at most once a second. */
#define KD_MODULES_CHECK_NS 1000000000ull

void
kd_symbols_init(struct kd_symbols *s, int pid)
{
    memset(s, 0, sizeof *s);
    s->pid = pid;
}

void
kd_symbols_destroy(struct kd_symbols *s)
{
    if (s->user) {
        bcc_free_symcache(s->user, s->pid);
    }
    memset(s, 0, sizeof *s);
}

/* 'hash' (FNV-1a) continued over string 's' and a space. */
static uint64_t
kd_hash_word(uint64_t hash, const char *s)
{
    for (; *s; s++) {
        hash = (hash ^ (unsigned char) *s) * 1099511628211ull;
    }
    return (hash ^ ' ') * 1099511628211ull;
}

/* A hash of the kernel's modules (names and load addresses), 0 without
 * /proc/modules (a kernel without modules). */
static uint64_t
kd_modules_hash(void)
{
    FILE *f = fopen("/proc/modules", "re");
    uint64_t hash = 14695981039346656037ull;    /* FNV-1a basis. */
    char line[512];

    if (!f) {
        return 0;
    }
    while (fgets(line, sizeof line, f)) {
        char name[128], addr[32];

        if (sscanf(line, "%127s %*s %*s %*s %*s %31s", name, addr) != 2) {
            continue;
        }
        hash = kd_hash_word(kd_hash_word(hash, name), addr);
    }
    fclose(f);
    return hash;
}

void
kd_symbols_load_kernel(void)
{
    uint64_t now = kd_now_ns();
    struct bcc_symbol sym;

    /* A module loaded or unloaded since they were read: read them
     * again. */
    if (kd_kernel_symcache
        && now - kd_kernel_modules_ns >= KD_MODULES_CHECK_NS) {
        kd_kernel_modules_ns = now;
        if (kd_modules_hash() != kd_kernel_modules) {
            kd_symbols_unload_kernel();
        }
    }
    if (!kd_kernel_symcache) {
        kd_kernel_modules = kd_modules_hash();
        kd_kernel_modules_ns = now;
        kd_kernel_symcache = bcc_symcache_new(-1, NULL);
        if (kd_kernel_symcache) {
            /* libbcc reads the symbols at the first lookup. */
            memset(&sym, 0, sizeof sym);
            bcc_symcache_resolve_no_demangle(kd_kernel_symcache, 0, &sym);
        }
    }
}

void
kd_symbols_unload_kernel(void)
{
    if (kd_kernel_symcache) {
        bcc_free_symcache(kd_kernel_symcache, -1);
        kd_kernel_symcache = NULL;
    }
}

void
kd_symbols_set_bpf(const struct kd_symbols_bpf *v, size_t n)
{
    for (size_t i = 0; i < kd_n_bpf_funcs; i++) {
        free(kd_bpf_funcs[i].name);
    }
    free(kd_bpf_funcs);
    kd_bpf_funcs = n ? kd_xcalloc(n, sizeof *kd_bpf_funcs) : NULL;
    kd_n_bpf_funcs = n;
    for (size_t i = 0; i < n; i++) {
        kd_bpf_funcs[i] = v[i];
        kd_bpf_funcs[i].name = kd_xstrdup(v[i].name);
    }
}

/* The program's eBPF function that holds 'addr', or NULL. */
static const struct kd_symbols_bpf *
kd_symbols_bpf_find(uint64_t addr)
{
    for (size_t i = 0; i < kd_n_bpf_funcs; i++) {
        const struct kd_symbols_bpf *f = &kd_bpf_funcs[i];

        if (addr >= f->start && addr - f->start < f->size) {
            return f;
        }
    }
    return NULL;
}

bool
kd_symbols_kernel_plausible(const char *name, uint64_t offset)
{
    static const char *const ends[] = {
        "_etext", "_einittext", "_end", "__init_end", "__end_rodata",
        "_edata", "__bss_stop", "__irqentry_text_end",
        "__softirqentry_text_end", "__entry_text_end",
    };

    if (!name || offset >= (1 << 20)) {
        return false;
    }
    for (size_t i = 0; i < KD_ARRAY_SIZE(ends); i++) {
        if (!strcmp(name, ends[i])) {
            return false;
        }
    }
    return true;
}

size_t
kd_frames_tracing(char *const *frames, size_t n)
{
    size_t skip = 0;

    for (size_t i = 0; i < n; i++) {
        if (kd_frame_is_tracing(frames[i])) {
            skip = i + 1;
        } else if (strncmp(frames[i], "[unknown] 0x", 12)) {
            break;
        }
    }
    return skip;
}

bool
kd_frame_is_tracing(const char *frame)
{
    static const char *const prefixes[] = {
        "bpf_prog_", "bpf_trace_run", "__bpf_trace_", "__traceiter_",
    };

    for (size_t i = 0; i < KD_ARRAY_SIZE(prefixes); i++) {
        if (!strncmp(frame, prefixes[i], strlen(prefixes[i]))) {
            return true;
        }
    }
    return false;
}

const char *
kd_format_frame(const char *name, uint64_t offset, const char *module,
                uint64_t addr, char *buf, size_t size)
{
    const char *base = module ? strrchr(module, '/') : NULL;

    base = base ? base + 1 : module;
    if (name && base) {
        snprintf(buf, size, "%s+0x%" PRIx64 " [%s]", name, offset, base);
    } else if (name) {
        snprintf(buf, size, "%s+0x%" PRIx64, name, offset);
    } else if (base) {
        snprintf(buf, size, "[unknown] [%s]", base);
    } else {
        snprintf(buf, size, "[unknown] 0x%" PRIx64, addr);
    }
    return buf;
}

const char *
kd_symbols_format(struct kd_symbols *s, bool kernel, uint64_t addr,
                  char *buf, size_t size)
{
    struct bcc_symbol sym;
    void **cache = kernel ? &kd_kernel_symcache : &s->user;
    const char *name;
    int error;

    if (kernel) {
        const struct kd_symbols_bpf *f = kd_symbols_bpf_find(addr);

        if (f) {
            snprintf(buf, size, "bpf_prog_%s+0x%" PRIx64 " [bpf]", f->name,
                     addr - f->start);
            return buf;
        }
        kd_symbols_load_kernel();
    } else if (!*cache) {
        *cache = bcc_symcache_new(s->pid, NULL);
    }
    if (!*cache) {
        return kd_format_frame(NULL, 0, NULL, addr, buf, size);
    }

    memset(&sym, 0, sizeof sym);
    if (kernel) {
        error = bcc_symcache_resolve_no_demangle(*cache, addr, &sym);
        name = sym.name;
        if (!error && !kd_symbols_kernel_plausible(name, sym.offset)) {
            return kd_format_frame(NULL, 0, NULL, addr, buf, size);
        }
    } else {
        error = bcc_symcache_resolve(*cache, addr, &sym);
        name = sym.demangle_name ? sym.demangle_name : sym.name;
    }
    if (error) {
        /* Unresolved: libbcc may still know the module. */
        kd_format_frame(NULL, 0, sym.module && sym.offset ? sym.module : NULL,
                        addr, buf, size);
    } else {
        kd_format_frame(name, sym.offset, sym.module, addr, buf, size);
    }
    if (!kernel) {
        bcc_symbol_free_demangle_name(&sym);
    }
    return buf;
}
