/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* libFuzzer target: kd_template_expand().
 *
 * The input is the template text (cut at its first NUL byte), expanded
 * with two fixed substitution tables:
 *
 *  - 'plain': the real template's placeholder names (and one without a
 *    value), every value non-empty, free of '@' and holding a character
 *    that cannot be part of a name.  Then no "@NAME@" of the output can
 *    straddle a value, so asserted: on success no @NAME@ whose NAME is in
 *    the table is left in the output;
 *  - 'hostile': values that are empty, are '@' or look like placeholders
 *    themselves (a value must never be scanned again).
 *
 * For both, the result is compared with an independent model of
 * template.h's contract (leftmost "@[A-Z0-9_]+@" is a placeholder, one
 * pass): the status, the exact output, its length (the template's length,
 * minus each placeholder's, plus each value's) and, on error, the message
 * with its line number and placeholder name; the outputs are NULL or not
 * as documented. */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "template.h"
#include "util.h"

static const struct kd_subst plain[] = {
    { "BUFFER_PAGE_COUNT", "1024u" },
    { "INCLUDES", "#include <linux/sched.h>\n" },
    { "MAX_IRQ_ENTRIES", "(1 << 10)" },
    { "MAX_SYSCALL_ENTRIES", "8192 " },
    { "MAX_THREADS", "8192u" },
    { "OFF_IRQACTION_NAME", "80 " },
    { "OFF_PT_REGS_SYSCALL_NR", "120u" },
    { "OFF_TASK_PID", "2440u" },
    { "OFF_TASK_STATE", "24u" },
    { "OFF_TASK_TGID", "2444u" },
    { "SIZE_TASK_STATE", "4u" },
    { "SKIP_POLL_EVENTS", "false" },
    { "STACK_TRACE_SIZE", "4096u" },
    { "SYSCALL_EVENTS_MIN_NS", "0ull" },
    { "SYSCALL_POLL", "7u" },
    { "TGID", "1234u" },
    { "WITH_EVENTS", "1 " },
    { "WITH_STACKS", "0 " },
    { "WITH_START_TRIGGER", "1 /* start */" },
    { "WITH_STOP_TRIGGER", "0 /* stop */" },
    { "WITH_SYSCALL_EVENTS", "0 " },
    { "WITH_UPCALL_STATS", "0 " },
    { "A", "a" },
    { "B_1", "b\nb" },
    { "NOVALUE", NULL },
};

static const struct kd_subst hostile[] = {
    { "A", "" },
    { "B_1", "@A@" },
    { "AT", "@" },
    { "SELF", "@SELF@" },
    { "NL", "\n\n" },
    { "UNSET", "@UNSET_" },
    { "NOVALUE", NULL },
    { "TGID", "1" },
};

#define N(A) (sizeof (A) / sizeof *(A))

static bool
name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Length of NAME if 's' starts with "@NAME@", else 0. */
static size_t
model_placeholder(const char *s)
{
    size_t n = 0;

    if (*s != '@') {
        return 0;
    }
    while (name_char(s[1 + n])) {
        n++;
    }
    return n && s[1 + n] == '@' ? n : 0;
}

static const struct kd_subst *
model_find(const struct kd_subst *t, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(t[i].name) == len && !memcmp(t[i].name, name, len)) {
            return &t[i];
        }
    }
    return NULL;
}

/* Expands 'tpl' with 't' the way template.h describes.  Returns 0 and the
 * text (and its length), or EINVAL and the expected message. */
static int
model_expand(const char *tpl, const struct kd_subst *t, size_t n,
             char **out, size_t *out_len, char **error)
{
    size_t cap = 64, len = 0, expected_len = strlen(tpl);
    unsigned int line = 1;
    char *o = malloc(cap);

    for (const char *p = tpl; *p;) {
        size_t nl = model_placeholder(p);
        const char *piece = p;
        size_t plen = 1;

        if (nl) {
            const struct kd_subst *s = model_find(t, n, p + 1, nl);

            if (!s || !s->value) {
                free(o);
                *error = kd_xasprintf("template line %u: placeholder @%.*s@ "
                                      "has no value", line, (int) nl, p + 1);
                return EINVAL;
            }
            piece = s->value;
            plen = strlen(s->value);
            expected_len = expected_len - (nl + 2) + plen;
            p += nl + 2;
        } else {
            line += *p == '\n';
            p++;
        }
        while (len + plen + 1 > cap) {
            cap *= 2;
            o = realloc(o, cap);
        }
        memcpy(o + len, piece, plen);
        len += plen;
    }
    o[len] = '\0';
    FUZZ_CHECK(len == expected_len, "model: %zu != %zu", len, expected_len);
    *out = o;
    *out_len = len;
    return 0;
}

static void
check_table(const char *tpl, const struct kd_subst *t, size_t n,
            bool no_leftovers)
{
    char *want = NULL, *want_error = NULL;
    size_t want_len = 0;
    int want_err = model_expand(tpl, t, n, &want, &want_len, &want_error);
    char *out = (char *) 1, *error = (char *) 1;
    int err = kd_template_expand(tpl, t, n, &out, &error);

    FUZZ_CHECK(err == want_err, "returned %d, expected %d (%s)", err,
               want_err, want_error ? want_error : "success");
    if (err) {
        FUZZ_CHECK(out == NULL, "output set on error");
        FUZZ_CHECK(error && error != (char *) 1, "no error message");
        FUZZ_CHECK(!strcmp(error, want_error), "error \"%s\", expected "
                   "\"%s\"", error, want_error);
        free(error);
        free(want_error);
        return;
    }
    FUZZ_CHECK(error == NULL, "error set on success");
    FUZZ_CHECK(out && out != (char *) 1, "no output");
    size_t len = strlen(out);
    if (len != want_len || memcmp(out, want, len)) {
        fuzz_print_escaped("template", tpl, strlen(tpl));
        fuzz_print_escaped("output", out, len);
        fuzz_print_escaped("expected", want, want_len);
        FUZZ_CHECK(0, "output differs from the model (%zu bytes, %zu "
                   "expected)", len, want_len);
    }
    if (no_leftovers) {
        for (const char *p = out; (p = strchr(p, '@')); p++) {
            size_t nl = model_placeholder(p);

            FUZZ_CHECK(!nl || !model_find(t, n, p + 1, nl),
                       "placeholder @%.*s@ left at offset %zu", (int) nl,
                       p + 1, (size_t) (p - out));
        }
    }
    free(out);
    free(want);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *tpl = fuzz_cstr(data, size);

    check_table(tpl, plain, N(plain), true);
    check_table(tpl, hostile, N(hostile), false);
    /* No table at all: only placeholder-free text expands. */
    check_table(tpl, NULL, 0, false);
    free(tpl);
    return 0;
}
