/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* libFuzzer target: kd_trigger_parse() and kd_trigger_quote().
 *
 * The input is the trigger text (cut at its first NUL byte).  Besides the
 * sanitizers' own checks, it asserts:
 *
 *  - kd_trigger_parse() accepts exactly what an independent model of the
 *    documented grammar (trigger.h, README "Triggers") accepts;
 *  - on success: the type is valid and its name or alias is what the text
 *    starts with; exactly the parts of that type are set; each is 1 to
 *    KD_TRIGGER_PART_MAX characters of its kind's charset (so never any of
 *    ;(){}"'$ \n, a control or non-ASCII byte, nor ':'), a library never
 *    holds ".."; and "TYPE:PART:PART" rebuilt from them is the text;
 *  - on failure: no part is left set, and the error is "[QUOTED]; why" in
 *    printable ASCII only (it goes to a terminal);
 *  - kd_trigger_quote(), for many buffer sizes (each buffer allocated to
 *    its exact size, so ASan sees any overflow): the result is the buffer,
 *    NUL-terminated within 'size', printable ASCII, and either the whole
 *    escaped text or, only when that does not fit (trigger.h: "cut with
 *    ... when too long"), a prefix of it cut at an escape boundary
 *    followed by "...". */

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"
#include "trigger.h"


/* The model: the grammar as documented, written independently of
 * trigger.c. */
enum model_kind { M_IDENT, M_TRACEFS, M_SYMBOL, M_PATH };

static bool
model_char_ok(unsigned char c, size_t i, enum model_kind kind)
{
    bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                 || c == '_';
    bool digit = c >= '0' && c <= '9';

    switch (kind) {
    case M_IDENT:
        return alpha || (i > 0 && digit);
    case M_TRACEFS:
        return alpha || digit;
    case M_SYMBOL:
        return alpha || (i > 0 && (digit || c == '.'));
    case M_PATH:
        return alpha || digit || c == '.' || c == '/' || c == '+'
               || c == '-';
    }
    return false;
}

static bool
model_part_ok(const char *s, size_t len, enum model_kind kind)
{
    if (len == 0 || len > KD_TRIGGER_PART_MAX) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!model_char_ok(s[i], i, kind)) {
            return false;
        }
    }
    if (kind == M_PATH) {
        for (size_t i = 0; i + 1 < len; i++) {
            if (s[i] == '.' && s[i + 1] == '.') {
                return false;
            }
        }
    }
    return true;
}

struct model_type {
    enum kd_trigger_type type;
    const char *names[3];
};

static const struct model_type model_types[] = {
    { KD_TRIGGER_USDT, { "usdt", "u", NULL } },
    { KD_TRIGGER_TRACE, { "trace", "t", NULL } },
    { KD_TRIGGER_KPROBE, { "kprobe", "k", NULL } },
    { KD_TRIGGER_KRETPROBE, { "kretprobe", "kr", NULL } },
    { KD_TRIGGER_UPROBE, { "uprobe", "up", NULL } },
    { KD_TRIGGER_URETPROBE, { "uretprobe", "ur", "upr" } },
};

/* Returns true if 'text' is a valid trigger, with its type in '*type'. */
static bool
model_accepts(const char *text, enum kd_trigger_type *type)
{
    const char *part[8];
    size_t len[8];
    size_t n = 0;
    const char *p = text;
    const struct model_type *mt = NULL;

    for (;;) {
        const char *colon = strchr(p, ':');

        if (n == 8) {
            return false;
        }
        part[n] = p;
        len[n] = colon ? (size_t) (colon - p) : strlen(p);
        n++;
        if (!colon) {
            break;
        }
        p = colon + 1;
    }
    for (size_t i = 0; i < sizeof model_types / sizeof *model_types; i++) {
        for (size_t j = 0; j < 3 && model_types[i].names[j]; j++) {
            const char *name = model_types[i].names[j];

            if (strlen(name) == len[0] && !memcmp(name, part[0], len[0])) {
                mt = &model_types[i];
            }
        }
    }
    if (!mt || n < 2) {
        return false;
    }
    *type = mt->type;
    switch (mt->type) {
    case KD_TRIGGER_USDT:
        return n == 3 && model_part_ok(part[1], len[1], M_IDENT)
               && model_part_ok(part[2], len[2], M_IDENT);
    case KD_TRIGGER_TRACE:
        return n == 3 && model_part_ok(part[1], len[1], M_TRACEFS)
               && model_part_ok(part[2], len[2], M_TRACEFS);
    case KD_TRIGGER_KPROBE:
    case KD_TRIGGER_KRETPROBE:
        return n == 2 && model_part_ok(part[1], len[1], M_SYMBOL);
    case KD_TRIGGER_UPROBE:
    case KD_TRIGGER_URETPROBE:
        return (n == 2 && model_part_ok(part[1], len[1], M_SYMBOL))
               || (n == 3 && model_part_ok(part[1], len[1], M_PATH)
                   && model_part_ok(part[2], len[2], M_SYMBOL));
    case KD_N_TRIGGER_TYPES:
    default:
        return false;
    }
}

