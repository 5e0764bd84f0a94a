/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* An LD_PRELOAD library for the end-to-end tests: it injects an error in
 * the middle of a run.  libbpf makes its bpf() calls through libc's
 * syscall(); this one counts the calls that read a map (batch lookups and
 * key walks) and, once KD_INJECT_EIO_AFTER of them went through, makes
 * every further one fail with EIO.  At exit, it writes the number it
 * counted to KD_INJECT_COUNT_FILE, if set, so that a test can learn from a
 * first run how many reads one sample makes. */

#include <dlfcn.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long (*real_syscall)(long, ...);
static long n_reads;
static long limit = -1;

__attribute__((constructor)) static void
inject_init(void)
{
    const char *after = getenv("KD_INJECT_EIO_AFTER");

    real_syscall = (long (*)(long, ...)) dlsym(RTLD_NEXT, "syscall");
    if (after && *after) {
        limit = strtol(after, NULL, 10);
    }
}

__attribute__((destructor)) static void
inject_fini(void)
{
    const char *name = getenv("KD_INJECT_COUNT_FILE");
    FILE *file = name ? fopen(name, "w") : NULL;

    if (file) {
        fprintf(file, "%ld\n", n_reads);
        fclose(file);
    }
}

long
syscall(long nr, ...)
{
    long a[6];
    va_list args;

    va_start(args, nr);
    for (int i = 0; i < 6; i++) {
        a[i] = va_arg(args, long);
    }
    va_end(args);

    if (nr == SYS_bpf && (a[0] == BPF_MAP_LOOKUP_BATCH
                          || a[0] == BPF_MAP_LOOKUP_AND_DELETE_BATCH
                          || a[0] == BPF_MAP_GET_NEXT_KEY)) {
        n_reads++;
        if (limit >= 0 && n_reads > limit) {
            errno = EIO;
            return -1;
        }
    }
    return real_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}
