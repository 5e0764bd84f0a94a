/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_SYMBOLS_H
#define KD_SYMBOLS_H 1

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Stack frames resolved through libbcc's symbol caches: the target's,
 * made on first use, for one sample or one watch (its mappings change);
 * the kernel's, one for the whole run (kd_symbols_load_kernel()). */
struct kd_symbols {
    int pid;
    void *user;
};

void kd_symbols_init(struct kd_symbols *, int pid);
void kd_symbols_destroy(struct kd_symbols *);

/* Reads the kernel's symbols now, once for the run, rather than at the
 * first kernel frame to name: libbcc reads all of /proc/kallsyms then,
 * up to a second on a small host and several under emulation, which would
 * hold up the first report that long.  Later calls read them again only
 * if the kernel's modules changed (looked at once a second at most). */
void kd_symbols_load_kernel(void);

/* Frees the kernel's symbols, at the end of the run. */
void kd_symbols_unload_kernel(void);

/* Formats frame 'addr' (of the kernel if 'kernel', else of the target) as
 * the reference does: "symbol+0xOFF [module]", "[unknown] [module]" when
 * only the module is known, "[unknown] 0xADDR" when nothing is. */
const char *kd_symbols_format(struct kd_symbols *, bool kernel,
                              uint64_t addr, char *buf, size_t size);

/* Whether formatted kernel 'frame' belongs to the tracing machinery that
 * ran the eBPF program (bpf_prog_*, bpf_trace_run*, __bpf_trace_*,
 * __traceiter_*): the
 * top of every kernel stack taken from a raw tracepoint, which says
 * nothing about the traced thread. */
bool kd_frame_is_tracing(const char *frame);

/* The formatting alone, for the unit tests: 'name' and 'module' may be
 * NULL. */
const char *kd_format_frame(const char *name, uint64_t offset,
                            const char *module, uint64_t addr, char *buf,
                            size_t size);

#endif /* symbols.h */
