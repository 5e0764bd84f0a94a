/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* The tests' tiny framework, shared by every test program: the CHECK_*()
 * macros record a failure with file:line and the expected and actual
 * values, print it on one line, and let the test go on.  A test (one
 * function of a program's table) fails when any of its checks fails.
 * check_main() runs the table, or the tests whose names contain one of the
 * words given with -k, and ends with the line "N passed, N failed", where
 * N counts test functions; it returns 1 when any test failed, 2 on a usage
 * error or when -k selects nothing. */

#ifndef KD_TESTS_CHECK_H
#define KD_TESTS_CHECK_H 1

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *current_test;
static int current_failures;    /* Failed checks in the current test. */

static inline void check_fail(const char *file, int line, const char *format, ...)
    KD_PRINTF_FORMAT(3, 4);

static inline void
check_fail(const char *file, int line, const char *format, ...)
{
    va_list args;

    printf("%s:%d: %s: ", file, line, current_test);
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    current_failures++;
}

/* Appends 's' to 'ds' in C notation, so that it fits on one line. */
static inline void
put_escaped(struct kd_ds *ds, const char *s)
{
    if (!s) {
        kd_ds_put_cstr(ds, "NULL");
        return;
    }
    kd_ds_put_char(ds, '"');
    for (; *s; s++) {
        unsigned char c = *s;

        if (c == '\n') {
            kd_ds_put_cstr(ds, "\\n");
        } else if (c == '\t') {
            kd_ds_put_cstr(ds, "\\t");
        } else if (c == '"' || c == '\\') {
            kd_ds_put_char(ds, '\\');
            kd_ds_put_char(ds, c);
        } else if (c < 0x20 || c >= 0x7f) {
            kd_ds_put_format(ds, "\\x%02x", c);
        } else {
            kd_ds_put_char(ds, c);
        }
    }
    kd_ds_put_char(ds, '"');
}

static inline bool
check_true(bool ok, const char *expr, const char *file, int line)
{
    if (!ok) {
        check_fail(file, line, "CHECK(%s) failed", expr);
    }
    return ok;
}

static inline bool
check_int(long long actual, long long expected, const char *expr,
          const char *file, int line)
{
    if (actual != expected) {
        check_fail(file, line, "%s: expected %lld, got %lld", expr,
                   expected, actual);
        return false;
    }
    return true;
}

static inline bool
check_uint(unsigned long long actual, unsigned long long expected,
           const char *expr, const char *file, int line)
{
    if (actual != expected) {
        check_fail(file, line, "%s: expected %llu (%#llx), got %llu "
                   "(%#llx)", expr, expected, expected, actual, actual);
        return false;
    }
    return true;
}

static inline bool
check_double(double actual, double expected, const char *expr,
             const char *file, int line)
{
    if (!(actual == expected)) {
        check_fail(file, line, "%s: expected %.17g, got %.17g", expr,
                   expected, actual);
        return false;
    }
    return true;
}

static inline bool
check_str(const char *actual, const char *expected, const char *expr,
          const char *file, int line)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;

    if (actual && expected && !strcmp(actual, expected)) {
        return true;
    }
    if (actual && expected && strchr(expected, '\n')) {
        /* Multi-line: show the first line that differs. */
        const char *a = actual, *e = expected;
        int n = 1;

        for (;;) {
            size_t al = strcspn(a, "\n"), el = strcspn(e, "\n");

            if (al != el || memcmp(a, e, al) || a[al] != e[el]) {
                char *as = kd_xasprintf("%.*s%s", (int) al, a,
                                        a[al] ? "\n" : "");
                char *es = kd_xasprintf("%.*s%s", (int) el, e,
                                        e[el] ? "\n" : "");

                kd_ds_put_format(&ds, "%s: line %d differs: expected ",
                                 expr, n);
                put_escaped(&ds, es);
                kd_ds_put_cstr(&ds, ", got ");
                put_escaped(&ds, as);
                free(as);
                free(es);
                break;
            }
            a += al + 1;
            e += el + 1;
            n++;
        }
    } else {
        kd_ds_put_format(&ds, "%s: expected ", expr);
        put_escaped(&ds, expected);
        kd_ds_put_cstr(&ds, ", got ");
        put_escaped(&ds, actual);
    }
    check_fail(file, line, "%s", kd_ds_cstr(&ds));
    kd_ds_destroy(&ds);
    return false;
}

static inline bool
check_contains(const char *haystack, const char *needle, bool want,
               const char *expr, const char *file, int line)
{
    struct kd_ds ds = KD_DS_EMPTY_INITIALIZER;
    bool found = haystack && strstr(haystack, needle);

    if (found == want) {
        return true;
    }
    kd_ds_put_format(&ds, "%s: %s ", expr,
                     want ? "does not contain" : "contains");
    put_escaped(&ds, needle);
    check_fail(file, line, "%s", kd_ds_cstr(&ds));
    kd_ds_destroy(&ds);
    return false;
}

#define CHECK(COND) check_true((COND), #COND, __FILE__, __LINE__)
#define CHECK_INT(ACTUAL, EXPECTED) \
    check_int((ACTUAL), (EXPECTED), #ACTUAL, __FILE__, __LINE__)
#define CHECK_UINT(ACTUAL, EXPECTED) \
    check_uint((ACTUAL), (EXPECTED), #ACTUAL, __FILE__, __LINE__)
#define CHECK_DOUBLE(ACTUAL, EXPECTED) \
    check_double((ACTUAL), (EXPECTED), #ACTUAL, __FILE__, __LINE__)
#define CHECK_STR(ACTUAL, EXPECTED) \
    check_str((ACTUAL), (EXPECTED), #ACTUAL, __FILE__, __LINE__)
#define CHECK_CONTAINS(HAYSTACK, NEEDLE) \
    check_contains((HAYSTACK), (NEEDLE), true, #HAYSTACK, __FILE__, \
                   __LINE__)
#define CHECK_NOT_CONTAINS(HAYSTACK, NEEDLE) \
    check_contains((HAYSTACK), (NEEDLE), false, #HAYSTACK, __FILE__, \
                   __LINE__)

struct test {
    const char *name;
    void (*function)(void);
};

#define TEST(NAME) { #NAME, NAME }

static inline bool
check_selected(const char *name, int argc, char *argv[])
{
    bool any = false;

    for (int i = 1; i + 1 < argc; i += 2) {
        any = true;
        if (strstr(name, argv[i + 1])) {
            return true;
        }
    }
    return !any;
}

static inline int
check_main(const struct test *tests, size_t n, int argc, char *argv[])
{
    int passed = 0, failed = 0;

    for (int i = 1; i < argc; i += 2) {
        if (strcmp(argv[i], "-k") || i + 1 >= argc) {
            fprintf(stderr, "usage: %s [-k WORD]...\n", argv[0]);
            return 2;
        }
    }
    /* Failures and the summary go to stdout, in order. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (size_t i = 0; i < n; i++) {
        if (!check_selected(tests[i].name, argc, argv)) {
            continue;
        }
        current_test = tests[i].name;
        current_failures = 0;
        tests[i].function();
        if (current_failures) {
            failed++;
        } else {
            passed++;
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    if (!passed && !failed) {
        fprintf(stderr, "%s: no test selected\n", argv[0]);
        return 2;
    }
    return failed ? 1 : 0;
}

#endif /* check.h */
