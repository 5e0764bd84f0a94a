/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Shared by the libFuzzer targets: an assertion that always runs (NDEBUG
 * or not) and says which invariant broke and on what input, then aborts so
 * that libFuzzer saves the input as a crash. */

#ifndef KD_FUZZ_COMMON_H
#define KD_FUZZ_COMMON_H 1

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Prints 'len' bytes of 's' in C notation on stderr. */
static inline void
fuzz_print_escaped(const char *what, const char *s, size_t len)
{
    fprintf(stderr, "  %s (%zu bytes): \"", what, len);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = s[i];

        if (c == '\\' || c == '"') {
            fprintf(stderr, "\\%c", c);
        } else if (c >= 0x20 && c < 0x7f) {
            fputc(c, stderr);
        } else {
            fprintf(stderr, "\\x%02x", c);
        }
    }
    fputs("\"\n", stderr);
}

#define FUZZ_CHECK(COND, ...)                                           \
    do {                                                                \
        if (!(COND)) {                                                  \
            fprintf(stderr, "%s:%d: invariant broken: %s\n  ",          \
                    __FILE__, __LINE__, #COND);                         \
            fprintf(stderr, __VA_ARGS__);                               \
            fputc('\n', stderr);                                        \
            abort();                                                    \
        }                                                               \
    } while (0)

/* A NUL-terminated copy of the fuzzer's bytes, cut at the first NUL (the
 * functions under test take C strings). */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, '\0', size);
    size_t len = nul ? (size_t) (nul - data) : size;
    char *s = malloc(len + 1);

    if (!s) {
        abort();
    }
    memcpy(s, data, len);
    s[len] = '\0';
    return s;
}

/* KD_FUZZ_STRICT=1 in the environment turns on the checks of known bugs
 * that are not fixed yet, so that "make fuzz" can still look for new ones
 * (run-fuzz.sh --repro sets it). */
static inline int
fuzz_strict(void)
{
    static int strict = -1;

    if (strict < 0) {
        const char *s = getenv("KD_FUZZ_STRICT");

        strict = s && *s && strcmp(s, "0");
    }
    return strict;
}

#endif /* fuzz_common.h */
