/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/*
 * Start-up time: libbcc's kernel symbol check.
 *
 * Every time libbcc compiles a program (BFrontendAction::DoMiscWorkAround()
 * in libbcc 0.26 and still upstream), it decides between
 * bpf_probe_read_kernel() and the older bpf_probe_read() by resolving the
 * name "bpf_probe_read_kernel" in a kernel symbol cache it creates for that
 * purpose alone, then frees.  Creating it reads and hashes all of
 * /proc/kallsyms, about 120,000 symbols: a quarter of a second of our
 * start-up on the test machine, for one yes/no answer.
 *
 * libbcc makes that call through its PLT, so a definition of
 * bcc_symcache_resolve_name() in the executable takes precedence.  Ours
 * answers that one question, during our own compile only, by asking the
 * kernel whether it has the helper (libbpf_probe_bpf_helper(), which loads
 * a two-instruction program), which is what libbcc wants to know; every
 * other call, and this one when the probe cannot tell, goes to libbcc's
 * own function.  Should a libbcc build ever bind the call directly, the
 * shim is simply not called: start-up is slower, nothing else changes.
 */

#include "bcc_shim.h"

#include <bpf/libbpf.h>
#include <dlfcn.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>

static bool kd_shim_active;
static bool kd_shim_answered;

void
kd_bcc_shim_begin(void)
{
    kd_shim_active = true;
    kd_shim_answered = false;
}

void
kd_bcc_shim_end(void)
{
    kd_shim_active = false;
}

bool
kd_bcc_shim_answered(void)
{
    return kd_shim_answered;
}

/* libbcc's bcc_syms.h declares this; its header cannot be included next
 * to libbpf's, so the prototype is repeated here. */
int bcc_symcache_resolve_name(void *resolver, const char *module,
                              const char *name, uint64_t *addr);

int
bcc_symcache_resolve_name(void *resolver, const char *module,
                          const char *name, uint64_t *addr)
{
    static int (*real)(void *, const char *, const char *, uint64_t *);

    if (kd_shim_active && !module && name
        && !strcmp(name, "bpf_probe_read_kernel")) {
        int has = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
                                          BPF_FUNC_probe_read_kernel, NULL);

        /* libbcc only looks at the result, not at the address. */
        if (has == 1) {
            kd_shim_answered = true;
            *addr = 0;
            return 0;
        } else if (has == 0) {
            kd_shim_answered = true;
            return -1;
        }
    }
    if (!real) {
        real = (int (*)(void *, const char *, const char *, uint64_t *))
               dlsym(RTLD_NEXT, "bcc_symcache_resolve_name");
        if (!real) {
            return -1;
        }
    }
    return real(resolver, module, name, addr);
}