static bool
is_printable_ascii(const char *s)
{
    for (; *s; s++) {
        if ((unsigned char) *s < 0x20 || (unsigned char) *s >= 0x7f) {
            return false;
        }
    }
    return true;
}

/* Checks one part of a parsed trigger. */
static void
check_part(const char *text, const char *what, const char *part,
           enum model_kind kind)
{
    size_t len;

    FUZZ_CHECK(part != NULL, "%s missing in [%s]", what, text);
    len = strlen(part);
    FUZZ_CHECK(len > 0, "%s empty in [%s]", what, text);
    FUZZ_CHECK(len <= KD_TRIGGER_PART_MAX, "%s of %zu chars in [%s]",
               what, len, text);
    FUZZ_CHECK(!strpbrk(part, ";(){}\"'$\n \t\r:\\`*?[]<>|&!#%="),
               "%s '%s' holds a forbidden character", what, part);
    FUZZ_CHECK(is_printable_ascii(part), "%s '%s' holds a byte outside "
               "printable ASCII", what, part);
    FUZZ_CHECK(model_part_ok(part, len, kind), "%s '%s' outside its "
               "charset", what, part);
    if (kind == M_PATH) {
        FUZZ_CHECK(!strstr(part, ".."), "library '%s' holds '..'", part);
    }
}

static void
check_parse(const char *text)
{
    enum kd_trigger_type model_type = KD_N_TRIGGER_TYPES;
    bool model_ok = model_accepts(text, &model_type);
    struct kd_trigger t;
    char *error = (char *) 1;
    int err;

    err = kd_trigger_parse(text, &t, &error);
    FUZZ_CHECK(err == 0 || err == EINVAL, "returned %d", err);
    FUZZ_CHECK((err == 0) == model_ok, "parse says %s, the grammar says %s "
               "for [%s] (error: %s)", err ? "invalid" : "valid",
               model_ok ? "valid" : "invalid", text,
               err ? error : "none");

    if (err) {
        static const struct kd_trigger zero;
        char quoted[128];
        size_t qlen;

        FUZZ_CHECK(!memcmp(&t, &zero, sizeof t),
                   "trigger not cleared after an error");
        FUZZ_CHECK(error != NULL && error != (char *) 1, "no error message");
        FUZZ_CHECK(is_printable_ascii(error), "error message holds a "
                   "byte outside printable ASCII: %zu bytes",
                   strlen(error));
        kd_trigger_quote(text, quoted, sizeof quoted);
        qlen = strlen(quoted);
        FUZZ_CHECK(error[0] == '[' && !strncmp(error + 1, quoted, qlen)
                   && !strncmp(error + 1 + qlen, "]; ", 3)
                   && error[qlen + 4], "error '%s' is not \"[%s]; why\"",
                   error, quoted);
        free(error);
        return;
    }

    FUZZ_CHECK(error == NULL, "error message set on success");
    FUZZ_CHECK(t.type == model_type, "type %d, expected %d", t.type,
               model_type);
    FUZZ_CHECK(t.text && !strcmp(t.text, text), "text not kept as given");

    /* Exactly the parts of the type, each within its charset. */
    const char *rebuilt[3] = { NULL, NULL, NULL };
    switch (t.type) {
    case KD_TRIGGER_USDT:
        check_part(text, "provider", t.provider, M_IDENT);
        check_part(text, "probe", t.probe, M_IDENT);
        FUZZ_CHECK(!t.system && !t.event && !t.function && !t.library,
                   "extra part set for USDT");
        rebuilt[0] = t.provider;
        rebuilt[1] = t.probe;
        break;
    case KD_TRIGGER_TRACE:
        check_part(text, "system", t.system, M_TRACEFS);
        check_part(text, "event", t.event, M_TRACEFS);
        FUZZ_CHECK(!t.provider && !t.probe && !t.function && !t.library,
                   "extra part set for TRACE");
        rebuilt[0] = t.system;
        rebuilt[1] = t.event;
        break;
    case KD_TRIGGER_KPROBE:
    case KD_TRIGGER_KRETPROBE:
        check_part(text, "function", t.function, M_SYMBOL);
        FUZZ_CHECK(!t.provider && !t.probe && !t.system && !t.event
                   && !t.library, "extra part set for K(RET)PROBE");
        rebuilt[0] = t.function;
        break;
    case KD_TRIGGER_UPROBE:
    case KD_TRIGGER_URETPROBE:
        check_part(text, "function", t.function, M_SYMBOL);
        if (t.library) {
            check_part(text, "library", t.library, M_PATH);
        }
        FUZZ_CHECK(!t.provider && !t.probe && !t.system && !t.event,
                   "extra part set for U(RET)PROBE");
        rebuilt[0] = t.library ? t.library : t.function;
        rebuilt[1] = t.library ? t.function : NULL;
        break;
    case KD_N_TRIGGER_TYPES:
    default:
        FUZZ_CHECK(0, "type %d out of range", t.type);
    }

    /* "TYPE:PART[:PART]" is the text, TYPE being a name of the type. */
    const char *colon = strchr(text, ':');
    size_t tlen = colon - text;
    bool name_ok = false;
    for (size_t i = 0; i < sizeof model_types / sizeof *model_types; i++) {
        if (model_types[i].type != t.type) {
            continue;
        }
        for (size_t j = 0; j < 3 && model_types[i].names[j]; j++) {
            name_ok |= strlen(model_types[i].names[j]) == tlen
                       && !memcmp(model_types[i].names[j], text, tlen);
        }
    }
    FUZZ_CHECK(name_ok, "type %s does not match [%s]",
               kd_trigger_type_name(t.type), text);
    for (size_t i = 0; i < sizeof model_types / sizeof *model_types; i++) {
        FUZZ_CHECK(model_types[i].type != t.type
                   || !strcmp(kd_trigger_type_name(t.type),
                              model_types[i].names[0]),
                   "type %d named %s", t.type, kd_trigger_type_name(t.type));
    }
    FUZZ_CHECK(!strcmp(kd_trigger_type_name(KD_N_TRIGGER_TYPES), "?"),
               "out-of-range type has a name");
    const char *rest = colon + 1;
    for (int i = 0; rebuilt[i]; i++) {
        size_t len = strlen(rebuilt[i]);

        FUZZ_CHECK(!strncmp(rest, rebuilt[i], len)
                   && (rest[len] == (rebuilt[i + 1] ? ':' : '\0')),
                   "parts do not rebuild [%s]", text);
        rest += len + 1;
    }
    kd_trigger_destroy(&t);
}

