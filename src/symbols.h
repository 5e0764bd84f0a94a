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

/* The eBPF functions of the program, where the kernel put them: a frame
 * in one is named after it, "bpf_prog_NAME+0xOFF [bpf]", as the kernel's
 * own symbols name eBPF programs, not after the kernel symbol before its
 * address.  Replaces those given before ('n' 0: none). */
struct kd_symbols_bpf {
    uint64_t start;
    uint64_t size;
    char *name;
};
void kd_symbols_set_bpf(const struct kd_symbols_bpf *v, size_t n);

/* Whether a kernel symbol found for an address, 'name' + 'offset', is
 * that address's: no kernel function is a MiB long, and the marks at the
 * ends of the kernel's text (_etext, _einittext) are no functions.  An
 * address past the kernel's text (eBPF code, trampolines) otherwise takes
 * the name of the last symbol before it. */
bool kd_symbols_kernel_plausible(const char *name, uint64_t offset);

/* Whether formatted kernel 'frame' belongs to the tracing machinery that
 * ran the eBPF program (bpf_prog_*, bpf_trace_run*, __bpf_trace_*,
 * __traceiter_*): the
 * top of every kernel stack taken from a raw tracepoint, which says
 * nothing about the traced thread. */
bool kd_frame_is_tracing(const char *frame);

/* How many of the first of the 'n' formatted kernel 'frames' belong to
 * the tracing machinery (kd_frame_is_tracing()), with the unknown
 * addresses among them (the code of another tool's eBPF program): the
 * frames to leave out of a stack taken from a tracepoint. */
size_t kd_frames_tracing(char *const *frames, size_t n);

/* The formatting alone, for the unit tests: 'name' and 'module' may be
 * NULL. */
const char *kd_format_frame(const char *name, uint64_t offset,
                            const char *module, uint64_t addr, char *buf,
                            size_t size);

#endif /* symbols.h */
