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
 * error or when -k selects nothing.
 *
 * A program made of several files of tests (the unit tests, tests/unit/)
 * has each file register its table with CHECK_SUITE(), as a suite named
 * after the module it tests, and its runner calls check_main_suites()
 * instead, which does the same over every suite; there, -k also selects
 * every test of a suite whose name contains the word. */

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

/* Runs 'test', and returns how many of its checks failed.  The state above
 * is the including file's own: a file's tests must be run by that file's
 * copy of this function, which is what a suite records. */
static inline int
check_run(const struct test *test)
{
    current_test = test->name;
    current_failures = 0;
    test->function();
    return current_failures;
}

/* The tests of one file of a program made of several. */
struct check_suite {
    const char *name;               /* The module tested, or NULL. */
    const struct test *tests;
    size_t n_tests;
    int (*run)(const struct test *);    /* check_run() of that file. */
    struct check_suite *next;       /* Kept by check_register(). */
};

/* Adds 'suite' to the suites of the program, in the order of their names.
 * Defined by the program's runner (tests/unit/main.c). */
void check_register(struct check_suite *suite);

/* Registers the table 'TESTS' of this file as the suite 'NAME' before
 * main() runs.  At most once per file. */
#define CHECK_SUITE(NAME, TESTS)                                        \
    static struct check_suite check_this_suite = {                      \
        #NAME, (TESTS), KD_ARRAY_SIZE(TESTS), check_run, NULL           \
    };                                                                  \
    static void check_register_this_suite(void)                         \
        __attribute__((constructor));                                   \
    static void                                                         \
    check_register_this_suite(void)                                     \
    {                                                                   \
        check_register(&check_this_suite);                              \
    }

/* Whether the test 'name' of the suite 'suite' (or NULL) is to run: with
 * no -k, every test; otherwise those whose name, or whose suite's name,
 * contains one of the words. */
static inline bool
check_selected(const char *suite, const char *name, int argc, char *argv[])
{
    bool any = false;

    for (int i = 1; i + 1 < argc; i += 2) {
        any = true;
        if (strstr(name, argv[i + 1])
            || (suite && strstr(suite, argv[i + 1]))) {
            return true;
        }
    }
    return !any;
}

/* Runs the selected tests of the list 'suites', then prints the closing
 * line.  Returns 0 when all passed, 1 when any failed, 2 on a usage error
 * or when -k selects nothing. */
static inline int
check_main_suites(const struct check_suite *suites, int argc, char *argv[])
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
    for (const struct check_suite *s = suites; s; s = s->next) {
        for (size_t i = 0; i < s->n_tests; i++) {
            const struct test *test = &s->tests[i];

            if (!check_selected(s->name, test->name, argc, argv)) {
                continue;
            }
            if (s->run(test)) {
                failed++;
            } else {
                passed++;
            }
        }
    }
    printf("%d passed, %d failed\n", passed, failed);
    if (!passed && !failed) {
        fprintf(stderr, "%s: no test selected\n", argv[0]);
        return 2;
    }
    return failed ? 1 : 0;
}

/* Runs the table 'tests' of a program made of one file. */
static inline int
check_main(const struct test *tests, size_t n, int argc, char *argv[])
{
    const struct check_suite suite = { NULL, tests, n, check_run, NULL };

    return check_main_suites(&suite, argc, argv);
}

#endif /* check.h */
