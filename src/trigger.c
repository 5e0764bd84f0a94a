/*
 * Copyright (c) 2026 The kernel_delay authors.
 * SPDX-License-Identifier: Apache-2.0
 */

/* Start and stop trigger specs ("TYPE:ARGS"), parsed and validated. */

#include "trigger.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct kd_trigger_type_def {
    const char *name;
    const char *alias;
    const char *alias2;
    const char *args;
};

static const struct kd_trigger_type_def kd_trigger_types[] = {
#define KD_TRIGGER_TYPE(ID, NAME, ALIAS, ALIAS2, ARGS) \
    { NAME, ALIAS, ALIAS2, ARGS },
    KD_TRIGGER_TYPES
#undef KD_TRIGGER_TYPE
};

void
kd_trigger_put_kinds(struct kd_ds *ds)
{
    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_trigger_types); i++) {
        const struct kd_trigger_type_def *def = &kd_trigger_types[i];

        kd_ds_put_format(ds, "  %s:%s (%s%s%s)\n", def->alias, def->args,
                         def->name, def->alias2 ? ", " : "",
                         def->alias2 ? def->alias2 : "");
    }
}

const char *
kd_trigger_type_name(enum kd_trigger_type type)
{
    return type < KD_N_TRIGGER_TYPES ? kd_trigger_types[type].name : "?";
}

/* Writes the escaped form of byte 'c' into 'tmp'; returns its length. */
static int
kd_quote_byte(unsigned char c, char tmp[8])
{
    if (c >= 0x20 && c < 0x7f && c != '\\') {
        return snprintf(tmp, 8, "%c", c);
    }
    return snprintf(tmp, 8, "\\x%02x", c);
}

const char *
kd_trigger_quote(const char *text, char *buf, size_t size)
{
    const unsigned char *p = (const unsigned char *) text;
    size_t needed = 0, out = 0;
    char tmp[8];

    for (; *p; p++) {
        needed += kd_quote_byte(*p, tmp);
    }
    for (p = (const unsigned char *) text; *p; p++) {
        int n = kd_quote_byte(*p, tmp);

        /* Cut, with "...", only when the whole would not fit. */
        if (needed + 1 > size && out + n + 4 > size) {
            snprintf(buf + out, size - out, "...");
            return buf;
        }
        memcpy(buf + out, tmp, n);
        out += n;
    }
    buf[out] = '\0';
    return buf;
}

/* The kinds of text a part may hold. */
enum kd_part_kind {
    KD_PART_IDENT,      /* C identifier: USDT provider and probe. */
    KD_PART_TRACEFS,    /* Tracefs system or event: [A-Za-z0-9_]+. */
    KD_PART_SYMBOL,     /* Function symbol: identifier, '.' allowed after
                         * the first character (foo.isra.0, foo.cold). */
    KD_PART_PATH,       /* Library name or path: [A-Za-z0-9_./+-]+. */
};