/* The escaped form as trigger.h documents it: printable ASCII but '\'
 * kept, every other byte as \xHH. */
static char *
model_escape(const char *text, size_t **units, size_t *n_units)
{
    size_t len = strlen(text);
    char *out = malloc(4 * len + 1);
    size_t o = 0;

    *units = malloc((len + 1) * sizeof **units);
    *n_units = 0;
    if (!out || !*units) {
        abort();
    }
    for (const unsigned char *p = (const unsigned char *) text; *p; p++) {
        (*units)[(*n_units)++] = o;   /* Where each escape unit starts. */
        if (*p >= 0x20 && *p < 0x7f && *p != '\\') {
            out[o++] = *p;
        } else {
            o += sprintf(out + o, "\\x%02x", *p);
        }
    }
    (*units)[(*n_units)++] = o;
    out[o] = '\0';
    return out;
}

static void
check_quote(const char *text, size_t size, const char *esc,
            const size_t *units, size_t n_units)
{
    char *buf = malloc(size);
    const char *ret;
    size_t len, esc_len = strlen(esc);

    if (!buf) {
        abort();
    }
    ret = kd_trigger_quote(text, buf, size);
    FUZZ_CHECK(ret == buf, "did not return its buffer");
    len = strnlen(buf, size);
    FUZZ_CHECK(len < size, "not NUL-terminated within %zu bytes", size);
    FUZZ_CHECK(is_printable_ascii(buf), "quoted text holds a byte outside "
               "printable ASCII");
    if (strcmp(buf, esc)) {
        /* Cut: a whole number of escape units, then "..." (as much of it
         * as fits when the buffer is tiny). */
        size_t dots = size >= 4 ? 3 : size - 1;
        size_t cut = len - dots;
        bool boundary = false;

        FUZZ_CHECK(len >= dots && !strncmp(buf + cut, "...", dots),
                   "cut text '%s' (size %zu) does not end with ...", buf,
                   size);
        FUZZ_CHECK(cut < esc_len && !strncmp(buf, esc, cut),
                   "cut text '%s' (size %zu) is not a prefix of '%s'", buf,
                   size, esc);
        for (size_t i = 0; i < n_units; i++) {
            boundary |= units[i] == cut;
        }
        FUZZ_CHECK(boundary, "cut text '%s' splits an escape", buf);
        FUZZ_CHECK(esc_len >= size, "'%s' (%zu bytes escaped) was cut to "
                   "'%s' although it fits in %zu bytes", esc, esc_len, buf,
                   size);
    }
    free(buf);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t sizes[] = { 1, 2, 3, 4, 5, 6, 7, 8, 16, 64, 128 };
    char *text = fuzz_cstr(data, size);
    size_t *units, n_units;
    char *esc;

    check_parse(text);

    esc = model_escape(text, &units, &n_units);
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        check_quote(text, sizes[i], esc, units, n_units);
    }
    /* Around the size the whole escaped text needs. */
    for (size_t extra = 0; extra < 6; extra++) {
        if (strlen(esc) + extra > 0) {
            check_quote(text, strlen(esc) + extra, esc, units, n_units);
        }
    }
    free(esc);
    free(units);
    free(text);
    return 0;
}
