/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_TRACEDIR_H
#define KD_TRACEDIR_H 1

#include <stddef.h>
#include <stdint.h>

/* --trace-dir: the directory of the traces, bounded on disk.  Its traces
 * are the files named "kernel_delay-*.json" (those of earlier runs too);
 * before one is written, the oldest (by modification time, then name) are
 * removed until it fits under both caps.  A trace is written whole or not
 * at all (a temporary file renamed), and a failure (a full disk) ends
 * nothing but that trace.  Touches only that directory. */
struct kd_tracedir {
    char *dir;
    uint64_t max_bytes;
    unsigned int max_files;

    /* Counts since the start. */
    unsigned int written;       /* New traces. */
    unsigned int replaced;      /* Traces of an interval written again
                                 * (reported in progress, then later). */
    unsigned int removed;       /* The oldest, removed for the caps. */
    unsigned int failed;        /* Not written (the errno: last_error). */
    int last_error;
};

void kd_tracedir_init(struct kd_tracedir *, const char *dir,
                      uint64_t max_bytes, unsigned int max_files);

/* Whether the directory is one we can write in: 0 or a positive errno. */
int kd_tracedir_check(const struct kd_tracedir *);

/* Writes the 'len' bytes of 'data' as trace 'name' (replacing one of that
 * name) after making room for it.  Returns 0 and, if 'path' is not NULL,
 * its path in a new '*path'; or a positive errno (EFBIG: larger than the
 * size cap alone), counted, and nothing written. */
int kd_tracedir_write(struct kd_tracedir *, const char *name,
                      const char *data, size_t len, char **path);

void kd_tracedir_destroy(struct kd_tracedir *);

#endif /* tracedir.h */