static bool
kd_is_alpha_(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
kd_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Checks part 'value' (called 'what') against 'kind'.  Returns NULL or
 * what is wrong with it. */
static const char *
kd_check_part(const char *value, enum kd_part_kind kind)
{
    size_t len = strlen(value);

    if (!len) {
        return "is empty";
    }
    if (len > KD_TRIGGER_PART_MAX) {
        return "is too long";
    }
    for (size_t i = 0; i < len; i++) {
        char c = value[i];
        bool ok;

        switch (kind) {
        case KD_PART_IDENT:
            ok = kd_is_alpha_(c) || (i && kd_is_digit(c));
            break;
        case KD_PART_TRACEFS:
            ok = kd_is_alpha_(c) || kd_is_digit(c);
            break;
        case KD_PART_SYMBOL:
            ok = kd_is_alpha_(c) || (i && (kd_is_digit(c) || c == '.'));
            break;
        case KD_PART_PATH:
            ok = kd_is_alpha_(c) || kd_is_digit(c) || strchr("./+-", c);
            break;
        default:
            ok = false;
        }
        if (!ok) {
            switch (kind) {
            case KD_PART_IDENT:
                return "must be a C identifier";
            case KD_PART_TRACEFS:
                return "may only hold letters, digits and '_'";
            case KD_PART_SYMBOL:
                return "must be a function name (a C identifier, "
                       "optionally with '.' suffixes)";
            case KD_PART_PATH:
            default:
                return "may only hold letters, digits and '_', '.', '/', "
                       "'+', '-'";
            }
        }
    }
    if (kind == KD_PART_PATH && strstr(value, "..")) {
        return "must not contain '..'";
    }
    return NULL;
}

/* Splits 'text' at every ':' into at most 'max' parts.  Returns the number
 * of parts, or max + 1 when there are more. */
static size_t
kd_split(char *text, char **parts, size_t max)
{
    size_t n = 0;

    for (char *p = text;; p++) {
        if (n == max) {
            return max + 1;
        }
        parts[n++] = p;
        p = strchr(p, ':');
        if (!p) {
            return n;
        }
        *p = '\0';
    }
}

static int
kd_trigger_error(const struct kd_trigger *t, char **error,
                 const char *format, ...)
    KD_PRINTF_FORMAT(3, 4);

static int
kd_trigger_error(const struct kd_trigger *t, char **error,
                 const char *format, ...)
{
    char quoted[128];
    va_list args;
    char *why;

    va_start(args, format);
    why = kd_xvasprintf(format, args);
    va_end(args);
    *error = kd_xasprintf("[%s]; %s",
                          kd_trigger_quote(t->text, quoted, sizeof quoted),
                          why);
    free(why);
    return EINVAL;
}

/* Checks one part and keeps a copy of it in '*dst'. */
static int
kd_take_part(struct kd_trigger *t, const char *value, enum kd_part_kind kind,
             const char *what, char **dst, char **error)
{
    const char *why = kd_check_part(value, kind);

    if (why) {
        char quoted[128];

        return kd_trigger_error(t, error, "Invalid %s '%s': %s", what,
                                kd_trigger_quote(value, quoted,
                                                 sizeof quoted), why);
    }
    *dst = kd_xstrdup(value);
    return 0;
}

static int
kd_parse_usdt(struct kd_trigger *t, char **parts, size_t n, char **error)
{
    if (n != 3) {
        return kd_trigger_error(t, error, "Invalid number of arguments for "
                                "USDT (expected u:PROVIDER:PROBE)");
    }
    return (kd_take_part(t, parts[1], KD_PART_IDENT, "USDT provider",
                         &t->provider, error)
            || kd_take_part(t, parts[2], KD_PART_IDENT, "USDT probe",
                            &t->probe, error)) ? EINVAL : 0;
}

static int
kd_parse_trace(struct kd_trigger *t, char **parts, size_t n, char **error)
{
    if (n != 3) {
        return kd_trigger_error(t, error, "Invalid number of arguments for "
                                "TRACE (expected t:SYSTEM:EVENT)");
    }
    return (kd_take_part(t, parts[1], KD_PART_TRACEFS, "tracepoint system",
                         &t->system, error)
            || kd_take_part(t, parts[2], KD_PART_TRACEFS,
                            "tracepoint event", &t->event, error))
           ? EINVAL : 0;
}

static int
kd_parse_kprobe(struct kd_trigger *t, char **parts, size_t n, char **error)
{
    if (n != 2) {
        return kd_trigger_error(t, error, "Invalid number of arguments for "
                                "K(RET)PROBE (expected k:FUNCTION)");
    }
    return kd_take_part(t, parts[1], KD_PART_SYMBOL, "kernel function",
                        &t->function, error);
}

static int
kd_parse_uprobe(struct kd_trigger *t, char **parts, size_t n, char **error)
{
    if (n != 2 && n != 3) {
        return kd_trigger_error(t, error, "Invalid number of arguments for "
                                "U(RET)PROBE (expected up:FUNCTION or "
                                "up:LIBRARY:FUNCTION)");
    }
    if (n == 3 && kd_take_part(t, parts[1], KD_PART_PATH, "library",
                               &t->library, error)) {
        return EINVAL;
    }
    return kd_take_part(t, parts[n - 1], KD_PART_SYMBOL, "function",
                        &t->function, error);
}

int
kd_trigger_parse(const char *text, struct kd_trigger *t, char **error)
{
    char *parts[4];
    char *copy;
    size_t n;
    int err;

    memset(t, 0, sizeof *t);
    *error = NULL;
    t->text = kd_xstrdup(text);

    copy = kd_xstrdup(text);
    n = kd_split(copy, parts, KD_ARRAY_SIZE(parts) - 1);
    if (n <= 1) {
        err = kd_trigger_error(t, error, "Can't extract probe type.");
        goto out;
    }

    err = EINVAL;
    for (size_t i = 0; i < KD_ARRAY_SIZE(kd_trigger_types); i++) {
        const struct kd_trigger_type_def *def = &kd_trigger_types[i];

        if (!strcmp(parts[0], def->name) || !strcmp(parts[0], def->alias)
            || (def->alias2 && !strcmp(parts[0], def->alias2))) {
            t->type = i;
            err = 0;
            break;
        }
    }
    if (err) {
        char quoted[128];

        err = kd_trigger_error(t, error, "Invalid probe type '%s'",
                               kd_trigger_quote(parts[0], quoted,
                                                sizeof quoted));
        goto out;
    }
    if (n > KD_ARRAY_SIZE(parts) - 1) {
        err = kd_trigger_error(t, error, "Too many ':' separated parts");
        goto out;
    }

    switch (t->type) {
    case KD_TRIGGER_USDT:
        err = kd_parse_usdt(t, parts, n, error);
        break;
    case KD_TRIGGER_TRACE:
        err = kd_parse_trace(t, parts, n, error);
        break;
    case KD_TRIGGER_KPROBE:
    case KD_TRIGGER_KRETPROBE:
        err = kd_parse_kprobe(t, parts, n, error);
        break;
    case KD_TRIGGER_UPROBE:
    case KD_TRIGGER_URETPROBE:
        err = kd_parse_uprobe(t, parts, n, error);
        break;
    case KD_N_TRIGGER_TYPES:
    default:
        err = EINVAL;
        break;
    }

out:
    free(copy);
    if (err) {
        kd_trigger_destroy(t);
    }
    return err;
}

void
kd_trigger_destroy(struct kd_trigger *t)
{
    free(t->text);
    free(t->provider);
    free(t->probe);
    free(t->system);
    free(t->event);
    free(t->function);
    free(t->library);
    memset(t, 0, sizeof *t);
}
