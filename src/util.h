/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

#ifndef KD_UTIL_H
#define KD_UTIL_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define KD_ARRAY_SIZE(A) (sizeof (A) / sizeof (A)[0])

#if defined(__GNUC__)
#define KD_PRINTF_FORMAT(FMT, ARG1) \
    __attribute__((__format__(__printf__, FMT, ARG1)))
#else
#define KD_PRINTF_FORMAT(FMT, ARG1)
#endif

/* Allocation that aborts with a message instead of returning NULL. */
void *kd_xmalloc(size_t size);
void *kd_xcalloc(size_t n, size_t size);
void *kd_xrealloc(void *p, size_t size);
void *kd_xreallocarray(void *p, size_t n, size_t size);
char *kd_xstrdup(const char *s);
char *kd_xasprintf(const char *format, ...) KD_PRINTF_FORMAT(1, 2);
char *kd_xvasprintf(const char *format, va_list args)
    KD_PRINTF_FORMAT(1, 0);

/* A growable, always NUL-terminated string, after OVS's "struct ds". */
struct kd_ds {
    char *string;
    size_t length;
    size_t allocated;
};

#define KD_DS_EMPTY_INITIALIZER { NULL, 0, 0 }

void kd_ds_init(struct kd_ds *);
void kd_ds_put_buffer(struct kd_ds *, const char *, size_t);
void kd_ds_put_cstr(struct kd_ds *, const char *);
void kd_ds_put_char(struct kd_ds *, char);
void kd_ds_put_char_multiple(struct kd_ds *, char, size_t n);
void kd_ds_put_format(struct kd_ds *, const char *, ...)
    KD_PRINTF_FORMAT(2, 3);
const char *kd_ds_cstr(struct kd_ds *);
char *kd_ds_steal_cstr(struct kd_ds *);
void kd_ds_destroy(struct kd_ds *);

/* Writes 'ds' to 'stream' and empties it, once it holds 'threshold' bytes
 * or more (0: always). */
void kd_ds_flush(struct kd_ds *, FILE *stream, size_t threshold);

/* Reads the first line of a small file (e.g. under /proc), at most 4,095
 * bytes, into a new string without its newline.  Returns 0 or a positive
 * errno. */
int kd_read_file_line(const char *path, char **line);

/* Whether 'path' exists (stat() succeeds). */
bool kd_path_exists(const char *path);

#endif /* util.h */
